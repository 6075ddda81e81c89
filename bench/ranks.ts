/**
 * Many ranks: a job of N rank traces (default 256) made from two real PyTorch rank traces (the shared Kineto
 * samples of ranks 0 and 1), each given its own rank in distributedInfo and its times stretched by 0-5% (a
 * different amount per rank, so that the straggler view has stragglers to find). Then, as a user runs them, with
 * a fresh import cache: the per-rank summary and straggler view (`gsprof summary 'DIR/*.json.gz'`) first (every
 * trace imported, several at once) and second (from the cache), the straggler per step as SQL
 * (`gsprof query` with docs/cluster.md's question), and `gsprof export` of the job and `summary` on the export.
 * Each command's wall time and peak RSS (GNU time's maximum resident set size of the command's process).
 *
 *   npm run bench:ranks                          # 256 ranks
 *   npm run bench:ranks -- --ranks 32 --dir /tmp/job
 *   npm run bench:ranks -- --source A.json.gz --source B.json.gz
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'packages/cli/bin/run.js');
const SHARED = process.env.GSPROF_SHARED_DIR ?? join(ROOT, '..', 'shared');
const DEFAULT_SOURCES = ['timeline_analysis__sampled_rank-0.json.gz', 'trace_filter__sampled_rank-1.json.gz']
  .map((f) => join(SHARED, 'traces', 'pytorch-kineto', f));
const STRAGGLER_SQL = readFileSync(join(ROOT, 'docs', 'cluster.md'), 'utf8')
  .split('<!-- cluster-query: stragglers -->')[1]!.split('```sql\n')[1]!.split('```')[0]!.trim();

const { values } = parseArgs({
  options: {
    ranks: { type: 'string', default: '256' },
    dir: { type: 'string' },
    source: { type: 'string', multiple: true },
  },
});
const ranks = Number(values.ranks);
const sources = values.source ?? DEFAULT_SOURCES;
for (const s of sources) if (!existsSync(s)) throw new Error(`no such trace: ${s} (give --source, or set GSPROF_SHARED_DIR)`);
if (!existsSync('/usr/bin/time')) throw new Error('GNU time (/usr/bin/time, Debian package "time") is needed for the peak RSS');

interface Event { ts?: number; dur?: number; [k: string]: unknown }
interface Kineto { traceEvents: Event[]; distributedInfo?: Record<string, unknown>; [k: string]: unknown }

/** Rank k's trace: source k % 2, its rank and world size, its times stretched about its first event. */
function rankTrace(source: Kineto, k: number): string {
  const stretch = 1 + ((k * 37) % 11) / 200;
  const t0 = source.traceEvents.reduce((m, e) => (typeof e.ts === 'number' ? Math.min(m, e.ts) : m), Number.POSITIVE_INFINITY);
  const events = source.traceEvents.map((e) => {
    const out = { ...e };
    if (typeof e.ts === 'number') out.ts = Math.round((t0 + (e.ts - t0) * stretch) * 1000) / 1000;
    if (typeof e.dur === 'number') out.dur = Math.round(e.dur * stretch * 1000) / 1000;
    return out;
  });
  return JSON.stringify({ ...source, distributedInfo: { ...source.distributedInfo, rank: k, world_size: ranks }, traceEvents: events });
}

interface Run { label: string; command: string; wallS: number; peakMiB: number; code: number | null; note: string }

function timed(label: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, CLI, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const [wall, kib] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  const note = r.status === 0 ? '' : r.stderr.split('\n').filter((l) => l.startsWith('gsprof:')).slice(0, 2).join(' ');
  return { label, command: `gsprof ${args.map((a) => (/[\s*'"]/.test(a) ? `'${a.replace(/'/g, "'\\''")}'` : a)).join(' ')}`, wallS: wall ?? Number.NaN, peakMiB: (kib ?? Number.NaN) / 1024, code: r.status, note };
}

const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'gsprof-ranks-'));
const job = join(dir, 'job');
mkdirSync(job, { recursive: true });
const parsed = sources.map((s) => JSON.parse(gunzipSync(readFileSync(s)).toString('utf8')) as Kineto);
const genStart = performance.now();
for (let k = 0; k < ranks; k++) {
  const file = join(job, `rank${String(k).padStart(4, '0')}.pt.trace.json.gz`);
  if (!existsSync(file)) writeFileSync(file, gzipSync(rankTrace(parsed[k % parsed.length]!, k), { level: 1 }));
}
console.log(`${ranks} rank traces in ${job} (made in ${((performance.now() - genStart) / 1000).toFixed(1)} s)`);

const cache = join(dir, 'cache');
rmSync(cache, { recursive: true, force: true });
const env = { ...process.env, GSPROF_CACHE_DIR: cache, NO_COLOR: '1' };
const glob = join(job, '*.pt.trace.json.gz');
const out = join(dir, 'job.parquet');
const row = (r: Run): string => `| ${r.label} | \`${r.command.replaceAll(dir, 'DIR').replace(STRAGGLER_SQL, 'STRAGGLER_SQL')}\` | ${r.wallS.toFixed(1)} s | ${r.peakMiB.toFixed(0)} MiB | ${r.code}${r.note ? ` (${r.note})` : ''} |`;
console.log(`\n${ranks} ranks; ${process.env.BENCH_MACHINE ?? 'this machine'}\n`);
console.log('| what | command | wall | peak RSS | exit |');
console.log('|---|---|---:|---:|---:|');
// Each row as soon as it is measured: the first command on 256 ranks takes minutes.
const steps: Array<[string, string[]]> = [
  ['summary, first (imports every rank)', ['summary', glob, '--json']],
  ['summary, second (from the cache)', ['summary', glob, '--json']],
  ['query: straggler per step in SQL (cache)', ['query', glob, STRAGGLER_SQL, '--format', 'csv']],
  ['export to Parquet (cache)', ['export', glob, '--format', 'parquet', '-o', out]],
  ['summary on the export', ['summary', out, '--json']],
  ['query on the export: straggler per step', ['query', out, STRAGGLER_SQL, '--format', 'csv']],
];
for (const [label, args] of steps) console.log(row(timed(label, args, env)));
if (!values.dir) rmSync(dir, { recursive: true, force: true });
