/**
 * gsprof's temporary folders (`gsprof-<kind>-*` in TMPDIR): each holds a `pid` file naming the process that owns
 * it, is removed when that process exits (normally, by an error, or by a SIGINT/SIGTERM/SIGHUP nobody else
 * handles), and, where the owner was killed outright (SIGKILL, a crash), by the next gsprof process that starts
 * one. Shared by every package (the Dawn runtime folder, the import databases, `record`'s work folders), so it
 * lives in the lowest one.
 */
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder kinds gsprof makes; only these are ever removed by the sweep. */
const KINDS = /^gsprof-(xdg|run|runs|trace|cache)-/;
/** A folder with no pid file this old was left by a gsprof from before pid files (or died in its first moment). */
const NO_PID_STALE_MS = 24 * 3600 * 1000;
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const live = new Set<string>();
let cleanupInstalled = false;

function removeLive(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

/** On a signal nobody else handles (only this listener): remove the folders, then die of the same signal, so the
 * exit status is what it would have been. A program that handles the signal itself exits through 'exit'. */
function onSignal(sig: NodeJS.Signals): void {
  if (process.listenerCount(sig) > 1) return;
  removeLive();
  for (const s of EXIT_SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, sig);
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', removeLive);
  for (const s of EXIT_SIGNALS) process.on(s, onSignal);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the gsprof folders in `dir` whose owner is gone; returns their paths. A folder without a pid (yet) is
 * another process's in its first moment, unless a day old. A reused pid only keeps a stale folder longer. */
export function removeStaleTempDirs(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try { names = readdirSync(dir); } catch { return removed; }
  for (const name of names) {
    if (!KINDS.test(name)) continue;
    const path = join(dir, name);
    if (live.has(path)) continue;
    let pid = Number.NaN;
    try { pid = Number(readFileSync(join(path, 'pid'), 'utf8')); } catch { /* no pid file yet */ }
    let stale: boolean;
    if (Number.isInteger(pid) && pid > 0) stale = !pidAlive(pid);
    else {
      try { stale = Date.now() - statSync(path).mtimeMs > NO_PID_STALE_MS; } catch { stale = false; }
    }
    if (!stale) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch { /* another user's folder or already gone: not ours to report */ }
  }
  return removed;
}

/** A new private folder `gsprof-<kind>-XXXXXX` in TMPDIR owned by this process (after sweeping stale ones). */
export function makeTempDir(kind: string): string {
  removeStaleTempDirs();
  const dir = mkdtempSync(join(tmpdir(), `gsprof-${kind}-`));
  live.add(dir);
  installCleanup();
  // Written whole (rename) so a sweep never reads half a pid.
  writeFileSync(join(dir, 'pid.tmp'), String(process.pid));
  renameSync(join(dir, 'pid.tmp'), join(dir, 'pid'));
  return dir;
}

/** Removes a folder from makeTempDir now. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
}
