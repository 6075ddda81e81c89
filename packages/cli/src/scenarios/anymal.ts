/** examples/speed_benchmark/anymal_c.py: plane + ANYmal C at z 0.8, Newton, kp 1000 on the 12 leg joints,
 * zero targets. */
import type { Entity } from '@gsprof/sim-core';
import { initSim } from './sim.js';
import { disposer, type Scenario, type ScenarioOptions } from './types.js';

export const ANYMAL_FILE = 'urdf/anymal_c/urdf/anymal_c.urdf';
export const ANYMAL_LEG_JOINTS = [
  'LF_HAA', 'LF_HFE', 'LF_KFE', 'RF_HAA', 'RF_HFE', 'RF_KFE',
  'LH_HAA', 'LH_HFE', 'LH_KFE', 'RH_HAA', 'RH_HFE', 'RH_KFE',
] as const;

export function legDofs(robot: Entity): number[] {
  return ANYMAL_LEG_JOINTS.map((name) => robot.getJoint(name).dofsIdxLocal[0]!);
}

export async function buildAnymal(options: ScenarioOptions): Promise<Scenario> {
  const gs = await initSim(options);
  const dt = options.dt ?? 0.01;
  const scene = new gs.Scene({ rigidOptions: { dt, constraintSolver: 'newton', resetOnError: options.resetOnError ?? false }, profilingOptions: { showFPS: options.showFPS } });
  scene.addEntity(gs.morphs.Plane());
  const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL_FILE, pos: [0, 0, 0.8] }));
  const nEnvs = options.nEnvs ?? 30000;
  await scene.build({ nEnvs, envSpacing: [1, 1] });
  const dofs = legDofs(robot);
  robot.setDofsKp(new Float64Array(dofs.length).fill(1000), { dofsIdx: dofs });
  robot.controlDofsPosition(new Float64Array(dofs.length), { dofsIdx: dofs });
  return {
    name: 'anymal_c', gs, scene, nEnvs, defaultSteps: 1000, dispose: disposer(gs, scene),
    facts: { example: 'anymal_c', dt, nEnvs, performanceMode: options.performanceMode },
  };
}
