/**
 * The WebGPU backend: the pipeline's WGSL kernels over state that stays on the device.
 *
 * Writes go straight into the device buffers (queue.writeBuffer, or a GPU-to-GPU copy); reads are async
 * through a ring of staging buffers. `step()` only records and submits; nothing waits for the device except
 * `sync()` and reads. Timers slots 1-7 (iterations, active constraints, contacts, line-search iterations,
 * rows, last improvement, not converged) are exact; slot 0 (solve_ns) is NaN because WGSL has no shader clock.
 * stepWithStats() adds the step counters' reduction (gpu/step-stats.ts) to the step's submit.
 */
import { type DofCtrlMode, TIMER_SLOTS, type Data, type Precision } from '../data/data.js';
import { makeData, resetData } from '../data/make-data.js';
import { collisionPlan, geomLabel } from '../collision/plan.js';
import { gpuHasNarrow } from '../stages/collision/wgsl.js';
import { GPU_CCD_MAX_ITERATIONS, gpuConvexPair } from '../gpu/kernels/convex.js';
import { CCD_ITERATIONS } from '../collision/convex.js';
import { EqType, GainType, GeomType, Integrator, TrnType, type Model } from '../model/model.js';
import { coupledVelocityActuatorsOf } from '../data/plan.js';
import { isSoftwareAdapter, openGpu, type OpenedGpu } from '../gpu/adapter.js';
import { gpuKernelsFor } from '../gpu/kernels/index.js';
import { bytesPerEnv } from '../gpu/layout.js';
import { GpuSim } from '../gpu/runtime.js';
import { StepStatsReducer } from '../gpu/step-stats.js';
import { logger } from '@gsprof/log';
import type {
  Backend, BackendBuildOptions, BackendInitOptions, DeviceDescription, DeviceStepStats, DofField, EnvContacts, EnvErrors, SimInstance,
  StateField, ValueBlock,
} from './backend.js';
import { gatherContacts, type ContactFields } from './contacts.js';

/** Steps between completion marks (throttle's granularity: it may wait until this many fewer are in flight). */
const COMPLETION_MARK_EVERY = 32;

/** Steps queued in one event-loop turn before the GPU backend warns that host memory grows with the queue. */
export const QUEUE_WARNING_STEPS = 5000;

/**
 * The lowest contact friction the f32 kernels resolve. A pyramid's two rows are the normal plus and minus
 * friction times the tangent, so the tangential part of the solver's Hessian is friction^2 of the normal
 * part; in f32 it drowns in rounding and the Hessian turns indefinite. A box sliding on a plane went NaN at
 * friction 1e-3 (dt 0.002) and 3e-3 (dt 0.01), and matched the CPU to 5 digits at 5e-3 for dt 0.001-0.02;
 * 1e-2 leaves a factor of 2.
 */
export const GPU_MIN_FRICTION = 1e-2;

/** Refuses geom pairs that can touch with a sliding friction the f32 solver cannot resolve. */
function refuseLowFriction(model: Model): void {
  if (!model.opt.enableCollision) return;
  const plan = collisionPlan(model);
  const low: string[] = [];
  for (let p = 0; p < plan.npair; p++) {
    const mu = plan.friction[5 * p]!;
    if (mu < GPU_MIN_FRICTION) low.push(`${geomLabel(model, plan.geom1[p]!)} - ${geomLabel(model, plan.geom2[p]!)} (${mu})`);
  }
  if (low.length === 0) return;
  throw new Error(`the GPU backend computes in f32 and cannot resolve contact friction below ${GPU_MIN_FRICTION} ` +
    `(the pyramid's friction rows vanish in rounding and the solver goes NaN): ${low.slice(0, 5).join(', ')}` +
    `${low.length > 5 ? `, ... (${low.length} pairs)` : ''}. Use the CPU backend, or friction of at least ${GPU_MIN_FRICTION}.`);
}

/**
 * Refuses geom pairs whose narrow phase exists only on the CPU (the kernel would skip them and the geoms pass
 * through), and a ccd_iterations beyond the WGSL convex routine's polytope storage when a convex pair can touch.
 */
export function refuseCpuOnlyPairs(model: Model): void {
  if (!model.opt.enableCollision) return;
  const plan = collisionPlan(model);
  const pairs: string[] = [];
  let convex = false;
  for (let p = 0; p < plan.npair; p++) {
    const g1 = plan.geom1[p]!, g2 = plan.geom2[p]!;
    if (!gpuHasNarrow(model.geomType[g1]!, model.geomType[g2]!)) pairs.push(`${geomLabel(model, g1)} - ${geomLabel(model, g2)}`);
    convex ||= gpuConvexPair(model.geomType[g1]!, model.geomType[g2]!);
  }
  if (pairs.length > 0) {
    throw new Error(`the GPU backend has no collision code for ${pairs.slice(0, 5).join(', ')}` +
      `${pairs.length > 5 ? `, ... (${pairs.length} pairs)` : ''}: these pairs run on the CPU backend; use backend cpu, ` +
      'or keep them from colliding.');
  }
  const iterations = model.opt.ccdIterations ?? CCD_ITERATIONS;
  if (convex && iterations > GPU_CCD_MAX_ITERATIONS) {
    throw new Error(`the GPU backend's convex collision (GJK/EPA) runs at most ${GPU_CCD_MAX_ITERATIONS} ccd_iterations ` +
      `and this model asks for ${iterations}; lower <option ccd_iterations>, or use backend cpu.`);
  }
}

/**
 * Refuses hfield geoms that can touch any geom: height field collision (MuJoCo's prisms through the convex
 * routine) runs on the CPU backend only, and the WGSL narrow phase would skip the pair (a ball would fall through
 * the terrain). Meshes collide on the GPU with every geom (plane-mesh in gpu/kernels/mesh.ts, the rest, mesh-mesh
 * too, through the convex routine with the hulls' supports).
 */
export function refuseHFieldCollision(model: Model): void {
  if (!model.opt.enableCollision) return;
  const plan = collisionPlan(model);
  for (let p = 0; p < plan.npair; p++) {
    for (const g of [plan.geom1[p]!, plan.geom2[p]!]) {
      if (model.geomType[g] === GeomType.HField) {
        throw new Error(`the GPU backend has no height field collision: ${geomLabel(model, g)} can touch other geoms; height fields run on the CPU backend (backend cpu)`);
      }
    }
  }
}

/**
 * Refuses actuators with an affine gain (gaintype="affine"): the CPU backend computes them as MuJoCo does, the
 * WGSL actuation kernel has only fixed gains and would drop the length and velocity terms.
 */
export function refuseAffineGain(model: Model): void {
  for (let u = 0; u < model.nu; u++) {
    if (model.actuatorGaintype[u] === GainType.Affine) {
      throw new Error(`the GPU backend has no affine actuator gain: actuator '${model.actuatorName[u] || u}' has gaintype="affine"; it runs on the CPU backend (backend cpu)`);
    }
  }
}

/**
 * Refuses what the CPU backend computes as MuJoCo does and the WGSL kernels do not: actuators on a site (the
 * actuation kernel has joint and tendon transmissions only) and fluid forces (<option density> or <option
 * viscosity>: the passive kernel has springs and dampers only). Each would otherwise be dropped without a word.
 */
export function refuseCpuOnlyPhysics(model: Model): void {
  for (let u = 0; u < model.nu; u++) {
    if (model.actuatorTrntype[u] === TrnType.Site) {
      const refsite = model.actuatorTrnid[2 * u + 1]!;
      const target = `site '${model.siteName[model.actuatorTrnid[2 * u]!] || model.actuatorTrnid[2 * u]}'${refsite >= 0 ? ` with refsite '${model.siteName[refsite] || refsite}'` : ''}`;
      throw new Error(`the GPU backend has no site transmission: actuator '${model.actuatorName[u] || u}' drives ${target}; it runs on the CPU backend (backend cpu)`);
    }
  }
  const density = model.opt.density ?? 0, viscosity = model.opt.viscosity ?? 0;
  if (density > 0 || viscosity > 0) {
    throw new Error(`the GPU backend has no fluid forces: this model sets <option${density > 0 ? ` density="${density}"` : ''}${viscosity > 0 ? ` viscosity="${viscosity}"` : ''}>; it runs on the CPU backend (backend cpu)`);
  }
}

/**
 * Refuses, under implicitfast, a velocity-dependent actuator on a tendon and a damped tendon: the CPU backend adds
 * their J' * B * J to qDeriv as MuJoCo does; the WGSL kernels keep only qDeriv's diagonal and give tendons none.
 */
export function refuseTendonVelocityDerivative(model: Model): void {
  if (model.opt.integrator !== Integrator.ImplicitFast) return;
  for (let t = 0; t < model.ntendon; t++) {
    if (model.tendonDamping[t] !== 0) {
      throw new Error(`the GPU backend has no velocity derivative of tendon damping: tendon '${model.tendonName[t] || t}' has damping ${model.tendonDamping[t]} under the implicitfast integrator; it runs on the CPU backend (backend cpu)`);
    }
  }
  for (const u of coupledVelocityActuatorsOf(model)) {
    // a site transmission is refused whatever its force law (refuseCpuOnlyPhysics)
    if (model.actuatorTrntype[u] !== TrnType.Tendon) continue;
    const t = model.actuatorTrnid[2 * u]!;
    throw new Error(`the GPU backend has no velocity derivative of a tendon actuator: actuator '${model.actuatorName[u] || u}' on tendon '${model.tendonName[t] || t}' is velocity-dependent (biasprm[2] or an affine gainprm[2]) under the implicitfast integrator; it runs on the CPU backend (backend cpu)`);
  }
}

/** Refuses the implicit integrator: its WGSL would need the bias force's velocity derivative and a non-symmetric LU. */
export function refuseImplicitIntegrator(model: Model): void {
  if (model.opt.integrator === Integrator.Implicit) {
    throw new Error('the GPU backend has no implicit integrator (integrator="implicit": the bias force\'s velocity derivative and a non-symmetric LU); use implicitfast or Euler, or the CPU backend (backend cpu)');
  }
}

/** Device copies of gs.tensor(..., { device: gs.device }) values, per tensor object. */
const deviceTensors = new WeakMap<object, GPUBuffer>();

/** Host Data fields uploaded at build and restored by reset (the GPU layout has a field of the same name). */
const STATE_FIELDS = [
  'time', 'qpos', 'qvel', 'qacc', 'qaccWarmstart', 'ctrl', 'qfrcApplied', 'dofCtrlMode', 'dofCtrlPos', 'dofCtrlVel',
  'dofCtrlForce', 'dofKp', 'dofKv', 'dofForceRange', 'errFlags',
] as const;
/** Gains and force ranges are parameters, not state: reset keeps them (as the CPU backend does). */
const KEPT_ON_RESET = new Set(['dofKp', 'dofKv', 'dofForceRange']);

export class GpuBackend implements Backend {
  readonly kind = 'gpu' as const;
  readonly device: DeviceDescription;

  /** Dawn's reason once the device is lost; every later call on a scene throws it. */
  lost: string | null = null;

  private constructor(readonly gpu: OpenedGpu, private readonly init: BackendInitOptions) {
    void gpu.device.lost.then((info) => {
      if (info.reason !== 'destroyed') this.lost = `WebGPU device lost (${info.reason}): ${info.message}`;
    });
    const i = gpu.info;
    this.device = Object.freeze({
      type: 'gpu', name: i.description || i.adapterName, vendor: i.vendor, architecture: i.architecture,
      description: i.description, limits: Object.freeze({ ...i.limits }), timestampQuery: i.timestampQuery,
      gpuDevice: gpu.device, software: isSoftwareAdapter(i),
    });
  }

  static async open(init: BackendInitOptions): Promise<GpuBackend> {
    if (init.precision !== '32') {
      throw new Error("the WebGPU backend computes in f32: use precision '32' with backend 'gpu' (WGSL has no f64)");
    }
    return new GpuBackend(await openGpu(), init);
  }

  async build(model: Model, nEnvs: number, precision: Precision, options: BackendBuildOptions): Promise<SimInstance> {
    refuseLowFriction(model);
    refuseHFieldCollision(model);
    refuseCpuOnlyPairs(model);
    refuseAffineGain(model);
    refuseCpuOnlyPhysics(model);
    refuseTendonVelocityDerivative(model);
    refuseImplicitIntegrator(model);
    if (Array.from(model.eqType).some((t) => t !== EqType.Joint && t !== EqType.Connect && t !== EqType.Weld)) {
      throw new Error('the GPU backend has kernels for joint, connect and weld equalities only; use the CPU backend for this model');
    }
    // Every env starts from the same build state, so one host env is the source of uploads and resets.
    const initial = makeData(model, 0, precision, options.maxContacts === undefined ? {} : { maxContacts: options.maxContacts });
    const sim = new GpuSim(this.gpu, model, Math.max(1, nEnvs), {
      performanceMode: options.performanceMode || this.init.performanceMode,
      capacities: { maxContacts: initial.maxContacts, maxEfc: initial.maxEfc },
      tracer: options.tracer,
      blowUpThreshold: options.blowUpThreshold,
    });
    await sim.compile(gpuKernelsFor(model));
    const instance = new GpuSimInstance(model, initial, nEnvs > 0, sim, () => this.lost);
    instance.uploadAll();
    return instance;
  }

  async destroy(): Promise<void> {
    await this.gpu.device.queue.onSubmittedWorkDone().catch(() => undefined);
    this.gpu.close();
  }
}

class GpuSimInstance implements SimInstance {
  readonly nEnvs: number;
  readonly precision: Precision = '32';
  readonly bytesPerEnv: number;
  readonly capacity: { readonly maxContacts: number; readonly maxEfc: number };
  readonly hostData = null;
  private readonly hostTimers: Float64Array;
  private errFlags: Uint32Array;
  private pendingErrors: Promise<void> | null = null;
  /**
   * Flag reads started so far, and for each env the count when its flags were last cleared: a read started
   * before a clear (reset, resetOnError) still sees the old flag, and must not report that env again.
   */
  private flagReads = 0;
  private readonly clearedAtRead: Uint32Array;
  private destroyed = false;

  constructor(
    readonly model: Model,
    /** Build-time state of one env, the source of uploads and resets. */
    private readonly initial: Data,
    readonly batched: boolean,
    readonly sim: GpuSim,
    private readonly lostReason: () => string | null,
  ) {
    this.nEnvs = sim.nEnvs;
    this.bytesPerEnv = bytesPerEnv(sim.layout);
    this.capacity = { maxContacts: initial.maxContacts, maxEfc: initial.maxEfc };
    this.hostTimers = new Float64Array(TIMER_SLOTS * this.nEnvs);
    this.errFlags = new Uint32Array(this.nEnvs);
    this.clearedAtRead = new Uint32Array(this.nEnvs);
    resetData(model, initial);
  }

  get description(): string {
    return `gpu (${this.sim.gpu.info.description}), ${this.sim.kernelNames.length} kernels`;
  }

  private live(): GpuSim {
    if (this.destroyed) throw new Error('This scene was destroyed.');
    const lost = this.lostReason();
    if (lost) throw new Error(lost);
    return this.sim;
  }

  uploadAll(): void {
    const n = this.nEnvs;
    for (const f of STATE_FIELDS) {
      const src = this.initial[f];
      const kind = this.sim.layout.spec.get(f)!.kind;
      const out = kind === 'f32' ? new Float32Array(src.length * n) : new Int32Array(src.length * n);
      for (let k = 0; k < src.length; k++) out.fill(src[k]!, k * n, (k + 1) * n);
      this.sim.writeField(f, out);
    }
  }

  step(): void {
    const sim = this.live();
    sim.step(this.model.opt.substeps);
    this.stepped();
  }

  /** The step counters' reduction, made on the first step that asks for it. */
  private reducer: StepStatsReducer | null = null;

  stepWithStats(): Promise<DeviceStepStats> {
    const sim = this.live();
    this.reducer ??= new StepStatsReducer(sim);
    const reducer = this.reducer;
    let staging: GPUBuffer | null = null;
    sim.step(this.model.opt.substeps, undefined, (enc) => { staging = reducer.encode(enc); });
    this.stepped();
    return reducer.read(staging!);
  }

  private stepped(): void {
    this.issued += 1;
    if (this.issued % COMPLETION_MARK_EVERY === 0) this.markCompletion();
    this.noteQueued();
  }

  /**
   * Completion marks: every COMPLETION_MARK_EVERY steps, a promise that resolves when the device has finished
   * every step issued up to then. `finished` is the last marked step known done (a lower bound).
   */
  private issued = 0;
  private finished = 0;
  private marks: Array<{ step: number; done: Promise<void> }> = [];

  private markCompletion(): void {
    while (this.marks.length > 0 && this.marks[0]!.step <= this.finished) this.marks.shift();
    const step = this.issued;
    const done = this.sim.gpu.device.queue.onSubmittedWorkDone().then(
      () => { this.finished = Math.max(this.finished, step); },
      () => undefined,
    );
    this.marks.push({ step, done });
  }

  get stepsInFlight(): number {
    return this.issued - this.finished;
  }

  async throttle(maxInFlight: number): Promise<void> {
    if (this.issued - this.finished <= maxInFlight) return;
    // the newest steps have no mark yet: mark them, so the wait below can always end
    if (this.marks.length === 0 || this.marks[this.marks.length - 1]!.step !== this.issued) this.markCompletion();
    while (this.marks.length > 0 && this.issued - this.finished > maxInFlight) {
      await this.marks.shift()!.done;
    }
    this.marks = this.marks.filter((m) => m.step > this.finished);
  }

  /** Steps queued since the program last returned to the event loop, where Dawn hands finished work back. */
  private queuedThisTurn = 0;
  private warnedQueue = false;

  /**
   * scene.step() cannot block, so the WebGPU queue has no depth limit: a loop that never yields queues every
   * step, and each holds host memory until the device has run it (Franka, 64 envs: 23 KB per step, so 460 MB
   * per 20,000 steps). Say so once, with the fix, instead of letting memory grow silently.
   */
  private noteQueued(): void {
    if (this.queuedThisTurn === 0) setImmediate(() => { this.queuedThisTurn = 0; });
    this.queuedThisTurn += 1;
    if (this.queuedThisTurn === QUEUE_WARNING_STEPS && !this.warnedQueue) {
      this.warnedQueue = true;
      logger.warning(`${QUEUE_WARNING_STEPS} steps queued for the GPU without returning to the event loop: the queue has no depth limit and each queued step holds host memory until the GPU runs it, and NaN or overflow is only detected when the program awaits; \`await scene.sync()\` every few hundred steps keeps the queue bounded and checks for errors.`);
    }
  }

  async sync(): Promise<void> {
    const sim = this.live();
    const issued = this.issued;
    await sim.sync();
    this.finished = Math.max(this.finished, issued);
    const n = this.nEnvs;
    const read = ++this.flagReads;
    const [it, act, con, ls, nefc, improvement, notConverged, err] = await Promise.all(
      ['timerIterations', 'timerActive', 'timerContacts', 'timerLsIterations', 'nefc', 'timerImprovement', 'timerNotConverged', 'errFlags']
        .map((f) => sim.readField(f)),
    );
    this.hostTimers.fill(Number.NaN, 0, n);
    [it, act, con, ls, nefc, improvement, notConverged].forEach((src, i) => { this.hostTimers.set(src!, (i + 1) * n); });
    for (let e = 0; e < n; e++) this.errFlags[e] = this.clearedAtRead[e]! < read ? err![e]! : 0;
  }

  private cleared(envs: Int32Array): void {
    for (const e of envs) {
      this.errFlags[e] = 0;
      this.clearedAtRead[e] = this.flagReads;
    }
  }

  reset(envs: Int32Array): void {
    const sim = this.live();
    for (const f of STATE_FIELDS) {
      if (KEPT_ON_RESET.has(f)) continue;
      const spec = sim.layout.spec.get(f)!;
      const src = this.initial[f];
      for (let k = 0; k < spec.size; k++) {
        const v = src[k]!;
        sim.writeElements(f, k, envs, Array.from(envs, () => v));
      }
    }
    sim.writeElements('errSeen', 0, envs, Array.from(envs, () => 0));
    // The solver's first search direction is -Mgrad + 0 * the last one: a NaN left there by the state just reset
    // would make the env NaN again at its next solve with rows (on the CPU the solve's scratch is its own).
    const zeros = Array.from(envs, () => 0);
    for (let k = 0; k < this.model.nv; k++) sim.writeElements('solSearch', k, envs, zeros);
    this.cleared(envs);
  }

  /** A device-resident tensor's buffer: uploaded on first use and reused, so a loop that keeps its targets
   *  in one gs.tensor(..., { device: gs.device }) never transfers them again. */
  private deviceBuffer(values: ValueBlock): GPUBuffer | null {
    const t = values.source as { device?: DeviceDescription | null; data?: ArrayLike<number> } | undefined;
    if (t?.device?.type !== 'gpu' || !t.data || t.data.length !== values.data.length) return null;
    let buf = deviceTensors.get(t);
    if (!buf) {
      const f32 = Float32Array.from(t.data);
      buf = this.sim.device.createBuffer({ label: 'gs.tensor', size: Math.max(4, f32.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.sim.device.queue.writeBuffer(buf, 0, f32);
      deviceTensors.set(t, buf);
    }
    return buf;
  }

  private write(field: string, idx: Int32Array, envs: Int32Array, values: ValueBlock, map: (i: number) => number = (i) => i): void {
    const sim = this.live();
    const onDevice = field !== 'dofCtrlMode' ? this.deviceBuffer(values) : null;
    if (onDevice) {
      sim.writeFromDevice(field, Array.from(idx, map), envs, onDevice, values.rows === 1);
      return;
    }
    const w = idx.length;
    const perEnv = values.rows === 1 ? 0 : w;
    for (let j = 0; j < w; j++) {
      const col = Array.from(envs, (_, t) => values.data[t * perEnv + j]!);
      sim.writeElements(field, map(idx[j]!), envs, col);
    }
  }

  private async read(field: string, idx: Int32Array, envs: Int32Array): Promise<Float32Array> {
    const all = await this.live().readField(field);
    const n = this.nEnvs;
    const w = idx.length;
    const out = new Float32Array(envs.length * w);
    for (let t = 0; t < envs.length; t++) for (let j = 0; j < w; j++) out[t * w + j] = all[idx[j]! * n + envs[t]!]!;
    return out;
  }

  writeDofs(field: DofField, dofs: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write(field, dofs, envs, values);
  }

  readDofs(field: DofField, dofs: Int32Array, envs: Int32Array): Promise<Float32Array> {
    return this.read(field, dofs, envs);
  }

  writeDofCtrlMode(dofs: Int32Array, envs: Int32Array, mode: DofCtrlMode): void {
    this.write('dofCtrlMode', dofs, envs, { data: new Array<number>(dofs.length).fill(mode), rows: 1 });
  }

  writeDofForceRange(dofs: Int32Array, envs: Int32Array, lower: ValueBlock, upper: ValueBlock): void {
    this.write('dofForceRange', dofs, envs, lower, (i) => 2 * i);
    this.write('dofForceRange', dofs, envs, upper, (i) => 2 * i + 1);
  }

  writeQpos(qs: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write('qpos', qs, envs, values);
  }

  readQpos(qs: Int32Array, envs: Int32Array): Promise<Float32Array> {
    return this.read('qpos', qs, envs);
  }

  async readContacts(envs: Int32Array): Promise<EnvContacts[]> {
    const sim = this.live();
    const names = ['ncon', 'contactGeom', 'contactPos', 'contactFrame', 'contactDist', 'contactFriction', 'nefc', 'efcType', 'efcId', 'efcForce'] as const;
    const values = await Promise.all(names.map((f) => sim.readField(f)));
    const fields = Object.fromEntries(names.map((name, k) => [name, values[k]!])) as unknown as ContactFields;
    return gatherContacts(fields, this.nEnvs, envs);
  }

  readState(field: StateField, idx: Int32Array, envs: Int32Array): Promise<Float32Array> {
    return this.read(field, idx, envs);
  }

  writeCtrl(actuators: Int32Array, envs: Int32Array, values: ValueBlock): void {
    this.write('ctrl', actuators, envs, values);
  }

  readCtrl(actuators: Int32Array, envs: Int32Array): Promise<Float32Array> {
    return this.read('ctrl', actuators, envs);
  }

  timers(): Float64Array {
    return this.hostTimers.slice();
  }

  /** Answers the last completed poll and starts the next one, so stepping never waits for the device. */
  pollErrors(): EnvErrors {
    if (!this.pendingErrors && !this.destroyed) {
      const read = ++this.flagReads;
      this.pendingErrors = this.sim.readField('errFlags').then((f) => {
        for (let e = 0; e < this.nEnvs; e++) if (this.clearedAtRead[e]! < read) this.errFlags[e]! |= f[e]!;
      }).catch(() => undefined).finally(() => { this.pendingErrors = null; });
    }
    const envs: number[] = [];
    const flags: number[] = [];
    this.errFlags.forEach((f, e) => { if (f !== 0) { envs.push(e); flags.push(f); } });
    return { envs: Int32Array.from(envs), flags: Uint32Array.from(flags) };
  }

  clearErrors(envs: Int32Array): void {
    const sim = this.live();
    sim.writeElements('errFlags', 0, envs, Array.from(envs, () => 0));
    sim.writeElements('errSeen', 0, envs, Array.from(envs, () => 0));
    this.cleared(envs);
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.pendingErrors;
    // Buffers freed under in-flight work (a profiler's readbacks included) can abort Dawn.
    await this.sim.sync().catch(() => undefined);
    this.reducer?.destroy();
    this.sim.destroy();
  }
}

export function gpuBackendFactory(init: BackendInitOptions): Promise<Backend> {
  return GpuBackend.open(init);
}
