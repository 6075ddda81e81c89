/**
 * GPU idle-time analysis (HTA's idle time breakdown and launch delay, over Perfetto-named tables).
 * Busy time per queue/stream is the union of its GPU op intervals; each gap between busy islands is
 *   host wait   when the launch of the op after the gap began after the gap began (the CPU was late),
 *   kernel wait when shorter than 30 µs (launch overhead between back-to-back ops),
 *   other       otherwise.
 * Launch delay = GPU start - end of the CPU launch call, clipped at 0.
 * A trace with no GPU ops but CPU stages (cpu_op, the CPU backend) has no GPU timeline to split: its verdict
 * says so, and host utilisation (the share of each step's wall time covered by CPU stage spans) replaces it.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { CPU_OP_WHERE, GPU_OP_CATEGORY_SQL, HOST_WHERE, STEP_WHERE, TRACK_NAME_SQL, clockAlignmentOf, num, type ClockAlignmentInfo } from './common.js';

export interface GapsOptions {
  /** Gaps shorter than this (ns) with no host wait are kernel wait. Default 30 µs. */
  kernelWaitNs?: number;
  /** How many of the longest idle intervals to list. Default 10. */
  topIntervals?: number;
  /** CPU slices listed per idle interval. Default 5. */
  cpuPerInterval?: number;
  /** Below this idle fraction the run is GPU-bound. Default 0.2. */
  gpuBoundIdleFraction?: number;
  /** At or above this share of idle time being host wait the run is CPU-bound. Default 0.5. */
  cpuBoundHostWaitShare?: number;
}

export interface QueueIdle {
  trackId: number;
  trackName: string;
  ops: number;
  spanNs: number;
  busyNs: number;
  idleNs: number;
  idleFraction: number;
  gaps: number;
  hostWaitNs: number;
  kernelWaitNs: number;
  otherNs: number;
}

export interface LaunchDelayStats {
  trackId: number;
  trackName: string;
  launches: number;
  meanNs: number;
  p50Ns: number;
  p95Ns: number;
  maxNs: number;
  /** Delay > 100 µs. */
  outliers: number;
  /** Launch calls longer than 50 µs. */
  longLaunchCalls: number;
}

export interface CpuOverlap { name: string; category: string | null; trackName: string; overlapNs: number; depth: number }

export interface IdleInterval {
  trackId: number;
  trackName: string;
  /** ns since the start of the trace. */
  startNs: number;
  endNs: number;
  durNs: number;
  kind: 'host wait' | 'kernel wait' | 'other';
  nextOp: string | null;
  cpu: CpuOverlap[];
}

export type GapVerdict = 'GPU-bound' | 'CPU-bound' | 'mixed' | 'no GPU work';

/** Per thread: the share of the steps' wall time its CPU stage spans cover. */
export interface ThreadUtilisation {
  trackId: number;
  trackName: string;
  coveredNs: number;
  /** coveredNs / the steps' total wall time. */
  share: number;
}

/** How much of each step's wall time the CPU stages (cpu_op spans, on any thread) cover. */
export interface HostUtilisation {
  steps: number;
  /** Sum of the steps' wall time, and of the time inside them covered by a CPU stage span on some thread. */
  wallNs: number;
  coveredNs: number;
  /** Per step covered / wall: mean, median and the lowest step. */
  meanShare: number;
  medianShare: number;
  minShare: number;
  threads: ThreadUtilisation[];
}

export interface GapsResult {
  queues: QueueIdle[];
  launchDelay: LaunchDelayStats[];
  topIdle: IdleInterval[];
  overall: {
    /** Union of all GPU ops across queues, and the span they cover. */
    busyNs: number;
    spanNs: number;
    idleNs: number;
    idleFraction: number;
    hostWaitNs: number;
    kernelWaitNs: number;
    otherNs: number;
    /** hostWait / (hostWait + kernelWait + other) over all queues. */
    hostWaitShare: number;
  };
  verdict: GapVerdict;
  reason: string;
  /** GPU -> host clock alignment of the recording (null when the trace has none). */
  clockAlignment: ClockAlignmentInfo | null;
  /** Whether the host-wait split can rest on that alignment: a gap is host wait when its launch began after the
   * gap began, a comparison across the two clocks, so an alignment error above the gaps' length decides it.
   * medianGapNs is idle-time weighted: half of the idle time is in gaps at least this long. */
  hostWaitSplit: { reliable: boolean | null; medianGapNs: number; note: string };
  /** A CPU-only trace (no GPU ops, CPU stages recorded): its host utilisation; null otherwise or with no steps. */
  hostUtilisation: HostUtilisation | null;
}

/** Islands of busy time per track, then the gaps between them with their classification. */
function gapsSql(kernelWaitNs: number, partition: 'track' | 'all'): string {
  const part = partition === 'track' ? 'PARTITION BY track_id' : '';
  const trackCol = partition === 'track' ? 'track_id' : '-1 AS track_id';
  return `
    ops AS (SELECT id, ${trackCol}, ts, ts + dur AS e FROM slice WHERE category IN ${GPU_OP_CATEGORY_SQL} AND dur >= 0),
    marked AS (SELECT *, max(e) OVER (${part} ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM ops),
    isl AS (SELECT *, sum(CASE WHEN prev_end IS NULL OR ts > prev_end THEN 1 ELSE 0 END) OVER (${part} ORDER BY ts, id) AS island FROM marked),
    busy AS (SELECT track_id, island, min(ts) AS s, max(e) AS e, arg_min(id, ts) AS first_id, count(*) AS n FROM isl GROUP BY track_id, island),
    gap AS (
      SELECT track_id, e AS gap_start, lead(s) OVER w AS gap_end, lead(first_id) OVER w AS next_id
      FROM busy WINDOW w AS (${part} ORDER BY s)),
    classified AS (
      SELECT g.track_id, g.gap_start, g.gap_end, g.gap_end - g.gap_start AS len, g.next_id,
             CASE WHEN gl.launch_ts IS NOT NULL AND gl.launch_ts > g.gap_start THEN 'host wait'
                  WHEN g.gap_end - g.gap_start < ${kernelWaitNs} THEN 'kernel wait' ELSE 'other' END AS kind
      FROM gap g LEFT JOIN gpu_launch gl ON gl.gpu_slice_id = g.next_id
      WHERE g.gap_end IS NOT NULL AND g.gap_end > g.gap_start)`;
}

export async function gaps(db: TraceDb, opts: GapsOptions = {}): Promise<GapsResult> {
  const kernelWaitNs = opts.kernelWaitNs ?? 30_000;
  const topN = opts.topIntervals ?? 10;
  const cpuN = opts.cpuPerInterval ?? 5;

  const queueRows = await db.rows<Record<string, unknown>>(`
    WITH ${gapsSql(kernelWaitNs, 'track')},
    per_busy AS (SELECT track_id, sum(e - s) AS busy, max(e) - min(s) AS span, sum(n) AS ops FROM busy GROUP BY track_id),
    per_gap AS (
      SELECT track_id, count(*) AS gaps,
             coalesce(sum(len) FILTER (WHERE kind = 'host wait'), 0) AS host,
             coalesce(sum(len) FILTER (WHERE kind = 'kernel wait'), 0) AS kern,
             coalesce(sum(len) FILTER (WHERE kind = 'other'), 0) AS other
      FROM classified GROUP BY track_id),
    names AS (${TRACK_NAME_SQL})
    SELECT b.track_id, names.track_name, b.ops, b.span, b.busy, coalesce(g.gaps, 0) AS gaps,
           coalesce(g.host, 0) AS host, coalesce(g.kern, 0) AS kern, coalesce(g.other, 0) AS other
    FROM per_busy b LEFT JOIN per_gap g USING (track_id) LEFT JOIN names USING (track_id)
    ORDER BY b.busy DESC, b.track_id`);
  const queues: QueueIdle[] = queueRows.map((r) => {
    const span = num(r.span);
    const busy = num(r.busy);
    return { trackId: num(r.track_id), trackName: String(r.track_name), ops: num(r.ops), spanNs: span, busyNs: busy,
      idleNs: span - busy, idleFraction: span > 0 ? (span - busy) / span : 0, gaps: num(r.gaps),
      hostWaitNs: num(r.host), kernelWaitNs: num(r.kern), otherNs: num(r.other) };
  });

  const [all] = await db.rows<Record<string, unknown>>(`
    WITH ${gapsSql(kernelWaitNs, 'all')}
    SELECT coalesce(sum(e - s), 0) AS busy, coalesce(max(e) - min(s), 0) AS span FROM busy`);

  const delayRows = await db.rows<Record<string, unknown>>(`
    WITH d AS (
      SELECT g.track_id, greatest(0, g.ts - (gl.launch_ts + gl.launch_dur)) AS delay, gl.launch_dur
      FROM gpu_launch gl JOIN slice g ON g.id = gl.gpu_slice_id
      WHERE g.dur >= 0 AND gl.launch_dur >= 0),
    names AS (${TRACK_NAME_SQL})
    SELECT d.track_id, names.track_name, count(*) AS n, avg(delay) AS mean, quantile_cont(delay, 0.5) AS p50,
           quantile_cont(delay, 0.95) AS p95, max(delay) AS mx,
           count(*) FILTER (WHERE delay > 100000) AS outliers, count(*) FILTER (WHERE launch_dur > 50000) AS long_calls
    FROM d LEFT JOIN names USING (track_id) GROUP BY d.track_id, names.track_name ORDER BY d.track_id`);
  const launchDelay: LaunchDelayStats[] = delayRows.map((r) => ({
    trackId: num(r.track_id), trackName: String(r.track_name), launches: num(r.n), meanNs: num(r.mean),
    p50Ns: num(r.p50), p95Ns: num(r.p95), maxNs: num(r.mx), outliers: num(r.outliers), longLaunchCalls: num(r.long_calls),
  }));

  const topRows = await db.rows<Record<string, unknown>>(`
    WITH ${gapsSql(kernelWaitNs, 'track')},
    t0 AS (SELECT min(ts) AS t0 FROM slice),
    top AS (SELECT * FROM classified ORDER BY len DESC, track_id, gap_start LIMIT ${topN}),
    names AS (${TRACK_NAME_SQL}),
    cpu AS (
      SELECT top.track_id AS gap_track, top.gap_start, s.name, s.category, s.depth, n.track_name,
             least(s.ts + s.dur, top.gap_end) - greatest(s.ts, top.gap_start) AS overlap,
             row_number() OVER (PARTITION BY top.track_id, top.gap_start
                                ORDER BY least(s.ts + s.dur, top.gap_end) - greatest(s.ts, top.gap_start) DESC, s.depth DESC, s.id) AS rk
      FROM top JOIN slice s ON s.ts < top.gap_end AND s.ts + s.dur > top.gap_start
      LEFT JOIN names n ON n.track_id = s.track_id
      WHERE s.dur > 0 AND ${HOST_WHERE.replace('category', 's.category')})
    SELECT top.track_id, tn.track_name, top.gap_start - t0.t0 AS start_rel, top.gap_end - t0.t0 AS end_rel, top.len,
           top.kind, nx.name AS next_name, cpu.name AS cpu_name, cpu.category AS cpu_cat, cpu.track_name AS cpu_track,
           cpu.overlap, cpu.depth AS cpu_depth, cpu.rk
    FROM top CROSS JOIN t0 LEFT JOIN names tn ON tn.track_id = top.track_id LEFT JOIN slice nx ON nx.id = top.next_id
    LEFT JOIN cpu ON cpu.gap_track = top.track_id AND cpu.gap_start = top.gap_start AND cpu.rk <= ${cpuN}
    ORDER BY top.len DESC, top.track_id, top.gap_start, cpu.rk`);
  const topIdle: IdleInterval[] = [];
  for (const r of topRows) {
    const key = `${num(r.track_id)}:${num(r.start_rel)}`;
    let it = topIdle[topIdle.length - 1];
    if (!it || `${it.trackId}:${it.startNs}` !== key) {
      it = { trackId: num(r.track_id), trackName: String(r.track_name), startNs: num(r.start_rel), endNs: num(r.end_rel),
        durNs: num(r.len), kind: r.kind as IdleInterval['kind'], nextOp: r.next_name === null ? null : String(r.next_name), cpu: [] };
      topIdle.push(it);
    }
    if (r.cpu_name !== null && r.cpu_name !== undefined) {
      it.cpu.push({ name: String(r.cpu_name), category: r.cpu_cat === null ? null : String(r.cpu_cat),
        trackName: String(r.cpu_track), overlapNs: num(r.overlap), depth: num(r.cpu_depth) });
    }
  }

  const busyNs = num(all?.busy ?? 0);
  const spanNs = num(all?.span ?? 0);
  const hostWaitNs = queues.reduce((s, q) => s + q.hostWaitNs, 0);
  const kernelWait = queues.reduce((s, q) => s + q.kernelWaitNs, 0);
  const otherNs = queues.reduce((s, q) => s + q.otherNs, 0);
  const classifiedIdle = hostWaitNs + kernelWait + otherNs;
  const overall = { busyNs, spanNs, idleNs: spanNs - busyNs, idleFraction: spanNs > 0 ? (spanNs - busyNs) / spanNs : 0,
    hostWaitNs, kernelWaitNs: kernelWait, otherNs, hostWaitShare: classifiedIdle > 0 ? hostWaitNs / classifiedIdle : 0 };
  const judged = judge(overall, opts);
  const [gapStats] = await db.rows<Record<string, unknown>>(`
    WITH ${gapsSql(kernelWaitNs, 'track')}
    , c AS (SELECT len, sum(len) OVER (ORDER BY len ROWS UNBOUNDED PRECEDING) AS cum, sum(len) OVER () AS total FROM classified)
    SELECT min(len) FILTER (WHERE cum >= total / 2) AS med, count(*) AS n FROM c`);
  const clockAlignment = await clockAlignmentOf(db);
  const hostWaitSplit = splitReliability(clockAlignment, num(gapStats?.n ?? 0) > 0 ? num(gapStats?.med) : NaN);
  let { verdict, reason } = judged;
  let hostUtilisation: HostUtilisation | null = null;
  if (spanNs === 0) {
    const [c] = await db.rows<Record<string, unknown>>(`SELECT count(*) AS n FROM slice WHERE ${CPU_OP_WHERE}`);
    if (num(c?.n ?? 0) > 0) {
      reason = 'no GPU timeline: this is a CPU-only trace; its stages are cpu_op spans on host threads';
      hostUtilisation = await hostUtilisationOf(db);
    }
  }
  if (hostWaitSplit.reliable === false && (verdict === 'CPU-bound' || verdict === 'mixed')) {
    // CPU-bound rests on the host-wait share alone: not a verdict this alignment can support.
    if (verdict === 'CPU-bound') verdict = 'mixed';
    reason = `${reason}; the host-wait split is unreliable (${hostWaitSplit.note})`;
  }
  return { queues, launchDelay, topIdle, overall, verdict, reason, clockAlignment, hostWaitSplit, hostUtilisation };
}

/** The union of the cpu_op spans inside each step (clipped to it), per step or per step and thread. */
function coveredSql(byTrack: boolean): string {
  const part = byTrack ? 'step, track_id' : 'step';
  return `
    st AS (SELECT row_number() OVER (ORDER BY ts, id) AS step, ts AS s0, ts + dur AS s1 FROM slice WHERE ${STEP_WHERE}),
    c AS (SELECT st.step, o.track_id, o.id, greatest(o.ts, st.s0) AS ts, least(o.ts + o.dur, st.s1) AS e
          FROM slice o JOIN st ON o.ts < st.s1 AND o.ts + o.dur > st.s0 WHERE o.${CPU_OP_WHERE.replace(/ AND dur/, ' AND o.dur')}),
    m AS (SELECT *, max(e) OVER (PARTITION BY ${part} ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM c),
    i AS (SELECT *, sum(CASE WHEN prev_end IS NULL OR ts > prev_end THEN 1 ELSE 0 END) OVER (PARTITION BY ${part} ORDER BY ts, id) AS island FROM m),
    b AS (SELECT ${part}, island, min(ts) AS s, max(e) AS e FROM i GROUP BY ${part}, island),
    cov AS (SELECT ${part}, sum(e - s) AS covered FROM b GROUP BY ${part})`;
}

async function hostUtilisationOf(db: TraceDb): Promise<HostUtilisation | null> {
  const [r] = await db.rows<Record<string, unknown>>(`
    WITH ${coveredSql(false)},
    per AS (SELECT st.step, st.s1 - st.s0 AS wall, coalesce(cov.covered, 0) AS covered FROM st LEFT JOIN cov USING (step) WHERE st.s1 > st.s0)
    SELECT count(*) AS n, sum(wall) AS wall, sum(covered) AS covered, avg(covered / wall) AS mean,
           quantile_cont(covered / wall, 0.5) AS med, min(covered / wall) AS mn FROM per`);
  if (!r || num(r.n) === 0) return null;
  const wallNs = num(r.wall);
  const threads = await db.rows<Record<string, unknown>>(`
    WITH ${coveredSql(true)}, names AS (${TRACK_NAME_SQL})
    SELECT cov.track_id, names.track_name, sum(cov.covered) AS covered FROM cov LEFT JOIN names USING (track_id)
    GROUP BY cov.track_id, names.track_name ORDER BY covered DESC, cov.track_id`);
  return {
    steps: num(r.n), wallNs, coveredNs: num(r.covered), meanShare: num(r.mean), medianShare: num(r.med), minShare: num(r.mn),
    threads: threads.map((t) => ({ trackId: num(t.track_id), trackName: String(t.track_name), coveredNs: num(t.covered),
      share: wallNs > 0 ? num(t.covered) / wallNs : 0 })),
  };
}

const micros = (ns: number): string => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} us`);

function splitReliability(a: ClockAlignmentInfo | null, medianGapNs: number): GapsResult['hostWaitSplit'] {
  if (!Number.isFinite(medianGapNs)) return { reliable: null, medianGapNs: NaN, note: 'no gaps to classify' };
  if (!a) return { reliable: null, medianGapNs, note: 'the trace records no GPU clock alignment; GPU and host timestamps are taken as one clock' };
  if (a.errorBoundNs < 0) return { reliable: false, medianGapNs, note: 'the clock alignment error is unknown (bounded on one side only)' };
  if (a.driftAtBound && a.driftPpm !== 0) return { reliable: false, medianGapNs, note: `the clock drift fit is pinned at its ${a.driftPpm.toFixed(0)} ppm search bound` };
  if (a.errorBoundNs >= medianGapNs) return { reliable: false, medianGapNs, note: `clock alignment error +-${micros(a.errorBoundNs)} is not below the gaps that hold the idle time (half of it is in gaps of ${micros(medianGapNs)} or more)` };
  return { reliable: true, medianGapNs, note: `clock alignment error +-${micros(a.errorBoundNs)}, below the gaps that hold the idle time (half of it is in gaps of ${micros(medianGapNs)} or more)` };
}

function judge(o: GapsResult['overall'], opts: GapsOptions): { verdict: GapVerdict; reason: string } {
  const idleMax = opts.gpuBoundIdleFraction ?? 0.2;
  const hostShare = opts.cpuBoundHostWaitShare ?? 0.5;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  if (o.spanNs === 0) return { verdict: 'no GPU work', reason: 'the trace has no GPU ops (category kernel / gpu_memcpy / gpu_memset)' };
  if (o.idleFraction < idleMax) {
    return { verdict: 'GPU-bound', reason: `GPU idle ${pct(o.idleFraction)} of its span (< ${pct(idleMax)})` };
  }
  if (o.hostWaitShare >= hostShare) {
    return { verdict: 'CPU-bound', reason: `GPU idle ${pct(o.idleFraction)} of its span; host wait is ${pct(o.hostWaitShare)} of the idle time (>= ${pct(hostShare)})` };
  }
  return { verdict: 'mixed', reason: `GPU idle ${pct(o.idleFraction)} of its span; host wait ${pct(o.hostWaitShare)} of the idle time, kernel wait ${pct(o.kernelWaitNs / Math.max(1, o.hostWaitNs + o.kernelWaitNs + o.otherNs))}` };
}
