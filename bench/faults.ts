/**
 * Fault and abuse campaign (issue 15): generates a corpus of bad input (full disks, FIFOs, device nodes,
 * symlinks, non-trace JSON, hostile models, huge kernels, hostile queries and HTTP requests), runs the built
 * CLI on each case and reports whether it was handled cleanly: the expected exit code, one line on stderr
 * (`gsprof: <what>: <why>`) for failures, no stack trace, no hang, nothing replaced that must not be.
 *
 *   npx tsc -b && npm run bench:faults             # every case (a few minutes; some need root, e.g. tmpfs)
 *   npm run bench:faults -- --only open            # cases whose name contains "open"
 *   npm run bench:faults -- --rss                  # also peak RSS of query/convert/summary on a ~1 GB JSON
 *   npm run bench:faults -- --dir /big/tmp         # where the corpus goes (default: os tmpdir)
 *
 * A case that cannot run here (e.g. mounting a tmpfs without root) is reported as "not run", never as clean.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bigKernelTrace, chainModel, freeBodiesModel, includeBombModel, includeOfModel } from '../test/support/hostile.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'packages/cli/bin/run.js');
const isRoot = process.getuid?.() === 0;

interface Run { code: number | null; signal: string | null; stdout: string; stderr: string; ms: number; peakRssMb: number; timedOut: boolean }
type Outcome = { clean: boolean; note: string } | { notRun: string };
interface Case { name: string; run: () => Promise<Outcome> }

/** Peak RSS of a running process (VmHWM), in MB; 0 once it has gone. */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs a command, sampling its peak RSS; kills it after `timeoutMs`. `onStart` may signal it. */
function exec(cmd: string, args: string[], options: { timeoutMs?: number; cwd?: string; onStart?: (pid: number, out: { stdout: string }) => void; env?: NodeJS.ProcessEnv; uid?: number; gid?: number; discardStdout?: boolean } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? ROOT, stdio: ['ignore', options.discardStdout ? 'ignore' : 'pipe', 'pipe'],
      env: options.env ?? { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
    });
    const out = { stdout: '', stderr: '' };
    let peak = 0;
    let timedOut = false;
    child.stdout?.on('data', (d: Buffer) => { out.stdout += d.toString(); });
    child.stderr?.on('data', (d: Buffer) => { out.stderr += d.toString(); });
    const sampler = setInterval(() => { peak = Math.max(peak, peakRssMb(child.pid!)); }, 50);
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, options.timeoutMs ?? 120_000);
    options.onStart?.(child.pid!, out);
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({ code, signal, stdout: out.stdout, stderr: out.stderr, ms: performance.now() - t0, peakRssMb: peak, timedOut });
    });
  });
}

const gsprof = (args: string[], options: Parameters<typeof exec>[2] = {}): Promise<Run> => exec(process.execPath, [BIN, ...args], options);

/** The stderr lines that are not record's progress lines. */
function errorLines(r: Run): string[] {
  return r.stderr.trim().split('\n').filter((l) => l.length > 0 && !/^\w+: step \d+\/\d+ /.test(l));
}

/** Clean failure: exit 2, one `gsprof: ` line on stderr matching `pattern`, no stack, in time. */
function cleanError(r: Run, pattern?: RegExp): Outcome {
  const lines = errorLines(r);
  if (r.timedOut) return { clean: false, note: `hung (killed after ${(r.ms / 1000).toFixed(0)} s)` };
  if (/\n\s+at /.test(r.stderr)) return { clean: false, note: 'stack trace on stderr' };
  if (r.code !== 2) return { clean: false, note: `exit ${r.code ?? r.signal}${lines[0] ? `: ${lines[0].slice(0, 100)}` : ''}` };
  if (lines.length !== 1 || !lines[0]!.startsWith('gsprof: ')) return { clean: false, note: `${lines.length} stderr lines: ${lines[0]?.slice(0, 100) ?? ''}` };
  if (pattern && !pattern.test(lines[0]!)) return { clean: false, note: `unclear: ${lines[0]!.slice(0, 120)}` };
  return { clean: true, note: lines[0]!.slice(0, 120) };
}

/** Clean success: exit `code` (0 by default), nothing on stderr that looks like an error. */
function cleanSuccess(r: Run, codes: number[] = [0]): Outcome {
  if (r.timedOut) return { clean: false, note: `hung (killed after ${(r.ms / 1000).toFixed(0)} s)` };
  if (!codes.includes(r.code ?? -1)) return { clean: false, note: `exit ${r.code ?? r.signal}: ${errorLines(r)[0]?.slice(0, 120) ?? ''}` };
  if (/\n\s+at |Maximum call stack/.test(r.stderr)) return { clean: false, note: 'stack trace on stderr' };
  return { clean: true, note: `exit ${r.code} in ${(r.ms / 1000).toFixed(1)} s` };
}

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const port = (s.address() as { port: number }).port; s.close(() => resolve(port)); });
  });
}

function httpStatus(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** A model file loaded and built by sim-core in a child process (the CLI has no --model flag). */
function buildModel(file: string, nEnvs = 0): Promise<Run> {
  const script = `
    import * as gs from '@gsprof/sim-core';
    await gs.init({ backend: 'cpu', precision: '32', loggingLevel: 'warning' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    try {
      scene.addEntity(gs.morphs.MJCF({ file: ${JSON.stringify(file)} }));
      await scene.build({ nEnvs: ${nEnvs} });
      console.log('built');
    } catch (e) { process.stderr.write('gsprof: model: ' + e.message + '\\n'); process.exit(2); }`;
  return exec(process.execPath, ['--input-type=module', '-e', script], { cwd: join(ROOT, 'packages/cli'), timeoutMs: 60_000 });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, rss: { type: 'boolean', default: false }, dir: { type: 'string' } } });
  if (!existsSync(join(ROOT, 'packages/cli/dist'))) throw new Error('build first: npx tsc -b');
  const dir = mkdtempSync(join(values.dir ?? tmpdir(), 'gsprof-faults-'));
  const tiny = ['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '2', '--steps', '12', '--no-fps'];
  const mounts: string[] = [];

  // Shared corpus: one small real trace, its baseline, non-trace JSON, a 200k-instance kernel.
  const recDir = join(dir, 'rec');
  const rec = await gsprof([...tiny, '--out', recDir, '--baseline-out', join(dir, 'baseline.json')]);
  if (rec.code !== 0) throw new Error(`could not record the corpus trace: ${rec.stderr}`);
  const trace = join(recDir, readdirSync(recDir).find((f) => f.endsWith('.pftrace'))!);
  const baseline = join(dir, 'baseline.json');
  const pkgJson = join(ROOT, 'package.json');
  writeFileSync(join(dir, 'empty-object.json'), '{}');
  writeFileSync(join(dir, 'scalar.json'), '42');
  writeFileSync(join(dir, 'empty-trace.json'), '{"traceEvents":[]}');
  writeFileSync(join(dir, 'ts1e300.json'), '{"traceEvents":[{"ph":"X","name":"k","cat":"kernel","pid":1,"tid":1,"ts":1e300,"dur":1}]}');
  writeFileSync(join(dir, 'deep.json'), `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
  const big = join(dir, 'big-200k.json');
  await bigKernelTrace(big, 200_000);

  const tmpfs = (size: string): string | null => {
    if (!isRoot) return null;
    const mnt = mkdtempSync(join(dir, 'tmpfs-'));
    try { execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt], { stdio: 'ignore' }); } catch { return null; }
    mounts.push(mnt);
    return mnt;
  };
  const deviceNode = (name: string): string | null => {
    if (!isRoot) return null;
    const p = join(dir, name);
    execFileSync('mknod', [p, 'c', '1', '7']); // a private /dev/full
    return p;
  };
  const fifo = (name: string): string => { const p = join(dir, name); execFileSync('mkfifo', [p]); return p; };

  const cases: Case[] = [
    // Writes
    { name: 'record into a full disk (16 KiB tmpfs)', run: async () => {
      const mnt = tmpfs('16k');
      if (!mnt) return { notRun: 'needs root to mount a tmpfs' };
      return cleanError(await gsprof([...tiny, '--out', mnt]), /ENOSPC/);
    } },
    { name: 'record --json into a full disk does not print "traces": []', run: async () => {
      const mnt = tmpfs('16k');
      if (!mnt) return { notRun: 'needs root to mount a tmpfs' };
      const r = await gsprof([...tiny, '--out', mnt, '--json']);
      if (r.code === 0 || /"traces": \[\]/.test(r.stdout)) return { clean: false, note: `exit ${r.code}, traces: [] printed as success` };
      return { clean: r.code === 2 && /ENOSPC/.test(r.stdout), note: r.stdout.replace(/\s+/g, ' ').slice(0, 120) };
    } },
    { name: 'record into a folder it cannot write', run: async () => {
      writeFileSync(join(dir, 'blocker'), 'x');
      return cleanError(await gsprof([...tiny, '--out', join(dir, 'blocker', 'traces')]), /blocker/);
    } },
    { name: '--baseline-out a device node stays a device', run: async () => {
      const dev = deviceNode('full-dev');
      if (!dev) return { notRun: 'needs root to make a device node' };
      const r = await gsprof([...tiny, '--out', join(dir, 'o1'), '--baseline-out', dev]);
      if (!lstatSync(dev).isCharacterDevice()) return { clean: false, note: 'the device node was replaced by a regular file' };
      return cleanError(r, /device/);
    } },
    { name: '--baseline-out a FIFO stays a FIFO', run: async () => {
      const p = fifo('baseline-fifo');
      const r = await gsprof([...tiny, '--out', join(dir, 'o2'), '--baseline-out', p], { timeoutMs: 60_000 });
      if (!lstatSync(p).isFIFO()) return { clean: false, note: 'the FIFO was replaced by a regular file' };
      return cleanError(r, /FIFO/);
    } },
    { name: '--baseline-out through a symlink keeps the link', run: async () => {
      writeFileSync(join(dir, 'real-baseline.json'), 'old');
      symlinkSync('real-baseline.json', join(dir, 'baseline-link.json'));
      const r = await gsprof([...tiny, '--out', join(dir, 'o3'), '--baseline-out', join(dir, 'baseline-link.json')]);
      if (!lstatSync(join(dir, 'baseline-link.json')).isSymbolicLink()) return { clean: false, note: 'the symlink was replaced by a regular file' };
      if (!readFileSync(join(dir, 'real-baseline.json'), 'utf8').includes('gsprof-baseline')) return { clean: false, note: 'the link target was not written' };
      return cleanSuccess(r);
    } },
    { name: 'convert to a FIFO stays a FIFO', run: async () => {
      const p = fifo('convert-fifo.json');
      const r = await gsprof(['convert', trace, p], { timeoutMs: 60_000 });
      if (!lstatSync(p).isFIFO()) return { clean: false, note: 'the FIFO was replaced by a regular file' };
      return cleanError(r, /FIFO/);
    } },
    { name: 'convert through a symlink keeps the link', run: async () => {
      symlinkSync('convert-target.json', join(dir, 'convert-link.json'));
      const r = await gsprof(['convert', trace, join(dir, 'convert-link.json')]);
      if (!lstatSync(join(dir, 'convert-link.json')).isSymbolicLink() || readlinkSync(join(dir, 'convert-link.json')) !== 'convert-target.json') return { clean: false, note: 'the symlink was replaced' };
      return cleanSuccess(r);
    } },
    // Signals during record (a run long enough to be interrupted)
    ...(['SIGTERM', 'SIGHUP', 'SIGINT'] as const).map((sig): Case => ({ name: `${sig} during record leaves a valid trace`, run: async () => {
      const out = join(dir, `sig-${sig}`);
      const r = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '64', '--steps', '100000', '--no-fps', '--out', out, '--format', 'perfetto'], {
        timeoutMs: 60_000,
        onStart: (pid) => { setTimeout(() => process.kill(pid, sig), 4000); },
      });
      const files = existsSync(out) ? readdirSync(out) : [];
      const done = files.filter((f) => f.endsWith('.pftrace'));
      if (done.length === 0) return { clean: false, note: `no trace written (exit ${r.code ?? r.signal}; files: ${files.join(', ') || 'none'})` };
      const check = await gsprof(['summary', join(out, done[0]!)]);
      return check.code === 0 ? { clean: true, note: `exit ${r.code ?? r.signal}, ${done[0]} reads back` } : { clean: false, note: `trace does not read back: ${errorLines(check)[0] ?? ''}` };
    } })),
    // Non-trace input and compare with no data
    { name: 'compare: empty trace as the current run', run: async () => cleanError(await gsprof(['compare', baseline, join(dir, 'empty-trace.json')])) },
    { name: 'compare: {} as the current run', run: async () => cleanError(await gsprof(['compare', baseline, join(dir, 'empty-object.json')])) },
    { name: 'compare: package.json as the current run', run: async () => cleanError(await gsprof(['compare', baseline, pkgJson])) },
    { name: 'summary package.json', run: async () => cleanError(await gsprof(['summary', pkgJson])) },
    { name: 'diff against package.json', run: async () => cleanError(await gsprof(['diff', trace, pkgJson])) },
    { name: 'convert package.json', run: async () => cleanError(await gsprof(['convert', pkgJson, join(dir, 'pkg.pftrace')])) },
    // Refused as a JSON value that is not a trace; the line may name the protobuf format as a hint, but no protobuf
    // decoding error (wire type) may show.
    { name: 'summary of a JSON scalar (not read as protobuf)', run: async () => cleanError(await gsprof(['summary', join(dir, 'scalar.json')]), /^(?!.*wire type).*not a trace/) },
    { name: 'summary: ts 1e300 names the event', run: async () => cleanError(await gsprof(['summary', join(dir, 'ts1e300.json')]), /event|ts/) },
    { name: 'summary: 1e6-deep JSON nesting', run: async () => cleanError(await gsprof(['summary', join(dir, 'deep.json')]), /^(?!.*Maximum call stack)/) },
    { name: 'summary: folder whose newest .pftrace is a FIFO', run: async () => {
      const d = join(dir, 'fifo-folder');
      mkdirSync(d);
      writeFileSync(join(d, 'old.pftrace'), readFileSync(trace));
      execFileSync('mkfifo', [join(d, 'new.pftrace')]);
      // A folder means its newest regular trace file: the FIFO is passed over (never opened, so no hang) and the
      // summary says which file it read.
      const r = await gsprof(['summary', d], { timeoutMs: 30_000 });
      const res = cleanSuccess(r);
      if ('clean' in res && res.clean && !r.stdout.includes('old.pftrace')) return { clean: false, note: 'does not say which trace it read' };
      return res;
    } },
    { name: 'summary: folder entry that is a directory', run: async () => {
      const d = join(dir, 'dir-folder');
      mkdirSync(join(d, 'x.pftrace'), { recursive: true });
      // Only regular files are traces: the folder has none, said in one line naming it (never EISDIR).
      return cleanError(await gsprof(['summary', d], { timeoutMs: 30_000 }), /dir-folder: folder has no trace/);
    } },
    // Queries
    { name: 'query: EXPLAIN ANALYZE DELETE is refused', run: async () => cleanError(await gsprof(['query', trace, 'EXPLAIN ANALYZE DELETE FROM slice'])) },
    { name: 'query: EXPLAIN ANALYZE CREATE TABLE is refused', run: async () => cleanError(await gsprof(['query', trace, 'EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1'])) },
    { name: 'query: empty query', run: async () => cleanError(await gsprof(['query', trace, '']), /^(?!.*native callback)/) },
    { name: 'query: range(1e11) ends (timeout)', run: async () => cleanError(await gsprof(['query', trace, 'select * from range(100000000000)', '--format', 'csv'], { timeoutMs: 90_000, discardStdout: true })) },
    { name: 'query: endless recursive CTE ends (timeout)', run: async () => cleanError(await gsprof(['query', trace, 'with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r'], { timeoutMs: 90_000 })) },
    { name: 'query: select * from range(3e7) --format csv stays under 1.5 GB', run: async () => {
      const r = await gsprof(['query', trace, 'select * from range(30000000)', '--format', 'csv'], { timeoutMs: 300_000, discardStdout: true });
      if (r.peakRssMb > 1536) return { clean: false, note: `peak RSS ${r.peakRssMb.toFixed(0)} MB` };
      const res = r.code === 0 ? cleanSuccess(r) : cleanError(r);
      return 'clean' in res ? { clean: res.clean, note: `${res.note}; peak RSS ${r.peakRssMb.toFixed(0)} MB` } : res;
    } },
    // Size
    { name: 'summary: 200k-instance kernel', run: async () => cleanSuccess(await gsprof(['summary', big], { timeoutMs: 120_000 })) },
    { name: 'compare: 200k-instance kernel against itself', run: async () => cleanSuccess(await gsprof(['compare', big, big], { timeoutMs: 120_000 }), [0, 1]) },
    { name: 'timers: 200k-instance kernel trace', run: async () => {
      const r = await gsprof(['timers', big], { timeoutMs: 120_000 });
      return r.code === 0 ? cleanSuccess(r) : cleanError(r);
    } },
    { name: 'Ctrl-C during a big import leaves no temp database', run: async () => {
      const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('gsprof-trace-')));
      let child = 0;
      // --no-cache: from the import cache the summary can end before the signal, and there is no import to cut.
      await gsprof(['summary', big, '--no-cache'], { timeoutMs: 60_000, onStart: (pid) => {
        child = pid;
        setTimeout(() => { try { process.kill(pid, 'SIGINT'); } catch { /* it ended first */ } }, 1500);
      } });
      // Only this run's folders (their pid file names it): other gsprof runs on the machine make their own.
      const ownedBy = (f: string): number => { try { return Number(readFileSync(join(tmpdir(), f, 'pid'), 'utf8')); } catch { return child; } };
      const left = readdirSync(tmpdir()).filter((f) => f.startsWith('gsprof-trace-') && !before.has(f) && ownedBy(f) === child);
      return { clean: left.length === 0, note: left.length ? `left ${left.join(', ')}` : 'nothing left' };
    } },
    // Models (through sim-core: the CLI has no --model flag)
    { name: 'model: <include file="/dev/zero">', run: async () => cleanError(await buildModel(includeOfModel(dir, 'zero.xml', '/dev/zero')), /not a regular file/) },
    { name: 'model: include of a FIFO', run: async () => { fifo('model-fifo.xml'); return cleanError(await buildModel(includeOfModel(dir, 'inc-fifo.xml', 'model-fifo.xml')), /FIFO/); } },
    { name: 'model: 26 levels of 2-way includes', run: async () => cleanError(await buildModel(includeBombModel(mkdtempSync(join(dir, 'bomb-')), 26)), /included files|nested/) },
    { name: 'model: 2,000 free bodies refused by size', run: async () => {
      const r = await buildModel(freeBodiesModel(dir, 2000));
      if (r.peakRssMb > 1536) return { clean: false, note: `peak RSS ${r.peakRssMb.toFixed(0)} MB` };
      return cleanError(r, /GiB/);
    } },
    { name: 'model: 20,000 free bodies', run: async () => cleanError(await buildModel(freeBodiesModel(dir, 20_000)), /^(?!.*Maximum call stack)/) },
    { name: 'model: 20,000-deep chain', run: async () => cleanError(await buildModel(chainModel(dir, 20_000)), /^(?!.*Maximum call stack)/) },
    // open
    { name: 'open: a non-loopback Host header gets 403', run: async () => {
      const port = await freePort();
      let status = 0;
      const r = await gsprof(['open', trace, '--port', String(port), '--no-browser'], {
        timeoutMs: 20_000,
        onStart: (_pid, out) => {
          const poll = setInterval(() => {
            if (!out.stdout.includes('Open in Perfetto')) return;
            clearInterval(poll);
            void (async () => {
              status = await httpStatus(port, `/${encodeURIComponent(trace.split('/').pop()!)}`, `rebound.example:${port}`);
              await httpStatus(port, `/${encodeURIComponent(trace.split('/').pop()!)}`, `127.0.0.1:${port}`);
            })();
          }, 50);
        },
      });
      return { clean: status === 403 && r.code === 0, note: `rebinding Host got ${status}; exit ${r.code}` };
    } },
    { name: 'open: an unreadable file is reported before serving', run: async () => {
      const d = mkdtempSync(join(dir, 'secret-'));
      execFileSync('chmod', ['755', dir, d]);
      const f = join(d, 'secret.pftrace');
      writeFileSync(f, readFileSync(trace));
      execFileSync('chmod', ['000', f]);
      const as = isRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: d, XDG_DATA_HOME: d, XDG_CACHE_HOME: d, XDG_CONFIG_HOME: d } } : {};
      const r = await gsprof(['open', f, '--port', String(await freePort()), '--no-browser'], { timeoutMs: 10_000, ...as });
      if (r.stdout.includes('Serving')) return { clean: false, note: 'announced, then served' };
      return cleanError(r, /secret\.pftrace/);
    } },
    { name: 'open: Ctrl-C exits 130', run: async () => {
      const r = await gsprof(['open', trace, '--port', String(await freePort()), '--no-browser'], {
        timeoutMs: 20_000,
        onStart: (pid, out) => { const poll = setInterval(() => { if (out.stdout.includes('Open in Perfetto')) { clearInterval(poll); process.kill(pid, 'SIGINT'); } }, 50); },
      });
      return { clean: r.code === 130, note: `exit ${r.code}` };
    } },
    // Unclear errors
    { name: 'record --n-envs 1000000000', run: async () => cleanError(await gsprof(['record', '--backend', 'cpu', '--n-envs', '1000000000', '--steps', '2', '--out', join(dir, 'o4')]), /^(?!.*Array buffer allocation failed)/) },
    { name: 'bench --n-envs 1000000000', run: async () => cleanError(await gsprof(['bench', '--backend', 'cpu', '--n-envs', '1000000000'])) },
    { name: 'record --out X -- (nothing after --)', run: async () => {
      const out = join(dir, 'o5');
      const r = await gsprof(['record', '--out', out, '--']);
      if (existsSync(out)) return { clean: false, note: 'ran the default example' };
      return cleanError(r);
    } },
  ];

  const selected = cases.filter((c) => !values.only || c.name.includes(values.only));
  const results: { name: string; outcome: Outcome }[] = [];
  try {
    for (const c of selected) {
      let outcome: Outcome;
      try { outcome = await c.run(); } catch (e) { outcome = { clean: false, note: `campaign error: ${(e as Error).message.split('\n')[0]}` }; }
      results.push({ name: c.name, outcome });
      const mark = 'notRun' in outcome ? 'not run' : outcome.clean ? 'clean' : 'NOT CLEAN';
      console.log(`${mark.padEnd(9)}  ${c.name}: ${'notRun' in outcome ? outcome.notRun : outcome.note}`);
    }
  } finally {
    for (const m of mounts) { try { execFileSync('umount', [m]); } catch { /* leave it */ } }
  }
  const ran = results.filter((r) => !('notRun' in r.outcome));
  const clean = ran.filter((r) => 'clean' in r.outcome && r.outcome.clean);
  console.log(`\nhandled cleanly: ${clean.length} of ${ran.length} (${ran.length ? ((100 * clean.length) / ran.length).toFixed(0) : 0}%); not run here: ${results.length - ran.length}`);

  if (values.rss) {
    // ~1 GB Chrome JSON: 9.4M instances of one kernel at ~111 bytes each.
    const gb = join(dir, 'big-1gb.json');
    await bigKernelTrace(gb, 9_400_000);
    console.log(`\npeak RSS on a ${(statSync(gb).size / 1e9).toFixed(2)} GB Chrome JSON (goal: under 1.5 GB)`);
    const runs: [string, string[]][] = [
      ['summary', ['summary', gb]],
      ['query (csv, every slice)', ['query', gb, 'select * from slice', '--format', 'csv']],
      ['convert to .pftrace', ['convert', gb, join(dir, 'big-1gb.pftrace')]],
    ];
    for (const [label, args] of runs) {
      const r = await gsprof(args, { timeoutMs: 600_000, discardStdout: true });
      console.log(`${label.padEnd(26)} exit ${r.code ?? r.signal}  ${(r.ms / 1000).toFixed(1)} s  peak RSS ${r.peakRssMb.toFixed(0)} MB${r.code === 0 ? '' : `  ${errorLines(r)[0]?.slice(0, 100) ?? ''}`}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
