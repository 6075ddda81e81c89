/** `gsprof query`: one read-only SQL statement over the trace's Perfetto-named tables. */
import { CliError } from '../errors.js';
import { renderCsv, renderTable } from '../render/table.js';
import { toJson } from '../render/json.js';
import { resolveTrace } from './open-trace.js';
import type { View } from './summary.js';

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export async function queryReport(trace: string, sql: string, options: { color: boolean; format: 'table' | 'csv' | 'json' }): Promise<View> {
  trace = resolveTrace(trace);
  const { queryTrace, ReadOnlyQueryError } = await import('@gsprof/profiler');
  let result;
  try {
    result = await queryTrace(trace, sql);
  } catch (err) {
    if (err instanceof ReadOnlyQueryError) throw new CliError('query', err.message);
    throw err;
  }
  const data = { trace, columns: result.columns, rows: result.rows };
  const matrix = result.rows.map((r) => result.columns.map((c) => r[c]));
  let text: string;
  if (options.format === 'json') text = toJson(data);
  else if (options.format === 'csv') text = renderCsv(result.columns, matrix.map((r) => r.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v))));
  else text = `Trace: ${trace}\n${renderTable(result.columns, matrix.map((r) => r.map(cell)), { color: options.color, maxColWidth: 80 })}\n(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})`;
  return { text, data };
}
