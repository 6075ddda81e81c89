/**
 * One recording cycle (torch's prepare/start/stop): builds the TraceModel of the steps it records.
 * Host spans land immediately; GPU spans arrive as batches once their timestamps are read back, and are
 * aligned to the host clock and linked to their submits when the cycle is finalised.
 */
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { Args, DeviceProperties, SliceEvent, TraceModel, TraceTrack } from '../model/trace.js';
import { emptyTrace } from '../model/trace.js';
import { estimateClockAlignment, gpuToHost, type ClockSample } from './clock-align.js';
import type { HostClock } from './host-clock.js';
import type { DistributedInfo } from './launcher.js';
import { resolvePartialOverlaps } from './lanes.js';
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
}

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
  private readonly pending = new Set<Promise<unknown>>();
  stopHostNs = 0;

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
    this.trace.slices.push(s);
    return s;
  }

  closeSlice(s: SliceEvent, hostNs: number): void {
    s.dur = Math.max(0, this.ts(hostNs) - s.ts);
  }

  completeSlice(name: string, category: string, startHostNs: number, endHostNs: number, args?: Args, track = this.hostTrack): SliceEvent {
    const s = this.openSlice(name, category, startHostNs, args, track);
    this.closeSlice(s, endHostNs);
    return s;
  }

  instant(name: string, category: string, hostNs: number, args?: Args): void {
    const e = { track: this.hostTrack, name, category, ts: this.ts(hostNs), ...(args ? { args } : {}) };
    this.trace.instants.push(e);
  }

  counter(name: string, unit: string, hostNs: number, value: number): void {
    let track = this.counterTracks.get(name);
    if (track === undefined) {
      track = this.addTrack({ kind: 'counter', name, pid: process.pid, unit });
      this.counterTracks.set(name, track);
    }
    this.trace.counters.push({ track, ts: this.ts(hostNs), value });
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
    if (this.mode === 'record' || this.mode === 'stopped') this.batches.push(batch);
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
    this.placeGpuWork();
    const created = resolvePartialOverlaps(this.trace.slices, this.trace.tracks, () => this.nextTrackId++);
    for (const t of created) this.trace.tracks.push(t);
    this.linkFlows();
    return this.trace;
  }

  private readonly flowLinks: { from: SliceEvent; to: SliceEvent }[] = [];

  private placeGpuWork(): void {
    const byDevice = new Map<number, GpuBatch[]>();
    for (const b of this.batches) {
      const list = byDevice.get(b.device.index) ?? [];
      list.push(b);
      byDevice.set(b.device.index, list);
    }
    let bestSamples = -1;
    for (const [, batches] of byDevice) {
      const device = batches[0]!.device;
      let base: bigint | null = null;
      let quantized = true;
      let written = 0;
      for (const b of batches) for (const p of b.passes) for (const t of [p.begin, p.end]) {
        if (t === 0n) continue;
        written++;
        if (base === null || t < base) base = t;
        if (t % QUANTUM !== 0n) quantized = false;
      }
      if (base === null) continue;
      const rel = (t: bigint): number => Number(t - base!);
      if (quantized && written >= 4) {
        this.trace.metadata.run.gpuTimestampQuantizationNs = Number(QUANTUM);
        warn(
          `GPU timestamps of device ${device.index} are quantized to 65,536 ns (Dawn's timestamp_quantization), so short passes read as 0 ns. ` +
            `Create the GPU with createGpu() from @gsprof/profiler, or create(['disable-dawn-features=timestamp_quantization']).`,
        );
      }
      const lower: ClockSample[] = [];
      const upper: ClockSample[] = [];
      let markers = 0;
      const valid: { batch: GpuBatch; pass: GpuPassResult }[] = [];
      for (const b of batches) {
        let first: GpuPassResult | undefined;
        let last: GpuPassResult | undefined;
        for (const p of b.passes) {
          if (p.begin === 0n || p.end === 0n) { this.bumpRun('gpuSpansDiscardedUnwritten'); continue; }
          if (p.end < p.begin) { this.bumpRun('gpuSpansDiscardedNegative'); continue; }
          first ??= p;
          last = p;
          valid.push({ batch: b, pass: p });
        }
        if (!first || !last) continue;
        lower.push({ hostNs: b.submitHostNs, gpuNs: rel(first.begin) });
        upper.push({ hostNs: b.doneHostNs, gpuNs: rel(last.end) });
        if (b.marker !== undefined) markers++;
      }
      if (!lower.length) continue;
      const fit = estimateClockAlignment(lower, upper);
      if (markers) fit.method += '+sync-markers';
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
      const track = this.gpuTrack(device);
      for (const { batch, pass } of valid) {
        if (batch.marker !== undefined) continue;
        const ts = this.ts(gpuToHost(fit, rel(pass.begin)));
        const end = this.ts(gpuToHost(fit, rel(pass.end)));
        const slice: SliceEvent = { track, name: pass.name, category: 'kernel', ts, dur: Math.max(0, end - ts), args: pass.args };
        this.trace.slices.push(slice);
        if (batch.submitSlice) this.flowLinks.push({ from: batch.submitSlice, to: slice });
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
