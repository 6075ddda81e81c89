/**
 * The seam between the public API (Scene, Entity) and whatever runs the pipeline.
 *
 * A `Backend` is what `gs.init()` selects: it describes the device and builds one `SimInstance` per scene.
 * The CPU backend (cpu.ts) runs the stages as TypeScript over a shared Data; the WebGPU backend (issue 3)
 * implements the same two interfaces and registers itself with `registerBackend('gpu', factory)`.
 *
 * Index and value conventions at this seam (the API layer has already validated them):
 * - `envs`: Int32Array of env indices in [0, nEnvs); for an unbatched scene it is [0].
 * - `idx`: Int32Array of global dof / qpos / actuator indices (model numbering, not entity-local).
 * - values are a `ValueBlock`: row-major, one row per selected env (rows = envs.length), or one row that
 *   applies to every selected env (rows = 1). Row length is idx.length.
 * - reads return a fresh array of envs.length x idx.length, row-major, in the scene's precision.
 */
import type { Data, DofCtrlMode, Precision } from '../data/data.js';
import type { Model } from '../model/model.js';
import type { SimTracer } from '../instrument.js';
import type { StepTotals } from '../api/env-report.js';

export type BackendKind = 'cpu' | 'gpu';

/** What `gs.device` reports. GPU backends fill the optional adapter fields. */
export interface DeviceDescription {
  readonly type: BackendKind;
  /** CPU model name, or the adapter's description. */
  readonly name: string;
  /** Threads the CPU backend may use to split envs (1 = main thread only). */
  readonly threads?: number;
  readonly vendor?: string;
  readonly architecture?: string;
  readonly description?: string;
  readonly limits?: Readonly<Record<string, number>>;
  readonly timestampQuery?: boolean;
  /** True for a software adapter (Mesa lavapipe): real WebGPU, but no faster than the CPU backend. */
  readonly software?: boolean;
  /** The WebGPU device the GPU backend runs on, for a profiler to instrument (instrumentDevice). */
  readonly gpuDevice?: GPUDevice;
}

export interface BackendBuildOptions {
  /** Bake shapes into kernels (GPU); a CPU backend may ignore it. */
  readonly performanceMode: boolean;
  /** |qpos| or |qvel| beyond this marks an env as blown up (MuJoCo's mjMAXVAL is 1e10). */
  readonly blowUpThreshold: number;
  /** Returns the tracer installed now (checked per step so a profiler can attach after build). */
  readonly tracer: () => SimTracer | null;
  /** CPU threads for this scene, overriding gs.init's cpuThreads (a device backend ignores it). */
  readonly cpuThreads?: number | 'auto';
  /** Contacts per env (rigidOptions.maxCollisionPairs); the default of makeData when absent. */
  readonly maxContacts?: number;
}

/** The contacts of one env as the last step's collision stage found them (MuJoCo's d->contact after mj_step). */
export interface EnvContacts {
  /** Geom pairs, 2 per contact (geom 1 has the lower type, as MuJoCo orders them). */
  readonly geom: Int32Array;
  /** Positions, 3 per contact (midway between the surfaces). */
  readonly pos: Float64Array;
  /** Normals, 3 per contact, from geom 1 into geom 2. */
  readonly normal: Float64Array;
  /** Signed distances, 1 per contact (negative: penetration). */
  readonly dist: Float64Array;
  /** World-frame forces of the last step, 3 per contact: what geom 2 receives (geom 1 receives the opposite). */
  readonly force: Float64Array;
}

/** Per-dof forces of the last step that the getters read. */
export type StateField = 'qfrcActuator' | 'qfrcPassive' | 'qfrcApplied' | 'sensordata';

/** Per-dof real fields of Data that the API writes and reads (all nv per env). */
export type DofField = 'qvel' | 'qacc' | 'qfrcApplied' | 'dofCtrlPos' | 'dofCtrlVel' | 'dofCtrlForce' | 'dofKp' | 'dofKv';

export interface ValueBlock {
  readonly data: ArrayLike<number>;
  /** 1 (the same row for every selected env) or envs.length. */
  readonly rows: number;
  /** The gs.Tensor the values came from, when they came from one: a device backend may use the tensor's
   *  device buffer (tensor.device is its device) instead of uploading `data`. */
  readonly source?: unknown;
}

/** Error bits per env, as Data.errFlags. */
export const ERR_NAN = 1;
export const ERR_BLOWUP = 2;
export const ERR_OVERFLOW = 4;

export interface EnvErrors {
  /** Envs with a non-zero flag, ascending. */
  readonly envs: Int32Array;
  /** The flag bits of each of those envs (ERR_NAN | ERR_BLOWUP | ERR_OVERFLOW). */
  readonly flags: Uint32Array;
}

/** One step's physics figures over every env, as a device backend's reduction finds them (see stepWithStats). */
export interface DeviceStepStats {
  readonly totals: StepTotals;
  /** Unconverged envs, ascending: at most 64 (totals.notConverged counts all). */
  readonly unconverged: readonly { env: number; iterations: number; improvement: number }[];
  /** Envs newly found with a non-finite state, ascending, at most 64, with the stage whose outputs first show it
   *  ('unknown': none of the stages' outputs does). */
  readonly nan: readonly { env: number; stage: string }[];
  /** Every env newly found with a non-finite state this step. */
  readonly nanCount: number;
}

/** One scene's state on a device. Created by Backend.build; every call after destroy() throws. */
export interface SimInstance {
  readonly model: Model;
  /** Allocated envs (>= 1; 1 for an unbatched scene). */
  readonly nEnvs: number;
  readonly batched: boolean;
  readonly precision: Precision;
  /** Bytes of simulation state per env (every Data array, divided by nEnvs). */
  readonly bytesPerEnv: number;
  /** Contacts and constraint rows each env can hold; more sets the overflow flag. */
  readonly capacity: { readonly maxContacts: number; readonly maxEfc: number };
  /** How the backend runs, for logs and benchmarks, e.g. "cpu, 2 threads". */
  readonly description: string;

  /** Advances every env by one scene step (all substeps). A GPU backend only enqueues the work. */
  step(): void;
  /**
   * A device backend only: step(), then a reduction on the device of the step's per-env solver figures and error
   * flags; resolves when the device has run it, with no per-env readback. (The CPU's scene reads hostData.)
   */
  stepWithStats?(): Promise<DeviceStepStats>;
  /** Resolves once every step issued so far has finished and host copies (timers, errors) are current. */
  sync(): Promise<void>;
  /** Steps issued that the device may not have finished yet (an upper bound; 0 on the CPU). */
  readonly stepsInFlight: number;
  /** Resolves once at most `maxInFlight` steps are unfinished: backpressure without draining the device. */
  throttle(maxInFlight: number): Promise<void>;
  /** Restores the build-time state of these envs: state, controls (mode None, ctrl 0), timers and error flags.
   *  Gains (kp, kv, force range) are parameters, not state, and persist. */
  reset(envs: Int32Array): void;

  writeDofs(field: DofField, dofs: Int32Array, envs: Int32Array, values: ValueBlock): void;
  readDofs(field: DofField, dofs: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array>;
  writeDofCtrlMode(dofs: Int32Array, envs: Int32Array, mode: DofCtrlMode): void;
  /** Writes the force range (lower, upper) of these dofs. */
  writeDofForceRange(dofs: Int32Array, envs: Int32Array, lower: ValueBlock, upper: ValueBlock): void;
  writeQpos(qs: Int32Array, envs: Int32Array, values: ValueBlock): void;
  readQpos(qs: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array>;
  writeCtrl(actuators: Int32Array, envs: Int32Array, values: ValueBlock): void;
  readCtrl(actuators: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array>;
  /** The contacts of each of these envs, as the last step's collision stage found them. */
  readContacts(envs: Int32Array): Promise<EnvContacts[]>;
  /** Elements `idx` of a per-dof force field in these envs, as the last step computed them. */
  readState(field: StateField, idx: Int32Array, envs: Int32Array): Promise<Float32Array | Float64Array>;

  /** The solver timers, slot-major [slot * nEnvs + e], as of the last step (CPU) or the last sync (GPU). */
  timers(): Float64Array;
  /** Envs flagged since the last clear: exact and current on the CPU; a GPU backend may answer the previous
   *  poll so that stepping never waits for the device. Never blocks. */
  pollErrors(): EnvErrors;
  clearErrors(envs: Int32Array): void;

  destroy(): Promise<void>;

  /** The CPU backend's Data (null on a device backend). For tests and tools that need raw access. */
  readonly hostData: Data | null;
}

export interface Backend {
  readonly kind: BackendKind;
  readonly device: DeviceDescription;
  build(model: Model, nEnvs: number, precision: Precision, options: BackendBuildOptions): Promise<SimInstance>;
  destroy(): Promise<void>;
}

export interface BackendInitOptions {
  readonly precision: Precision;
  readonly performanceMode: boolean;
  /** CPU threads: a count, or 'auto' (all cores when the batch is large enough to gain from it). */
  readonly cpuThreads: number | 'auto';
}

export type BackendFactory = (options: BackendInitOptions) => Promise<Backend>;

const factories = new Map<BackendKind, BackendFactory>();

/** Plugs a backend in (the WebGPU backend calls this for 'gpu'). The last registration wins. */
export function registerBackend(kind: BackendKind, factory: BackendFactory): void {
  factories.set(kind, factory);
}

export function backendFactory(kind: BackendKind): BackendFactory | undefined {
  return factories.get(kind);
}
