/** examples/speed_benchmark/franka.py: plane + Franka, dt 0.01, targets tiled to every env once. */
import { initSim } from './sim.js';
import { disposer, type Scenario, type ScenarioOptions } from './types.js';

export const FRANKA_FILE = 'xml/franka_emika_panda/panda.xml';
export const FRANKA_TARGET = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02] as const;

export async function buildFranka(options: ScenarioOptions): Promise<Scenario> {
  const gs = await initSim(options);
  const dt = options.dt ?? 0.01;
  const scene = new gs.Scene({ rigidOptions: { dt, resetOnError: options.resetOnError ?? false }, profilingOptions: { showFPS: options.showFPS } });
  scene.addEntity(gs.morphs.Plane());
  const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA_FILE }));
  const nEnvs = options.nEnvs ?? 30000;
  await scene.build({ nEnvs, envSpacing: [1, 1] });
  const target = gs.tensor([...FRANKA_TARGET]);
  franka.controlDofsPosition(nEnvs > 0 ? gs.tile(target, [nEnvs, 1]) : target);
  return {
    name: 'franka', gs, scene, nEnvs, defaultSteps: 1000, dispose: disposer(gs, scene),
    facts: { example: 'franka', dt, nEnvs, performanceMode: options.performanceMode },
  };
}
