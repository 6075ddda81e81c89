/**
 * Everything `gsprof report` shows about one trace, as data: the analyses summary, gaps and timers already run
 * (the same calls, so the page's numbers are theirs), the step times in order with their warm-up and outliers
 * marked, and what the trace lacks for a section (no steps, no kernels), so a page can say so.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { gaps, type GapsResult } from './gaps.js';
import { stepStats, type StepStats } from './kernel-summary.js';
import { summaryReport, type Report } from './reports.js';
import { stepMarks, type StepMarks } from './stats.js';
import { completedStepTimes } from './step-times.js';
import { timers, type TimersResult } from './timers.js';

export interface StepSeries extends StepMarks {
  /** Step numbers (ProfilerStep#k) and completed step times (ns), in step order. */
  numbers: number[];
  durations: number[];
  /** Whether GPU work made any step longer than its host span (completedStepTimes). */
  gpuBound: boolean;
}

export interface RunReport {
  /** `summary --report kernels`: the GPU kernels, or a CPU-backend run's stages (its title says which). */
  stages: Report;
  /** `summary --report steps`. */
  steps: Report;
  stepStats: StepStats | null;
  series: StepSeries;
  gaps: GapsResult;
  timers: TimersResult | null;
  /** What the trace has none of, in words, for the page to say (empty when nothing is missing). */
  missing: string[];
}

export async function runReport(db: TraceDb): Promise<RunReport> {
  const times = await completedStepTimes(db);
  const stages = await summaryReport(db, 'kernels');
  const steps = await summaryReport(db, 'steps');
  const missing: string[] = [];
  if (stages.rows.length === 0) missing.push('no GPU kernels and no CPU stages (cpu_op spans): the stage table and the busy/idle breakdown are empty');
  if (times.durations.length === 0) missing.push('no steps (ProfilerStep#k spans): no step time chart, distribution or FPS');
  const timerResult = await timers(db, { slowest: 8 });
  if (!timerResult) missing.push('no per-env solver timers (env_timers instants): record with `gsprof record --example ...` for them');
  return {
    stages, steps, stepStats: await stepStats(db, times),
    series: { numbers: times.numbers, durations: times.durations, gpuBound: times.gpuBound, ...stepMarks(times.durations) },
    gaps: await gaps(db), timers: timerResult, missing,
  };
}
