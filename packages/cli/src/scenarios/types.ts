import type { Backend, GsLike, SceneLike } from './sim-api.js';

export type ExampleName = 'franka' | 'anymal_c' | 'timers';
export const EXAMPLES: readonly ExampleName[] = ['franka', 'anymal_c', 'timers'];

export interface ScenarioOptions {
  backend: Backend;
  /** Undefined: the example's default. */
  nEnvs?: number;
  dt?: number;
  performanceMode: boolean;
  showFPS: boolean;
  seed?: number;
  /** timers example: 0 no noise, 1 one noise vector for all envs, 2 per-env noise (added x0.3 each step). */
  noiseMode?: 0 | 1 | 2;
}

export interface Scenario {
  name: ExampleName;
  gs: GsLike;
  scene: SceneLike;
  nEnvs: number;
  /** Steps the seed script runs when --steps is not given. */
  defaultSteps: number;
  /** Facts for the trace's run metadata. */
  facts: Record<string, string | number | boolean>;
  /** Called before every scene.step() (per-step actions such as target noise). */
  beforeStep?: (step: number) => void;
}
