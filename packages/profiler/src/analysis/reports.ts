/**
 * `nsys stats`-style summary reports over the trace tables. Each report is one table with nsys's columns
 * (Time (%), Total Time, Instances, Avg, Med, Min, Max, StdDev, Name), one row per name summed across every
 * queue, stream and thread, and Time (%) as each name's share of the report's total: what nsys's
 * cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum and nvtx_sum print.
 */
import type { TraceDb } from '../sql/trace-db.js';
import type { KernelRow } from './kernel-summary.js';
import { HOST_API_WHERE, KERNEL_WHERE, MEMOP_WHERE, RANGE_WHERE, STEP_WHERE, num, stageSourceOf } from './common.js';

export const REPORTS = ['kernels', 'host', 'memops', 'ranges', 'steps'] as const;
export type ReportName = (typeof REPORTS)[number];

export const REPORT_SORTS = ['total', 'instances', 'avg', 'med', 'min', 'max', 'name'] as const;
export type ReportSort = (typeof REPORT_SORTS)[number];

/** One name's row, in nsys's columns (the kernel summary's row shape). */
export type ReportRow = KernelRow;

export interface Report {
  report: ReportName;
  /** What the rows are, for a table's title (nsys's report names in parentheses). */
  title: string;
  totalTimeNs: number;
  rows: ReportRow[];
}

const SOURCES: Record<ReportName, { where: string; title: string }> = {
  kernels: { where: KERNEL_WHERE, title: 'GPU kernels (cuda_gpu_kern_sum)' },
  host: { where: HOST_API_WHERE, title: 'Host API calls: encode, submit, map, sync (cuda_api_sum)' },
  memops: { where: MEMOP_WHERE, title: 'Memory operations: copies, fills, buffer writes and maps (cuda_gpu_mem_time_sum)' },
  ranges: { where: RANGE_WHERE, title: 'User ranges: recordFunction and annotations (nvtx_sum)' },
  steps: { where: STEP_WHERE, title: 'Profiler steps' },
};

const ORDER_BY: Record<ReportSort, string> = {
  total: 'total DESC, name',
  instances: 'n DESC, total DESC, name',
  avg: 'avg DESC, name',
  med: 'med DESC, name',
  min: 'mn DESC, name',
  max: 'mx DESC, name',
  name: 'name',
};

export interface ReportOptions {
  sort?: ReportSort;
  /** Overrides the report's slice filter (the CPU-backend stage report uses it). */
  where?: string;
  title?: string;
}

export async function summaryReport(db: TraceDb, report: ReportName, options: ReportOptions = {}): Promise<Report> {
  let source = SOURCES[report];
  // A trace with no GPU kernels (CPU backend): the kernels report is its CPU stages, titled as such.
  if (report === 'kernels' && options.where === undefined) {
    const stages = await stageSourceOf(db);
    if (stages.kind === 'cpu stages') source = { where: stages.where, title: 'CPU stages: cpu_op on the threads that ran them (no GPU kernels in this trace)' };
  }
  const where = options.where ?? source.where;
  // ProfilerStep#k are one row, as keyAverages and torch group them; nsys's nvtx_sum has no such spans.
  const nameSql = report === 'steps' ? `'ProfilerStep*'` : 'name';
  const rows = await db.rows<Record<string, unknown>>(`
    WITH s AS (SELECT ${nameSql} AS name, dur FROM slice WHERE (${where}) AND dur >= 0),
    per AS (
      SELECT name, sum(dur) AS total, count(*) AS n, avg(dur) AS avg, median(dur) AS med, min(dur) AS mn,
             max(dur) AS mx, coalesce(stddev_samp(dur), 0) AS sd
      FROM s GROUP BY name)
    SELECT * FROM per ORDER BY ${ORDER_BY[options.sort ?? 'total']}`);
  let total = 0;
  for (const r of rows) total += num(r.total);
  return {
    report,
    title: options.title ?? source.title,
    totalTimeNs: total,
    rows: rows.map((r) => ({
      timePercent: total > 0 ? (100 * num(r.total)) / total : 0,
      totalTimeNs: num(r.total), instances: num(r.n), avgNs: num(r.avg), medNs: num(r.med), minNs: num(r.mn),
      maxNs: num(r.mx), stdDevNs: num(r.sd), name: String(r.name),
    })),
  };
}

export const TIME_UNITS = ['ns', 'us', 'ms', 's'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];
const NS_PER: Record<TimeUnit, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** nsys's column headers for a time unit: `Total Time (us)`. */
export function reportColumns(unit: TimeUnit = 'ns'): string[] {
  return ['Time (%)', `Total Time (${unit})`, 'Instances', `Avg (${unit})`, `Med (${unit})`, `Min (${unit})`,
    `Max (${unit})`, `StdDev (${unit})`, 'Name'];
}

/** One row as the cells nsys prints: percent with 1 decimal, times in the unit (ns as integers, else 3 decimals). */
export function reportCells(row: ReportRow, unit: TimeUnit = 'ns'): string[] {
  const t = (ns: number): string => (unit === 'ns' ? Math.round(ns).toString() : (ns / NS_PER[unit]).toFixed(3));
  return [row.timePercent.toFixed(1), t(row.totalTimeNs), String(row.instances), t(row.avgNs), t(row.medNs),
    t(row.minNs), t(row.maxNs), t(row.stdDevNs), row.name];
}
