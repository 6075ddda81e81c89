/**
 * The CPU backend: the stages as TypeScript over one batched Data in a SharedArrayBuffer. With more than
 * one thread, env workers (src/cpu/workers) and the main thread claim chunks of envs (chunkEnvs) until all
 * are stepped, so a thread the OS deschedules on a busy machine does not stall the step.
 * Per-kernel spans: with a tracer installed, the main thread first steps a fixed share of the envs
 * ([0, nEnvs/threads)) kernel by kernel under spans, then helps with the remaining chunks under one
 * 'shared envs' span, then waits for the workers under a 'wait for workers' span. The workers' own work is
 * not in the trace.
 */
import { availableParallelism, cpus } from 'node:os';
import { stepCpu } from '../cpu/step.js';
import { EnvWorkerPool } from '../cpu/workers/pool.js';
import { shareData } from '../cpu/workers/shared-data.js';
import type { DofCtrlMode, Data, Precision, Real } from '../data/data.js';
import { bytesPerEnv, makeData, resetData } from '../data/make-data.js';
import type { Model } from '../model/model.js';
import {
  ERR_BLOWUP, ERR_NAN,
  type Backend, type BackendBuildOptions, type BackendInitOptions, type DeviceDescription, type DofField,
  type EnvContacts, type EnvErrors, type SimInstance, type StateField, type ValueBlock,
} from './backend.js';
import { gatherContacts } from './contacts.js';

/** Below this many envs one thread is as fast: fewer than two chunks leave the workers nothing to take. */
export const AUTO_THREADS_MIN_ENVS = 128;
/** Env ranges start on multiples of this, so two threads never write one cache line of an f64 field. */
const RANGE_ALIGN = 8;
/** The smallest chunk a thread claims. Each stage call has a fixed cost, so small chunks cost more per env
 *  (measured, Franka, CPU time per env-step: 64-env chunks +18% over 1024-env chunks at 2048 envs; at 4096
 *  envs on one thread 128: 12.4 us, 256: 11.7, 512: 10.8, 1024: 10.3, 4096: 10.9); fewer, larger chunks
 *  balance worse when the OS deschedules a thread. */
export const MIN_CHUNK_ENVS = 64;

/** About two chunks per thread, aligned, at least MIN_CHUNK_ENVS. */
export function chunkEnvs(nEnvs: number, threads: number): number {
  const target = Math.ceil(nEnvs / (threads * 2) / RANGE_ALIGN) * RANGE_ALIGN;
  return Math.max(MIN_CHUNK_ENVS, target);
}

/** How many threads a scene of nEnvs uses under `cpuThreads`. */
export function threadsFor(nEnvs: number, cpuThreads: number | 'auto', cores = availableParallelism()): number {
  const wanted = cpuThreads === 'auto' ? (nEnvs >= AUTO_THREADS_MIN_ENVS ? cores : 1) : cpuThreads;
  return Math.max(1, Math.min(wanted, Math.ceil(nEnvs / RANGE_ALIGN)));
}

export class CpuBackend implements Backend {
  readonly kind = 'cpu' as const;
  readonly device: DeviceDescription;

  constructor(private readonly init: BackendInitOptions) {
    const threads = init.cpuThreads === 'auto' ? availableParallelism() : init.cpuThreads;
    this.device = Object.freeze({ type: 'cpu', name: cpus()[0]?.model.trim() ?? 'cpu', threads });
  }

  async build(model: Model, nEnvs: number, precision: Precision, options: BackendBuildOptions): Promise<SimInstance> {
    const data = makeData(model, nEnvs, precision, options.maxContacts === undefined ? {} : { maxContacts: options.maxContacts });
    const threads = threadsFor(data.nEnvs, options.cpuThreads ?? this.init.cpuThreads);
    const sim = new CpuSim(model, data, nEnvs > 0, options, threads);
    await sim.start();
    return sim;
  }

  async destroy(): Promise<void> {}
}

type Arr = Real | Uint8Array;

class CpuSim implements SimInstance {
  readonly nEnvs: number;
  readonly precision: Precision;
  readonly bytesPerEnv: number;
  readonly capacity: { readonly maxContacts: number; readonly maxEfc: number };
  private data: Data;
  private pool: EnvWorkerPool | null = null;
  private chunk = MIN_CHUNK_ENVS;
  private destroyed = false;

  constructor(
    readonly model: Model,
    data: Data,
    readonly batched: boolean,
    private readonly options: BackendBuildOptions,
    private readonly threads: number,
  ) {
    this.data = data;
    this.nEnvs = data.nEnvs;
    this.precision = data.precision;
    this.bytesPerEnv = bytesPerEnv(data);
    this.capacity = { maxContacts: data.maxContacts, maxEfc: data.maxEfc };
  }

  get description(): string {
    return `cpu, ${this.pool ? this.pool.size + 1 : 1} thread${this.pool ? 's' : ''}`;
  }

  get hostData(): Data {
    return this.data;
  }

  async start(): Promise<void> {
    if (this.threads <= 1) return;
    const { data, layout } = shareData(this.data);
    this.data = data;
    this.chunk = chunkEnvs(this.nEnvs, this.threads);
    this.pool = await EnvWorkerPool.start({ model: this.model, data: layout, workers: this.threads - 1 });
  }

  private live(): Data {
    if (this.destroyed) throw new Error('This scene was destroyed.');
    return this.data;
  }

  /** One scene step: opt.substeps timesteps (stepCpu is one mj_step) of every env. */
  step(): void {
    const d = this.live();
    const m = this.model;
    const n = this.nEnvs;
    const substeps = m.opt.substeps;
    const tracer = this.options.tracer();
    const pool = this.pool;
    if (!pool) {
      for (let s = 0; s < substeps; s++) stepCpu(m, d, 0, n, tracer);
      return;
    }
    // With a tracer, the main thread keeps a fixed share so its kernel spans cover one contiguous range.
    const chunk = this.chunk;
    const chunks = Math.ceil(n / chunk);
    const ownChunks = tracer ? Math.max(1, Math.floor(chunks / (pool.size + 1))) : 0;
    // Workers record their stages only for a tracer that can place spans on other threads.
    const traceWorkers = typeof tracer?.threadSpan === 'function';
    pool.run(substeps, n, chunk, ownChunks, traceWorkers);
    try {
      const own = Math.min(n, ownChunks * chunk);
      if (own > 0) for (let s = 0; s < substeps; s++) stepCpu(m, d, 0, own, tracer);
      // Chunks claimed after the fixed share: one 'shared envs' span (every stage of those envs), so the main
      // thread's step is accounted for; per-stage spans stay on the fixed share, whose size does not vary.
      let e0 = pool.claim();
      const helping = tracer !== null && e0 >= 0;
      if (helping) tracer?.begin('shared envs', 'cpu_op');
      try {
        for (; e0 >= 0; e0 = pool.claim()) {
          const e1 = Math.min(n, e0 + chunk);
          for (let s = 0; s < substeps; s++) stepCpu(m, d, e0, e1, null);
        }
      } finally {
        if (helping) tracer?.end();
      }
    } finally {
      // Waiting is not CPU work: its own category, so utilisation (cpu_op coverage) does not count it.
      tracer?.begin('wait for workers', 'wait');
      try { pool.wait(); } finally { tracer?.end(); }
      if (traceWorkers) pool.drainSpans(tracer!);
    }
  }

  readonly stepsInFlight = 0;

  async throttle(_maxInFlight: number): Promise<void> {}

  async sync(): Promise<void> {
    this.live();
  }

  reset(envs: Int32Array): void {
    resetData(this.model, this.live(), envs);
  }

  private field(name: DofField | 'qpos' | 'ctrl'): Real {
    return this.live()[name];
  }

  private write(a: Arr, idx: Int32Array, envs: Int32Array, values: ValueBlock): void {
    const n = this.nEnvs;
    const w = idx.length;
    const src = values.data;
    const perEnv = values.rows === 1 ? 0 : w;
    for (let t = 0; t < envs.length; t++) {
      const e = envs[t]!;
      const row = t * perEnv;
      for (let j = 0; j < w; j++) a[idx[j]! * n + e] = src[row + j]!;
    }
  }

  private read(a: Real, idx: Int32Array, envs: Int32Array): Float32Array | Float64Array {
    const n = this.nEnvs;
    const w = idx.length;
    const out = this.precision === '32' ? new Float32Array(envs.length * w) : new Float64Array(envs.length * w);
    for (let t = 0; t < envs.length; t++) {
      const e = envs[t]!;
      for (let j = 0; j < w; j++) out[t * w + j] = a[idx[j]! * n + e]!;
    }
    return out;
  }

  writeDofs(field: DofField, dofs: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write(this.field(field), dofs, envs, values);
  }

  async readDofs(field: DofField, dofs: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array> {
    return this.read(this.field(field), dofs, envs);
  }

  writeDofCtrlMode(dofs: Int32Array, envs: Int32Array, mode: DofCtrlMode): void {
    const a = this.live().dofCtrlMode;
    const n = this.nEnvs;
    for (let j = 0; j < dofs.length; j++) for (let t = 0; t < envs.length; t++) a[dofs[j]! * n + envs[t]!] = mode;
  }

  writeDofForceRange(dofs: Int32Array, envs: Int32Array, lower: ValueBlock, upper: ValueBlock): void {
    const range = this.live().dofForceRange;
    // dofForceRange holds lower at slot 2*i and upper at 2*i+1, each nEnvs long.
    const lo = Int32Array.from(dofs, (i) => 2 * i);
    const hi = Int32Array.from(dofs, (i) => 2 * i + 1);
    this.write(range, lo, envs, lower);
    this.write(range, hi, envs, upper);
  }

  writeQpos(qs: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write(this.field('qpos'), qs, envs, values);
  }

  async readQpos(qs: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array> {
    return this.read(this.field('qpos'), qs, envs);
  }

  async readContacts(envs: Int32Array): Promise<EnvContacts[]> {
    return gatherContacts(this.live(), this.nEnvs, envs);
  }

  async readState(field: StateField, idx: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array> {
    return this.read(this.live()[field], idx, envs);
  }

  writeCtrl(actuators: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write(this.field('ctrl'), actuators, envs, values);
  }

  async readCtrl(actuators: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array> {
    return this.read(this.field('ctrl'), actuators, envs);
  }

  timers(): Float64Array {
    return this.live().timers.slice();
  }

  pollErrors(): EnvErrors {
    const d = this.live();
    const n = this.nEnvs;
    const flags = Uint32Array.from(d.errFlags);
    const limit = this.options.blowUpThreshold;
    const scan = (a: Real, size: number): void => {
      for (let k = 0; k < size; k++) {
        const base = k * n;
        for (let e = 0; e < n; e++) {
          const v = a[base + e]!;
          if (v - v !== 0) flags[e]! |= ERR_NAN;
          else if (v > limit || v < -limit) flags[e]! |= ERR_BLOWUP;
        }
      }
    };
    scan(d.qpos, this.model.nq);
    scan(d.qvel, this.model.nv);
    let count = 0;
    for (let e = 0; e < n; e++) if (flags[e] !== 0) count++;
    const envs = new Int32Array(count);
    const out = new Uint32Array(count);
    for (let e = 0, i = 0; e < n; e++) {
      if (flags[e] !== 0) { envs[i] = e; out[i] = flags[e]!; i++; }
    }
    return { envs, flags: out };
  }

  clearErrors(envs: Int32Array): void {
    const f = this.live().errFlags;
    for (const e of envs) f[e] = 0;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.pool?.close();
    this.pool = null;
  }
}
