/** Opens a trace for the analyses and always closes it; errors name the file (the importer already does). */
import type { TraceDb, TraceMemo } from '@gsprof/profiler';
import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';

/** What a command warns about after loading a trace: the problems its import counted, and whether it holds any event. */
interface LoadProblems { problems: Array<{ name: string; value: number }>; events: number }

async function loadProblems(db: TraceDb): Promise<LoadProblems> {
  const [n] = await db.rows<{ n: number }>('SELECT (SELECT count(*) FROM slice) + (SELECT count(*) FROM counter) AS n');
  return { problems: await db.problemStats(), events: Number(n?.n ?? 0) };
}

/**
 * One stderr line when the import counted a problem of severity error or data_loss (the `stats` table, with
 * trace_processor's names), as trace_processor prints its "Trace health issues".
 */
function printProblems(path: string, p: LoadProblems): void {
  if (p.problems.length > 0) {
    const counts = p.problems.map((r) => `${r.name} ${r.value}`).join(', ');
    process.stderr.write(`gsprof: warning: ${path}: loaded with problems (its stats table, trace_processor's names): ${counts} (--strict refuses a flawed file)\n`);
  }
  // A trace that parsed but holds nothing to analyse ({"traceEvents":[{}]}) would otherwise read as an idle run.
  if (p.events === 0) process.stderr.write(`gsprof: warning: ${path}: no usable events: no slice, instant or counter was read from it\n`);
}

export async function warnAboutProblems(db: TraceDb, path: string): Promise<void> {
  printProblems(path, await loadProblems(db));
}

const TRACE = /\.(pftrace|json|json\.gz)$/;

/** The baseline format name (`gsprof record --baseline-out`, analysis/baseline.ts); a baseline is .json too. */
const BASELINE_MARK = '"gsprof-baseline"';

/** True when a regular .json file starts like a baseline (its "format" key comes first): never a trace. */
function isBaselineFile(path: string): boolean {
  if (!path.endsWith('.json')) return false;
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, n).includes(BASELINE_MARK);
  } finally {
    closeSync(fd);
  }
}

/** A regular file named as a trace (.pftrace, .json, .json.gz) that is not a baseline. */
export function isTraceFile(path: string): boolean {
  return TRACE.test(path) && !isBaselineFile(path);
}

/** A trace path as given; a folder means its newest trace (Perfetto preferred), e.g. `gsprof summary out`.
 * In a folder only regular files count (a FIFO named *.pftrace would block the reader) and baselines never do. */
export function resolveTrace(path: string): string {
  if (!existsSync(path)) throw new CliError(path, 'no such file');
  const st = statSync(path);
  if (st.isFile()) return path;
  if (!st.isDirectory()) throw new CliError(path, 'not a regular file');
  const traces = readdirSync(path)
    .filter((f) => TRACE.test(f))
    .flatMap((f) => {
      const st = statSync(join(path, f), { throwIfNoEntry: false });
      return st?.isFile() && isTraceFile(join(path, f)) ? [{ f, t: st.mtimeMs }] : [];
    });
  if (traces.length === 0) throw new CliError(path, 'folder has no trace (.pftrace, .json, .json.gz; baselines are not traces)');
  const newest = traces.reduce((m, x) => Math.max(m, x.t), -Infinity);
  // The handlers write the formats of one trace moments apart: take the newest run, Perfetto first.
  const recent = traces.filter((x) => newest - x.t < 5000).sort((a, b) => Number(b.f.endsWith('.pftrace')) - Number(a.f.endsWith('.pftrace')) || b.t - a.t);
  return join(path, recent[0]!.f);
}

/** How traces are imported for this command: `--strict` and `--no-cache` set these (see GsprofCommand.init). */
export const importSettings = { strict: false, cache: true };

/** `memoryLimit`: DuckDB's (default 1GB), for a command that needs room of its own beside it. */
export async function withTrace<T>(given: string, fn: (db: TraceDb) => Promise<T>, options: { memoryLimit?: string } = {}): Promise<T> {
  const path = resolveTrace(given);
  const { openTrace } = await import('@gsprof/profiler');
  const db = await openTrace(path, { strict: importSettings.strict, cache: importSettings.cache, ...options });
  try {
    await warnAboutProblems(db, path);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * As withTrace, through the trace's analysis results kept in the import cache (TraceMemo): the database is opened
 * only for a result not kept, so a command over many traces seen before answers without opening them.
 */
export async function withKeptResults<T>(given: string, fn: (memo: TraceMemo) => Promise<T>): Promise<T> {
  const path = resolveTrace(given);
  const { withTraceMemo } = await import('@gsprof/profiler');
  return withTraceMemo(path, { strict: importSettings.strict, cache: importSettings.cache }, async (memo) => {
    printProblems(path, await memo.value('load problems', null, loadProblems));
    return fn(memo);
  });
}
