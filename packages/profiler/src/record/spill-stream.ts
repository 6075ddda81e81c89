/**
 * A spilled cycle's events back in order (spill.ts wrote them as sorted runs): the runs are merged by the order
 * the in-memory recorder gives its trace (Cycle.linkFlows: by time, longest slice first, then track, then the
 * order events were added), GPU passes placed with the cycle's clock alignment and linked to their submits, so
 * that the exporters write the same events as from the in-memory trace. Memory: a block per run, the open slices.
 */
import { flowNamesOfGroups, DEFAULT_FLOW } from '../export/common.js';
import type { EventStream, StreamEvent, StreamFlow } from '../export/event-stream.js';
import { LaneAssigner } from '../export/layout.js';
import type { TraceModel, TraceTrack } from '../model/trace.js';
import { gpuToHost, type ClockAlignment } from './clock-align.js';
import { KIND_RANK, RunCursor, mergeSorted, type GpuRecord, type HostRecord, type SpillFile, type SpillRun } from './spill.js';

/** A device's clock alignment, its smallest raw timestamp and its track. */
export interface DeviceFit { fit: ClockAlignment; base: bigint; track: number }

export interface SpilledInput {
  file: SpillFile;
  /** By device index; a device without one placed nothing. */
  fits: Map<number, DeviceFit>;
  /** By device rank: the id of the device's first flow, null where its passes are not placed. */
  flowBase: Array<number | null>;
  /** Flows (device rank, index pairs) of slices spilled before their GPU batch arrived, by slice seq. */
  lateFlows: Map<number, number[]>;
  /** The cycle's total moveBaseEarlier shift. */
  shiftNs: number;
  tracks: readonly TraceTrack[];
  /** The cycle's host ns -> trace ts. */
  ts: (hostNs: number) => number;
  gpuRank: (deviceIndex: number) => number;
}

/** One event in the merge: its sort key, and what it came from. */
interface Item {
  ts: number;
  kind: number;
  dur: number;
  track: number;
  seq: number;
  host?: HostRecord;
  gpu?: GpuRecord;
  device?: DeviceFit;
  deviceRank?: number;
}

function compareItems(a: Item, b: Item): number {
  return a.ts - b.ts || a.kind - b.kind || (a.kind === 0 ? b.dur - a.dur || a.track - b.track : 0) || a.seq - b.seq;
}

function hostCursor(input: SpilledInput, run: SpillRun): () => Item | undefined {
  const records = new RunCursor<HostRecord>(input.file, run);
  const shift = input.shiftNs - run.shiftNs;
  return () => {
    const r = records.take();
    if (!r) return undefined;
    if (shift !== 0) {
      if (r.k === 'timers') r.sample.ts += shift;
      else r.ts += shift;
    }
    const ts = r.k === 'timers' ? r.sample.ts : r.ts;
    return { ts, kind: KIND_RANK[r.k], dur: r.k === 'slice' ? r.dur : 0, track: r.k === 'timers' ? 0 : r.track, seq: r.seq, host: r };
  };
}

/**
 * A device's run: sorted by raw begin, so by trace time too, but passes whose times round to the same ns are
 * re-sorted among themselves by the full order (the longer first).
 */
function gpuCursor(input: SpilledInput, run: SpillRun, device: DeviceFit, deviceRank: number): () => Item | undefined {
  const records = new RunCursor<GpuRecord>(input.file, run);
  const rel = (t: bigint): number => Number(t - device.base);
  const item = (r: GpuRecord): Item => {
    const ts = input.ts(gpuToHost(device.fit, rel(r.begin)));
    if (r.marker !== undefined) return { ts, kind: KIND_RANK.instant, dur: 0, track: device.track, seq: r.seq, gpu: r, device, deviceRank };
    const end = input.ts(gpuToHost(device.fit, rel(r.end)));
    return { ts, kind: KIND_RANK.slice, dur: Math.max(0, end - ts), track: device.track, seq: r.seq, gpu: r, device, deviceRank };
  };
  return equalTimesSorted(() => {
    const r = records.take();
    return r ? item(r) : undefined;
  }, (a, b) => compareItems(a, b) < 0);
}

/** Items in order of time, with those of one time re-sorted by `less`. */
function equalTimesSorted<T extends { ts: number }>(take: () => T | undefined, less: (a: T, b: T) => boolean): () => T | undefined {
  let group: T[] = [];
  let at = 0;
  let next = take();
  return () => {
    if (at === group.length) {
      if (!next) return undefined;
      group = [next];
      at = 0;
      for (;;) {
        next = take();
        if (!next || next.ts !== group[0]!.ts) break;
        group.push(next);
      }
      if (group.length > 1) group.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
    }
    return group[at++];
  };
}

/** Every spilled event in order (the order before slices move to overflow tracks). */
function merged(input: SpilledInput): Generator<Item> {
  const sources: Array<() => Item | undefined> = [];
  for (const run of input.file.runs) {
    if (run.source === 'host') { sources.push(hostCursor(input, run)); continue; }
    const device = input.fits.get(run.source);
    if (device) sources.push(gpuCursor(input, run, device, input.gpuRank(run.source)));
  }
  return mergeSorted(sources, (a, b) => compareItems(a, b) < 0);
}

export interface SpilledPlacement {
  /** Overflow tracks, as resolvePartialOverlaps creates them. */
  created: TraceTrack[];
  /** The overflow track of each slice that moved, by seq. */
  moved: Map<number, number>;
}

/** A slice's place in the order (ts, longest first, track, seq), read from a run's shapes. */
interface Shape { ts: number; dur: number; track: number; seq: number }

/** Reads a run's slice shapes in order, a block at a time. */
function shapeCursor(input: SpilledInput, run: SpillRun): () => Shape | undefined {
  let next = 0;
  let group: Shape[] = [];
  let at = 0;
  if (run.source === 'host') {
    const shift = input.shiftNs - run.shiftNs;
    return () => {
      if (at === group.length) {
        const b = run.shapes[next++];
        if (!b) return undefined;
        const xs = new Float64Array(input.file.readShapes(b));
        group = [];
        for (let i = 0; i < xs.length; i += 4) group.push({ ts: xs[i]! + shift, dur: xs[i + 1]!, track: xs[i + 2]!, seq: xs[i + 3]! });
        at = 0;
      }
      return group[at++];
    };
  }
  const device = input.fits.get(run.source)!;
  const ts = (t: bigint): number => input.ts(gpuToHost(device.fit, Number(t - device.base)));
  // As gpuCursor: passes whose times round to the same ns are re-sorted among themselves.
  let pending: Shape[] = [];
  let p = 0;
  return equalTimesSorted(() => {
    if (p === pending.length) {
      const b = run.shapes[next++];
      if (!b) return undefined;
      const xs = new BigInt64Array(input.file.readShapes(b));
      pending = [];
      p = 0;
      for (let i = 0; i < xs.length; i += 3) {
        const begin = ts(xs[i]!);
        pending.push({ ts: begin, dur: Math.max(0, ts(xs[i + 1]!) - begin), track: device.track, seq: Number(xs[i + 2]!) });
      }
    }
    return pending[p++];
  }, (x, y) => (y.dur - x.dur || x.seq - y.seq) < 0);
}

/**
 * resolvePartialOverlaps on the spilled slices: a slice that does not nest on its track moves to the track's
 * first overflow track where it does (first fit in time order, which is what its rounds amount to). Overflow
 * tracks get ids as it gives them: round by round, in the order of the tracks they overflow. Reads the runs'
 * slice shapes only.
 */
export async function placeSpilledSlices(input: SpilledInput, nextId: () => number): Promise<SpilledPlacement> {
  const tracks = input.tracks;
  const index = new Map(tracks.map((t, i) => [t.id, i]));
  const lanes = new LaneAssigner(tracks);
  /** The base track and overflow level of each slice that moves, by seq (few). */
  const level = new Map<number, { track: number; k: number }>();
  const sources = input.file.runs.filter((r) => r.source === 'host' || input.fits.has(r.source)).map((r) => shapeCursor(input, r));
  const before = (x: Shape, y: Shape): boolean => (x.ts - y.ts || y.dur - x.dur || x.track - y.track || x.seq - y.seq) < 0;
  let n = 0;
  for (const it of mergeSorted(sources, before)) {
    const lane = lanes.place(index.get(it.track)!, it.ts, it.ts + it.dur);
    const k = lanes.lanes[lane]!.index;
    if (k > 0) level.set(it.seq, { track: it.track, k });
    // Let the event loop breathe now and then (a stop() on a signal still runs its timers).
    if (++n % 65536 === 0) await new Promise((r) => setImmediate(r));
  }
  const created: TraceTrack[] = [];
  const overflow = new Map<string, number>();
  const deepest = new Map<number, number>();
  for (const { track, index: k } of lanes.lanes) deepest.set(track.id, Math.max(deepest.get(track.id) ?? 0, k));
  const byId = [...tracks].sort((a, b) => a.id - b.id);
  for (let k = 1; byId.some((t) => (deepest.get(t.id) ?? 0) >= k); k++) {
    for (const base of byId) {
      if ((deepest.get(base.id) ?? 0) < k) continue;
      const under = k === 1 ? base : created.find((t) => t.id === overflow.get(`${base.id}:${k - 1}`))!;
      const t: TraceTrack = { ...under, id: nextId(), name: `${under.name} (overlapping)` };
      created.push(t);
      overflow.set(`${base.id}:${k}`, t.id);
    }
  }
  const moved = new Map<number, number>();
  for (const [seq, { track, k }] of level) moved.set(seq, overflow.get(`${track}:${k}`)!);
  return { created, moved };
}

const BATCH = 512;

/** The spilled trace's events for the exporters, after placement (`moved`), with flows and correlation ids. */
export function spilledStream(input: SpilledInput, placement: SpilledPlacement, trace: TraceModel, hasFlows: boolean): EventStream {
  const flowIds = (pairs: readonly number[]): number[] => {
    const ids: number[] = [];
    for (let i = 0; i < pairs.length; i += 2) {
      const base = input.flowBase[pairs[i]!];
      if (base !== null && base !== undefined) ids.push(base + pairs[i + 1]!);
    }
    return ids.sort((a, b) => a - b);
  };
  const flow = (id: number): StreamFlow => ({ id, category: DEFAULT_FLOW });
  const event = (it: Item, track: number): StreamEvent => {
    const h = it.host;
    if (h) {
      if (h.k === 'slice') {
        const e: StreamEvent = { kind: 'slice', track, name: h.name, category: h.category, ts: h.ts, dur: h.dur };
        if (h.args) e.args = h.args;
        const late = input.lateFlows.get(h.seq);
        const ids = h.flows || late ? flowIds([...(h.flows ?? []), ...(late ?? [])]) : [];
        if (ids.length > 0) e.flowsOut = ids.map(flow);
        return e;
      }
      if (h.k === 'instant') return { kind: 'instant', track, name: h.name, category: h.category, ts: h.ts, ...(h.args ? { args: h.args } : {}) };
      if (h.k === 'counter') return { kind: 'counter', track, ts: h.ts, value: h.value };
      return { kind: 'timers', sample: h.sample };
    }
    const g = it.gpu!;
    if (g.marker !== undefined) return { kind: 'instant', track, name: g.marker, category: 'sync', ts: it.ts };
    const base = g.flow >= 0 ? input.flowBase[it.deviceRank!] : null;
    if (base === null || base === undefined) return { kind: 'slice', track, name: g.name, category: 'kernel', ts: it.ts, dur: it.dur, args: g.args };
    const id = base + g.flow;
    return { kind: 'slice', track, name: g.name, category: 'kernel', ts: it.ts, dur: it.dur, args: { ...g.args, correlation: id }, flowsIn: [flow(id)] };
  };
  async function* events(): AsyncGenerator<readonly StreamEvent[]> {
    let batch: StreamEvent[] = [];
    // Slices of one time and duration: in the in-memory order they sort by their track after placement.
    let group: Item[] = [];
    const trackOf = (it: Item): number => placement.moved.get(it.seq) ?? it.track;
    const flushGroup = (): void => {
      if (group.length > 1) group.sort((a, b) => trackOf(a) - trackOf(b) || a.seq - b.seq);
      for (const it of group) batch.push(event(it, trackOf(it)));
      group = [];
    };
    for (const it of merged(input)) {
      if (group.length > 0 && !(it.kind === 0 && it.ts === group[0]!.ts && it.dur === group[0]!.dur)) flushGroup();
      if (it.kind === 0) group.push(it);
      else batch.push(event(it, it.track));
      if (batch.length >= BATCH) { yield batch; batch = []; }
    }
    flushGroup();
    if (batch.length > 0) yield batch;
  }
  return {
    metadata: trace.metadata,
    processes: trace.processes,
    tracks: trace.tracks,
    ...(hasFlows ? { flowNames: flowNamesOfGroups([{ category: DEFAULT_FLOW, name: DEFAULT_FLOW, ids: [] }])! } : {}),
    events: events(),
  };
}
