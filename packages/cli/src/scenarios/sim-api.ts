/**
 * The slice of @gsprof/sim-core's public API the scenarios use. sim-core is loaded lazily so `gsprof --help`
 * and the trace-reading commands never pay for the simulator.
 */

export type Backend = 'auto' | 'cpu' | 'gpu';
export type Values = ArrayLike<number> | readonly (readonly number[])[] | { shape: readonly number[]; data: ArrayLike<number> };

export interface TensorLike {
  readonly shape: readonly number[];
  readonly data: ArrayLike<number>;
}

export interface EntityLike {
  controlDofsPosition(values: Values, options?: { dofsIdx?: ArrayLike<number>; envsIdx?: ArrayLike<number> }): void;
  setDofsKp?(values: Values, options?: { dofsIdx?: ArrayLike<number> }): void;
  setDofsKv?(values: Values, options?: { dofsIdx?: ArrayLike<number> }): void;
  getJoint(name: string): { dofsIdxLocal: ArrayLike<number> | number };
  readonly nDofs: number;
}

export interface SceneLike {
  addEntity(morph: unknown): EntityLike;
  build(options: { nEnvs: number; envSpacing?: [number, number] }): Promise<void>;
  step(): void;
  sync(): Promise<void>;
  profilingOptions: { showFPS: boolean };
  rigidSolver: { constraintSolver: { timers: TensorLike } };
}

export interface GsLike {
  init(options: { backend?: Backend; precision?: '32' | '64'; performanceMode?: boolean; seed?: number; loggingLevel?: string }): Promise<void>;
  readonly backend: string;
  readonly device: unknown;
  Scene: new (options: Record<string, unknown>) => SceneLike;
  morphs: {
    Plane(options?: Record<string, unknown>): unknown;
    MJCF(options: { file: string; pos?: number[] }): unknown;
    URDF(options: { file: string; pos?: number[]; quat?: number[]; fixed?: boolean }): unknown;
  };
  TIMER_LABELS: readonly string[];
}

export async function loadSimCore(): Promise<GsLike> {
  const mod = (await import('@gsprof/sim-core')) as unknown as { gs?: GsLike; default?: GsLike } & GsLike;
  return mod.gs ?? mod;
}
