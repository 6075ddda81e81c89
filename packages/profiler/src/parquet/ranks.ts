/**
 * Many ranks as one set of tables: the traces' imported databases (each its own import-cache entry, attached
 * read-only, never imported again) and Parquet exports (read in place), behind views named as one trace's tables
 * with a `rank` column first. Or one rank of an export alone, without the rank column: the analyses (summary,
 * gaps) then run on it exactly as on that rank's trace.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { RankClaims, rankOf, type SkippedTrace } from '../analysis/rank.js';
import { openTrace, TraceDb, type OpenTraceOptions } from '../sql/trace-db.js';
import { withTraceMemo } from '../sql/trace-memo.js';
import { EXPORT_TABLES, exportTableSql } from './schema.js';

/** A rank trace, imported: its database file, and the TraceDb to keep open while the file is read when the file
 * is temporary (no import cache). */
export interface ImportedRank {
  path: string;
  rank: number;
  worldSize: number | null;
  file: string;
  keep: TraceDb | null;
}

export interface RankExportSource {
  /** The export folder (holding gsprof-export.json; check it with readExportManifest first). */
  dir: string;
  /** Only these ranks of it (default: all). */
  ranks?: number[];
}

export interface OpenRanksOptions extends OpenTraceOptions {
  /** Leave the rank column out (a single rank of an export, for the one-trace analyses). Default true. */
  rankColumn?: boolean;
  /** Traces imported at once, each parsing on a worker thread of its own (default: the cores). */
  parallel?: number;
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** `probe` on each path, several at once (default: as many as the cores); a failure is its message's first line. */
async function eachTrace<T>(paths: string[], parallel: number | undefined, probe: (path: string) => Promise<T>): Promise<Array<T | { error: string }>> {
  const found: Array<T | { error: string }> = new Array(paths.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < paths.length; i = next++) {
      try {
        found[i] = await probe(paths[i]!);
      } catch (err) {
        const line = firstLine(err);
        // The skipped line names the trace already.
        found[i] = { error: line.startsWith(`${paths[i]}: `) ? line.slice(paths[i]!.length + 2) : line };
      }
    }
  };
  const lanes = Math.max(1, Math.min(parallel ?? availableParallelism(), paths.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return found;
}

const failed = (f: unknown): f is { error: string } => typeof f === 'object' && f !== null && 'error' in f;

/**
 * Imports (or finds in the import cache) each trace and finds its rank, several at a time (a JSON trace parses
 * on a worker thread), then claims the ranks in the order given (RankClaims: a trace with no rank among several,
 * or two traces of one rank, are skipped). Cached databases are closed at once (their files are attached later);
 * temporary ones stay open in `keep`.
 */
export async function importRanks(paths: string[], opts: OpenRanksOptions = {}): Promise<{ ranks: ImportedRank[]; skipped: SkippedTrace[] }> {
  const found = await eachTrace(paths, opts.parallel, async (path) => {
    const db = await openTrace(path, { ...opts, importThread: paths.length > 1 ? true : opts.importThread });
    try {
      return { file: db.databaseFile, rank: await rankOf(db), keep: db.temporaryFile ? db : null };
    } finally {
      if (!db.temporaryFile) await db.close();
    }
  });
  const claims = new RankClaims(paths.length);
  const ranks: ImportedRank[] = [];
  for (const [i, f] of found.entries()) {
    if (failed(f)) {
      claims.skip(paths[i]!, f.error);
      continue;
    }
    const { rank, evicted } = claims.claim(paths[i]!, f.rank);
    if (evicted !== null) {
      const at = ranks.findIndex((r) => r.rank === evicted);
      await ranks[at]!.keep?.close();
      ranks.splice(at, 1);
    }
    if (rank === null) await f.keep?.close();
    else ranks.push({ path: paths[i]!, rank, worldSize: f.rank?.worldSize ?? null, file: f.file, keep: f.keep });
  }
  return { ranks, skipped: claims.skipped };
}

/**
 * Each trace's rank, claimed as importRanks claims them, for commands that analyse each rank on its own (summary,
 * gaps) and need no rank's tables here: a trace's rank is read from its kept analysis results (trace-memo.ts)
 * when the import cache has them, so a set of ranks seen before opens no database.
 */
export async function rankTraces(paths: string[], opts: OpenRanksOptions = {}): Promise<{ ranks: Array<{ path: string; rank: number; worldSize: number | null }>; skipped: SkippedTrace[] }> {
  const found = await eachTrace(paths, opts.parallel, (path) =>
    withTraceMemo(path, { ...opts, importThread: paths.length > 1 ? true : opts.importThread }, (memo) => memo.value('rank', null, rankOf)));
  const claims = new RankClaims(paths.length);
  const ranks = new Map<number, { path: string; rank: number; worldSize: number | null }>();
  for (const [i, f] of found.entries()) {
    if (failed(f)) {
      claims.skip(paths[i]!, f.error);
      continue;
    }
    const { rank, evicted } = claims.claim(paths[i]!, f);
    if (evicted !== null) ranks.delete(evicted);
    if (rank !== null) ranks.set(rank, { path: paths[i]!, rank, worldSize: f?.worldSize ?? null });
  }
  return { ranks: [...ranks.values()], skipped: claims.skipped };
}

/** The tables of the given imported rank traces and exports as one database; `label` names it in messages. */
export async function openRanks(label: string, sources: { traces?: ImportedRank[]; exports?: RankExportSource[] },
  opts: OpenRanksOptions = {}): Promise<TraceDb> {
  const withRank = opts.rankColumn !== false;
  const traces = sources.traces ?? [];
  const exports = (sources.exports ?? []).map((e) => ({ ...e, dir: resolve(e.dir) }));
  if (traces.length === 0 && exports.length === 0) throw new Error(`${label}: no rank to open`);
  return TraceDb.overViews(label, async (conn) => {
    for (const [i, t] of traces.entries()) await conn.run(`ATTACH ${sqlString(t.file)} AS rank_${i} (READ_ONLY)`);
    for (const table of EXPORT_TABLES) {
      const cols = withRank ? `rank, ${table.columns}` : table.columns;
      const parts = exports.map((e) => {
        const where = e.ranks ? ` WHERE rank IN (${e.ranks.join(', ')})` : '';
        return `SELECT ${cols} FROM read_parquet(${sqlString(`${e.dir}/${table.name}/*/*.parquet`)}, hive_partitioning = true, hive_types = {'rank': INTEGER})${where}`;
      });
      for (const [i, t] of traces.entries()) {
        parts.push(withRank ? `SELECT CAST(${t.rank} AS INTEGER) AS rank, * FROM (${exportTableSql(table, `rank_${i}`)})` : exportTableSql(table, `rank_${i}`));
      }
      await conn.run(`CREATE VIEW ${table.name} AS ${parts.map((p) => `(${p})`).join(' UNION ALL ')}`);
    }
  }, {
    memoryLimit: opts.memoryLimit, threads: opts.threads, allowedDirectories: exports.map((e) => e.dir),
    members: traces.flatMap((t) => (t.keep ? [t.keep] : [])),
  });
}
