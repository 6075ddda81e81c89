/**
 * gs.Scene: entities, options, build, step, reset, timers, the FPS counter and the error-flag check.
 *
 * Build phases (each a 'compile' span when a tracer is installed): 'parse' (at addEntity, one per file),
 * 'compile model' (merge the entities and apply options), 'setConst' (model constants), 'allocate' (the
 * backend's Data and threads or buffers). scene.step() is one 'step' span; the backend adds kernel spans.
 */
import { basename } from 'node:path';
import type { DeviceStepStats, SimInstance } from '../backend/backend.js';
import { ERR_BLOWUP, ERR_NAN, ERR_OVERFLOW } from '../backend/backend.js';
import { externalRecorder, getTracer, type SimTracer, type SpanArgs } from '../instrument.js';
import {
  loadMJCF, loadURDF, mergeModels, planeModel, resolveAsset, type EntityRange, type LoadedModel,
} from '../loaders/index.js';
import { EqType, type Model } from '../model/model.js';
import { collisionPlan } from '../collision/plan.js';
import { placeModel } from '../loaders/place.js';
import { buildDofGains, checkStateFits } from '../data/make-data.js';
import { describeFluid, hasFluid, refuseFluidUnderImplicit } from '../physics/fluid.js';
import { setConst } from '../physics/setconst.js';
import { Entity, type EntityHost, type EntityLayout } from './entity.js';
import { FPSTracker, hostClock, type Clock } from './fps.js';
import { parseEnvsIdx, type IndexInput } from './indices.js';
import { activeBackend, precision as initPrecision, performanceMode as initPerformanceMode } from './init.js';
import { rejectUnknownKeys } from './keys.js';
import { logger } from './logger.js';
import type { Morph } from './morphs.js';
import {
  describeOptions, fileOptionsAsScene, resolveOptions, toModelOptions, validateSceneOptions,
  type ProfilingOptions, type ResolvedOptions, type RigidOptions, type SceneOptions, type SimOptions,
} from './options.js';
import { readSensorData } from './sensors.js';
import { Tensor } from './tensor.js';
import { EnvReport, type EnvEventCounts, type ResetReason } from './env-report.js';
import { firstNonFiniteStage } from '../data/nan-stage.js';

/** Genesis' default PD gains for URDF dofs. */
export const URDF_DEFAULT_KP = 100;
export const URDF_DEFAULT_KV = 10;

export interface BuildOptions {
  /** Number of parallel envs; 0 (default) means no batch dimension. */
  nEnvs?: number;
  /** Grid spacing of envs for a viewer (x, y); it does not change any simulated position. */
  envSpacing?: readonly [number, number];
  /** CPU backend threads for this scene (default: gs.init's cpuThreads). */
  cpuThreads?: number | 'auto';
}

/** Thrown when envs go NaN/Inf or blow up and rigidOptions.resetOnError is off. */
export class SimulationError extends Error {
  override name = 'SimulationError';
  constructor(message: string, readonly envsIdx: readonly number[], readonly flags: readonly number[], readonly step: number) {
    super(message);
  }
}

/** What the last error check that found bad envs saw (and, with resetOnError, reset). */
export interface ErrorReport {
  readonly step: number;
  readonly envsIdx: readonly number[];
  readonly flags: readonly number[];
  readonly reset: boolean;
}

function span<T>(name: string, args: SpanArgs | undefined, fn: () => T): T {
  const tracer = getTracer();
  tracer?.begin(name, 'compile', args);
  try {
    return fn();
  } finally {
    tracer?.end();
  }
}

async function spanAsync<T>(name: string, args: SpanArgs | undefined, fn: () => Promise<T>): Promise<T> {
  const tracer = getTracer();
  tracer?.begin(name, 'compile', args);
  try {
    return await fn();
  } finally {
    tracer?.end();
  }
}

function listEnvs(envs: readonly number[]): string {
  const shown = envs.slice(0, 20).join(', ');
  return envs.length > 20 ? `[${shown}, ... ${envs.length - 20} more]` : `[${shown}]`;
}

/** One line naming the envs and what went wrong in each group. */
export function describeEnvErrors(
  envs: readonly number[], flags: readonly number[], batched: boolean, threshold: number,
  capacity: { maxContacts: number; maxEfc: number },
): string {
  const groups: [number, string][] = [
    [ERR_NAN, 'NaN/Inf in the state'],
    [ERR_BLOWUP, `blow-up (|qpos| or |qvel| > ${threshold.toExponential()})`],
    [ERR_OVERFLOW, `contact/constraint buffer overflow (room for ${capacity.maxContacts} contacts and ${capacity.maxEfc} ` +
      'constraint rows per env; raise rigidOptions.maxCollisionPairs)'],
  ];
  const parts: string[] = [];
  for (const [bit, what] of groups) {
    const hit = envs.filter((_, i) => (flags[i]! & bit) !== 0);
    if (hit.length > 0) parts.push(batched ? `${what} of envs ${listEnvs(hit)}` : what);
  }
  return parts.join('; ');
}

export class Scene implements EntityHost {
  readonly simOptions: SimOptions;
  readonly profilingOptions: ProfilingOptions;
  readonly entities: Entity[] = [];
  /** Every physics option as used, after build (user > MJCF <option> > default). */
  options: Readonly<ResolvedOptions> | null = null;
  /** The most recent error check that found bad envs. */
  lastError: ErrorReport | null = null;
  /** Envs reset by resetOnError since build. */
  errorResetCount = 0;
  /** What envReport tallies: resets by reason and per env, NaN findings, unconverged solves. */
  private envReport: EnvReport | null = null;
  /** A device backend's steps whose counters' reduction is on its way back, in step order (see step()). */
  private readonly deviceStats: DeviceStatsEntry[] = [];
  /** Whether any step ran the device's reduction: from then on it, not checkErrors, reports the envs' NaNs. */
  private deviceStatsUsed = false;
  /** Inside sync(): reductions that arrive wait for its error check, so that its resets count in their step. */
  private syncing = 0;
  /** Steps taken since build. */
  stepCount = 0;
  /** The FPS counter (created at build; ticks while profilingOptions.showFPS is true). */
  fpsTracker: FPSTracker | null = null;

  private readonly userRigid: RigidOptions;
  private readonly userOptions: SceneOptions;
  private readonly parts: LoadedModel[] = [];
  private sim: SimInstance | null = null;
  private model: Model | null = null;
  private nEnvsBuilt = 0;
  private building = false;
  private readonly clock: Clock;

  constructor(options: SceneOptions = {}, internal: { clock?: Clock } = {}) {
    validateSceneOptions(options);
    this.userOptions = options;
    this.simOptions = { ...options.simOptions };
    this.userRigid = { ...options.rigidOptions };
    this.profilingOptions = {
      showFPS: options.profilingOptions?.showFPS ?? true,
      fpsTrackerAlpha: options.profilingOptions?.fpsTrackerAlpha ?? 0.95,
    };
    this.clock = internal.clock ?? hostClock;
  }

  /** The user's rigid options before build; every resolved value after. */
  get rigidOptions(): Readonly<RigidOptions> {
    return this.options ?? this.userRigid;
  }

  get isBuilt(): boolean {
    return this.sim !== null;
  }

  /** The scene's nEnvs as given to build (0 = unbatched). */
  get nEnvs(): number {
    return this.nEnvsBuilt;
  }

  /** Genesis' scene.t: the number of scene steps taken since build. */
  get t(): number {
    return this.stepCount;
  }

  /** Genesis' scene.cur_t: simulated seconds since build (t x dt). */
  get curT(): number {
    return this.stepCount * (this.options?.dt ?? 0);
  }

  /** The merged model (after build). */
  get compiledModel(): Model {
    if (!this.model) throw new Error('Scene is not built yet. Call `await scene.build()` first.');
    return this.model;
  }

  /** Bytes of simulation state per env. */
  get bytesPerEnv(): number {
    return this.requireSim().bytesPerEnv;
  }

  requireSim(): SimInstance {
    if (!this.sim) throw new Error('Scene is not built yet. Call `await scene.build()` first.');
    return this.sim;
  }

  addEntity(morph: Morph): Entity {
    if (this.sim || this.building) throw new Error('Cannot add entities after the scene is built.');
    if (!morph || typeof morph !== 'object' || !('kind' in morph)) {
      throw new Error('addEntity expects a morph: gs.morphs.Plane(), gs.morphs.MJCF({ file }) or gs.morphs.URDF({ file })');
    }
    let loaded: LoadedModel;
    switch (morph.kind) {
      case 'plane':
        loaded = span('parse', { morph: 'plane' }, () => planeModel());
        break;
      case 'mjcf': {
        // The span names the file as the user gave it (a bundled asset's name, not this machine's path).
        const file = resolveAsset(morph.file);
        loaded = span('parse', { file: morph.file }, () => loadMJCF(file));
        placeModel(loaded.model, morph.pos, morph.quat);
        break;
      }
      case 'urdf': {
        const file = resolveAsset(morph.file);
        loaded = span('parse', { file: morph.file }, () => loadURDF(file, { pos: morph.pos, quat: morph.quat, fixed: morph.fixed, armature: morph.defaultArmature }));
        break;
      }
      default:
        throw new Error(`Unknown morph kind '${(morph as { kind: string }).kind}'`);
    }
    for (const line of loaded.log) logger.debug(line);
    const gains = morph.kind === 'urdf' ? { kp: URDF_DEFAULT_KP, kv: URDF_DEFAULT_KV } : null;
    const entity = new Entity(this, this.entities.length, morph, gains);
    // Local numbering until build merges the entities (joints and nDofs are known from here on).
    entity.attach(loaded.model, localLayout(loaded.model));
    this.parts.push(loaded);
    this.entities.push(entity);
    return entity;
  }

  async build(options: BuildOptions = {}): Promise<void> {
    if (this.sim || this.building) throw new Error('Scene is already built.');
    rejectUnknownKeys(options, ['nEnvs', 'envSpacing', 'cpuThreads'], 'scene.build');
    const nEnvs = options.nEnvs ?? 0;
    if (!Number.isInteger(nEnvs) || nEnvs < 0) throw new Error(`nEnvs must be a non-negative integer, got ${String(nEnvs)}`);
    if (options.envSpacing !== undefined &&
        (!Array.isArray(options.envSpacing) || options.envSpacing.length !== 2 || !options.envSpacing.every(Number.isFinite))) {
      throw new Error(`envSpacing must be two numbers (x, y), got ${JSON.stringify(options.envSpacing)}`);
    }
    if (options.cpuThreads !== undefined && options.cpuThreads !== 'auto' &&
        (!Number.isInteger(options.cpuThreads) || options.cpuThreads < 1)) {
      throw new Error(`cpuThreads must be a positive integer or 'auto', got ${String(options.cpuThreads)}`);
    }
    const backend = activeBackend();
    if (this.parts.length === 0) throw new Error('The scene has no entities: add one with scene.addEntity() before build.');
    this.building = true;
    try {
      const t0 = performance.now();
      let ranges: EntityRange[] = [];
      const merged = span('compile model', { entities: this.parts.length }, () => {
        const { model: merged, entities } = mergeModels(this.parts);
        ranges = entities;
        const withOptions = this.parts.filter((p) => Object.keys(p.options).length > 0);
        const files = withOptions.map((p) => ({ source: basename(p.sourceFile), options: fileOptionsAsScene(p.options, p.sourceFile) }));
        // The options come from the model file (MuJoCo's defaults for what it leaves out) unless the user builds a
        // Genesis scene with Genesis options.
        const fromFile = this.userOptions.rigidOptions === undefined && this.entities.some((e) => e.morph.kind === 'mjcf');
        const resolution = resolveOptions(this.userOptions, files, fromFile);
        const resolved = resolution.options;
        // the scene options have no ccd or fluid settings: the files' <option> (or MuJoCo's defaults) stay
        const { ccdTolerance, ccdIterations, density, viscosity, wind } = merged.opt;
        merged.opt = { ...toModelOptions(resolved), ccdTolerance, ccdIterations, density, viscosity, wind };
        const line = describeOptions(resolution);
        logger.info(hasFluid(merged) ? `${line.slice(0, -1)}; fluid forces from the model files: ${describeFluid(merged.opt)}.` : line);
        refuseFluidUnderImplicit(merged);
        this.options = Object.freeze(resolved);
        return merged;
      });
      const model = span('setConst', undefined, () => setConst(merged));
      // Geom pairs without collision code are refused here, at build, rather than at the first step.
      if (model.opt.enableCollision) collisionPlan(model);
      // Refused with the size named before any env is allocated (either backend), not V8's bare allocation error.
      const maxContacts = this.options!.maxCollisionPairs === 'auto' ? undefined : this.options!.maxCollisionPairs;
      checkStateFits(model, nEnvs, initPrecision, maxContacts === undefined ? {} : { maxContacts });
      // Entities now index into the merged model.
      this.entities.forEach((e, i) => { e.attach(model, layoutOf(ranges[i]!)); });
      const sim = await spanAsync('allocate', { nEnvs }, () =>
        backend.build(model, nEnvs, initPrecision, {
          performanceMode: initPerformanceMode,
          blowUpThreshold: this.options!.blowUpThreshold,
          tracer: getTracer,
          ...(options.cpuThreads !== undefined ? { cpuThreads: options.cpuThreads } : {}),
          ...(maxContacts !== undefined ? { maxContacts } : {}),
        }));
      this.model = model;
      this.sim = sim;
      this.nEnvsBuilt = nEnvs;
      this.applyDefaultGains(sim, model);
      this.fpsTracker = new FPSTracker(nEnvs, this.profilingOptions.fpsTrackerAlpha, this.clock);
      this.envReport = new EnvReport(sim.nEnvs);
      logger.info(
        `Scene built in ${((performance.now() - t0) / 1000).toFixed(2)} s: ${nEnvs === 0 ? 'unbatched' : `${nEnvs} envs`}, ` +
        `nq ${model.nq}, nv ${model.nv}, nu ${model.nu}, ngeom ${model.ngeom}; ${sim.description}; ` +
        `${Math.round(sim.bytesPerEnv)} bytes of state per env.`,
      );
      if (sim.hostData === null && this.profilingOptions.showFPS) {
        // Genesis' line is kept as it is, but on a backend that only queues it is not a throughput: say so once.
        logger.info('FPS lines count steps as they are queued for the GPU, not as the GPU finishes them (no device sync); await scene.sync() for finished work, and `gsprof summary` for the completed throughput.');
      }
    } finally {
      this.building = false;
    }
  }

  /** Writes the URDF default gains, and tells each entity which of its dofs have a nonzero kp and kv (the
   *  build-time figures are only for that: the Data already holds them). */
  private applyDefaultGains(sim: SimInstance, model: Model): void {
    const envs = Int32Array.from({ length: sim.nEnvs }, (_, i) => i);
    const built = buildDofGains(model);
    // A dof tied to a driven dof by a joint equality (Franka's second finger) follows it: not idle.
    for (let q = 0; q < model.neq; q++) {
      if (model.eqType[q] !== EqType.Joint || model.eqObj2id[q]! < 0) continue;
      const a = model.jntDofadr[model.eqObj1id[q]!]!, b = model.jntDofadr[model.eqObj2id[q]!]!;
      for (const g of [built.kp, built.kv]) {
        if (g[a] === 0) g[a] = g[b]!;
        if (g[b] === 0) g[b] = g[a]!;
      }
    }
    for (const e of this.entities) {
      const kp = built.kp.slice(e.dofStart, e.dofStart + e.nDofs);
      const kv = built.kv.slice(e.dofStart, e.dofStart + e.nDofs);
      const dofs = e.defaultGains ? e.joints.filter((j) => j.type !== 'free').flatMap((j) => j.dofsIdx) : [];
      if (e.defaultGains && dofs.length > 0) {
        const idx = Int32Array.from(dofs);
        sim.writeDofs('dofKp', idx, envs, { data: new Float64Array(idx.length).fill(e.defaultGains.kp), rows: 1 });
        sim.writeDofs('dofKv', idx, envs, { data: new Float64Array(idx.length).fill(e.defaultGains.kv), rows: 1 });
        for (const d of dofs) { kp[d - e.dofStart] = e.defaultGains.kp; kv[d - e.dofStart] = e.defaultGains.kv; }
      }
      e.noteGains(kp, kv);
    }
  }

  /** Advances every env by one step (dt, in `substeps` substeps). */
  step(): void {
    const sim = this.requireSim();
    const tracer = getTracer();
    const startMs = performance.now();
    const step = this.stepCount;
    tracer?.begin('step', 'step', { step });
    try {
      // A device backend reduces the step's per-env figures on the device, for a tracer that takes counters.
      if (tracer?.counter && sim.stepWithStats) this.stepWithDeviceStats(sim.stepWithStats(), tracer, step, startMs);
      else sim.step();
    } finally {
      tracer?.end();
    }
    this.stepCount += 1;
    try {
      if (this.stepCount % this.options!.errorCheckInterval === 0) this.checkErrors();
    } finally {
      // After the check, so that its resets count in this step's sample. The CPU's timers are current after
      // every step; a device backend's arrive later (stepWithDeviceStats).
      const d = sim.hostData;
      if (d) this.envReport!.stepped(tracer, d.timers, step, startMs);
    }
    if (this.profilingOptions.showFPS) this.fpsTracker!.step(this.clock());
    externalRecorder()?.sceneStep({ nEnvs: this.nEnvsBuilt, backend: sim.hostData === null ? 'gpu' : 'cpu' });
  }

  /**
   * Keeps the device's reduction of step `step` until it arrives, and reports the steps that have arrived in
   * order. Their 'env resets' samples count the resets made before they are reported: on a device backend the
   * resets that an error check of sync() makes after step s count in step s, as on the CPU; others count in
   * the next step reported.
   */
  private stepWithDeviceStats(stats: Promise<DeviceStepStats>, tracer: SimTracer, step: number, startMs: number): void {
    this.deviceStatsUsed = true;
    const entry: DeviceStatsEntry = { step, startMs, tracer, stats: null, settled: false, done: Promise.resolve() };
    entry.done = stats.then(
      (s) => { entry.stats = s; },
      (err: unknown) => { logger.warning(`Step ${step}: the device's physics counters were not read back (${(err as Error).message}); the step has no counter samples.`); },
    ).finally(() => {
      entry.settled = true;
      if (this.syncing === 0) this.reportDeviceStats();
    });
    this.deviceStats.push(entry);
  }

  private reportDeviceStats(): void {
    while (this.deviceStats.length > 0 && this.deviceStats[0]!.settled) {
      const e = this.deviceStats.shift()!;
      if (e.stats) this.envReport?.deviceStepped(e.tracer, e.stats, e.step, e.startMs);
    }
  }

  /** Waits for every device reduction issued so far and reports them. */
  private async flushDeviceStats(): Promise<void> {
    await Promise.all(this.deviceStats.map((e) => e.done));
    this.reportDeviceStats();
  }

  /** Checks the error flags now (scene.step() does it every errorCheckInterval steps). */
  checkErrors(): ErrorReport | null {
    const sim = this.requireSim();
    const { envs, flags } = sim.pollErrors();
    if (envs.length === 0) return null;
    const o = this.options!;
    const envList = Array.from(envs);
    const flagList = Array.from(flags);
    const what = describeEnvErrors(envList, flagList, this.nEnvs > 0, o.blowUpThreshold, sim.capacity);
    // The step that found them: the last one taken.
    const tracer = getTracer();
    const step = this.stepCount - 1;
    const d = sim.hostData;
    for (let i = 0; i < envList.length; i++) {
      // A device backend's reduction reports its NaNs, with the step and stage (stepWithDeviceStats).
      if ((flagList[i]! & ERR_NAN) === 0 || (!d && this.deviceStatsUsed)) continue;
      // Without it the device's Data is not on the host: the stage is not known there.
      const stage = d ? (firstNonFiniteStage(d, envList[i]!) ?? 'unknown') : 'unknown';
      this.envReport!.nan(tracer, envList[i]!, stage, step);
    }
    if (o.resetOnError) {
      sim.reset(envs);
      const reasons = flagList.map((f): ResetReason => ((f & ERR_NAN) !== 0 ? 'nan' : 'limit'));
      this.envReport!.reset(tracer, envList, reasons, step);
      this.errorResetCount += envs.length;
      this.lastError = { step: this.stepCount, envsIdx: envList, flags: flagList, reset: true };
      logger.warning(`Step ${this.stepCount}: ${what}. Reset ${this.nEnvs > 0 ? `envs ${listEnvs(envList)}` : 'the scene'}.`);
      return this.lastError;
    }
    this.lastError = { step: this.stepCount, envsIdx: envList, flags: flagList, reset: false };
    throw new SimulationError(
      `Simulation failed by step ${this.stepCount}: ${what}. Set rigidOptions.resetOnError: true to reset such envs instead.`,
      envList, flagList, this.stepCount,
    );
  }

  /**
   * Resolves when every step issued so far has finished (a no-op wait on the CPU), then checks the error
   * flags as they stand: on the GPU the checks inside step() can only see flags read while the program
   * awaited, so a loop that never awaits learns of NaN or overflow here. With `maxInFlight`, it only waits
   * until at most that many steps are unfinished (and checks nothing): the device keeps working meanwhile.
   */
  async sync(options: { maxInFlight?: number } = {}): Promise<void> {
    rejectUnknownKeys(options, ['maxInFlight'], 'scene.sync');
    const sim = this.requireSim();
    if (options.maxInFlight !== undefined) {
      if (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 0) {
        throw new Error(`scene.sync: maxInFlight must be an integer >= 0, got ${String(options.maxInFlight)}`);
      }
      await sim.throttle(options.maxInFlight);
      return;
    }
    this.syncing++;
    try {
      await sim.sync();
      this.checkErrors();
    } finally {
      this.syncing--;
      await this.flushDeviceStats();
    }
  }

  /**
   * Steps issued that the device may not have finished (0 on the CPU). `await scene.sync({ maxInFlight: n })`
   * waits until at most n are, without draining the device: backpressure for a loop that queues steps.
   */
  get stepsInFlight(): number {
    return this.requireSim().stepsInFlight;
  }

  /**
   * Restores the build-time state of the selected envs (all by default); controls go back to none. Takes
   * `{ envsIdx }` or Genesis' positional `reset(state, envsIdx)`, where state must be undefined or null:
   * saved states are not supported, and a positional envsIdx is never dropped (it reset every env).
   */
  reset(options?: { envsIdx?: IndexInput } | null, envsIdx?: IndexInput): void {
    const sim = this.requireSim();
    let selected: IndexInput | undefined;
    if (options === null || options === undefined) {
      selected = envsIdx;
    } else if (typeof options === 'object' && !Array.isArray(options) && !ArrayBuffer.isView(options) && !(options instanceof Tensor)) {
      rejectUnknownKeys(options, ['envsIdx'], 'scene.reset', { envs_idx: 'envsIdx' });
      if (envsIdx !== undefined) throw new Error('scene.reset: envsIdx given both positionally and in the options object');
      selected = options.envsIdx;
    } else {
      throw new Error('scene.reset(state, envsIdx): saved states are not supported; pass undefined as the state, or { envsIdx }');
    }
    const envs = parseEnvsIdx(selected, this.nEnvs);
    sim.reset(envs.idx);
    this.envReport!.reset(getTracer(), envs.idx, 'user', this.stepCount);
  }

  /**
   * MuJoCo's sensordata of the last step (as after mj_step: the sensors of the state the step started from), in
   * MuJoCo's order: [nEnvs, nsensordata], or [nsensordata] for an unbatched scene or a scalar envsIdx. CPU
   * backend only; entity.sensors names each sensor's columns.
   */
  async getSensorData(envsIdx?: IndexInput): Promise<Tensor> {
    const sim = this.requireSim();
    return readSensorData(sim, this.nEnvs, 0, this.compiledModel.nsensordata ?? 0, envsIdx);
  }

  /**
   * Since build: env resets by reason and per env, envs found with a non-finite state, and env-steps whose solve
   * stopped at the iteration limit unconverged (the CPU backend counts these every step; a device backend only in
   * the steps a tracer that takes counters saw, from its reduction, and its NaN findings from the first such step
   * on). A trace's 'env reset', 'env nan' and 'solver not converged' events are these.
   */
  get envEventCounts(): Readonly<EnvEventCounts> {
    if (!this.envReport) throw new Error('Scene is not built yet. Call `await scene.build()` first.');
    return this.envReport.counts;
  }

  /** `scene.rigidSolver.constraintSolver.timers`: a [10, nEnvs] tensor (slot labels in gs.TIMER_LABELS). */
  get rigidSolver(): { readonly constraintSolver: { readonly timers: Tensor } } {
    const sim = this.requireSim();
    return {
      constraintSolver: {
        get timers(): Tensor {
          return new Tensor(sim.timers(), [10, sim.nEnvs], 'float64');
        },
      },
    };
  }

  /** Releases threads and device memory. */
  async destroy(): Promise<void> {
    const sim = this.sim;
    this.sim = null;
    await this.flushDeviceStats();
    await sim?.destroy();
  }
}

/** An entity's own model, numbered on its own (before build merges the scene). */
function localLayout(model: Model): EntityLayout {
  return {
    bodyAdr: 1, nBody: model.nbody - 1, jntAdr: 0, nJnt: model.njnt, dofAdr: 0, nDof: model.nv, qAdr: 0, nQ: model.nq,
    // geoms come ordered by body: the world's first
    uAdr: 0, nU: model.nu, geomAdr: model.bodyGeomnum[0]!, nGeom: model.ngeom - model.bodyGeomnum[0]!,
    worldGeoms: Array.from({ length: model.bodyGeomnum[0]! }, (_, k) => k), sensorAdr: 0, nSensor: model.nsensor ?? 0,
  };
}

function layoutOf(r: EntityRange): EntityLayout {
  return {
    bodyAdr: r.bodyStart, nBody: r.nbody, jntAdr: r.jntStart, nJnt: r.njnt, dofAdr: r.dofStart, nDof: r.nv,
    qAdr: r.qposStart, nQ: r.nq, uAdr: r.actuatorStart, nU: r.nu,
    geomAdr: r.geomStart, nGeom: r.ngeom, worldGeoms: r.worldGeoms, sensorAdr: r.sensorStart, nSensor: r.nsensor,
  };
}

/** A device step whose counters' reduction is on its way back. */
interface DeviceStatsEntry {
  step: number;
  startMs: number;
  /** The tracer of the step (the profiler that recorded it). */
  tracer: SimTracer;
  stats: DeviceStepStats | null;
  /** Arrived, or failed (stats null). */
  settled: boolean;
  done: Promise<void>;
}
