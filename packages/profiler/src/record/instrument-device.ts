/// <reference types="@webgpu/types" />
/**
 * instrumentDevice: patches a GPUDevice in place (own properties shadowing the prototype's methods) so that,
 * while a profiler prepares or records a cycle, every compute and render pass gets begin/end timestamp writes.
 * At each submit one extra command buffer resolves the queries and copies them to a MAP_READ buffer, which is
 * mapped asynchronously: the caller never waits. Encoders created while the profiler is idle are returned
 * untouched, so an idle profiler costs one null check per encoder and per submit.
 * It also reports host spans (encode, queue.submit, compiles, readback waits) and live GPUBuffer bytes.
 */
import type { Args, DeviceProperties } from '../model/trace.js';
import type { Cycle, GpuDeviceInfo, GpuPassResult } from './cycle.js';
import { activeRecorder, type Recorder } from './recorder.js';
import { QUERIES_PER_BLOCK, TimestampPool, type QueryBlock } from './timestamp-pool.js';
import { warn } from './warn.js';

const MAP_READ_USAGE = 0x0001;
const MAP_MODE_READ = 0x0001;
/** Readbacks in flight beyond which new passes go untimed instead of growing the pool without bound
 * (a caller that never yields to the event loop never lets a mapAsync complete). */
const MAX_IN_FLIGHT = 4096;

interface PassInfo {
  kind: 'compute' | 'render';
  label: string;
  /** Name of the first pipeline set (its label, else its WGSL entry point). */
  pipeline: string;
  /** Every distinct pipeline name set in the pass, in order (a pass may dispatch several). */
  pipelines: string[];
  block: QueryBlock;
  /** Query index of the begin write in the block's set; end is index + 1. */
  index: number;
  step: number;
  /** Workgroup counts of the last dispatch (x < 0: indirect; x = 0: none seen). */
  wx: number;
  wy: number;
  wz: number;
  dispatches: number;
  draws: number;
}

interface EncoderState {
  startHostNs: number;
  label: string;
  timed: boolean;
  blocks: QueryBlock[];
  passes: PassInfo[];
}

interface InFlight {
  submitHostNs: number;
  /** Earliest host time at which this submit was known to be complete (a drain that covered it). */
  doneBoundNs: number;
}

export interface DeviceInstrumentationStats {
  passesTimed: number;
  passesUntimed: number;
  submitsRead: number;
  readbackFailures: number;
  querySets: number;
  readbackBuffers: number;
  inFlight: number;
  liveBufferBytes: number;
}

type Method = (...args: never[]) => unknown;

export class DeviceInstrumentation {
  readonly info: GpuDeviceInfo;
  readonly timestamps: boolean;
  /** The profiler this device reports to; null: whichever profiler is running. */
  boundRecorder: Recorder | null = null;
  liveBufferBytes = 0;
  private readonly pool: TimestampPool;
  private readonly encoders = new WeakMap<GPUCommandBuffer, EncoderState>();
  private readonly inFlight = new Set<InFlight>();
  private readonly bufferSizes = new WeakMap<GPUBuffer, number>();
  private readonly collected = new FinalizationRegistry<number>((size) => { this.liveBufferBytes -= size; });
  private readonly patched: { target: object; key: string }[] = [];
  private warnedNoTimestamps = false;
  private warnedBacklog = false;
  private warnedReadback = false;
  private readonly stats = { passesTimed: 0, passesUntimed: 0, submitsRead: 0, readbackFailures: 0 };

  private readonly origCreateEncoder: GPUDevice['createCommandEncoder'];
  private readonly origSubmit: GPUQueue['submit'];
  private readonly origOnDone: GPUQueue['onSubmittedWorkDone'];
  private readonly origCreateBuffer: GPUDevice['createBuffer'];

  constructor(readonly device: GPUDevice, index: number) {
    this.timestamps = device.features.has('timestamp-query');
    this.info = { index, properties: deviceProperties(device, index, this.timestamps) };
    const queue = device.queue;
    this.origCreateEncoder = device.createCommandEncoder.bind(device);
    this.origSubmit = queue.submit.bind(queue);
    this.origOnDone = queue.onSubmittedWorkDone.bind(queue);
    this.origCreateBuffer = device.createBuffer.bind(device);
    this.pool = new TimestampPool(device, this.origCreateBuffer);
    this.patchDevice();
  }

  get recorder(): Recorder | null {
    return this.boundRecorder ?? activeRecorder();
  }

  getStats(): DeviceInstrumentationStats {
    return {
      ...this.stats, querySets: this.pool.setsCreated, readbackBuffers: this.pool.readbacksCreated,
      inFlight: this.inFlight.size, liveBufferBytes: this.liveBufferBytes,
    };
  }

  /** Removes the patches and frees the pool (buffers of readbacks still in flight are freed with it). */
  restore(): void {
    for (const { target, key } of this.patched) delete (target as Record<string, unknown>)[key];
    this.patched.length = 0;
    this.pool.destroy();
    instrumented.delete(this.device);
    const i = allInstrumented.indexOf(this);
    if (i >= 0) allInstrumented.splice(i, 1);
  }

  /** Waits until the queue is idle, then (while recording) submits an empty timestamped pass: its begin is a
   * GPU instant taken right after a known host time on an idle queue, the tightest alignment sample there is.
   * Returns the host time at which the queue was seen idle. */
  async syncMarker(label: string, recorder: Recorder): Promise<number> {
    const covered = [...this.inFlight];
    await this.origOnDone();
    const drained = recorder.clock.nowNs();
    for (const f of covered) f.doneBoundNs = Math.min(f.doneBoundNs, drained);
    const cycle = recorder.cycle;
    if (cycle?.recording && recorder.gpuActivity && this.timestamps) {
      const block = this.pool.acquireBlock();
      const pass: PassInfo = { kind: 'compute', label, pipeline: '', pipelines: [], block, index: block.start, step: recorder.stepNumber, wx: 0, wy: 0, wz: 0, dispatches: 0, draws: 0 };
      block.used = 2;
      const encoder = this.origCreateEncoder({ label: 'gsprof sync marker' });
      encoder.beginComputePass({
        label: `gsprof sync: ${label}`,
        timestampWrites: { querySet: block.set, beginningOfPassWriteIndex: pass.index, endOfPassWriteIndex: pass.index + 1 },
      }).end();
      const submitHostNs = recorder.clock.nowNs();
      const resolve = this.encodeResolve([block]);
      this.origSubmit([encoder.finish(), resolve.commandBuffer]);
      this.readBack(recorder, cycle, true, submitHostNs, null, [pass], [block], resolve.readback, label);
    }
    return drained;
  }

  private patch<T extends object>(target: T, key: string, fn: Method): void {
    Object.defineProperty(target, key, { value: fn, configurable: true, writable: true, enumerable: false });
    this.patched.push({ target, key });
  }

  private patchDevice(): void {
    const self = this;
    const device = this.device;
    const queue = device.queue;

    this.patch(device, 'createCommandEncoder', function createCommandEncoder(descriptor?: GPUCommandEncoderDescriptor) {
      const encoder = self.origCreateEncoder(descriptor);
      const r = self.recorder;
      const cycle = r?.cycle;
      if (!r || !cycle) return encoder;
      self.instrumentEncoder(encoder, r, descriptor?.label ?? '');
      return encoder;
    });

    this.patch(queue, 'submit', function submit(commandBuffers: Iterable<GPUCommandBuffer>) {
      return self.submit(commandBuffers);
    });

    // Host-to-GPU uploads: a host span with the bytes, for the memory-operations report (nsys memops).
    const writeBuffer = queue.writeBuffer.bind(queue);
    this.patch(queue, 'writeBuffer', function (this: GPUQueue, ...args: Parameters<GPUQueue['writeBuffer']>) {
      const r = self.recorder;
      if (!r?.cycle?.recording || !r.cpuActivity) return writeBuffer(...args);
      const t0 = r.clock.nowNs();
      const result = writeBuffer(...args);
      const [, , data, dataOffset = 0, size] = args;
      // For a typed array, offset and size count elements, not bytes (WebGPU spec).
      const unit = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
      const bytes = size !== undefined ? size * unit : data.byteLength - dataOffset * unit;
      r.completeSpan('queue.writeBuffer', 'cuda_runtime', t0, r.clock.nowNs(), { bytes });
      return result;
    });

    this.patch(queue, 'onSubmittedWorkDone', function onSubmittedWorkDone() {
      const r = self.recorder;
      const covered = [...self.inFlight];
      const t0 = r?.clock.nowNs() ?? 0;
      return self.origOnDone().then((v) => {
        const now = r?.clock.nowNs();
        if (r && now !== undefined) {
          for (const f of covered) f.doneBoundNs = Math.min(f.doneBoundNs, now);
          r.completeSpan('GPUQueue.onSubmittedWorkDone', 'cuda_sync', t0, now);
        }
        return v;
      });
    });

    // Live buffer bytes: every buffer the program creates, until destroy() or garbage collection.
    let protoDestroy: ((this: GPUBuffer) => void) | undefined;
    let protoMapAsync: GPUBuffer['mapAsync'] | undefined;
    const destroy = function destroy(this: GPUBuffer): void {
      const size = self.bufferSizes.get(this);
      if (size !== undefined) {
        self.bufferSizes.delete(this);
        self.collected.unregister(this);
        self.liveBufferBytes -= size;
        self.memorySample();
      }
      protoDestroy!.call(this);
    };
    const mapAsync = function mapAsync(this: GPUBuffer, mode: number, offset?: number, size?: number): Promise<undefined> {
      const r = self.recorder;
      const p = protoMapAsync!.call(this, mode, offset, size);
      if (!r?.cycle?.recording || !r.cpuActivity) return p;
      const t0 = r.clock.nowNs();
      const bytes = this.size;
      return p.then((v) => { r.completeSpan('GPUBuffer.mapAsync', 'cuda_sync', t0, r.clock.nowNs(), { size: bytes }); return v; });
    };
    this.patch(device, 'createBuffer', function createBuffer(descriptor: GPUBufferDescriptor) {
      const buffer = self.origCreateBuffer(descriptor);
      const proto = Object.getPrototypeOf(buffer) as GPUBuffer;
      protoDestroy ??= proto.destroy;
      protoMapAsync ??= proto.mapAsync;
      const size = buffer.size;
      self.bufferSizes.set(buffer, size);
      self.collected.register(buffer, size, buffer);
      self.liveBufferBytes += size;
      Object.defineProperty(buffer, 'destroy', { value: destroy, configurable: true, writable: true });
      if (descriptor.usage & MAP_READ_USAGE) Object.defineProperty(buffer, 'mapAsync', { value: mapAsync, configurable: true, writable: true });
      self.memorySample();
      return buffer;
    });

    // Compiles: the synchronous calls are host spans; the async ones end when their promise settles.
    for (const name of ['createShaderModule', 'createComputePipeline', 'createRenderPipeline'] as const) {
      const orig = (device[name] as Method).bind(device) as (d: { label?: string }) => unknown;
      this.patch(device, name, function compile(descriptor: { label?: string }) {
        const span = self.recorder?.beginSpan(`GPUDevice.${name}`, 'compile', descriptor?.label ? { label: descriptor.label } : undefined);
        try { return notePipeline(orig(descriptor), descriptor); } finally { span?.end(); }
      });
    }
    for (const name of ['createComputePipelineAsync', 'createRenderPipelineAsync'] as const) {
      const orig = (device[name] as Method).bind(device) as (d: { label?: string }) => Promise<unknown>;
      this.patch(device, name, function compileAsync(descriptor: { label?: string }) {
        const r = self.recorder;
        const t0 = r?.clock.nowNs() ?? 0;
        const p = orig(descriptor).then((v) => notePipeline(v, descriptor));
        if (!r?.cycle?.recording) return p;
        return p.then((v) => {
          r.completeSpan(`GPUDevice.${name}`, 'compile', t0, r.clock.nowNs(), descriptor?.label ? { label: descriptor.label } : undefined);
          return v;
        });
      });
    }
  }

  private memorySample(): void {
    const r = this.recorder;
    if (!r?.profileMemory || !r.cycle?.recording) return;
    r.cycle.counter(memoryCounterName(this.info.index), 'bytes', r.clock.nowNs(), this.liveBufferBytes);
  }

  /** Emits the current live bytes (at the start of a recording). */
  memorySnapshot(r: Recorder): void {
    if (r.cycle?.recording) r.cycle.counter(memoryCounterName(this.info.index), 'bytes', r.clock.nowNs(), this.liveBufferBytes);
  }

  private instrumentEncoder(encoder: GPUCommandEncoder, r: Recorder, label: string): void {
    const self = this;
    let timed = r.gpuActivity && this.timestamps;
    if (r.gpuActivity && !this.timestamps && !this.warnedNoTimestamps) {
      this.warnedNoTimestamps = true;
      warn(`GPU ${this.info.index} was created without the 'timestamp-query' feature: no GPU spans. ` +
        `Request it (requiredFeatures: ['timestamp-query']) or use requestProfiledDevice(adapter) from @gsprof/profiler.`);
    }
    if (timed && this.inFlight.size >= MAX_IN_FLIGHT) {
      timed = false;
      if (!this.warnedBacklog) {
        this.warnedBacklog = true;
        warn(`GPU ${this.info.index}: ${MAX_IN_FLIGHT} timestamp readbacks in flight; passes go untimed until the event loop lets them complete (await something between steps)`);
      }
    }
    const state: EncoderState = { startHostNs: r.clock.nowNs(), label, timed, blocks: [], passes: [] };
    const beginCompute = encoder.beginComputePass.bind(encoder);
    const beginRender = encoder.beginRenderPass.bind(encoder);
    const finish = encoder.finish.bind(encoder);

    const allocate = (): { block: QueryBlock; index: number } => {
      let block = state.blocks[state.blocks.length - 1];
      if (!block || block.used + 2 > QUERIES_PER_BLOCK) {
        block = this.pool.acquireBlock();
        state.blocks.push(block);
      }
      const index = block.start + block.used;
      block.used += 2;
      return { block, index };
    };

    this.patchUntracked(encoder, 'beginComputePass', function beginComputePass(descriptor?: GPUComputePassDescriptor) {
      if (!state.timed || descriptor?.timestampWrites) { self.stats.passesUntimed++; return beginCompute(descriptor); }
      const { block, index } = allocate();
      const pass = beginCompute({
        ...descriptor,
        timestampWrites: { querySet: block.set, beginningOfPassWriteIndex: index, endOfPassWriteIndex: index + 1 },
      });
      const info: PassInfo = { kind: 'compute', label: descriptor?.label ?? '', pipeline: '', pipelines: [], block, index, step: r.stepNumber, wx: 0, wy: 0, wz: 0, dispatches: 0, draws: 0 };
      state.passes.push(info);
      self.stats.passesTimed++;
      watchComputePass(pass, info);
      return pass;
    });

    this.patchUntracked(encoder, 'beginRenderPass', function beginRenderPass(descriptor: GPURenderPassDescriptor) {
      if (!state.timed || descriptor.timestampWrites) { self.stats.passesUntimed++; return beginRender(descriptor); }
      const { block, index } = allocate();
      const pass = beginRender({
        ...descriptor,
        timestampWrites: { querySet: block.set, beginningOfPassWriteIndex: index, endOfPassWriteIndex: index + 1 },
      });
      const info: PassInfo = { kind: 'render', label: descriptor.label ?? '', pipeline: '', pipelines: [], block, index, step: r.stepNumber, wx: 0, wy: 0, wz: 0, dispatches: 0, draws: 0 };
      state.passes.push(info);
      self.stats.passesTimed++;
      watchRenderPass(pass, info);
      return pass;
    });

    this.patchUntracked(encoder, 'finish', (descriptor?: GPUCommandBufferDescriptor) => {
      const commandBuffer = finish(descriptor);
      if (state.passes.length) self.encoders.set(commandBuffer, state);
      r.completeSpan('encode', 'cuda_runtime', state.startHostNs, r.clock.nowNs(), {
        ...(state.label ? { label: state.label } : {}), passes: state.passes.length,
      });
      return commandBuffer;
    });
  }

  /** Per-object patches on short-lived encoders need no restore bookkeeping (a plain store is the cheapest). */
  private patchUntracked(target: object, key: string, fn: Method): void {
    (target as Record<string, unknown>)[key] = fn;
  }

  private submit(commandBuffers: Iterable<GPUCommandBuffer>): undefined {
    const list = Array.isArray(commandBuffers) ? (commandBuffers as GPUCommandBuffer[]) : [...commandBuffers];
    const r = this.recorder;
    let states: EncoderState[] | null = null;
    for (const cb of list) {
      const s = this.encoders.get(cb);
      if (s) { states ??= []; states.push(s); this.encoders.delete(cb); }
    }
    const cycle = r?.cycle ?? null;
    if (!r || (!cycle && !states)) return this.origSubmit(list);

    const t0 = r.clock.nowNs();
    const passes: PassInfo[] = [];
    const blocks: QueryBlock[] = [];
    // Loops, not push(...s.passes): a command buffer may hold more passes than the stack has room for arguments.
    if (states) for (const s of states) { for (const p of s.passes) passes.push(p); for (const b of s.blocks) blocks.push(b); }
    const resolve = blocks.length ? this.encodeResolve(blocks) : null;
    const resolved = r.clock.nowNs();
    this.origSubmit(resolve ? [...list, resolve.commandBuffer] : list);
    const t1 = r.clock.nowNs();
    const recording = !!cycle?.recording;
    const slice = recording && r.cpuActivity
      ? cycle!.completeSlice('queue.submit', 'cuda_runtime', t0, t1, { step: r.stepNumber, commandBuffers: list.length, passes: passes.length })
      : null;
    // gsprof's own part of the submit (encoding its timestamp resolve and copy), nested in the submit's span.
    if (slice && resolve) cycle!.completeSlice('resolve GPU timestamps', 'gsprof', t0, resolved, { queries: blocks.reduce((n, b) => n + b.used, 0) });
    if (resolve) this.readBack(r, cycle, recording, t0, slice, passes, blocks, resolve.readback);
    return undefined;
  }

  private encodeResolve(blocks: QueryBlock[]): { commandBuffer: GPUCommandBuffer; readback: GPUBuffer } {
    let total = 0;
    for (const b of blocks) total += b.used;
    const readback = this.pool.acquireReadback(total * 8);
    const encoder = this.origCreateEncoder({ label: 'gsprof timestamp resolve' });
    let offset = 0;
    for (const b of blocks) {
      encoder.resolveQuerySet(b.set, b.start, b.used, b.resolveBuffer, b.start * 8);
      encoder.copyBufferToBuffer(b.resolveBuffer, b.start * 8, readback, offset, b.used * 8);
      offset += b.used * 8;
    }
    return { commandBuffer: encoder.finish(), readback };
  }

  private readBack(
    r: Recorder, cycle: Cycle | null, keep: boolean, submitHostNs: number, submitSlice: GpuBatchSlice,
    passes: PassInfo[], blocks: QueryBlock[], readback: GPUBuffer, marker?: string,
  ): void {
    const flight: InFlight = { submitHostNs, doneBoundNs: Infinity };
    this.inFlight.add(flight);
    const offsets = new Map<QueryBlock, number>();
    let total = 0;
    for (const b of blocks) { offsets.set(b, total); total += b.used; }
    const runInfo = r.runInfo;
    const release = (): void => {
      this.inFlight.delete(flight);
      for (const b of blocks) this.pool.releaseBlock(b);
    };
    const p = readback.mapAsync(MAP_MODE_READ, 0, readback.size).then(
      () => {
        const readStart = r.clock.nowNs();
        const doneHostNs = Math.min(readStart, flight.doneBoundNs);
        const values = new BigUint64Array(readback.getMappedRange(0, total * 8).slice(0));
        readback.unmap();
        this.pool.releaseReadback(readback);
        release();
        this.stats.submitsRead++;
        if (!keep || !cycle) return;
        const results: GpuPassResult[] = passes.map((pass) => {
          const at = offsets.get(pass.block)! + (pass.index - pass.block.start);
          return { name: passName(pass), args: passArgs(pass, this.info.index, runInfo), begin: values[at]!, end: values[at + 1]! };
        });
        cycle.addGpuBatch({ device: this.info, submitHostNs, doneHostNs, submitSlice, passes: results, ...(marker !== undefined ? { marker } : {}) });
        // gsprof's own work on the host, in whichever cycle records now (the readback may land in a later one).
        r.completeSpan('read GPU timestamps', 'gsprof', readStart, r.clock.nowNs(), { passes: passes.length });
      },
      (err: unknown) => {
        this.stats.readbackFailures++;
        release();
        if (keep) cycle?.bumpRun('gpuSpansLostReadback', passes.length);
        if (keep && !this.warnedReadback) {
          this.warnedReadback = true;
          warn(`GPU ${this.info.index}: timestamp readback failed (${(err as Error)?.message ?? String(err)}); its GPU spans are lost (counted in metadata.run.gpuSpansLostReadback)`);
        }
      },
    );
    cycle?.track(p);
  }
}

type GpuBatchSlice = Parameters<Cycle['addGpuBatch']>[0]['submitSlice'];

// Pass encoders are watched through shared functions that find their PassInfo on the pass itself: per pass that
// is a few property stores, not a set of new closures.
const PASS_INFO = Symbol('gsprof.passInfo');
type Watched<T> = T & { [PASS_INFO]: PassInfo };
let computeProto: GPUComputePassEncoder | null = null;
let renderProto: GPURenderPassEncoder | null = null;

/** WGSL entry points of the pipelines created while instrumented: the name of last resort for a pass. */
const ENTRY_POINTS = new WeakMap<object, string>();

function notePipeline<T>(pipeline: T, descriptor: unknown): T {
  const d = descriptor as { compute?: { entryPoint?: string }; vertex?: { entryPoint?: string }; fragment?: { entryPoint?: string } } | undefined;
  const entry = d?.compute?.entryPoint ?? [d?.vertex?.entryPoint, d?.fragment?.entryPoint].filter((e) => e).join('/');
  if (entry && pipeline !== null && typeof pipeline === 'object') ENTRY_POINTS.set(pipeline, entry);
  return pipeline;
}

/** A pipeline's name: its label, else its WGSL entry point. */
function pipelineName(p: GPUComputePipeline | GPURenderPipeline): string {
  return p.label || ENTRY_POINTS.get(p) || '';
}

function notePassPipeline(info: PassInfo, p: GPUComputePipeline | GPURenderPipeline): void {
  const name = pipelineName(p);
  if (!name) return;
  if (!info.pipeline) info.pipeline = name;
  if (!info.pipelines.includes(name)) info.pipelines.push(name);
}

function setComputePipeline(this: Watched<GPUComputePassEncoder>, p: GPUComputePipeline): undefined {
  notePassPipeline(this[PASS_INFO], p);
  return computeProto!.setPipeline.call(this, p);
}
function dispatchWorkgroups(this: Watched<GPUComputePassEncoder>, x: number, y?: number, z?: number): undefined {
  const info = this[PASS_INFO];
  info.dispatches++;
  info.wx = x;
  info.wy = y ?? 1;
  info.wz = z ?? 1;
  return computeProto!.dispatchWorkgroups.call(this, x, y, z);
}
function dispatchWorkgroupsIndirect(this: Watched<GPUComputePassEncoder>, b: GPUBuffer, o: number): undefined {
  const info = this[PASS_INFO];
  info.dispatches++;
  info.wx = -1;
  return computeProto!.dispatchWorkgroupsIndirect.call(this, b, o);
}
function watchComputePass(pass: GPUComputePassEncoder, info: PassInfo): void {
  computeProto ??= Object.getPrototypeOf(pass) as GPUComputePassEncoder;
  const w = pass as Watched<GPUComputePassEncoder>;
  w[PASS_INFO] = info;
  w.setPipeline = setComputePipeline;
  w.dispatchWorkgroups = dispatchWorkgroups;
  w.dispatchWorkgroupsIndirect = dispatchWorkgroupsIndirect;
}

function setRenderPipeline(this: Watched<GPURenderPassEncoder>, p: GPURenderPipeline): undefined {
  notePassPipeline(this[PASS_INFO], p);
  return renderProto!.setPipeline.call(this, p);
}
function draw(this: Watched<GPURenderPassEncoder>, ...a: Parameters<GPURenderPassEncoder['draw']>): undefined {
  this[PASS_INFO].draws++;
  return renderProto!.draw.apply(this, a);
}
function drawIndexed(this: Watched<GPURenderPassEncoder>, ...a: Parameters<GPURenderPassEncoder['drawIndexed']>): undefined {
  this[PASS_INFO].draws++;
  return renderProto!.drawIndexed.apply(this, a);
}
function watchRenderPass(pass: GPURenderPassEncoder, info: PassInfo): void {
  renderProto ??= Object.getPrototypeOf(pass) as GPURenderPassEncoder;
  const w = pass as Watched<GPURenderPassEncoder>;
  w[PASS_INFO] = info;
  w.setPipeline = setRenderPipeline;
  w.draw = draw;
  w.drawIndexed = drawIndexed;
}

/** The pass label, else its pipelines' names (labels, else WGSL entry points) joined with ' + ' when it ran
 * several; `compute pass` only for a pass that set no pipeline. */
function passName(p: PassInfo): string {
  return p.label || p.pipelines.join(' + ') || `${p.kind} pass`;
}

function passArgs(p: PassInfo, device: number, runInfo: Args): Args {
  const args: Args = { kernel: passName(p), device, queue: 0, step: p.step };
  if (p.pipelines.length > 1) args.pipelines = p.pipelines.join(', ');
  else if (p.pipeline && p.pipeline !== args.kernel) args.pipeline = p.pipeline;
  if (p.wx !== 0) args.workgroups = p.wx < 0 ? 'indirect' : `${p.wx}x${p.wy}x${p.wz}`;
  if (p.dispatches > 1) args.dispatches = p.dispatches;
  if (p.kind === 'render') args.draws = p.draws;
  if (runInfo.nEnvs !== undefined) args.nEnvs = runInfo.nEnvs;
  return args;
}

export function memoryCounterName(deviceIndex: number): string {
  return deviceIndex === 0 ? 'gpu_memory' : `gpu_memory (GPU ${deviceIndex})`;
}

function deviceProperties(device: GPUDevice, index: number, timestampQuery: boolean): DeviceProperties {
  const info = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  const limits: Record<string, number> = {};
  for (const k of ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupsPerDimension'] as const) {
    const v = device.limits[k];
    if (typeof v === 'number') limits[k] = v;
  }
  const props: DeviceProperties = { id: index, name: info?.description || info?.device || info?.vendor || `GPU ${index}`, backend: 'webgpu', timestampQuery, limits };
  if (info?.vendor) props.vendor = info.vendor;
  if (info?.architecture) props.architecture = info.architecture;
  if (info?.description) props.description = info.description;
  return props;
}

const instrumented = new WeakMap<GPUDevice, DeviceInstrumentation>();
/** Every device instrumented so far (strongly held: a profiled program keeps its devices anyway). */
const allInstrumented: DeviceInstrumentation[] = [];
let nextIndex = 0;

/**
 * Instruments `device` (idempotent). With `recorder`, it reports only to that profiler; without, to whichever
 * profiler is running. Returns the instrumentation (stats, restore()).
 */
export function instrumentDeviceFor(device: GPUDevice, recorder?: Recorder): DeviceInstrumentation {
  let inst = instrumented.get(device);
  if (!inst) {
    inst = new DeviceInstrumentation(device, nextIndex++);
    instrumented.set(device, inst);
    allInstrumented.push(inst);
  }
  if (recorder) inst.boundRecorder = recorder;
  return inst;
}

/** Devices whose reports reach `recorder` (bound to it, or to whichever profiler runs). */
export function devicesFor(recorder: Recorder): DeviceInstrumentation[] {
  return allInstrumented.filter((d) => instrumented.get(d.device) === d && (d.boundRecorder === null || d.boundRecorder === recorder));
}
