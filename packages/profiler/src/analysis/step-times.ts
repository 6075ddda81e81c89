/**
 * Step times of completed work: the one throughput every gsprof number uses (summary, baselines, compare).
 *
 * A step is complete when its host span has ended AND the GPU work it launched has finished. On the GPU the host
 * only queues work: its ProfilerStep spans measure how fast steps were submitted, which can be many times the
 * rate the GPU finishes them. Step k runs from its start, or from the completion of step k-1 if that is later
 * (the queue is in order), to its own completion. When the host is the slower side (the CPU backend, or a GPU
 * that keeps up), that is exactly the host span; when the GPU is, the steps tile the GPU's completions and
 * steps / sum is the rate the GPU finished them.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { GPU_OP_CATEGORY_SQL, STEP_WHERE, num } from './common.js';

export interface StepTimes {
  /** ns, one per ProfilerStep in order. */
  durations: number[];
  /** The step numbers of the ProfilerStep#k spans, in the same order (what lines up the steps of several ranks). */
  numbers: number[];
  /** Whether GPU work extended any step past its host span (the host ran ahead of the GPU). */
  gpuBound: boolean;
  /** ns from the first step's start to the last one's completion: the period the throughput is measured over
   *  (throughput.ts). The sum of the durations when the steps follow each other without a gap. */
  periodNs: number;
}

/**
 * One row per ProfilerStep, in order: `step_index` (0, 1, ...), `step` (k of ProfilerStep#k; NULL without one),
 * `ts` (ns, the step's start: its host span's, or the previous step's completion if later), `dur` (ns, start to
 * completion: the completed duration), `host_dur` (its host span's), `gpu_extended` (GPU work it launched ran
 * past its host span, or the previous step's did past its start). All int64: absolute Kineto times near 2^60 ns
 * stay exact. Over the tables of one trace (`slice`, `gpu_launch`), in the catalog `db` (an attached trace) if
 * given; the Parquet export's `step` table is this.
 */
export function stepTableSql(db?: string): string {
  const t = (table: string): string => (db ? `${db}.${table}` : table);
  return `
  WITH st AS (SELECT row_number() OVER (ORDER BY ts, id) - 1 AS step_index, ts, dur, ts + dur AS e, name FROM ${t('slice')} WHERE ${STEP_WHERE}),
  -- One row per launch (its ops' last end) before the as-of join: ten kernels a submit made the join ten
  -- times larger than it needs to be, and on a 1 GB trace it ran out of DuckDB's memory limit.
  g AS (SELECT coalesce(gl.launch_ts, g.ts) AS at, max(g.ts + g.dur) AS done FROM ${t('slice')} g
        LEFT JOIN ${t('gpu_launch')} gl ON gl.gpu_slice_id = g.id
        WHERE g.category IN ${GPU_OP_CATEGORY_SQL} AND g.dur >= 0 GROUP BY 1),
  per AS (SELECT st.step_index, max(g.done) AS done FROM g ASOF JOIN st ON g.at >= st.ts WHERE g.at < st.e GROUP BY st.step_index),
  -- The queue is in order: a step completes no earlier than every step before it (a running max of the ends).
  c AS (SELECT st.*, max(greatest(st.e, coalesce(per.done, st.e))) OVER w AS completed,
               max(greatest(st.e, coalesce(per.done, st.e))) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS previous
        FROM st LEFT JOIN per USING (step_index) WINDOW w AS (ORDER BY st.step_index))
  SELECT CAST(step_index AS BIGINT) AS step_index, TRY_CAST(nullif(regexp_extract(name, '#(\\d+)', 1), '') AS BIGINT) AS step,
         greatest(ts, coalesce(previous, ts)) AS ts, completed - greatest(ts, coalesce(previous, ts)) AS dur, dur AS host_dur,
         completed <> e OR coalesce(previous > ts, false) AS gpu_extended
  FROM c ORDER BY step_index`;
}

export async function completedStepTimes(db: TraceDb): Promise<StepTimes> {
  // GPU ops belong to the step during which they were launched (or, with no launch link, started). Steps do not
  // overlap, so an as-of join (the last step that began at or before the launch) finds it in n log n; a range
  // join took 168 s for 77k steps and 770k kernels.
  // The period in SQL, in int64: absolute Kineto times near 2^60 ns lose their low digits as doubles.
  const rows = await db.rows<{ step: number | null; dur: number; gpu_extended: boolean; period: number }>(
    `SELECT *, max(ts + dur) OVER () - min(ts) OVER () AS period FROM (${stepTableSql()}) ORDER BY step_index`);
  return {
    durations: rows.map((r) => num(r.dur)),
    numbers: rows.map((r) => (r.step === null ? Number.NaN : num(r.step))),
    gpuBound: rows.some((r) => r.gpu_extended),
    periodNs: rows.length ? num(rows[0]!.period) : 0,
  };
}
