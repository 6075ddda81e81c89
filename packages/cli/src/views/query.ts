/**
 * `gsprof query`: one read-only SQL statement over the trace's Perfetto-named tables. csv and json are written
 * chunk by chunk as DuckDB produces them (bounded memory whatever the result size); the table needs every row
 * to size its columns, so it reads the result whole.
 */
import type { QueryStream, SkippedTrace, TraceDb } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { renderCsv, renderTable } from '../render/table.js';
import { toJson } from '../render/json.js';
import { importSettings, resolveTrace, warnAboutProblems } from './open-trace.js';
import { rankSetOf } from './trace-set.js';
import { memoryLimitBytes, startWatchdog } from './query-watchdog.js';

/** Rows the table format shows at most: it holds them all to size its columns (csv and json stream). */
export const TABLE_MAX_ROWS = 10_000;

export interface QueryReportOptions {
  color: boolean;
  format: 'table' | 'csv' | 'json';
  /** Seconds before the query is interrupted (0: none). */
  timeoutS: number;
  /** DuckDB memory limit, e.g. '1GB'. */
  memoryLimit: string;
  /** Where the output goes, piece by piece. */
  write: (text: string) => Promise<void>;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Indents a pretty-printed JSON value by `pad` spaces after its first line. */
function indented(v: unknown, pad: string): string {
  return toJson(v).split('\n').join(`\n${pad}`);
}

/** Opens what the inputs stand for: one trace, or a rank set (views over every rank, a rank column first). */
async function openInputs(inputs: string[], memoryLimit: string): Promise<{ db: TraceDb; label: string; skipped: SkippedTrace[] }> {
  const { openTrace, openRanks } = await import('@gsprof/profiler');
  const set = await rankSetOf(inputs);
  if (set) {
    const db = await openRanks(set.run.id, { traces: set.imported, exports: set.exports }, { memoryLimit });
    return { db, label: set.run.id, skipped: set.skipped };
  }
  const trace = resolveTrace(inputs[0]!);
  return { db: await openTrace(trace, { memoryLimit, cache: importSettings.cache, strict: importSettings.strict }), label: trace, skipped: [] };
}

export async function queryReport(inputs: string[], sql: string, options: QueryReportOptions): Promise<{ rows: number; skipped: SkippedTrace[] }> {
  const memoryBytes = memoryLimitBytes(options.memoryLimit);
  const { ReadOnlyQueryError } = await import('@gsprof/profiler');
  const { db, label: trace, skipped } = await openInputs(inputs, options.memoryLimit);
  const watchdog = startWatchdog(options.timeoutS, memoryBytes);
  try {
    // A rank set's traces were each imported on their own; its views hold every rank's stats together.
    if (db.format !== 'ranks') await warnAboutProblems(db, trace);
    let stream: QueryStream;
    try {
      stream = await db.queryStream(sql, { timeoutMs: options.timeoutS * 1000 });
    } catch (err) {
      if (err instanceof ReadOnlyQueryError) throw new CliError('query', err.message);
      throw err;
    }
    const { columns, batches } = stream;
    let n = 0;
    if (options.format === 'table') {
      // The table is sized from every row it shows: it stops reading at TABLE_MAX_ROWS and says so.
      const matrix: string[][] = [];
      let more = false;
      reading: for await (const b of batches) {
        for (const r of b) {
          if (matrix.length === TABLE_MAX_ROWS) { more = true; break reading; }
          matrix.push(r.map(cell));
        }
      }
      n = matrix.length;
      const count = more ? `first ${n} rows shown; the table stops there: --format csv or json writes every row` : `${n} row${n === 1 ? '' : 's'}`;
      await options.write(`Trace: ${trace}\n${renderTable(columns, matrix, { color: options.color, maxColWidth: 80 })}\n(${count})\n`);
    } else if (options.format === 'csv') {
      await options.write(`${renderCsv(columns, [])}\n`);
      for await (const b of batches) {
        n += b.length;
        await options.write(`${renderCsv([], b.map((r) => r.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v)))).slice(1)}\n`);
      }
    } else {
      // The same document `--json` always printed ({columns, rows: [{column: value}]}), written row by row.
      await options.write(`{\n  "trace": ${JSON.stringify(trace)},\n  "columns": ${indented(columns, '  ')},\n  "rows": [`);
      for await (const b of batches) {
        let text = '';
        for (const r of b) {
          const row: Record<string, unknown> = {};
          columns.forEach((c, i) => { Object.defineProperty(row, c, { value: r[i], enumerable: true, writable: true, configurable: true }); });
          text += `${n === 0 ? '' : ','}\n    ${indented(row, '    ')}`;
          n++;
        }
        await options.write(text);
      }
      await options.write(`${n === 0 ? '' : '\n  '}]\n}\n`);
    }
    return { rows: n, skipped };
  } finally {
    // Closing waits for a statement DuckDB has not stopped yet: the watchdog guards that wait too.
    await db.close();
    watchdog.stop();
  }
}
