/** examples/speed_benchmark/franka.py: plane + Franka, dt 0.01, targets tiled to every env once. */
import { loadSimCore, type Values } from './sim-api.js';
import type { Scenario, ScenarioOptions } from './types.js';

export const FRANKA_FILE = 'xml/franka_emika_panda/panda.xml';
export const FRANKA_TARGET = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02] as const;

export async function buildFranka(options: ScenarioOptions): Promise<Scenario> {
  const gs = await loadSimCore();
  await gs.init({ backend: options.backend, performanceMode: options.performanceMode, ...(options.seed !== undefined ? { seed: options.seed } : {}), loggingLevel: 'warning' });
  const dt = options.dt ?? 0.01;
  const scene = new gs.Scene({ rigidOptions: { dt }, profilingOptions: { showFPS: options.showFPS } });
  scene.addEntity(gs.morphs.Plane());
  const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA_FILE }));
  const nEnvs = options.nEnvs ?? 30000;
  await scene.build({ nEnvs, envSpacing: [1, 1] });
  franka.controlDofsPosition(tile(FRANKA_TARGET, nEnvs));
  return { name: 'franka', gs, scene, nEnvs, defaultSteps: 1000, facts: { example: 'franka', dt, nEnvs, performanceMode: options.performanceMode } };
}

/** One row per env, as Genesis' torch.tile(target, (B, 1)); an unbatched scene takes the row itself. */
export function tile(row: readonly number[], nEnvs: number): Values {
  if (nEnvs === 0) return [...row];
  const out = new Float64Array(row.length * nEnvs);
  for (let e = 0; e < nEnvs; e++) out.set(row, e * row.length);
  return { shape: [nEnvs, row.length], data: out };
}
