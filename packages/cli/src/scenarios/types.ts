import type { Scene } from '@gsprof/sim-core';
import type { Backend, Gs } from './sim.js';

export type ExampleName = 'franka' | 'anymal_c' | 'timers';
export const EXAMPLES: readonly ExampleName[] = ['franka', 'anymal_c', 'timers'];

export interface ScenarioOptions {
  backend: Backend;
  /** Undefined: the example's default. */
  nEnvs?: number;
  dt?: number;
  performanceMode: boolean;
  showFPS: boolean;
  /** Only warnings from the simulator's logger (its info lines, FPS included, go to stdout). */
  quiet?: boolean;
  seed?: number;
  /** timers example: 0 no noise, 1 one noise vector for all envs, 2 per-env noise (added x0.3 each step). */
  noiseMode?: 0 | 1 | 2;
  /** rigidOptions.resetOnError: envs that go NaN or blow up are reset and the run goes on (record --reset-on-error). */
  resetOnError?: boolean;
}

export interface Scenario {
  /** A built-in example, or 'scene' for a model file (record --scene). */
  name: ExampleName | 'scene';
  gs: Gs;
  scene: Scene;
  nEnvs: number;
  /** Steps the seed script runs when --steps is not given. */
  defaultSteps: number;
  /** Facts for the trace's run metadata. */
  facts: Record<string, string | number | boolean>;
  /** Called before every scene.step() (per-step actions such as target noise). */
  beforeStep?: (step: number) => void;
  /** Releases the scene and the backend. */
  dispose(): Promise<void>;
}

export function disposer(gs: Gs, scene: Scene): () => Promise<void> {
  return async () => {
    await scene.destroy();
    await gs.destroy();
  };
}
