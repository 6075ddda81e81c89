/**
 * Step times of completed work: the one throughput every gsprof number uses (summary, baselines, compare).
 *
 * A step is complete when its host span has ended AND the GPU work it launched has finished. On the GPU the host
 * only queues work: its ProfilerStep spans measure how fast steps were submitted, which can be many times the
 * rate the GPU finishes them. Step k's time is therefore the interval between the completion of step k-1 and
 * of step k (the first step: from its start); their sum is the wall time from the first step's start to the last
 * completion, so steps / sum is the rate at which work was done. On the CPU backend (no GPU work) a step
 * completes when its span ends, and the times are the host's.
 */
import type { TraceDb } from '../sql/traceDb.js';
import { GPU_OP_CATEGORY_SQL, STEP_WHERE, num } from './common.js';

export interface StepTimes {
  /** ns, one per ProfilerStep in order. */
  durations: number[];
  /** Whether GPU work extended any step past its host span (the host ran ahead of the GPU). */
  gpuBound: boolean;
}

export async function completedStepTimes(db: TraceDb): Promise<StepTimes> {
  // GPU ops belong to the step during which they were launched (or, with no launch link, started).
  const rows = await db.rows<{ ts: number; e: number; done: number | null }>(`
    WITH st AS (SELECT row_number() OVER (ORDER BY ts, id) - 1 AS step, ts, ts + dur AS e FROM slice WHERE ${STEP_WHERE}),
    g AS (SELECT g.ts + g.dur AS done, coalesce(l.ts, g.ts) AS at FROM slice g
          LEFT JOIN gpu_launch gl ON gl.gpu_slice_id = g.id LEFT JOIN slice l ON l.id = gl.launch_slice_id
          WHERE g.category IN ${GPU_OP_CATEGORY_SQL} AND g.dur >= 0),
    per AS (SELECT st.step, max(g.done) AS done FROM st JOIN g ON g.at >= st.ts AND g.at < st.e GROUP BY st.step)
    SELECT st.ts, st.e, per.done FROM st LEFT JOIN per USING (step) ORDER BY st.step`);
  const durations: number[] = [];
  let gpuBound = false;
  let previous = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const end = num(r.e);
    const done = r.done === null ? end : Math.max(end, num(r.done));
    if (done > end) gpuBound = true;
    // Completion order is the queue's; a step never completes before the one before it.
    const completed = Math.max(done, previous);
    durations.push(completed - (durations.length === 0 ? num(r.ts) : previous));
    previous = completed;
  }
  return { durations, gpuBound };
}
