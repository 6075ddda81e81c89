/**
 * One recording cycle (torch's prepare/start/stop): builds the TraceModel of the steps it records.
 * Host spans land immediately; GPU spans arrive as batches once their timestamps are read back, and are
 * aligned to the host clock and linked to their submits when the cycle is finalised.
 */
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { Args, DeviceProperties, EnvTimerSample, SliceEvent, TraceModel, TraceTrack } from '../model/trace.js';
import { emptyTrace } from '../model/trace.js';
import { estimateClockAlignment, gpuToHost } from './clock-align.js';
import type { HostClock } from './host-clock.js';
import type { DistributedInfo } from './launcher.js';
import { resolvePartialOverlaps } from './lanes.js';
import { GpuSamples } from './gpu-samples.js';
import { SpillFile, compareGpu, compareHost, gpuShapes, hostShapes, type GpuRecord, type HostRecord } from './spill.js';
import { placeSpilledSlices, spilledStream, type DeviceFit } from './spill-stream.js';
import { markSpilled } from '../export/event-stream.js';
import { warn } from './warn.js';

export const PRODUCER = 'gsprof 0.1.0';
/** GPU pseudo-processes get pids far above Linux's pid_max (2^22), so they never collide with the host pid. */
export const GPU_PID_BASE = 0x40000000;
const QUANTUM = 65536n;
const READBACK_TIMEOUT_MS = 30_000;

export interface GpuDeviceInfo {
  index: number;
  properties: DeviceProperties;
}

export interface GpuPassResult {
  name: string;
  args: Args;
  /** Raw GPU timestamps as resolved (0 = never written). */
  begin: bigint;
  end: bigint;
}

/** What one instrumented submit produced, once its timestamps are back on the host. */
export interface GpuBatch {
  device: GpuDeviceInfo;
  /** Host time at which the submit call started: no pass in it began earlier. */
  submitHostNs: number;
  /** Host time at which the host learned the work was done: every pass in it had ended. */
  doneHostNs: number;
  /** The host 'queue.submit' span, when CPU activity is recorded. */
  submitSlice: SliceEvent | null;
  passes: GpuPassResult[];
  /** Set for the empty pass of a sync marker. */
  marker?: string;
}

export interface CycleOptions {
  clock: HostClock;
  traceName: string;
  syncEachStep: boolean;
  run: Args;
  devices: readonly GpuDeviceInfo[];
  /** The launcher's rank facts (Kineto's distributedInfo), when one started this process. */
  distributed?: DistributedInfo;
  /**
   * Finished events held in memory at most; past it they are spilled to a temporary file in sorted runs and
   * the finalised trace holds no events itself: the exporters stream them from the runs (spill.ts). Unset:
   * every event stays in the TraceModel.
   */
  maxHeldEvents?: number;
}

/** What the cycle learns of one device's GPU work as its batches arrive (both ways of holding events). */
interface DeviceGpu {
  device: GpuDeviceInfo;
  /** Order of the device's first batch among the devices: the order in which devices' work is placed. */
  rank: number;
  /** Smallest written timestamp. */
  base: bigint | null;
  quantized: boolean;
  written: number;
  /** Passes discarded, by run-info key, in the order the keys first occurred. */
  discarded: Map<string, number>;
  /** Per batch with a valid pass: submit (lower bound) and completion (upper bound) against its first and last pass. */
  samples: GpuSamples;
  markers: number;
  /** Flows from submits to this device's passes so far (spilling: each pass's flow is its index). */
  flows: number;
  /** Spilling: the order of the device's records; the passes held. */
  records: number;
  held: GpuRecord[];
}

/** GPU records sort after every host record of their kind: seq = GPU_SEQ + device rank * 2^32 + record index. */
const GPU_SEQ = 2 ** 50;

export type CycleMode = 'warmup' | 'record' | 'stopped';

export class Cycle {
  mode: CycleMode = 'warmup';
  readonly trace: TraceModel;
  /** Host ns at trace ts 0 (set when recording starts). */
  baseHostNs = 0;
  /** When recording began (host ns): unlike baseHostNs, not moved earlier for pre-recorded spans. */
  recordingFromNs = 0;
  readonly hostTrack: number;
  private readonly clock: HostClock;
  private nextTrackId = 1;
  private readonly counterTracks = new Map<string, number>();
  private readonly gpuTracks = new Map<number, number>();
  private readonly threadTracks = new Map<number, number>();
  private readonly batches: GpuBatch[] = [];
  private readonly gpu = new Map<number, DeviceGpu>();
  private readonly pending = new Set<Promise<unknown>>();
  stopHostNs = 0;

  // Spilling (maxHeldEvents set): the held host records and their count with the GPU ones, the runs written.
  private readonly maxHeld: number;
  private readonly spill: SpillFile | null;
  private seq = 0;
  private held: HostRecord[] = [];
  private heldCount = 0;
  /** Open slices (not yet held) and their seq; every slice's seq, for flows to a slice already spilled. */
  private readonly openSlices = new Map<SliceEvent, number>();
  private readonly sliceSeq = new WeakMap<SliceEvent, number>();
  /** The held record of each closed slice not yet spilled (a submit's flows are added to it). */
  private heldSlices = new WeakMap<SliceEvent, HostRecord & { k: 'slice' }>();
  /** Flows (device rank, index pairs) from slices still open, or already spilled (by seq). */
  private readonly flowsOfOpen = new WeakMap<SliceEvent, number[]>();
  private readonly lateFlows = new Map<number, number[]>();
  /** Sum of moveBaseEarlier shifts. */
  private shiftNs = 0;
  /** Passes of the GPU batches held (not spilling), until finalize makes them slices. */
  private batchPasses = 0;
  /** The largest number of events held at once (for tests and the benchmark). */
  maxHeldSeen = 0;

  constructor(options: CycleOptions) {
    this.clock = options.clock;
    this.trace = emptyTrace({
      baseTimeNs: 0n,
      traceName: options.traceName,
      producer: PRODUCER,
      hostname: hostname(),
      pid: process.pid,
      deviceProperties: [],
      syncEachStep: options.syncEachStep,
      run: { ...options.run },
      ...(options.distributed ? { distributedInfo: { ...options.distributed } } : {}),
    });
    this.trace.processes.push({ pid: process.pid, name: `node ${basename(process.argv[1] ?? '')}`.trim(), kind: 'cpu' });
    this.hostTrack = this.addTrack({ kind: 'thread', name: 'host', pid: process.pid, tid: process.pid });
    for (const d of options.devices) this.gpuTrack(d);
    const max = options.maxHeldEvents;
    if (max !== undefined && !(Number.isInteger(max) && max >= 1)) throw new Error(`cycle: maxHeldEvents must be a positive integer, got ${max}`);
    this.maxHeld = max ?? Infinity;
    this.spill = max === undefined ? null : new SpillFile();
  }

  /** Whether finished events go to a temporary file past maxHeldEvents (see CycleOptions). */
  get spilling(): boolean { return this.spill !== null; }

  /** Finished events held in memory now. */
  get heldEvents(): number {
    if (this.spill) return this.heldCount;
    return this.trace.slices.length + this.trace.instants.length + this.trace.counters.length + this.trace.envTimers.length + this.batchPasses;
  }

  private hold(r: HostRecord): void {
    this.held.push(r);
    this.counted();
  }

  private counted(): void {
    this.heldCount++;
    if (this.heldCount > this.maxHeldSeen) this.maxHeldSeen = this.heldCount;
    if (this.heldCount >= this.maxHeld) this.spillHeld();
  }

  /** Writes what is held as sorted runs (host events; each device's passes) and lets it go. */
  private spillHeld(): void {
    const file = this.spill!;
    const host = this.held.sort(compareHost);
    file.writeRun('host', host, hostShapes(host), this.shiftNs);
    this.held = [];
    for (const d of this.gpu.values()) {
      const passes = d.held.sort(compareGpu);
      file.writeRun(d.device.index, passes, gpuShapes(passes), this.shiftNs);
      d.held = [];
    }
    this.heldSlices = new WeakMap();
    this.heldCount = 0;
  }

  get recording(): boolean { return this.mode === 'record'; }

  start(hostNs: number): void {
    this.mode = 'record';
    this.recordingFromNs = hostNs;
    this.setBase(hostNs);
  }

  private setBase(hostNs: number): void {
    this.baseHostNs = hostNs;
    this.trace.metadata.baseTimeNs = this.clock.epochNs(hostNs);
    const anchor = this.clock.monotonic?.(hostNs);
    if (anchor) this.trace.metadata.hostClock = anchor;
  }

  ts(hostNs: number): number { return Math.round(hostNs - this.baseHostNs); }

  /** Moves ts 0 back to `hostNs` (no-op if it is not earlier), shifting what is already recorded, so spans from
   *  before the cycle started keep non-negative ts. */
  moveBaseEarlier(hostNs: number): void {
    if (!this.recording) throw new Error('cycle: moveBaseEarlier before recording started');
    const shift = Math.round(this.baseHostNs - hostNs);
    if (shift <= 0) return;
    this.setBase(this.baseHostNs - shift);
    for (const list of [this.trace.slices, this.trace.instants, this.trace.counters, this.trace.envTimers]) {
      for (const e of list) e.ts += shift;
    }
    // Spilling: the held events and open slices move now; spilled runs when they are read (SpillRun.shiftNs).
    this.shiftNs += shift;
    for (const r of this.held) {
      if (r.k === 'timers') r.sample.ts += shift;
      else r.ts += shift;
    }
    for (const s of this.openSlices.keys()) s.ts += shift;
  }

  addTrack(t: Omit<TraceTrack, 'id'>): number {
    const id = this.nextTrackId++;
    this.trace.tracks.push({ id, ...t });
    return id;
  }

  /** The track of another thread of this process (a CPU env worker), made on first use. */
  threadTrack(name: string, tid: number): number {
    let id = this.threadTracks.get(tid);
    if (id === undefined) {
      id = this.addTrack({ kind: 'thread', name, pid: process.pid, tid });
      this.threadTracks.set(tid, id);
    }
    return id;
  }

  /** Opens a host slice (on the main thread unless `track` says which); its duration is set by closeSlice. */
  openSlice(name: string, category: string, hostNs: number, args?: Args, track = this.hostTrack): SliceEvent {
    const s: SliceEvent = { track, name, category, ts: this.ts(hostNs), dur: 0 };
    if (args) s.args = args;
    if (this.spill) {
      // Held once closed: until then its duration (and args) may change.
      const seq = this.seq++;
      this.openSlices.set(s, seq);
      this.sliceSeq.set(s, seq);
    } else {
      this.trace.slices.push(s);
    }
    return s;
  }

  closeSlice(s: SliceEvent, hostNs: number): void {
    s.dur = Math.max(0, this.ts(hostNs) - s.ts);
    if (this.spill) this.holdSlice(s);
  }

  private holdSlice(s: SliceEvent): void {
    const seq = this.openSlices.get(s);
    if (seq === undefined) return;
    this.openSlices.delete(s);
    const r: HostRecord & { k: 'slice' } = { k: 'slice', seq, track: s.track, name: s.name, category: s.category, ts: s.ts, dur: s.dur };
    if (s.args) r.args = s.args;
    const flows = this.flowsOfOpen.get(s);
    if (flows) r.flows = flows;
    this.heldSlices.set(s, r);
    this.hold(r);
  }

  /** Removes a slice not yet closed (a step that never ran), as if it had never been opened. */
  discardSlice(s: SliceEvent): void {
    if (this.spill) { this.openSlices.delete(s); return; }
    const { slices, flows } = this.trace;
    const at = slices.lastIndexOf(s);
    if (at < 0) return;
    slices.splice(at, 1);
    // Flows name slices by index: those past the removed one move down with it.
    for (const f of flows) {
      if (f.fromSlice > at) f.fromSlice--;
      if (f.toSlice > at) f.toSlice--;
    }
  }

  completeSlice(name: string, category: string, startHostNs: number, endHostNs: number, args?: Args, track = this.hostTrack): SliceEvent {
    const s = this.openSlice(name, category, startHostNs, args, track);
    this.closeSlice(s, endHostNs);
    return s;
  }

  instant(name: string, category: string, hostNs: number, args?: Args): void {
    const e = { track: this.hostTrack, name, category, ts: this.ts(hostNs), ...(args ? { args } : {}) };
    if (this.spill) this.hold({ k: 'instant', seq: this.seq++, ...e });
    else this.trace.instants.push(e);
  }

  /** One step's per-env timers. */
  envTimers(sample: EnvTimerSample): void {
    if (this.spill) this.hold({ k: 'timers', seq: this.seq++, sample });
    else this.trace.envTimers.push(sample);
  }

  counter(name: string, unit: string, hostNs: number, value: number): void {
    let track = this.counterTracks.get(name);
    if (track === undefined) {
      track = this.addTrack({ kind: 'counter', name, pid: process.pid, unit });
      this.counterTracks.set(name, track);
    }
    if (this.spill) this.hold({ k: 'counter', seq: this.seq++, track, ts: this.ts(hostNs), value });
    else this.trace.counters.push({ track, ts: this.ts(hostNs), value });
  }

  gpuTrack(device: GpuDeviceInfo): number {
    let track = this.gpuTracks.get(device.index);
    if (track === undefined) {
      const pid = GPU_PID_BASE + device.index;
      const label = device.properties.description || device.properties.name;
      this.trace.processes.push({ pid, name: `GPU ${device.index}${label ? ` (${label})` : ''}`, kind: 'gpu' });
      this.trace.metadata.deviceProperties.push(device.properties);
      track = this.addTrack({ kind: 'gpu_queue', name: 'queue 0', pid, tid: 0 });
      this.gpuTracks.set(device.index, track);
    }
    return track;
  }

  addGpuBatch(batch: GpuBatch): void {
    if (this.mode !== 'record' && this.mode !== 'stopped') return;
    let d = this.gpu.get(batch.device.index);
    if (!d) {
      d = {
        device: batch.device, rank: this.gpu.size, base: null, quantized: true, written: 0, discarded: new Map(),
        samples: new GpuSamples(), markers: 0, flows: 0, records: 0, held: [],
      };
      this.gpu.set(batch.device.index, d);
    }
    if (!this.spill) {
      this.batches.push(batch);
      if (this.mode === 'record') this.batchPasses += batch.passes.length;
    }
    for (const p of batch.passes) for (const t of [p.begin, p.end]) {
      if (t === 0n) continue;
      d.written++;
      if (d.base === null || t < d.base) d.base = t;
      if (t % QUANTUM !== 0n) d.quantized = false;
    }
    let first: GpuPassResult | undefined;
    let last: GpuPassResult | undefined;
    for (const p of batch.passes) {
      const why = p.begin === 0n || p.end === 0n ? 'gpuSpansDiscardedUnwritten' : p.end < p.begin ? 'gpuSpansDiscardedNegative' : null;
      if (why) { d.discarded.set(why, (d.discarded.get(why) ?? 0) + 1); continue; }
      first ??= p;
      last = p;
      if (batch.marker !== undefined) continue;
      const flow = batch.submitSlice ? d.flows++ : -1;
      if (this.spill) {
        if (batch.submitSlice) this.addFlow(batch.submitSlice, d.rank, flow);
        d.held.push({ seq: this.gpuSeq(d), name: p.name, args: p.args, begin: p.begin, end: p.end, flow });
        this.counted();
      }
    }
    if (first && last) {
      d.samples.push(batch.submitHostNs, first.begin, batch.doneHostNs, last.end);
      if (batch.marker !== undefined) d.markers++;
    }
    const p0 = batch.passes[0];
    if (this.spill && batch.marker !== undefined && p0 && p0.begin !== 0n) {
      d.held.push({ seq: this.gpuSeq(d), name: batch.marker, args: {}, begin: p0.begin, end: p0.begin, flow: -1, marker: batch.marker });
      this.counted();
    }
  }

  private gpuSeq(d: DeviceGpu): number {
    return GPU_SEQ + d.rank * 2 ** 32 + d.records++;
  }

  /** Spilling: a flow (device rank, index) leaves `slice`, held, still open or already spilled. */
  private addFlow(slice: SliceEvent, rank: number, index: number): void {
    const held = this.heldSlices.get(slice);
    if (held) {
      held.flows = [...(held.flows ?? []), rank, index];
      return;
    }
    if (this.openSlices.has(slice)) {
      const list = this.flowsOfOpen.get(slice) ?? [];
      list.push(rank, index);
      this.flowsOfOpen.set(slice, list);
      return;
    }
    const seq = this.sliceSeq.get(slice);
    if (seq === undefined) return;
    const list = this.lateFlows.get(seq) ?? [];
    list.push(rank, index);
    this.lateFlows.set(seq, list);
  }

  /** Finalisation waits for these (timestamp readbacks still in flight). */
  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = (): void => { this.pending.delete(p); };
    p.then(done, done);
    return p;
  }

  bumpRun(key: string, by = 1): void {
    const run = this.trace.metadata.run;
    run[key] = (typeof run[key] === 'number' ? (run[key] as number) : 0) + by;
  }

  stop(hostNs: number): void {
    this.mode = 'stopped';
    this.stopHostNs = hostNs;
  }

  /** Waits for in-flight readbacks, then aligns GPU spans, links flows and orders every track. */
  async finalize(): Promise<TraceModel> {
    // A lost device may never settle its readbacks: give up on them after a while rather than hang stop().
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => { timedOut = true; resolve(); }, READBACK_TIMEOUT_MS);
    });
    while (this.pending.size && !timedOut) await Promise.race([Promise.allSettled([...this.pending]), deadline]);
    clearTimeout(timer);
    if (timedOut) {
      this.bumpRun('gpuReadbacksAbandoned', this.pending.size);
      warn(`${this.pending.size} GPU timestamp readbacks did not complete within ${READBACK_TIMEOUT_MS / 1000} s; their spans are missing`);
    }
    const fits = this.fitDevices();
    if (this.spill) return this.finalizeSpilled(fits);
    this.placeGpuWork(fits);
    this.batchPasses = 0;
    const created = resolvePartialOverlaps(this.trace.slices, this.trace.tracks, () => this.nextTrackId++);
    for (const t of created) this.trace.tracks.push(t);
    this.linkFlows();
    return this.trace;
  }

  /**
   * The spilled trace: the slices still open are held as they are (as the in-memory trace keeps them), all is
   * spilled, the slices are placed as resolvePartialOverlaps places them (its overflow tracks are added), and
   * the trace is marked so that the exporters stream its events from the runs (spill-stream.ts).
   */
  private async finalizeSpilled(fits: Map<number, DeviceFit>): Promise<TraceModel> {
    for (const s of [...this.openSlices.keys()]) this.holdSlice(s);
    this.spillHeld();
    // Flow ids run from 1 over the devices in order, as linkFlows numbers them.
    let next = 1;
    const flowBase: Array<number | null> = [];
    for (const d of this.gpu.values()) {
      flowBase[d.rank] = fits.has(d.device.index) ? next : null;
      if (fits.has(d.device.index)) next += d.flows;
    }
    const input = {
      file: this.spill!, fits, flowBase, lateFlows: this.lateFlows, shiftNs: this.shiftNs, tracks: this.trace.tracks,
      ts: (hostNs: number) => this.ts(hostNs), gpuRank: (index: number) => this.gpu.get(index)!.rank,
    };
    const moved = await placeSpilledSlices(input, () => this.nextTrackId++);
    for (const t of moved.created) this.trace.tracks.push(t);
    markSpilled(this.trace, () => spilledStream(input, moved, this.trace, next > 1));
    return this.trace;
  }

  /** Removes the spilled events' file; the trace can no longer be written after. */
  disposeSpill(): void {
    this.spill?.dispose();
  }

  private readonly flowLinks: { from: SliceEvent; to: SliceEvent }[] = [];

  /** Each device's clock alignment, from what its batches taught (addGpuBatch); sets the run's GPU facts. */
  private fitDevices(): Map<number, DeviceFit> {
    const fits = new Map<number, DeviceFit>();
    let bestSamples = -1;
    for (const d of this.gpu.values()) {
      const { device, base } = d;
      if (base === null) continue;
      if (d.quantized && d.written >= 4) {
        this.trace.metadata.run.gpuTimestampQuantizationNs = Number(QUANTUM);
        warn(
          `GPU timestamps of device ${device.index} are quantized to 65,536 ns (Dawn's timestamp_quantization), so short passes read as 0 ns. ` +
            `Create the GPU with createGpu() from @gsprof/profiler, or create(['disable-dawn-features=timestamp_quantization']).`,
        );
      }
      for (const [key, n] of d.discarded) this.bumpRun(key, n);
      if (!d.samples.length) continue;
      const { lower, upper } = d.samples.relativeTo(base);
      const fit = estimateClockAlignment(lower, upper);
      if (d.markers) fit.method += '+sync-markers';
      if (!fit.consistent) warn(`GPU clock alignment for device ${device.index}: causality bounds contradict each other (${fit.errorBoundNs.toFixed(0)} ns); GPU spans may be misplaced`);
      if (fit.driftAtBound && fit.driftPpm !== 0) warn(`GPU clock alignment for device ${device.index}: the drift fit is pinned at the ${fit.driftPpm.toFixed(0)} ppm search bound, which is not a physical drift; GPU spans may be misplaced`);
      if (fit.samples > bestSamples) {
        bestSamples = fit.samples;
        // Reported against raw GPU timestamps and this trace's ts: ts = gpu + offsetNs (+ drift), so a reader
        // can place any timestamp of this device.
        this.trace.metadata.clockAlignment = {
          offsetNs: fit.offsetNs - Number(base) - this.baseHostNs,
          driftPpm: fit.driftPpm, errorBoundNs: fit.errorBoundNs, samples: fit.samples, method: fit.method,
          driftAtBound: fit.driftAtBound,
        };
      }
      fits.set(device.index, { fit, base, track: this.gpuTrack(device) });
    }
    return fits;
  }

  private placeGpuWork(fits: Map<number, DeviceFit>): void {
    const byDevice = new Map<number, GpuBatch[]>();
    for (const b of this.batches) {
      const list = byDevice.get(b.device.index) ?? [];
      list.push(b);
      byDevice.set(b.device.index, list);
    }
    for (const [index, batches] of byDevice) {
      const placed = fits.get(index);
      if (!placed) continue;
      const { fit, base, track } = placed;
      const rel = (t: bigint): number => Number(t - base);
      for (const batch of batches) {
        if (batch.marker !== undefined) continue;
        for (const pass of batch.passes) {
          if (pass.begin === 0n || pass.end === 0n || pass.end < pass.begin) continue;
          const ts = this.ts(gpuToHost(fit, rel(pass.begin)));
          const end = this.ts(gpuToHost(fit, rel(pass.end)));
          const slice: SliceEvent = { track, name: pass.name, category: 'kernel', ts, dur: Math.max(0, end - ts), args: pass.args };
          this.trace.slices.push(slice);
          if (batch.submitSlice) this.flowLinks.push({ from: batch.submitSlice, to: slice });
        }
      }
      for (const b of batches) {
        if (b.marker === undefined) continue;
        const p = b.passes[0];
        if (!p || p.begin === 0n) continue;
        this.trace.instants.push({ track, name: b.marker, category: 'sync', ts: this.ts(gpuToHost(fit, rel(p.begin))) });
      }
    }
  }

  private linkFlows(): void {
    // Global order by time keeps exporters' streams monotonic; within one ts, parents first.
    this.trace.slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur || a.track - b.track);
    this.trace.instants.sort((a, b) => a.ts - b.ts);
    this.trace.counters.sort((a, b) => a.ts - b.ts);
    const index = new Map<SliceEvent, number>();
    this.trace.slices.forEach((s, i) => { index.set(s, i); });
    let id = 1;
    for (const { from, to } of this.flowLinks) {
      const f = index.get(from);
      const t = index.get(to);
      if (f === undefined || t === undefined) continue;
      const correlation = id++;
      to.args = { ...to.args, correlation };
      this.trace.flows.push({ id: correlation, fromSlice: f, toSlice: t, category: 'ac2g' });
    }
  }
}
