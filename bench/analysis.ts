/**
 * Trace import and analysis benchmark: generates synthetic gsprof-like traces (steps, submits, kernels on a GPU
 * queue, ac2g flows, a counter) in Chrome JSON and Perfetto protobuf, then imports each in a fresh child
 * process and reports import rate, kernelSummary time and the child's peak RSS.
 *
 *   npm run bench:analysis                       # 1M and 10M events, both formats
 *   npm run bench:analysis -- --sizes 1e6        # only 1M
 *   npm run bench:analysis -- --gb               # 100 MB and 1 GB Chrome JSON, on-disk DuckDB with a 256 MB limit:
 *                                                # peak RSS stays the same while the file grows 10x
 *   npm run bench:analysis -- --dir /some/tmp    # where generated traces go (default: os tmpdir); kept for reuse
 *   npm run bench:analysis -- --kineto SAMPLE.json.gz --kineto-mib 200
 *                                                # also a Kineto trace: SAMPLE's events (with their args) repeated,
 *                                                # later in time, up to that size; the synthetic traces have no args;
 *                                                # and the same trace as a .pftrace, made by `gsprof convert`
 *   npm run bench:analysis -- --trace-processor PATH
 *                                                # also time Perfetto's trace_processor_shell and `gsprof query` on
 *                                                # each file (same group-by, import cache off, alternating, 3 runs
 *                                                # each) and report the ratio of the medians
 *
 * The generators stream to disk, so generating a 10M-event trace needs no more memory than a 1M one.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { kernelSummary, openTrace } from '@gsprof/profiler';

/** The built gsprof CLI, which the comparisons run as a user would. */
const CLI = fileURLToPath(new URL('../packages/cli/bin/run.js', import.meta.url));
const KERNELS = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'actuation', 'rne', 'smooth_acc', 'collision', 'solve'];
/** Slices per step: the step, its submit, one per kernel; plus one counter sample. */
const EVENTS_PER_STEP = 2 + KERNELS.length + 1;

// ---------------------------------------------------------------------------------------------------------
// Streaming writers

class Out {
  private parts: (string | Uint8Array)[] = [];
  private size = 0;
  private readonly stream;
  constructor(path: string) { this.stream = createWriteStream(path); }
  async write(p: string | Uint8Array): Promise<void> {
    this.parts.push(p);
    this.size += p.length;
    if (this.size > 1 << 20) await this.flush();
  }
  private async flush(): Promise<void> {
    const buf = Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    this.parts = [];
    this.size = 0;
    if (!this.stream.write(buf)) await new Promise<void>((r) => this.stream.once('drain', () => r()));
  }
  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((r, j) => this.stream.end((e?: Error | null) => (e ? j(e) : r())));
  }
}

/** Synthetic step timeline (ns): step k starts at k*period; submit, then kernels back to back on the queue. */
function* steps(events: number): Generator<{ step: number; t0: number; kernels: { name: string; ts: number; dur: number }[] }> {
  const nSteps = Math.ceil(events / EVENTS_PER_STEP);
  for (let s = 0; s < nSteps; s++) {
    const t0 = s * 200_000;
    let t = t0 + 20_000;
    const kernels = KERNELS.map((name, i) => {
      const dur = 5_000 + ((s * 7 + i * 13) % 11) * 1_000;
      const k = { name, ts: t, dur };
      t += dur + 2_000;
      return k;
    });
    yield { step: s, t0, kernels };
  }
}

const us = (ns: number) => (ns / 1000).toFixed(3);

async function writeChromeJson(path: string, events: number): Promise<number> {
  const out = new Out(path);
  let n = 0;
  await out.write('{"schemaVersion":1,"gsprofMetadata":{"run":{"nEnvs":4096}},"traceEvents":[\n');
  await out.write('{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host"}},\n{"ph":"M","name":"process_name","pid":1000,"tid":0,"args":{"name":"GPU 0"}}');
  for (const { step, t0, kernels } of steps(events)) {
    let s = `,\n{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${step}","pid":1,"tid":1,"ts":${us(t0)},"dur":${us(190_000)}}`;
    s += `,\n{"ph":"X","cat":"cuda_runtime","name":"queue.submit","pid":1,"tid":1,"ts":${us(t0 + 10_000)},"dur":${us(5_000)}}`;
    s += `,\n{"ph":"s","cat":"ac2g","name":"ac2g","id":${step},"pid":1,"tid":1,"ts":${us(t0 + 10_000)}}`;
    // As Kineto writes them: each flow end right after the kernel it binds to.
    kernels.forEach((k, i) => {
      s += `,\n{"ph":"X","cat":"kernel","name":"${k.name}","pid":1000,"tid":0,"ts":${us(k.ts)},"dur":${us(k.dur)}}`;
      if (i === 0) s += `,\n{"ph":"f","cat":"ac2g","name":"ac2g","id":${step},"pid":1000,"tid":0,"ts":${us(k.ts)},"bp":"e"}`;
    });
    s += `,\n{"ph":"C","name":"solver iterations","pid":1,"ts":${us(t0 + 180_000)},"args":{"value":${10 + (step % 5)}}}`;
    await out.write(s);
    n += EVENTS_PER_STEP;
  }
  await out.write('\n]}\n');
  await out.close();
  return n;
}

// Perfetto: hand-encoded packets (interned names, BEGIN/END pairs, flows, a counter track).
function varint(v: number, out: number[]): void {
  while (v >= 0x80) { out.push((v % 0x80) | 0x80); v = Math.floor(v / 0x80); }
  out.push(v);
}
function field(no: number, v: number, out: number[]): void { varint(no << 3, out); varint(v, out); }
function bytes(no: number, b: number[] | Uint8Array, out: number[]): void { varint((no << 3) | 2, out); varint(b.length, out); for (const x of b) out.push(x); }
function str(no: number, s: string, out: number[]): void { bytes(no, Buffer.from(s), out); }
function packet(body: number[], out: number[]): void { bytes(1, body, out); }

async function writePerfetto(path: string, events: number): Promise<number> {
  const out = new Out(path);
  const BASE = 1_000_000_000_000_000; // ns since boot: exact in a double
  const head: number[] = [];
  const names = ['ProfilerStep', 'queue.submit', ...KERNELS];
  const tracks = [[1, 'main', 1, 1], [2, 'queue 0', 1000, 0]] as const;
  for (const [uuid, name, pid, tid] of tracks) {
    const p: number[] = [];
    field(10, 1, p); field(8, BASE, p);
    if (uuid === 1) field(13, 3, p);
    const d: number[] = []; field(1, uuid, d);
    const th: number[] = []; field(1, pid, th); field(2, tid, th); str(5, name, th);
    bytes(4, th, d); bytes(60, d, p);
    if (uuid === 1) {
      const interned: number[] = [];
      names.forEach((n, i) => { const e: number[] = []; field(1, i + 1, e); str(2, n, e); bytes(2, e, interned); });
      ['user_annotation', 'cuda_runtime', 'kernel'].forEach((c, i) => { const e: number[] = []; field(1, i + 1, e); str(2, c, e); bytes(1, e, interned); });
      bytes(12, interned, p);
    }
    packet(p, head);
  }
  { // counter track
    const p: number[] = []; field(10, 1, p); field(8, BASE, p);
    const d: number[] = []; field(1, 3, d); str(2, 'solver iterations', d); const c: number[] = []; field(3, 2, c); bytes(8, c, d);
    bytes(60, d, p); packet(p, head);
  }
  await out.write(Uint8Array.from(head));
  let n = 0;
  const ev = (ts: number, type: number, track: number, nameIid: number, catIid: number, flow: number | null, o: number[]) => {
    const p: number[] = []; field(10, 1, p); field(13, 2, p); field(8, BASE + ts, p);
    const e: number[] = []; field(9, type, e); field(11, track, e);
    if (type !== 2) { field(10, nameIid, e); field(3, catIid, e); }
    if (flow !== null) { varint((47 << 3) | 1, e); const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(flow)); for (const x of b) e.push(x); }
    bytes(11, e, p); packet(p, o);
  };
  for (const { step, t0, kernels } of steps(events)) {
    const o: number[] = [];
    ev(t0, 1, 1, 1, 1, null, o);
    ev(t0 + 10_000, 1, 1, 2, 2, step + 1, o);
    ev(t0 + 15_000, 2, 1, 0, 0, null, o);
    kernels.forEach((k, i) => { ev(k.ts, 1, 2, 3 + i, 3, i === 0 ? step + 1 : null, o); ev(k.ts + k.dur, 2, 2, 0, 0, null, o); });
    { const p: number[] = []; field(10, 1, p); field(8, BASE + t0 + 180_000, p); const e: number[] = []; field(9, 4, e); field(11, 3, e); field(30, 10 + (step % 5), e); bytes(11, e, p); packet(p, o); }
    ev(t0 + 190_000, 2, 1, 0, 0, null, o);
    await out.write(Uint8Array.from(o));
    n += EVENTS_PER_STEP;
  }
  await out.close();
  return n;
}

/**
 * A Kineto trace of about `mib` MiB: the sample's non-metadata events again and again, each copy later by the
 * sample's span, with its ids (flow ids, correlation, External id...) moved past the copy before's.
 */
async function writeKineto(path: string, sample: string, mib: number): Promise<number> {
  const raw = readFileSync(sample);
  const src = JSON.parse((raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString()) as { traceEvents: Record<string, unknown>[] };
  const meta = src.traceEvents.filter((e) => e.ph === 'M');
  const body = src.traceEvents.filter((e) => e.ph !== 'M');
  let t0 = Infinity, t1 = -Infinity;
  for (const e of body) {
    if (typeof e.ts === 'number') { t0 = Math.min(t0, e.ts); t1 = Math.max(t1, e.ts + (typeof e.dur === 'number' ? e.dur : 0)); }
  }
  const span = Math.ceil(t1 - t0) + 10;
  const ID_ARGS = ['correlation', 'External id', 'Record function id', 'Sequence number', 'Ev Idx'];
  const out = new Out(path);
  const top = Object.entries(src).filter(([k]) => k !== 'traceEvents').map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  await out.write(`{${top.map((t) => `${t},`).join('')}"traceEvents":[\n${meta.map((e) => JSON.stringify(e)).join(',\n')}`);
  let n = 0, bytes = 0;
  for (let copy = 0; bytes < mib * 2 ** 20; copy++) {
    for (const e of body) {
      const c: Record<string, unknown> = { ...e };
      if (typeof c.ts === 'number') c.ts = Number((c.ts + copy * span).toFixed(3));
      if (typeof c.id === 'number') c.id += copy * 10_000_000;
      if (c.args && typeof c.args === 'object') {
        const a: Record<string, unknown> = { ...(c.args as Record<string, unknown>) };
        for (const k of ID_ARGS) if (typeof a[k] === 'number') a[k] = (a[k] as number) + copy * 10_000_000;
        c.args = a;
      }
      const text = `,\n${JSON.stringify(c)}`;
      bytes += text.length;
      await out.write(text);
      n++;
    }
  }
  await out.write('\n]}\n');
  await out.close();
  return n;
}

/** Median wall seconds of trace_processor_shell and of `gsprof query`, the same group-by, alternating. */
function versusTraceProcessor(tp: string, path: string, dir: string): { tpS: number; gsS: number } {
  const sql = 'select name, count(*), sum(dur) from slice group by name';
  const q = join(dir, 'tp-query.sql');
  writeFileSync(q, `${sql};\n`);
  const wall = (cmd: string, args: string[], env: NodeJS.ProcessEnv): number => {
    const t = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, env });
    if (r.status !== 0) throw new Error(`${cmd} failed on ${path}: ${r.stderr.split('\n')[0]}`);
    return (performance.now() - t) / 1000;
  };
  const tps: number[] = [], gss: number[] = [];
  for (let i = 0; i < 3; i++) {
    tps.push(wall(tp, ['-q', q, path], process.env));
    gss.push(wall(process.execPath, [CLI, 'query', path, sql, '--format', 'csv'], { ...process.env, GSPROF_NO_CACHE: '1' }));
  }
  const median = (a: number[]) => a.sort((x, y) => x - y)[1]!;
  return { tpS: median(tps), gsS: median(gss) };
}

/** `gsprof convert` of a trace to a .pftrace at `to` (written under a .pftrace name first: convert goes by it). */
function convertWithCli(from: string, to: string): void {
  const out = `${to}.pftrace`;
  const r = spawnSync(process.execPath, [CLI, 'convert', from, out], { encoding: 'utf8', env: { ...process.env, GSPROF_NO_CACHE: '1' } });
  if (r.status !== 0) throw new Error(`gsprof convert ${from} failed: ${r.stderr.split('\n')[0]}`);
  renameSync(out, to);
}

// ---------------------------------------------------------------------------------------------------------
// Child: import one file and report

async function importOne(path: string, memoryLimit: string | undefined): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  // Every import writes a database file (then reopened read-only); --on-disk is kept for older command lines.
  // The parent gives each trace an empty import cache: the first child imports and keeps the tables, the
  // second opens them, as a user's second command on the trace does.
  const db = await openTrace(path, { memoryLimit });
  const importS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  // DuckDB's own threads are included: cpuUsage covers the whole process.
  const importCpuS = (cpu.user + cpu.system) / 1e6;
  const { rows } = await db.query('select (select count(*) from slice) + (select count(*) from counter) as n');
  const t1 = performance.now();
  // A summary that does not fit the memory limit is a result of the run, reported in its cell.
  let kernels = 0;
  let summaryError: string | null = null;
  try {
    const k = await kernelSummary(db);
    kernels = k.tracks.reduce((s, t) => s + t.kernels.reduce((a, r) => a + r.instances, 0), 0);
  } catch (err) {
    summaryError = (err as Error).message.split('\n')[0]!;
  }
  const summaryS = (performance.now() - t1) / 1000;
  await db.close();
  process.stdout.write(`${JSON.stringify({ events: Number(rows[0]!.n), kernels, importS, importCpuS, summaryS, summaryError, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    sizes: { type: 'string', default: '1e6,1e7' }, formats: { type: 'string', default: 'json,pftrace' },
    gb: { type: 'boolean', default: false }, dir: { type: 'string' }, 'import-one': { type: 'string' },
    'on-disk': { type: 'boolean' }, 'memory-limit': { type: 'string' },
    kineto: { type: 'string' }, 'kineto-mib': { type: 'string', default: '200' }, 'trace-processor': { type: 'string' },
  } });
  if (values['import-one']) { await importOne(values['import-one'], values['memory-limit']); return; }
  const dir = values.dir ?? join(tmpdir(), 'gsprof-bench-analysis');
  mkdirSync(dir, { recursive: true });
  const jobs: { events: number; format: string }[] = [];
  // --gb: the same on-disk database and memory limit for a 100 MB and a 1 GB file; peak RSS should not grow.
  if (values.gb) jobs.push({ events: 1_000_000, format: 'json' }, { events: 10_000_000, format: 'json' });
  else for (const s of values.sizes.split(',')) for (const f of values.formats.split(',')) jobs.push({ events: Number(s), format: f });
  if (values.kineto) jobs.push({ events: Number(values['kineto-mib']), format: 'kineto' }, { events: Number(values['kineto-mib']), format: 'kineto-pftrace' });
  const versus: string[] = [];

  console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs; traces in ${dir}`);
  console.log('| format | events | file | generate | import (wall) | import (CPU) | rate (wall) | rate (CPU) | kernelSummary | peak RSS (child) | 2nd command: open + kernelSummary |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const job of jobs) {
    const path = job.format === 'kineto' ? join(dir, `kineto-${job.events}MiB.json`)
      : job.format === 'kineto-pftrace' ? join(dir, `kineto-${job.events}MiB.pftrace`)
      : join(dir, `bench-${job.events}.${job.format === 'json' ? 'json' : 'pftrace'}`);
    let genS = NaN;
    if (!existsSync(path)) {
      const t = performance.now();
      const tmp = `${path}.partial`;
      if (job.format === 'kineto') await writeKineto(tmp, values.kineto!, job.events);
      else if (job.format === 'kineto-pftrace') convertWithCli(join(dir, `kineto-${job.events}MiB.json`), tmp);
      else if (job.format === 'json') await writeChromeJson(tmp, job.events); else await writePerfetto(tmp, job.events);
      renameSync(tmp, path);
      genS = (performance.now() - t) / 1000;
    }
    const self = fileURLToPath(import.meta.url);
    const extra = values.gb ? ['--on-disk', '--memory-limit', values['memory-limit'] ?? '256MB']
      : values['memory-limit'] ? ['--memory-limit', values['memory-limit']] : [];
    const cache = mkdtempSync(join(tmpdir(), 'gsprof-bench-cache-'));
    const runChild = (): { events: number; importS: number; importCpuS: number; summaryS: number; summaryError: string | null; maxRssMiB: number } => {
      const child = spawnSync(process.execPath, [...process.execArgv, self, '--import-one', path, ...extra],
        { encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, GSPROF_CACHE_DIR: cache } });
      if (child.status !== 0) { console.error(child.stderr); throw new Error(`import of ${path} failed`); }
      return JSON.parse(child.stdout.trim().split('\n').pop()!);
    };
    const r = runChild();
    const again = runChild();
    rmSync(cache, { recursive: true, force: true });
    const mb = statSync(path).size / 2 ** 20;
    if (values['trace-processor']) {
      const v = versusTraceProcessor(values['trace-processor'], path, dir);
      versus.push(`| ${job.format} | ${mb.toFixed(0)} MiB | ${v.tpS.toFixed(2)} s | ${v.gsS.toFixed(2)} s | ${(v.gsS / v.tpS).toFixed(2)}x |`);
    }
    console.log(`| ${job.format} | ${(r.events / 1e6).toFixed(2)}M | ${mb.toFixed(0)} MiB | ${Number.isNaN(genS) ? 'cached' : `${genS.toFixed(1)} s`} | ${r.importS.toFixed(1)} s | ${r.importCpuS.toFixed(1)} s | ${(r.events / r.importS / 1e6).toFixed(2)} M/s | ${(r.events / r.importCpuS / 1e6).toFixed(2)} M/s | ${r.summaryError ? `failed: ${r.summaryError}` : `${(r.summaryS * 1000).toFixed(0)} ms`} | ${r.maxRssMiB.toFixed(0)} MiB | ${again.summaryError ? 'failed' : `${(again.importS + again.summaryS).toFixed(2)} s`} |`);
  }
  if (versus.length > 0) {
    console.log('\nFirst import and a group-by, trace_processor_shell against `gsprof query` (import cache off), median of 3 each:\n');
    console.log('| file | size | trace_processor | gsprof query | ratio |');
    console.log('|---|---|---|---|---|');
    for (const line of versus) console.log(line);
  }
}

await main();
