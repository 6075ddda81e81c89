// Places slices so that both formats can show them faithfully. Neither Chrome's X events nor Perfetto's
// BEGIN/END pairs can express two slices on one track that partially overlap (A starts, B starts, A ends,
// B ends): viewers would mis-nest or drop one. Such slices move to an overflow lane of their track; slices
// that nest properly stay together. Lane 0 of every track is the track itself.
import type { TraceModel, TraceTrack } from '../model/trace.js';

export interface Lane {
  track: TraceTrack;
  /** 0 = the track itself; k > 0 = the k-th overflow lane of that track. */
  index: number;
}

export interface SliceLayout {
  /** Slice indices sorted by start time, then longest first (so parents precede their children). */
  order: Int32Array;
  /** Lane number (index into `lanes`) of each slice. */
  laneOf: Int32Array;
  /** Nesting depth of each slice within its lane. */
  depthOf: Int32Array;
  lanes: Lane[];
  /** Lane number of lane 0 of each track, by track id. */
  laneOfTrack: Map<number, number>;
  /** Start time and end time (ts + dur) of each slice. */
  tsOf: Float64Array;
  endOf: Float64Array;
}

/** Indexes tracks by id, rejecting duplicates with a clear message. */
export function tracksById(trace: TraceModel): Map<number, TraceTrack> {
  const byId = new Map<number, TraceTrack>();
  for (const track of trace.tracks) {
    if (byId.has(track.id)) throw new Error(`trace: track id ${track.id} ('${track.name}') is used twice`);
    byId.set(track.id, track);
  }
  return byId;
}

function checkTime(what: string, i: number, value: number): void {
  if (!Number.isFinite(value)) throw new Error(`trace: ${what} ${i} has a non-finite time (${value})`);
}

// Each pass over the slices is a function of its own: V8 optimizes a loop in the middle of a long function
// on the fly (OSR) and then throws that code away at the first statement after the loop that never ran
// before, so one function with three long loops ran much of each export unoptimized.
export function layoutSlices(trace: TraceModel, _byId = tracksById(trace)): SliceLayout {
  const n = trace.slices.length;
  // Flat copies of the sort keys and track numbers: the sort and the lane pass touch them millions of times.
  // All six arrays share one buffer (32 bytes per slice); every element is written below.
  const scratch = takeScratch(32 * n);
  const tsOf = new Float64Array(scratch, 0, n);
  const endOf = new Float64Array(scratch, 8 * n, n);
  const order = new Int32Array(scratch, 16 * n, n);
  const laneOf = new Int32Array(scratch, 20 * n, n);
  const depthOf = new Int32Array(scratch, 24 * n, n);
  const trackOf = new Int32Array(scratch, 28 * n, n);
  const sorted = readSlices(trace, tsOf, endOf, trackOf);
  if (sorted) identity(order);
  else startOrder(tsOf, endOf, order);
  return { order, tsOf, endOf, laneOf, depthOf, ...assignLanes(trace, order, tsOf, endOf, trackOf, laneOf, depthOf) };
}

/**
 * The arrays of the last layout handed back with releaseLayout, held weakly: the next export reuses them if
 * the GC has not taken them. Each export of 1M slices otherwise allocates 32 MB outside the JS heap, and V8
 * answers every ~64 MB of such allocations with a full GC of the heap, where the trace itself lives (about
 * 0.3 s of CPU for a 1M-slice trace, every other export).
 */
let spareScratch: WeakRef<ArrayBuffer> | undefined;

function takeScratch(bytes: number): ArrayBuffer {
  const spare = spareScratch?.deref();
  spareScratch = undefined;
  // Not a much larger one: a small export would keep a big buffer alive.
  if (spare !== undefined && spare.byteLength >= bytes && spare.byteLength <= 2 * bytes) return spare;
  return new ArrayBuffer(bytes);
}

/** Hands the layout's arrays to the next layoutSlices call; the caller must not use `layout` afterwards. */
export function releaseLayout(layout: SliceLayout): void {
  spareScratch = new WeakRef(layout.tsOf.buffer as ArrayBuffer);
}

/** Fills the slices' start, end and track number (index in trace.tracks); returns whether they are in start order. */
function readSlices(trace: TraceModel, tsOf: Float64Array, endOf: Float64Array, trackOf: Int32Array): boolean {
  const slices = trace.slices;
  const n = slices.length;
  const trackIndex = new Map<number, number>();
  trace.tracks.forEach((t, i) => { trackIndex.set(t.id, i); });
  // Track ids are usually small integers: an array lookup per slice instead of a Map lookup.
  const smallIds = new Int32Array(Math.min(4096, trace.tracks.reduce((m, t) => Math.max(m, t.id + 1), 0))).fill(-1);
  trace.tracks.forEach((t, i) => { if (Number.isInteger(t.id) && t.id >= 0 && t.id < smallIds.length) smallIds[t.id] = i; });
  let sorted = true;
  for (let i = 0; i < n; i++) {
    const s = slices[i]!;
    const ts = s.ts, dur = s.dur;
    if (!(Number.isFinite(ts) && Number.isFinite(dur) && dur >= 0)) {
      throw new Error(`trace: slice ${i} ('${s.name}') has an invalid time (ts ${ts}, dur ${dur})`);
    }
    const t = s.track >= 0 && s.track < smallIds.length && smallIds[s.track]! >= 0 ? smallIds[s.track] : trackIndex.get(s.track);
    if (t === undefined) throw new Error(`trace: slice ${i} ('${s.name}') is on unknown track ${s.track}`);
    if (trace.tracks[t]!.kind === 'counter') throw new Error(`trace: slice ${i} ('${s.name}') is on counter track ${s.track} ('${trace.tracks[t]!.name}')`);
    tsOf[i] = ts;
    endOf[i] = ts + dur;
    trackOf[i] = t;
    if (i > 0 && (tsOf[i - 1]! > ts || (tsOf[i - 1] === ts && endOf[i - 1]! < ts + dur))) sorted = false;
  }
  return sorted;
}

function assignLanes(
  trace: TraceModel, order: Int32Array, tsOf: Float64Array, endOf: Float64Array, trackOf: Int32Array,
  laneOf: Int32Array, depthOf: Int32Array,
): Pick<SliceLayout, 'lanes' | 'laneOfTrack'> {
  const lanes = new LaneAssigner(trace.tracks);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    laneOf[i] = lanes.place(trackOf[i]!, tsOf[i]!, endOf[i]!);
    depthOf[i] = lanes.depth;
  }
  return { lanes: lanes.lanes, laneOfTrack: lanes.laneOfTrack };
}

/**
 * First-fit lane placement, one slice at a time in start order (start, then longest first): a slice goes to the
 * first lane of its track where it nests inside the innermost open slice (or where none is open), else to a new
 * lane. A track's placement depends only on its own slices, so slices of all tracks may come interleaved, and
 * memory is the open slices, not the trace: the streaming exporters (stream-*.ts) place slices as they arrive.
 */
export class LaneAssigner {
  readonly lanes: Lane[] = [];
  /** Lane number of lane 0 of each track, by track id. */
  readonly laneOfTrack = new Map<number, number>();
  /** Nesting depth within its lane of the slice placed last. */
  depth = 0;
  /** Per track (by index in the tracks given): the lane numbers it owns; per lane: end times of its open slices (innermost last). */
  private readonly trackLanes: number[][] = [];
  private readonly openEnds: number[][] = [];

  constructor(private readonly tracks: readonly TraceTrack[]) {
    for (const track of tracks) {
      this.laneOfTrack.set(track.id, this.lanes.length);
      this.trackLanes.push([this.lanes.length]);
      this.lanes.push({ track, index: 0 });
      this.openEnds.push([]);
    }
  }

  /** The lane number of a slice of the track at index `trackIndex` spanning [ts, end]; a new lane when none fits. */
  place(trackIndex: number, ts: number, end: number): number {
    const owned = this.trackLanes[trackIndex]!;
    let placed = -1;
    for (let j = 0; j < owned.length; j++) {
      const lane = owned[j]!;
      const stack = this.openEnds[lane]!;
      while (stack.length > 0 && stack[stack.length - 1]! <= ts) stack.pop();
      if (stack.length === 0 || stack[stack.length - 1]! >= end) { placed = lane; break; }
    }
    if (placed < 0) {
      placed = this.lanes.length;
      this.lanes.push({ track: this.tracks[trackIndex]!, index: owned.length });
      owned.push(placed);
      this.openEnds.push([]);
    }
    const stack = this.openEnds[placed]!;
    this.depth = stack.length;
    stack.push(end);
    return placed;
  }
}

function identity(order: Int32Array): void {
  for (let i = 0; i < order.length; i++) order[i] = i;
}

/**
 * Slice indices by start, longest first, then index. A recorder appends each slice when it ends, so the
 * input is sorted except for parents that come after their children: those few are pulled out, sorted
 * apart and merged back, which costs far less than sorting everything with a comparator.
 */
function startOrder(tsOf: Float64Array, endOf: Float64Array, order: Int32Array): void {
  const n = tsOf.length;
  // The slices kept in place are those after the last kept one in start order; the rule is replayed
  // during the merge instead of storing them, which saves an n-sized array.
  const misplaced: number[] = [];
  for (let i = 0, last = -1; i < n; i++) {
    if (last < 0 || startsBefore(tsOf, endOf, last, i)) last = i;
    else misplaced.push(i);
  }
  misplaced.sort((a, b) => (startsBefore(tsOf, endOf, a, b) ? -1 : 1));
  let y = 0, k = 0;
  for (let i = 0, last = -1; i < n; i++) {
    if (!(last < 0 || startsBefore(tsOf, endOf, last, i))) continue; // misplaced: it comes from the sorted list
    last = i;
    while (y < misplaced.length && startsBefore(tsOf, endOf, misplaced[y]!, i)) order[k++] = misplaced[y++]!;
    order[k++] = i;
  }
  while (y < misplaced.length) order[k++] = misplaced[y++]!;
}

/**
 * Slice a comes before b: earlier start, or same start and later end (the parent), or same slice shape and lower
 * index. A module-level function, not a closure over the arrays: a fresh closure per export is a new call target,
 * and V8 discarded startOrder's optimized code for it on every export.
 */
function startsBefore(tsOf: Float64Array, endOf: Float64Array, a: number, b: number): boolean {
  return tsOf[a]! < tsOf[b]! || (tsOf[a] === tsOf[b] && (endOf[a]! > endOf[b]! || (endOf[a] === endOf[b] && a < b)));
}

/** Indices of items sorted by ts (stable); skips the sort when they already are. */
export function sortedByTs(items: ReadonlyArray<{ ts: number }>, what: string): Int32Array {
  const order = new Int32Array(items.length);
  let sorted = true;
  for (let i = 0; i < items.length; i++) {
    order[i] = i;
    checkTime(what, i, items[i]!.ts);
    if (i > 0 && items[i - 1]!.ts > items[i]!.ts) sorted = false;
  }
  if (!sorted) order.sort((a, b) => items[a]!.ts - items[b]!.ts || a - b);
  return order;
}
