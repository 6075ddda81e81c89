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
}

export async function completedStepTimes(db: TraceDb): Promise<StepTimes> {
  // GPU ops belong to the step during which they were launched (or, with no launch link, started). Steps do not
  // overlap, so an as-of join (the last step that began at or before the launch) finds it in n log n; a range
  // join took 168 s for 77k steps and 770k kernels.
  const rows = await db.rows<{ ts: number; e: number; dur: number; done: number | null; name: string }>(`
    WITH st AS (SELECT row_number() OVER (ORDER BY ts, id) - 1 AS step, ts, dur, ts + dur AS e, name FROM slice WHERE ${STEP_WHERE}),
    -- One row per launch (its ops' last end) before the as-of join: ten kernels a submit made the join ten
    -- times larger than it needs to be, and on a 1 GB trace it ran out of DuckDB's memory limit.
    g AS (SELECT coalesce(gl.launch_ts, g.ts) AS at, max(g.ts + g.dur) AS done FROM slice g
          LEFT JOIN gpu_launch gl ON gl.gpu_slice_id = g.id
          WHERE g.category IN ${GPU_OP_CATEGORY_SQL} AND g.dur >= 0 GROUP BY 1),
    per AS (SELECT st.step, max(g.done) AS done FROM g ASOF JOIN st ON g.at >= st.ts WHERE g.at < st.e GROUP BY st.step)
    SELECT st.ts, st.e, st.dur, per.done, st.name FROM st LEFT JOIN per USING (step) ORDER BY st.step`);
  const durations: number[] = [];
  const numbers: number[] = [];
  let gpuBound = false;
  let previous = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const ts = num(r.ts);
    const end = num(r.e);
    const done = r.done === null ? end : Math.max(end, num(r.done));
    const completed = Math.max(done, previous);
    const start = Math.max(ts, previous);
    // The host span alone: take its duration as recorded (absolute timestamps near 2^60 ns are rounded to 256 ns
    // as doubles, their differences would not be exact).
    if (completed === end && start === ts) durations.push(num(r.dur));
    else {
      gpuBound = true;
      durations.push(completed - start);
    }
    previous = completed;
    numbers.push(Number(/#(\d+)/.exec(r.name)?.[1] ?? Number.NaN));
  }
  return { durations, numbers, gpuBound };
}
