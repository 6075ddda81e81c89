/** `gsprof summary --report ...`: nsys stats-style reports as a table, CSV or JSON. */
import type { Report, ReportName, ReportSort, TimeUnit } from '@gsprof/profiler';
import { renderCsv, renderTable } from '../render/table.js';
import { resolveTrace, withTrace } from './open-trace.js';
import { refuseOwnInput } from './own-input.js';

export type ReportFormat = 'table' | 'csv' | 'json';

export interface ReportViewOptions {
  reports: ReportName[];
  format: ReportFormat;
  sort: ReportSort;
  timeunit: TimeUnit;
  /** Table only: cut longer names with an ellipsis. Full names when undefined (as nsys prints them). */
  nameWidth?: number;
  color: boolean;
  /** The file the reports will be written to: refused when it is the trace itself. */
  output?: string;
}

const ALIGN: Array<'left' | 'right'> = ['right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];

function clipName(name: string, width: number | undefined): string {
  return width === undefined || name.length <= width ? name : `${name.slice(0, Math.max(1, width - 1))}…`;
}

export function renderReports(reports: Report[], options: Omit<ReportViewOptions, 'reports'> & { trace: string }, cells: (r: Report['rows'][number]) => string[], head: string[]): string {
  if (options.format === 'json') return JSON.stringify({ trace: options.trace, timeunit: options.timeunit, reports }, null, 2);
  const out: string[] = [];
  for (const report of reports) {
    const rows = report.rows.map((row) => {
      const c = cells(row);
      if (options.format === 'table') c[c.length - 1] = clipName(c[c.length - 1]!, options.nameWidth);
      return c;
    });
    if (options.format === 'csv') {
      // One CSV block per report, like `nsys stats --format csv` prints them, each under its report name.
      out.push(`# ${report.report}: ${report.title}`, renderCsv(head, rows));
    } else {
      out.push(`${report.title}; Time (%): share of this report's total, all queues and threads together`);
      out.push(rows.length ? renderTable(head, rows, { color: options.color, align: ALIGN }) : '  (none in this trace)');
    }
  }
  return out.join('\n');
}

export async function summaryReports(given: string, options: ReportViewOptions): Promise<{ text: string; data: unknown }> {
  const { summaryReport, reportCells, reportColumns } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  if (options.output !== undefined) refuseOwnInput('summary', options.output, [trace]);
  const reports = await withTrace(trace, async (db) => {
    const all: Report[] = [];
    for (const name of options.reports) all.push(await summaryReport(db, name, { sort: options.sort }));
    return all;
  });
  const text = renderReports(reports, { ...options, trace }, (row) => reportCells(row, options.timeunit), reportColumns(options.timeunit));
  // CSV and JSON files stay machine-readable: the file read is named in JSON's `trace` and in the table text.
  const header = options.format === 'table' ? `Trace: ${trace}\n` : '';
  return { text: `${header}${text}`, data: { trace, timeunit: options.timeunit, reports } };
}
