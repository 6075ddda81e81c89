/**
 * Parallel simulation (the Genesis tutorial examples/tutorials/parallel_simulation.py, in TypeScript):
 * a plane and a Franka arm in 20 envs; drive all of them to one pose, then only envs 1, 5 and 7.
 *
 *   node --conditions=@gsprof/source --import tsx examples/tutorials/parallel_simulation.ts [--backend cpu|gpu|auto] [--steps N]
 */
import { parseArgs } from 'node:util';
import * as gs from '@gsprof/sim-core';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    steps: { type: 'string', default: '1000' },
    'n-envs': { type: 'string', default: '20' },
  },
});
const steps = Number(args.steps);
const B = Number(args['n-envs']);

await gs.init({ backend: args.backend as 'cpu' | 'gpu' | 'auto' });

const scene = new gs.Scene({ rigidOptions: { dt: 0.01 } });
scene.addEntity(gs.morphs.Plane());
const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));

// create B parallel environments
await scene.build({ nEnvs: B, envSpacing: [1.0, 1.0] });

// control all the robots
franka.controlDofsPosition(gs.tile(gs.tensor([0, 0, 0, -1.0, 0, 1.0, 0, 0.02, 0.02], { device: gs.device }), [B, 1]));

for (let i = 0; i < steps; i++) scene.step();

const q = await franka.getDofsPosition();
console.log(`getDofsPosition(): shape [${q.shape.join(', ')}]  (nEnvs, nDofs)`);

// control only 3 environments: 1, 5, and 7.
const envsIdx = gs.tensor([1, 5, 7], { dtype: 'int32', device: gs.device });
franka.controlDofsPosition(gs.zeros([3, 9], { device: gs.device }), { envsIdx });
for (let i = 0; i < steps; i++) scene.step();

const q3 = await franka.getDofsPosition({ envsIdx });
console.log(`getDofsPosition({ envsIdx: [1, 5, 7] }): shape [${q3.shape.join(', ')}]`);
const rows = q3.toArray() as number[][];
rows.forEach((r, i) => { console.log(`  env ${[1, 5, 7][i]}: ${r.map((x) => x.toFixed(3)).join(' ')}`); });
const q0 = (await franka.getDofsPosition({ envsIdx: 0 })).toArray() as number[];
console.log(`  env 0: ${q0.map((x) => x.toFixed(3)).join(' ')}  (still at the first target)`);

const timers = scene.rigidSolver.constraintSolver.timers;
console.log(`timers: shape [${timers.shape.join(', ')}]`);

await scene.destroy();
await gs.destroy();
