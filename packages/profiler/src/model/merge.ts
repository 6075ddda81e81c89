/**
 * One timeline from the traces of several processes (the ranks of a multi-process run), for `gsprof merge`.
 *
 * Clocks: every trace's times are its host's wall clock (baseTimeNs + ts), read once per process, so two
 * processes' timelines differ by how far their wall-clock readings were apart. When every trace also carries
 * the machine's CLOCK_MONOTONIC at its ts 0 (one machine, one boot), the traces line up on that clock instead,
 * within the sum of the two readings' errors. Traces from several machines can only line up on their wall
 * clocks, which their time synchronisation (NTP, PTP) keeps together to a degree gsprof cannot know.
 */
import type { MonotonicAnchor, TraceMetadata, TraceModel, TraceProcess, TraceTrack } from './trace.js';

export interface MergePart {
  model: TraceModel;
  rank: number;
  /** Where the part was read from (named in the merged trace's metadata). */
  source: string;
}

export interface RankAlignment {
  rank: number;
  /** The part's ts 0 on the merged timeline, epoch ns. */
  baseTimeNs: bigint;
  /** How far the alignment moved the part from its own wall clock (0 when aligned on wall clocks). */
  shiftNs: number;
}

export interface ClockAlignmentPlan {
  method: 'monotonic' | 'wall clock';
  /** Bound on the error between any two parts' timelines; null when nothing bounds it (wall clocks of
   *  different machines). */
  errorBoundNs: number | null;
  ranks: RankAlignment[];
  /** Why the method was chosen, in words. */
  note: string;
}

/** How the parts' timelines line up: on the shared monotonic clock when they all have it, else wall clocks. */
/** A clock reading or error bound merge cannot use: it would place a rank's events anywhere. */
export class ClockReadingError extends Error {
  override readonly name = 'ClockReadingError';
}

/** Refuses a monotonic reading that is not a non-negative integer, or an error bound that is not a finite ns >= 0. */
function checkAnchor(rank: number, a: MonotonicAnchor): void {
  if (typeof a.monotonicNs !== 'string' || !/^\d{1,20}$/.test(a.monotonicNs)) {
    throw new ClockReadingError(`rank ${rank}: its CLOCK_MONOTONIC reading ${JSON.stringify(a.monotonicNs)} is not a whole number of ns`);
  }
  if (typeof a.errorNs !== 'number' || !Number.isFinite(a.errorNs) || a.errorNs < 0) {
    throw new ClockReadingError(`rank ${rank}: the error bound of its clock reading, ${String(a.errorNs)}, is not a finite number of ns >= 0`);
  }
}

export function planAlignment(parts: ReadonlyArray<{ rank: number; metadata: TraceMetadata }>): ClockAlignmentPlan {
  const anchors = parts.map((p) => p.metadata.hostClock);
  parts.forEach((p, i) => { const a = anchors[i]; if (a !== undefined) checkAnchor(p.rank, a); });
  const boot = anchors[0]?.bootId ?? null;
  const shared = parts.length > 0 && boot !== null && anchors.every((a) => a !== undefined && a.bootId === boot);
  if (!shared) {
    const why = anchors.some((a) => a === undefined)
      ? 'some traces carry no monotonic clock reading (not recorded by this gsprof, or not by gsprof)'
      : 'the traces come from different machines or boots';
    return {
      method: 'wall clock', errorBoundNs: null,
      ranks: parts.map((p) => ({ rank: p.rank, baseTimeNs: p.metadata.baseTimeNs, shiftNs: 0 })),
      note: `${why}: aligned on each process's wall clock, whose error between machines depends on their time synchronisation (NTP, PTP) and is not known to gsprof`,
    };
  }
  const ref = parts[0]!.metadata;
  const refMono = BigInt(ref.hostClock!.monotonicNs);
  const errors = anchors.map((a) => a!.errorNs);
  const sorted = [...errors].sort((a, b) => b - a);
  const ranks = parts.map((p) => {
    const base = ref.baseTimeNs + (BigInt(p.metadata.hostClock!.monotonicNs) - refMono);
    // One machine, one boot: the monotonic and wall clocks of two processes cannot disagree by more than the
    // processes' lifetimes. A reading that moves a rank before the epoch is not a clock reading.
    if (base < 0n) throw new ClockReadingError(`rank ${p.rank}: its CLOCK_MONOTONIC reading ${p.metadata.hostClock!.monotonicNs} would place it before 1970 against rank ${parts[0]!.rank}'s: an impossible reading`);
    return { rank: p.rank, baseTimeNs: base, shiftNs: Number(base - p.metadata.baseTimeNs) };
  });
  return {
    method: 'monotonic',
    // Two parts are at most their two readings' errors apart: the worst pair is the two largest.
    errorBoundNs: (sorted[0] ?? 0) + (sorted[1] ?? 0),
    ranks,
    note: `every trace was recorded on one machine in one boot (boot id ${boot}): aligned on its CLOCK_MONOTONIC`,
  };
}

/** Offsets pids and tids of a part whose process id another part already uses (ranks on different machines). */
const PID_STRIDE = 10_000_000;
/** Merged GPU queue tids: far above any OS thread id (Linux caps them at 2^22). */
const GPU_TID_BASE = 100_000_000;

/** A part's header: what the merged header is made of (a TraceModel, or an EventStream before its events). */
export interface MergeHeaderPart {
  rank: number;
  source: string;
  metadata: TraceMetadata;
  processes: readonly TraceProcess[];
  tracks: readonly TraceTrack[];
}

/** The merged header, and how each part's events move into it. */
export interface MergeLayout {
  metadata: TraceMetadata;
  processes: TraceProcess[];
  tracks: TraceTrack[];
  /** Per part, in the order given: ns added to its ts, and its track ids' new ids. */
  parts: Array<{ shiftNs: number; trackId: Map<number, number> }>;
}

/**
 * The merged header: each rank one process (its host threads, its GPU queues named after their device, its
 * counters), named `rank <k>: ...`, and each part's shift onto the merged timeline, whose ts 0 is the earliest
 * part's start.
 */
export function mergeLayout(parts: readonly MergeHeaderPart[], plan: ClockAlignmentPlan): MergeLayout {
  if (parts.length === 0) throw new Error('merge: no traces to merge');
  const bases = new Map(plan.ranks.map((r) => [r.rank, r.baseTimeNs]));
  // The earliest part's start is the merged ts 0 (bigints: Math.min takes none).
  let base = bases.get(parts[0]!.rank)!;
  for (const p of parts) if (bases.get(p.rank)! < base) base = bases.get(p.rank)!;
  if (base < 0n) base = 0n;
  const first = parts[0]!.metadata;
  const out: MergeLayout = {
    metadata: {
      baseTimeNs: base,
      traceName: `gsprof merge of ${parts.length} ranks`,
      producer: first.producer,
      hostname: first.hostname,
      pid: first.pid,
      deviceProperties: parts.flatMap((p) => p.metadata.deviceProperties),
      // No rank: the merged trace is no rank's, and never mistaken for one.
      distributedInfo: { backend: 'none', world_size: parts.length },
      syncEachStep: parts.every((p) => p.metadata.syncEachStep),
      run: { ...first.run, mergedRanks: parts.map((p) => p.rank).join(','), clockAlignment: plan.method, ...(plan.errorBoundNs !== null ? { clockAlignmentErrorNs: plan.errorBoundNs } : {}) },
      merged: parts.map((p) => ({ rank: p.rank, source: p.source, hostname: p.metadata.hostname, pid: p.metadata.pid })),
    },
    processes: [], tracks: [], parts: [],
  };
  const usedPids = new Set<number>();
  let nextTrack = 1;
  for (const part of parts) {
    const md = part.metadata;
    const host: TraceProcess = part.processes.find((p) => p.kind === 'cpu' && p.pid === md.pid) ?? part.processes.find((p) => p.kind === 'cpu') ?? part.processes[0]
      ?? { pid: md.pid, name: 'process', kind: 'cpu' };
    const offset = usedPids.has(host.pid) ? PID_STRIDE * (part.rank + 1) : 0;
    const pid = host.pid + offset;
    usedPids.add(pid);
    const where = md.hostname ? ` on ${md.hostname}` : '';
    out.processes.push({ pid, name: `rank ${part.rank}: ${host.name} (pid ${host.pid}${where})`, kind: 'cpu' });
    const processName = new Map(part.processes.map((p) => [p.pid, p.name]));
    const queueIndex = new Map(part.processes.filter((p) => p.pid !== host.pid).map((p, i) => [p.pid, i]));
    const trackId = new Map<number, number>();
    for (const t of part.tracks) {
      const id = nextTrack++;
      trackId.set(t.id, id);
      const own = t.pid === host.pid;
      // A device's queues join the rank's process, named after the device they ran on.
      const name = own || t.kind === 'thread' ? t.name : `${processName.get(t.pid) ?? `process ${t.pid}`} ${t.name}`;
      // Merged tracks get new pids (and GPU tids): a source's string ids no longer name them.
      const { pidText: _pid, tidText: _tid, ...kept } = t;
      const track: TraceTrack = { ...kept, id, pid, name };
      if (t.kind === 'thread' && t.tid !== undefined) track.tid = t.tid + offset;
      // A queue's tid is its index within its device: in the rank's process, queues of two devices (and the
      // threads) would share it, and exporters that declare queues as threads would fold them into one.
      else if (t.kind === 'gpu_queue') track.tid = GPU_TID_BASE + part.rank * 100_000 + (queueIndex.get(t.pid) ?? 0) * 100 + (t.tid ?? 0);
      out.tracks.push(track);
    }
    out.parts.push({ shiftNs: Number(bases.get(part.rank)! - base), trackId });
  }
  return out;
}

/**
 * The parts as one trace (mergeLayout's header), times on the merged timeline, flows kept. Per-env timer samples
 * stay in the rank traces (their slots would mix ranks). `gsprof merge` streams instead (merge-stream.ts).
 */
export function mergeTraces(parts: readonly MergePart[], plan: ClockAlignmentPlan): TraceModel {
  const layout = mergeLayout(parts.map((p) => ({ rank: p.rank, source: p.source, ...p.model })), plan);
  const out: TraceModel = {
    metadata: layout.metadata, processes: layout.processes, tracks: layout.tracks,
    slices: [], instants: [], counters: [], flows: [], envTimers: [],
  };
  let nextFlow = 1;
  parts.forEach((part, i) => {
    const m = part.model;
    const { shiftNs: shift, trackId } = layout.parts[i]!;
    const sliceBase = out.slices.length;
    for (const s of m.slices) out.slices.push({ ...s, track: trackId.get(s.track)!, ts: s.ts + shift });
    for (const e of m.instants) out.instants.push({ ...e, track: trackId.get(e.track)!, ts: e.ts + shift });
    for (const c of m.counters) out.counters.push({ ...c, track: trackId.get(c.track)!, ts: c.ts + shift });
    for (const f of m.flows) out.flows.push({ ...f, id: nextFlow++, fromSlice: f.fromSlice + sliceBase, toSlice: f.toSlice + sliceBase });
  });
  return out;
}
