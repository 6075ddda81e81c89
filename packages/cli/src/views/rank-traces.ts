/**
 * The traces of a multi-process run: which rank wrote each trace (Kineto's distributedInfo, which gsprof writes
 * for a process a launcher started, and PyTorch writes for every distributed run), and a folder's traces grouped
 * into runs with one trace per rank, newest run first.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseJsonObject as parseJson, rankOf, type TraceDb } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { importSettings, isTraceFile, resolveTrace, withKeptResults } from './open-trace.js';

export { rankOf };

export interface RankTrace {
  path: string;
  rank: number;
  worldSize: number;
  /** The launch every rank of the run shares, when the launcher named it. */
  jobId: string | null;
  mtimeMs: number;
  /** The Parquet export this rank is read from (its tables, not a trace file); `path` is then its source. */
  exportDir?: string;
}

export interface RankRun {
  /** The launch id, or "without a launch id, world size N" for traces that carry none (PyTorch's own). */
  id: string;
  worldSize: number;
  /** One trace per rank, by rank (the newest, when a rank wrote several). */
  ranks: RankTrace[];
  /** Ranks below worldSize that wrote no trace here. */
  missing: number[];
  newestMs: number;
}

/** The rank traces a trace `gsprof merge` wrote was made from, as merge named them (none for any other trace). */
async function mergedSourcesOf(db: TraceDb): Promise<string[]> {
  const merged = parseJson(await db.metadata('gsprof.json'))?.merged;
  return Array.isArray(merged) ? merged.flatMap((m: { source?: unknown }) => (typeof m?.source === 'string' ? [m.source] : [])) : [];
}

/** How many ranks a trace `gsprof merge` wrote holds (0 for any other trace). */
export async function mergedRanksOf(db: TraceDb): Promise<number> {
  return (await mergedSourcesOf(db)).length;
}

/** A folder's trace files; of the two formats one recording writes (`.pftrace` and `.pt.trace.json`, the same
 * name up to the time stamp, moments apart), only the Perfetto one. */
export function distinctTraceFiles(dir: string): Array<{ path: string; mtimeMs: number }> {
  const files = readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isFile() && isTraceFile(path) ? [{ path, mtimeMs: st.mtimeMs, stem: f.replace(/\.\d+\.(pftrace|pt\.trace\.json(\.gz)?|json(\.gz)?)$/, '') }] : [];
  });
  return files.filter((a) => a.path.endsWith('.pftrace')
    || !files.some((b) => b !== a && b.stem === a.stem && b.path.endsWith('.pftrace') && Math.abs(b.mtimeMs - a.mtimeMs) < 5000))
    .map(({ path, mtimeMs }) => ({ path, mtimeMs }));
}

/** The runs of several ranks among the given traces, newest first (empty when no trace is a rank's). */
export async function rankRuns(files: Array<{ path: string; mtimeMs: number }>): Promise<RankRun[]> {
  const traces: RankTrace[] = [];
  for (const f of files) {
    const r = await withKeptResults(f.path, (memo) => memo.value('rank', null, rankOf));
    if (r) traces.push({ path: f.path, mtimeMs: f.mtimeMs, ...r });
  }
  const groups = new Map<string, RankTrace[]>();
  for (const t of traces) {
    // Without a launch id (PyTorch's own traces have none, and name each rank's file after its own pid), the
    // folder's rank traces of one world size are taken as one run, the newest trace of each rank.
    const id = t.jobId ?? `without a launch id, world size ${t.worldSize}`;
    groups.set(id, [...(groups.get(id) ?? []), t]);
  }
  const runs: RankRun[] = [];
  for (const [id, list] of groups) {
    const worldSize = list.reduce((m, t) => Math.max(m, t.worldSize), 0);
    const byRank = new Map<number, RankTrace>();
    for (const t of list) {
      const kept = byRank.get(t.rank);
      if (!kept || t.mtimeMs > kept.mtimeMs) byRank.set(t.rank, t);
    }
    const ranks = [...byRank.values()].sort((a, b) => a.rank - b.rank);
    const missing = Array.from({ length: worldSize }, (_, k) => k).filter((k) => !byRank.has(k));
    runs.push({ id, worldSize, ranks, missing, newestMs: ranks.reduce((m, t) => Math.max(m, t.mtimeMs), 0) });
  }
  return runs.sort((a, b) => b.newestMs - a.newestMs);
}

/** The multi-rank run a folder's newest trace belongs to, or null when the path is a file or that trace is no
 * rank's. Only then are the other traces opened: a folder of single-process traces costs one import, as before. */
export async function newestRankRun(path: string): Promise<RankRun | null> {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return null;
  const files = distinctTraceFiles(path);
  if (files.length < 2) return null;
  const newest = resolveTrace(path);
  const [rank, merged] = await withKeptResults(newest, async (memo) => [await memo.value('rank', null, rankOf), await memo.value('merged sources', null, mergedSourcesOf)] as const);
  // A merged trace written into the folder is newest now; the run it merged is what the folder stands for.
  if (!rank && merged.length > 0) {
    const sources = merged.flatMap((source) => {
      const st = statSync(source, { throwIfNoEntry: false });
      return st?.isFile() ? [{ path: source, mtimeMs: st.mtimeMs }] : [];
    });
    return sources.length === merged.length ? (await rankRuns(sources))[0] ?? null : null;
  }
  if (!rank) return null;
  // gsprof names a rank's trace `<worker>.rank<k>.<time>`: when the newest does, only such files can be its run's.
  const named = /\.rank\d+\./.test(basename(newest)) ? files.filter((f) => /\.rank\d+\./.test(basename(f.path))) : files;
  // The other traces' ranks are read several at once first (each JSON parse on a worker thread), into the
  // import cache and its kept results; rankRuns then reads each rank from there. Without the cache that would
  // import twice.
  if (importSettings.cache && named.length > 1) {
    const { rankTraces } = await import('@gsprof/profiler');
    await rankTraces(named.map((f) => f.path), { strict: importSettings.strict, cache: true });
  }
  const runs = await rankRuns(named);
  return runs.find((r) => r.ranks.some((t) => t.path === newest)) ?? null;
}

/** Ascending ranks as runs: 2, 3, 4, 7 -> "2-4, 7" (a sampled world of 128 would list 126 numbers). */
function ranges(ranks: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ranks.length; i++) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j]! + 1) j++;
    out.push(j > i ? `${ranks[i]}-${ranks[j]}` : String(ranks[i]));
    i = j;
  }
  return out.join(', ');
}

/** A run's ranks as one line a report starts with, naming ranks that wrote nothing. */
export function rankRunLine(run: RankRun): string {
  const missing = run.missing.length > 0 ? `; no trace from rank(s) ${ranges(run.missing)}` : '';
  return `Run ${run.id}: ${run.ranks.length} of ${run.worldSize} ranks${missing}`;
}

export function requireRanks(run: RankRun | null, path: string): RankRun {
  if (!run) throw new CliError(path, 'no traces of a multi-process run here (traces with distributedInfo of a world size of 2 or more)');
  return run;
}
