/**
 * Kernel summary in the shape of `nsys stats` cuda_gpu_kern_sum, per GPU track (queue/stream, or the host
 * thread for the CPU backend), plus step statistics and compile time.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { quantile, warmupFall } from './stats.js';
import { completedStepTimes, type StepTimes } from './step-times.js';
import { completedThroughput } from './throughput.js';
import { ownWork, type OwnWork } from './own-work.js';
import { TRACK_NAME_SQL, clockAlignmentOf, nEnvsOf, num, stageSourceOf, type ClockAlignmentInfo, type StageSource } from './common.js';

export interface KernelRow {
  /** Share of this track's kernel time, percent. */
  timePercent: number;
  totalTimeNs: number;
  instances: number;
  avgNs: number;
  medNs: number;
  minNs: number;
  maxNs: number;
  stdDevNs: number;
  name: string;
}

export interface KernelTrackSummary {
  trackId: number;
  trackName: string;
  pid: number | null;
  tid: number | null;
  totalTimeNs: number;
  kernels: KernelRow[];
}

export interface StepStats {
  count: number;
  meanNs: number;
  medianNs: number;
  p95Ns: number;
  minNs: number;
  maxNs: number;
  /** Completed steps per second over the period from the first step's start to the last one's completion
   *  (completedThroughput: the run line of `record` divides the same way). */
  fps: number;
  /** That period, ns. */
  periodNs: number;
  nEnvs: number | null;
  /** fps * nEnvs when the trace records the number of environments. */
  envStepsPerSec: number | null;
  /** How much faster the last third of the steps ran than the first (stats.warmupFall); null under 9 steps. */
  warmupFall: number | null;
}

export interface KernelSummary {
  /** What the tracks' rows are: GPU kernels, or the CPU stages of a trace with no GPU kernels (CPU backend). */
  kind: StageSource['kind'];
  tracks: KernelTrackSummary[];
  steps: StepStats | null;
  /** Sum of the outermost 'compile' slices (build phases, shader/pipeline compilation), and their count. */
  compileNs: number;
  compileCount: number;
  /** Scene build and first (compiling) step, when the recording tool noted them in the run metadata: they
   *  happen before the profiler records, so they are not slices. */
  build: { seconds: number; firstStepSeconds: number | null } | null;
  /** GPU -> host clock alignment of a gsprof WebGPU recording (null when the trace has none). */
  clockAlignment: ClockAlignmentInfo | null;
  /** gsprof's own work in the steps' period (null without steps or gsprof spans). */
  ownWork: OwnWork | null;
}

export const KERNEL_SUM_COLUMNS = ['Time (%)', 'Total Time (ns)', 'Instances', 'Avg (ns)', 'Med (ns)', 'Min (ns)',
  'Max (ns)', 'StdDev (ns)', 'Name'] as const;

/** `stepTimes`: the trace's completed step times when the caller already has them (the step query is the
 * costliest one on a big trace). */
export async function kernelSummary(db: TraceDb, stepTimes?: StepTimes): Promise<KernelSummary> {
  const source = await stageSourceOf(db);
  const rows = await db.rows<Record<string, unknown>>(`
    WITH k AS (SELECT track_id, name, dur FROM slice WHERE ${source.where}),
    per AS (
      SELECT track_id, name, sum(dur) AS total, count(*) AS n, avg(dur) AS avg, median(dur) AS med,
             min(dur) AS mn, max(dur) AS mx, coalesce(stddev_samp(dur), 0) AS sd
      FROM k GROUP BY track_id, name),
    tot AS (SELECT track_id, sum(total) AS track_total FROM per GROUP BY track_id),
    names AS (${TRACK_NAME_SQL})
    SELECT per.*, tot.track_total, names.track_name, names.pid, names.tid
    FROM per JOIN tot USING (track_id) LEFT JOIN names USING (track_id)
    ORDER BY tot.track_total DESC, track_id, per.total DESC, per.name`);
  const tracks: KernelTrackSummary[] = [];
  for (const r of rows) {
    const trackId = num(r.track_id);
    let t = tracks[tracks.length - 1];
    if (!t || t.trackId !== trackId) {
      t = { trackId, trackName: String(r.track_name ?? `track ${trackId}`), pid: r.pid === null ? null : num(r.pid),
        tid: r.tid === null ? null : num(r.tid), totalTimeNs: num(r.track_total), kernels: [] };
      tracks.push(t);
    }
    const total = num(r.total);
    t.kernels.push({
      timePercent: t.totalTimeNs > 0 ? (100 * total) / t.totalTimeNs : 0,
      totalTimeNs: total, instances: num(r.n), avgNs: num(r.avg), medNs: num(r.med), minNs: num(r.mn),
      maxNs: num(r.mx), stdDevNs: num(r.sd), name: String(r.name),
    });
  }
  const times = stepTimes ?? await completedStepTimes(db);
  const steps = await stepStats(db, times);
  return { kind: source.kind, tracks, steps, ...(await compileTime(db)), build: await buildTime(db), clockAlignment: await clockAlignmentOf(db),
    ownWork: steps ? await ownWork(db, times.periodNs) : null };
}

async function buildTime(db: TraceDb): Promise<KernelSummary['build']> {
  const seconds = Number(await db.metadata('gsprof.run.buildSeconds'));
  if (!Number.isFinite(seconds)) return null;
  const first = Number(await db.metadata('gsprof.run.firstStepSeconds'));
  return { seconds, firstStepSeconds: Number.isFinite(first) ? first : null };
}

export async function stepStats(db: TraceDb, stepTimes?: StepTimes): Promise<StepStats | null> {
  const { durations, periodNs } = stepTimes ?? await completedStepTimes(db);
  if (durations.length === 0) return null;
  const count = durations.length;
  let total = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const d of durations) { total += d; min = Math.min(min, d); max = Math.max(max, d); }
  const nEnvs = await nEnvsOf(db);
  const rate = completedThroughput(count, periodNs, nEnvs);
  return { count, meanNs: total / count, medianNs: quantile(durations, 0.5), p95Ns: quantile(durations, 0.95), minNs: min, maxNs: max,
    fps: rate.stepsPerSecond, periodNs, nEnvs, envStepsPerSec: rate.envStepsPerSecond, warmupFall: warmupFall(durations) };
}

async function compileTime(db: TraceDb): Promise<{ compileNs: number; compileCount: number }> {
  const [r] = await db.rows<Record<string, unknown>>(
    // Only outermost compile slices count: a kernel's compile inside a build phase's span is already in it.
    `SELECT coalesce(sum(s.dur), 0) AS total, count(*) AS n FROM slice s
     LEFT JOIN slice p ON p.id = s.parent_id
     WHERE s.category = 'compile' AND s.dur >= 0 AND (p.id IS NULL OR p.category IS DISTINCT FROM 'compile')`);
  return { compileNs: num(r?.total ?? 0), compileCount: num(r?.n ?? 0) };
}
