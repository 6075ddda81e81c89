/**
 * Genesis' examples/speed_benchmark/anymal_c.py in TypeScript: plane + ANYmal C (URDF) at z 0.8, Newton
 * solver, kp 1000 on the 12 leg joints, zero position targets, 30000 envs, 1000 steps, FPS line printed.
 *
 *   node --conditions=@gsprof/source --import tsx examples/speed_benchmark/anymal_c.ts [--n-envs 4096] [--steps 200] [--backend gpu|cpu]
 */
import * as gs from '@gsprof/sim-core';
import { benchArgs } from './args.js';

const LEG_JOINTS = ['LF_HAA', 'LF_HFE', 'LF_KFE', 'RF_HAA', 'RF_HFE', 'RF_KFE', 'LH_HAA', 'LH_HFE', 'LH_KFE', 'RH_HAA', 'RH_HFE', 'RH_KFE'];

const args = benchArgs({ nEnvs: 30000, steps: 1000 });
await gs.init({ backend: args.backend, performanceMode: true });

const scene = new gs.Scene({ rigidOptions: { dt: 0.01, constraintSolver: 'newton' } });
scene.addEntity(gs.morphs.Plane());
const robot = scene.addEntity(gs.morphs.URDF({ file: 'urdf/anymal_c/urdf/anymal_c.urdf', pos: [0, 0, 0.8] }));
await scene.build({ nEnvs: args.nEnvs, envSpacing: [1.0, 1.0] });

const dofs = LEG_JOINTS.map((name) => robot.getJoint(name).dofsIdxLocal[0]!);
robot.setDofsKp(new Float64Array(dofs.length).fill(1000), { dofsIdx: dofs });
robot.controlDofsPosition(new Float64Array(dofs.length), { dofsIdx: dofs });
for (let i = 0; i < args.steps; i++) scene.step();
await scene.sync();
await scene.destroy();
await gs.destroy();
