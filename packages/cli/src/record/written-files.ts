/** Which trace files a run wrote: the handlers name files themselves ({worker}.{time_ns}...), so the CLI
 * compares the output folder before and after. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const TRACE_FILE = /\.(pftrace|json|json\.gz)$/;

export function snapshotDir(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  let names: string[] = [];
  try { names = readdirSync(dir); } catch { return out; }
  for (const name of names) {
    if (!TRACE_FILE.test(name)) continue;
    try { out.set(name, statSync(join(dir, name)).mtimeMs); } catch { /* vanished */ }
  }
  return out;
}

/** Trace files that are new or changed since `before`, oldest first. */
export function writtenSince(dir: string, before: Map<string, number>): string[] {
  const after = snapshotDir(dir);
  return [...after.entries()]
    .filter(([name, mtime]) => before.get(name) !== mtime)
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .map(([name]) => join(dir, name));
}
