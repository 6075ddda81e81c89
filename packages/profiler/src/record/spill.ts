/**
 * The recorder's finished events on disk (issue 33): a recording cycle holds at most `maxHeldEvents` finished
 * events in memory; when it holds that many, they are sorted and appended to a temporary file as one sorted
 * run, so memory does not grow with the length of a run. spill-stream.ts merges the runs back in time order
 * into the streaming exporters when the cycle is finalised.
 *
 * Host events are final when they are held (a slice once closed) and are sorted by their trace time. GPU passes
 * are kept with their raw GPU timestamps: their trace times depend on the clock alignment, which is fitted on
 * every batch of the run and is known only at the end; the fit is increasing in GPU time, so a run sorted by
 * raw begin is sorted by trace time too.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { makeTempDir, removeTempDir } from '@gsprof/dawn';
import type { Args, EnvTimerSample } from '../model/trace.js';

/**
 * A host event as held and spilled. `seq` is the order in which the in-memory recorder adds the event to its
 * trace (a slice's when it opens), which breaks ties in the order exporters write events. A slice's `flows` are
 * its outgoing flows, as pairs (device rank, index of the flow among that device's flows).
 */
export type HostRecord =
  | { k: 'slice'; seq: number; track: number; name: string; category: string; ts: number; dur: number; args?: Args; flows?: number[] }
  | { k: 'instant'; seq: number; track: number; name: string; category: string; ts: number; args?: Args }
  | { k: 'counter'; seq: number; track: number; ts: number; value: number }
  | { k: 'timers'; seq: number; sample: EnvTimerSample };

/**
 * A GPU pass (or the empty pass of a sync marker, `marker` set) of one device, with raw timestamps. `flow` is the
 * index of its incoming flow among the device's flows, -1 without one.
 */
export interface GpuRecord { seq: number; name: string; args: Args; begin: bigint; end: bigint; flow: number; marker?: string }

/** Records per block: the unit read back when the runs are merged (one block per run in memory). */
const BLOCK = 512;

export interface SpillRun {
  /** 'host', or the index of the GPU device whose passes it holds. */
  source: 'host' | number;
  blocks: Array<{ offset: number; length: number }>;
  /**
   * The run's slices alone, in its order, as flat numbers (placing slices needs nothing else, and reads these
   * far faster than the records): host [ts, dur, track, seq] each as float64; GPU [begin, end, seq] as int64.
   */
  shapes: Array<{ offset: number; length: number }>;
  /** The cycle's shift of ts 0 (moveBaseEarlier) when the run was written: later shifts apply to it on reading. */
  shiftNs: number;
}

/** An append-only file of sorted runs in gsprof's temporary folder (removed with it, also on signals). */
export class SpillFile {
  readonly runs: SpillRun[] = [];
  private dir: string | null = null;
  private fd = -1;
  private size = 0;

  /** Appends `records` (already sorted) as one run, with its slices' `shapes` (see SpillRun). */
  writeRun(source: SpillRun['source'], records: readonly unknown[], shapes: Float64Array | BigInt64Array, shiftNs: number): void {
    if (records.length === 0) return;
    if (this.fd < 0) {
      this.dir = makeTempDir('trace');
      this.fd = openSync(join(this.dir, 'events.spill'), 'w+', 0o600);
    }
    const run: SpillRun = { source, blocks: [], shapes: [], shiftNs };
    for (let i = 0; i < records.length; i += BLOCK) run.blocks.push(this.append(serialize(records.slice(i, i + BLOCK))));
    const bytes = new Uint8Array(shapes.buffer, shapes.byteOffset, shapes.byteLength);
    // Whole numbers of entries (4 or 3 numbers of 8 bytes: 384 host or 512 GPU shapes a block).
    const step = 128 * 96;
    for (let i = 0; i < bytes.length; i += step) run.shapes.push(this.append(bytes.subarray(i, i + step)));
    this.runs.push(run);
  }

  private append(bytes: Uint8Array): { offset: number; length: number } {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.size + done);
    const block = { offset: this.size, length: bytes.length };
    this.size += bytes.length;
    return block;
  }

  readBlock(block: { offset: number; length: number }): unknown[] {
    return deserialize(this.read(block)) as unknown[];
  }

  readShapes(block: { offset: number; length: number }): ArrayBuffer {
    const bytes = this.read(block);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  private read(block: { offset: number; length: number }): Buffer {
    if (this.fd < 0) throw new Error('recorder: this trace\'s events were spilled to a file that is removed once the trace is handed over (onTraceReady): write it there');
    const bytes = Buffer.allocUnsafe(block.length);
    let done = 0;
    while (done < block.length) {
      const n = readSync(this.fd, bytes, done, block.length - done, block.offset + done);
      if (n === 0) throw new Error('recorder: the spilled events file is shorter than what was written to it');
      done += n;
    }
    return bytes;
  }

  /** Removes the file and its folder. */
  dispose(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    if (this.dir) removeTempDir(this.dir);
    this.dir = null;
  }
}

/** Reads one run record by record, a block at a time. */
export class RunCursor<T> {
  private block: T[] = [];
  private at = 0;
  private next = 0;

  constructor(private readonly file: SpillFile, private readonly run: SpillRun) {}

  /** The next record, or undefined at the end of the run. */
  take(): T | undefined {
    if (this.at === this.block.length) {
      const b = this.run.blocks[this.next++];
      if (!b) return undefined;
      this.block = this.file.readBlock(b) as T[];
      this.at = 0;
    }
    return this.block[this.at++];
  }
}

/** The shapes of a sorted host run's slices (SpillRun.shapes). */
export function hostShapes(records: readonly HostRecord[]): Float64Array {
  let n = 0;
  for (const r of records) if (r.k === 'slice') n++;
  const out = new Float64Array(4 * n);
  let i = 0;
  for (const r of records) {
    if (r.k !== 'slice') continue;
    out[i++] = r.ts;
    out[i++] = r.dur;
    out[i++] = r.track;
    out[i++] = r.seq;
  }
  return out;
}

/** The shapes of a sorted GPU run's passes (markers are instants). */
export function gpuShapes(records: readonly GpuRecord[]): BigInt64Array {
  let n = 0;
  for (const r of records) if (r.marker === undefined) n++;
  const out = new BigInt64Array(3 * n);
  let i = 0;
  for (const r of records) {
    if (r.marker !== undefined) continue;
    out[i++] = BigInt.asIntN(64, r.begin);
    out[i++] = BigInt.asIntN(64, r.end);
    out[i++] = BigInt(r.seq);
  }
  return out;
}

/** Order of host records within a run: by time; at one time slices (longest first), instants, counters, timers. */
export const KIND_RANK = { slice: 0, instant: 1, counter: 2, timers: 3 } as const;

export function hostTime(r: HostRecord): number {
  return r.k === 'timers' ? r.sample.ts : r.ts;
}

export function compareHost(a: HostRecord, b: HostRecord): number {
  const d = hostTime(a) - hostTime(b) || KIND_RANK[a.k] - KIND_RANK[b.k];
  if (d !== 0) return d;
  if (a.k === 'slice' && b.k === 'slice') return b.dur - a.dur || a.track - b.track || a.seq - b.seq;
  return a.seq - b.seq;
}

export function compareGpu(a: GpuRecord, b: GpuRecord): number {
  return a.begin < b.begin ? -1 : a.begin > b.begin ? 1 : a.seq - b.seq;
}

/**
 * Merges sorted sources (each a function giving its next item, undefined at its end) into one sorted sequence,
 * through a binary heap of their heads: a spilled run of 100,000 steps is dozens of runs.
 */
export function* mergeSorted<T>(sources: ReadonlyArray<() => T | undefined>, less: (a: T, b: T) => boolean): Generator<T> {
  const heads: T[] = new Array(sources.length);
  const heap: number[] = [];
  const before = (x: number, y: number): boolean => less(heads[heap[x]!]!, heads[heap[y]!]!);
  const swap = (x: number, y: number): void => { const t = heap[x]!; heap[x] = heap[y]!; heap[y] = t; };
  const down = (k: number): void => {
    for (;;) {
      const l = 2 * k + 1, r = l + 1;
      let m = k;
      if (l < heap.length && before(l, m)) m = l;
      if (r < heap.length && before(r, m)) m = r;
      if (m === k) return;
      swap(k, m);
      k = m;
    }
  };
  for (let i = 0; i < sources.length; i++) {
    const h = sources[i]!();
    if (h === undefined) continue;
    heads[i] = h;
    heap.push(i);
    for (let k = heap.length - 1; k > 0 && before(k, (k - 1) >> 1); k = (k - 1) >> 1) swap(k, (k - 1) >> 1);
  }
  while (heap.length > 0) {
    const i = heap[0]!;
    const head = heads[i]!;
    const next = sources[i]!();
    if (next === undefined) {
      const last = heap.pop()!;
      if (heap.length > 0) { heap[0] = last; down(0); }
    } else {
      heads[i] = next;
      down(0);
    }
    yield head;
  }
}
