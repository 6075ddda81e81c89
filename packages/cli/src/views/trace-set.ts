/**
 * The traces a multi-rank command reads, from what the user gave: trace files, folders (every trace in them; a
 * folder holding gsprof-export.json is a Parquet export), and globs (`'runs/*.json.gz'`, for a shell that did
 * not expand them; `*` and `?` in the last part of the path only).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EXPORT_MANIFEST, type ImportedRank, type SkippedTrace } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { importSettings, isTraceFile } from './open-trace.js';
import { distinctTraceFiles, newestRankRun, type RankRun, type RankTrace } from './rank-traces.js';

export interface TraceSet {
  /** Trace files, in the order given (a folder's and a glob's by name). */
  traces: string[];
  /** Parquet export folders. */
  exports: string[];
}

const GLOB = /[*?]/;

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

/** The files a glob names (`*` and `?` in its last part only). */
function expandGlob(pattern: string): string[] {
  const dir = dirname(pattern);
  if (GLOB.test(dir)) throw new CliError(pattern, 'a glob may only have * or ? in its last part (the file name); let the shell expand the rest');
  if (!existsSync(dir)) throw new CliError(pattern, `no such folder: ${dir}`);
  const re = globToRegExp(basename(pattern));
  return readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile() && isTraceFile(p));
}

export function resolveTraceSet(inputs: string[]): TraceSet {
  const set: TraceSet = { traces: [], exports: [] };
  for (const input of inputs) {
    if (!existsSync(input) && GLOB.test(input)) {
      const files = expandGlob(input);
      if (files.length === 0) throw new CliError(input, 'no trace matches this glob');
      for (const f of files) set.traces.push(f);
      continue;
    }
    const st = statSync(input, { throwIfNoEntry: false });
    if (!st) throw new CliError(input, 'no such file');
    if (st.isDirectory()) {
      if (existsSync(join(input, EXPORT_MANIFEST))) {
        set.exports.push(input);
        continue;
      }
      const files = distinctTraceFiles(input).map((f) => f.path).sort();
      if (files.length === 0) throw new CliError(input, 'folder has no trace (.pftrace, .json, .json.gz) and is not a gsprof export');
      for (const f of files) set.traces.push(f);
    } else if (st.isFile()) {
      set.traces.push(input);
    } else {
      throw new CliError(input, 'not a regular file');
    }
  }
  // One file given twice (a folder and a glob over it) is one trace.
  set.traces = [...new Set(set.traces)];
  return set;
}

/** Several ranks, from trace files and exports, as the rank reports and query read them. */
export interface RankSet {
  run: RankRun;
  /** The traces' imports (files attached by query's views). */
  imported: ImportedRank[];
  exports: Array<{ dir: string; ranks: number[] }>;
  skipped: SkippedTrace[];
}

/**
 * The ranks the inputs stand for, or null when they are one trace file or a folder whose newest trace is no
 * rank's (the one-trace commands as before). A folder of traces is its newest run (newestRankRun), as summary
 * always took it; an export folder, a glob or several inputs are every rank they hold. Traces are imported
 * several at a time; what cannot be a rank (unreadable, no rank among several, a rank claimed twice, an export
 * of another schema version) is skipped with its reason. `tables: false` (summary and gaps, which open each
 * rank themselves) leaves `imported` without database files.
 */
export async function rankSetOf(inputs: string[], options: { tables: boolean } = { tables: true }): Promise<RankSet | null> {
  let paths: string[];
  let exportDirs: string[] = [];
  const single = inputs.length === 1 ? statSync(inputs[0]!, { throwIfNoEntry: false }) : undefined;
  if (single?.isFile()) return null;
  if (single?.isDirectory() && !existsSync(join(inputs[0]!, EXPORT_MANIFEST))) {
    const run = await newestRankRun(inputs[0]!);
    if (!run) return null;
    paths = run.ranks.map((r) => r.path);
  } else {
    const set = resolveTraceSet(inputs);
    paths = set.traces;
    exportDirs = set.exports;
  }
  const { importRanks, rankTraces, readExportManifest, RankClaims } = await import('@gsprof/profiler');
  const skipped: SkippedTrace[] = [];
  const exports: RankSet['exports'] = [];
  const byRank = new Map<number, RankTrace>();
  // Exports' ranks and traces' ranks are claimed together: one rank from two sources is neither's.
  const claims = new RankClaims(2);
  const claim = (t: RankTrace, what: string): boolean => {
    const { rank, evicted } = claims.claim(what, { rank: t.rank, worldSize: t.worldSize, jobId: null });
    if (evicted !== null) byRank.delete(evicted);
    if (rank !== null) byRank.set(rank, t);
    return rank !== null;
  };
  for (const dir of exportDirs) {
    try {
      const m = await readExportManifest(dir);
      for (const r of m.ranks) claim({ path: r.source, rank: r.rank, worldSize: r.worldSize ?? 0, jobId: null, mtimeMs: 0, exportDir: dir }, `${dir} (rank ${r.rank})`);
    } catch (err) {
      skipped.push({ path: dir, reason: (err as Error).message.replace(`${dir}: `, '') });
    }
  }
  const settings = { strict: importSettings.strict, cache: importSettings.cache };
  // Without the tables (summary, gaps: each rank analysed on its own), ranks come from the results the import
  // cache keeps, and a set seen before opens no database here.
  const { ranks: imported, skipped: traceSkips } = options.tables ? await importRanks(paths, settings)
    : await rankTraces(paths, settings).then(({ ranks, skipped }) => ({ ranks: ranks.map((r) => ({ ...r, file: '', keep: null })), skipped }));
  const kept: ImportedRank[] = [];
  for (const t of imported) {
    if (claim({ path: t.path, rank: t.rank, worldSize: t.worldSize ?? 0, jobId: null, mtimeMs: 0 }, t.path)) kept.push(t);
    else await t.keep?.close();
  }
  const allSkipped = [...skipped, ...traceSkips, ...claims.skipped];
  const ranks = [...byRank.values()].sort((a, b) => a.rank - b.rank);
  for (const dir of exportDirs) {
    const mine = ranks.filter((r) => r.exportDir === dir).map((r) => r.rank);
    if (mine.length > 0) exports.push({ dir, ranks: mine });
  }
  const usedImports = kept.filter((t) => byRank.get(t.rank)?.path === t.path && !byRank.get(t.rank)?.exportDir);
  for (const t of kept) if (!usedImports.includes(t)) await t.keep?.close();
  if (ranks.length === 0) {
    throw new CliError(inputs.join(' '), `no rank could be read: ${allSkipped.map((s) => `${s.path}: ${s.reason}`).join('; ')}`);
  }
  const worldSize = ranks.reduce((m, r) => Math.max(m, r.worldSize, r.rank + 1), 0);
  const present = new Set(ranks.map((r) => r.rank));
  const run: RankRun = {
    id: inputs.join(' '), worldSize, ranks,
    missing: Array.from({ length: worldSize }, (_, k) => k).filter((k) => !present.has(k)),
    newestMs: 0,
  };
  return { run, imported: usedImports, exports, skipped: allSkipped };
}

/** One line per skipped trace, on stderr, as the commands print them. */
export function reportSkipped(skipped: SkippedTrace[]): void {
  for (const s of skipped) process.stderr.write(`gsprof: ${s.path}: skipped: ${s.reason}\n`);
}
