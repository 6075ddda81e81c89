/**
 * Scene options (Genesis' SimOptions, RigidOptions, ProfilingOptions in camelCase) and how they become the
 * Model's options. Precedence per field: what the user set, else the value from an MJCF `<option>`, else the
 * default: MuJoCo's when the options come from the model file (no `rigidOptions`), Genesis' otherwise. The build
 * log names every option in effect and where it came from.
 */
import { defaultOptions } from '../model/builder.js';
import { ConeType, Integrator, SolverType, type ModelOptions } from '../model/model.js';

export interface SimOptions {
  /** Seconds per scene.step(). */
  dt?: number;
  /** Physics substeps per scene.step(); each advances dt / substeps. */
  substeps?: number;
  gravity?: readonly [number, number, number];
}

export type IntegratorName = 'euler' | 'implicitfast' | 'implicit';
export type ConstraintSolverName = 'newton' | 'cg';
export type ConeName = 'pyramidal' | 'elliptic';

export interface RigidOptions {
  /** Seconds per scene.step() (overrides simOptions.dt, as Genesis' rigid_options.dt). */
  dt?: number;
  integrator?: IntegratorName;
  /** Implicit joint damping in the Euler integrator (MuJoCo's eulerdamp flag). */
  eulerdamp?: boolean;
  constraintSolver?: ConstraintSolverName;
  iterations?: number;
  tolerance?: number;
  lsIterations?: number;
  lsTolerance?: number;
  /** Friction cone: 'pyramidal' (MuJoCo's default) or 'elliptic'. */
  cone?: ConeName;
  impratio?: number;
  enableCollision?: boolean;
  enableJointLimit?: boolean;
  enableSelfCollision?: boolean;
  /** Steps between NaN / blow-up checks (Genesis checks its errno every 10 substeps). */
  errorCheckInterval?: number;
  /** Reset envs that went NaN or blew up (and log them) instead of throwing. */
  resetOnError?: boolean;
  /** |qpos| or |qvel| above this counts as a blow-up (MuJoCo's mjMAXVAL). */
  blowUpThreshold?: number;
  /**
   * Contacts each env can hold (Genesis' max_collision_pairs); constraint rows follow from it. 'auto' (the
   * default): the most contacts each colliding geom makes against a plane or a box (box 8, cylinder 4, mesh 3,
   * capsule 2, sphere and ellipsoid 1), summed, or two per geom if more; at least 8 and at most 64. More
   * contacts than this in an env is an overflow error.
   */
  maxCollisionPairs?: number | 'auto';
}

export interface ProfilingOptions {
  /** Print the FPS line once per window; may be switched off live. */
  showFPS: boolean;
  /** EMA momentum of the FPS counter. */
  fpsTrackerAlpha: number;
}

export interface SceneOptions {
  simOptions?: SimOptions;
  rigidOptions?: RigidOptions;
  profilingOptions?: Partial<ProfilingOptions>;
  /** Accepted for Genesis scripts; there is no viewer (must be false or absent). */
  showViewer?: boolean;
}

/** Every physics option after resolution. */
export interface ResolvedOptions {
  dt: number;
  substeps: number;
  gravity: [number, number, number];
  integrator: IntegratorName;
  eulerdamp: boolean;
  constraintSolver: ConstraintSolverName;
  iterations: number;
  tolerance: number;
  lsIterations: number;
  lsTolerance: number;
  cone: ConeName;
  impratio: number;
  enableCollision: boolean;
  enableJointLimit: boolean;
  enableSelfCollision: boolean;
  errorCheckInterval: number;
  resetOnError: boolean;
  blowUpThreshold: number;
  maxCollisionPairs: number | 'auto';
}

/** Genesis' current defaults (REFERENCE §1: Newton, 50 iterations, tol 1e-6, line search 50 / 1e-2). */
export const DEFAULT_OPTIONS: Readonly<ResolvedOptions> = Object.freeze({
  dt: 0.01, substeps: 1, gravity: [0, 0, -9.81] as [number, number, number],
  integrator: 'implicitfast', eulerdamp: true, constraintSolver: 'newton',
  iterations: 50, tolerance: 1e-6, lsIterations: 50, lsTolerance: 1e-2, cone: 'pyramidal', impratio: 1,
  enableCollision: true, enableJointLimit: true, enableSelfCollision: true,
  errorCheckInterval: 10, resetOnError: false, blowUpThreshold: 1e10, maxCollisionPairs: 'auto',
});

const SIM_KEYS = ['dt', 'substeps', 'gravity'] as const;
const RIGID_KEYS = [
  'dt', 'integrator', 'eulerdamp', 'constraintSolver', 'iterations', 'tolerance', 'lsIterations', 'lsTolerance',
  'cone', 'impratio', 'enableCollision', 'enableJointLimit', 'enableSelfCollision', 'errorCheckInterval',
  'resetOnError', 'blowUpThreshold', 'maxCollisionPairs',
] as const;
const PROFILING_KEYS = ['showFPS', 'fpsTrackerAlpha'] as const;

function checkKeys(obj: object | undefined, allowed: readonly string[], group: string): void {
  if (obj === undefined) return;
  if (obj === null || typeof obj !== 'object') throw new Error(`${group} must be an object`);
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new Error(`Unknown ${group} field '${k}' (known: ${allowed.join(', ')})`);
  }
}

function positive(v: unknown, name: string): void {
  if (v !== undefined && (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v))) {
    throw new Error(`${name} must be a positive number, got ${String(v)}`);
  }
}

function positiveInt(v: unknown, name: string): void {
  if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) {
    throw new Error(`${name} must be a positive integer, got ${String(v)}`);
  }
}

function oneOf(v: unknown, name: string, options: readonly string[]): void {
  if (v !== undefined && !options.includes(v as string)) {
    throw new Error(`${name} must be one of ${options.map((o) => `'${o}'`).join(', ')}, got ${JSON.stringify(v)}`);
  }
}

function bool(v: unknown, name: string): void {
  if (v !== undefined && typeof v !== 'boolean') throw new Error(`${name} must be true or false, got ${String(v)}`);
}

/** Validates user options; throws a one-line error naming the field. */
export function validateSceneOptions(o: SceneOptions): void {
  checkKeys(o, ['simOptions', 'rigidOptions', 'profilingOptions', 'showViewer'], 'Scene option');
  checkKeys(o.simOptions, SIM_KEYS, 'simOptions');
  checkKeys(o.rigidOptions, RIGID_KEYS, 'rigidOptions');
  checkKeys(o.profilingOptions, PROFILING_KEYS, 'profilingOptions');
  if (o.showViewer) throw new Error('showViewer: gsprof has no viewer; pass showViewer: false or leave it out');
  const s = o.simOptions ?? {};
  const r = o.rigidOptions ?? {};
  const p = o.profilingOptions ?? {};
  positive(s.dt, 'simOptions.dt');
  positiveInt(s.substeps, 'simOptions.substeps');
  if (s.gravity !== undefined && (!Array.isArray(s.gravity) || s.gravity.length !== 3 || !s.gravity.every(Number.isFinite))) {
    throw new Error(`simOptions.gravity must be 3 finite numbers, got ${JSON.stringify(s.gravity)}`);
  }
  positive(r.dt, 'rigidOptions.dt');
  oneOf(r.integrator, 'rigidOptions.integrator', ['euler', 'implicitfast', 'implicit']);
  oneOf(r.constraintSolver, 'rigidOptions.constraintSolver', ['newton', 'cg']);
  oneOf(r.cone, 'rigidOptions.cone', ['pyramidal', 'elliptic']);
  positiveInt(r.iterations, 'rigidOptions.iterations');
  positiveInt(r.lsIterations, 'rigidOptions.lsIterations');
  positive(r.tolerance, 'rigidOptions.tolerance');
  positive(r.lsTolerance, 'rigidOptions.lsTolerance');
  positive(r.impratio, 'rigidOptions.impratio');
  positiveInt(r.errorCheckInterval, 'rigidOptions.errorCheckInterval');
  positive(r.blowUpThreshold, 'rigidOptions.blowUpThreshold');
  if (r.maxCollisionPairs !== 'auto') positiveInt(r.maxCollisionPairs, 'rigidOptions.maxCollisionPairs');
  for (const k of ['eulerdamp', 'enableCollision', 'enableJointLimit', 'enableSelfCollision', 'resetOnError'] as const) {
    bool(r[k], `rigidOptions.${k}`);
  }
  bool(p.showFPS, 'profilingOptions.showFPS');
  if (p.fpsTrackerAlpha !== undefined && !(p.fpsTrackerAlpha >= 0 && p.fpsTrackerAlpha <= 1)) {
    throw new Error(`profilingOptions.fpsTrackerAlpha must be between 0 and 1, got ${String(p.fpsTrackerAlpha)}`);
  }
}

const INTEGRATOR_NAME: Partial<Record<Integrator, IntegratorName>> = {
  [Integrator.Euler]: 'euler', [Integrator.ImplicitFast]: 'implicitfast', [Integrator.Implicit]: 'implicit',
};
const SOLVER_NAME: Partial<Record<SolverType, ConstraintSolverName>> = {
  [SolverType.Newton]: 'newton', [SolverType.CG]: 'cg',
};

/** An MJCF `<option>` (as the loader reports it) in the user-facing names. Unsupported values throw. */
export function fileOptionsAsScene(file: Partial<ModelOptions>, source: string): Partial<ResolvedOptions> {
  const out: Partial<ResolvedOptions> = {};
  if (file.timestep !== undefined) out.dt = file.timestep;
  if (file.gravity !== undefined) out.gravity = [...file.gravity];
  if (file.integrator !== undefined) {
    const name = INTEGRATOR_NAME[file.integrator];
    if (!name) throw new Error(`${source}: <option integrator> value ${file.integrator} is not supported (euler, implicitfast, implicit)`);
    out.integrator = name;
  }
  if (file.solver !== undefined) {
    const name = SOLVER_NAME[file.solver];
    if (!name) throw new Error(`${source}: <option solver> value ${file.solver} is not supported (Newton, CG)`);
    out.constraintSolver = name;
  }
  if (file.cone !== undefined) out.cone = file.cone === ConeType.Elliptic ? 'elliptic' : 'pyramidal';
  if (file.disableEulerdamp !== undefined) out.eulerdamp = !file.disableEulerdamp;
  for (const k of ['iterations', 'tolerance', 'lsIterations', 'lsTolerance', 'impratio', 'enableCollision', 'enableJointLimit', 'enableSelfCollision'] as const) {
    if (file[k] !== undefined) (out as Record<string, unknown>)[k] = file[k];
  }
  return out;
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  return String(v);
}

/** MuJoCo 3.3's own defaults for what a model file's `<option>` leaves out (mjModel's opt after mj_defaultOption),
 *  in the scene's names; the fields MuJoCo has no option for keep the scene's defaults. */
export const MUJOCO_DEFAULT_OPTIONS: Readonly<ResolvedOptions> = Object.freeze({
  ...DEFAULT_OPTIONS,
  ...fileOptionsAsScene(defaultOptions(), 'MuJoCo defaults'),
  substeps: 1,
});

/** An MJCF's `<option>` values in the scene's names, and the file they came from (for the log). */
export interface FileOptions {
  source: string;
  options: Partial<ResolvedOptions>;
}

export interface ResolvedWithSource {
  options: ResolvedOptions;
  /** Fields an MJCF <option> filled, as `name=value`, in declaration order. */
  filled: string[];
  /** Where each option's value came from: 'user', the file's name, 'MuJoCo default' or 'Genesis default'. */
  sources: Record<keyof ResolvedOptions, string>;
}

/**
 * user > file (first MJCF with an <option> value wins) > default. The defaults are MuJoCo's when the scene's
 * options come from a model file (`fromFile`: an MJCF in the scene and no `rigidOptions`), Genesis' when the user
 * builds a Genesis scene with Genesis options.
 */
export function resolveOptions(user: SceneOptions, files: readonly FileOptions[], fromFile = false): ResolvedWithSource {
  const s = user.simOptions ?? {};
  const r = user.rigidOptions ?? {};
  const userSet: Partial<ResolvedOptions> = {};
  const put = <K extends keyof ResolvedOptions>(k: K, v: ResolvedOptions[K] | undefined): void => {
    if (v !== undefined) userSet[k] = v;
  };
  put('dt', r.dt ?? s.dt);
  put('substeps', s.substeps);
  put('gravity', s.gravity ? [...s.gravity] as [number, number, number] : undefined);
  for (const k of RIGID_KEYS) if (k !== 'dt') put(k, r[k] as never);

  const defaults = fromFile ? MUJOCO_DEFAULT_OPTIONS : DEFAULT_OPTIONS;
  const defaultSource = fromFile ? 'MuJoCo default' : 'Genesis default';
  const options = { ...defaults, gravity: [...defaults.gravity] } as ResolvedOptions;
  const filled: string[] = [];
  const sources = {} as Record<keyof ResolvedOptions, string>;
  for (const key of Object.keys(DEFAULT_OPTIONS) as (keyof ResolvedOptions)[]) {
    sources[key] = defaultSource;
    if (userSet[key] !== undefined) {
      (options as unknown as Record<string, unknown>)[key] = userSet[key];
      sources[key] = 'user';
      continue;
    }
    const file = files.find((f) => f.options[key] !== undefined);
    if (file !== undefined) {
      const fromFileValue = file.options[key];
      (options as unknown as Record<string, unknown>)[key] = fromFileValue;
      filled.push(`${key}=${formatValue(fromFileValue)}`);
      sources[key] = file.source;
    }
  }
  return { options, filled, sources };
}

/** The physics options a build log names (the error-handling and buffer ones are not physics). */
const LOGGED_KEYS = [
  'dt', 'substeps', 'gravity', 'integrator', 'eulerdamp', 'constraintSolver', 'iterations', 'tolerance',
  'lsIterations', 'lsTolerance', 'cone', 'impratio', 'enableCollision', 'enableJointLimit', 'enableSelfCollision',
] as const;

/** One line naming every physics option in effect, grouped by where it came from. */
export function describeOptions({ options, sources }: ResolvedWithSource): string {
  const groups = new Map<string, string[]>();
  for (const key of LOGGED_KEYS) {
    const src = sources[key];
    const from = src === 'user' ? 'set by the user' : src.endsWith('default') ? `${src}s` : `from ${src} <option>`;
    if (!groups.has(from)) groups.set(from, []);
    groups.get(from)!.push(`${key}=${formatValue(options[key])}`);
  }
  return `Options in effect: ${[...groups].map(([from, kv]) => `${from}: ${kv.join(', ')}`).join('; ')}.`;
}

/** The Model's options for resolved scene options. */
export function toModelOptions(o: ResolvedOptions): ModelOptions {
  return {
    timestep: o.dt / o.substeps,
    gravity: [...o.gravity],
    integrator: o.integrator === 'euler' ? Integrator.Euler : o.integrator === 'implicit' ? Integrator.Implicit : Integrator.ImplicitFast,
    solver: o.constraintSolver === 'newton' ? SolverType.Newton : SolverType.CG,
    iterations: o.iterations,
    tolerance: o.tolerance,
    lsIterations: o.lsIterations,
    lsTolerance: o.lsTolerance,
    cone: o.cone === 'elliptic' ? ConeType.Elliptic : ConeType.Pyramidal,
    impratio: o.impratio,
    disableEulerdamp: !o.eulerdamp,
    enableCollision: o.enableCollision,
    enableJointLimit: o.enableJointLimit,
    enableSelfCollision: o.enableSelfCollision,
    substeps: o.substeps,
  };
}
