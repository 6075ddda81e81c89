/**
 * Genesis' examples/speed_benchmark/franka.py in TypeScript: plane + Franka, dt 0.01, performance mode, no
 * viewer, 30000 envs, the target tiled to every env once, then 1000 steps with the FPS line printed.
 *
 *   node --conditions=@gsprof/source --import tsx examples/speed_benchmark/franka.ts [--n-envs 4096] [--steps 200] [--backend gpu|cpu]
 */
import * as gs from '@gsprof/sim-core';
import { benchArgs } from './args.js';

const args = benchArgs({ nEnvs: 30000, steps: 1000 });
await gs.init({ backend: args.backend, performanceMode: true });

const scene = new gs.Scene({ rigidOptions: { dt: 0.01 } });
scene.addEntity(gs.morphs.Plane());
const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
await scene.build({ nEnvs: args.nEnvs, envSpacing: [1.0, 1.0] });

// Built on gs.device, as the seed does: on the GPU backend the targets then stay in device memory.
const target = gs.tensor([0, 0, 0, -1.0, 0, 1.0, 0, 0.02, 0.02], { device: gs.device });
franka.controlDofsPosition(args.nEnvs > 0 ? gs.tile(target, [args.nEnvs, 1]) : target);
for (let i = 0; i < args.steps; i++) scene.step();
await scene.sync();
await scene.destroy();
await gs.destroy();
