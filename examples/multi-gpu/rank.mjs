// One rank of a multi-process run: each process simulates its own batch of Franka envs, the way one process per
// GPU scales Genesis out. The launcher (gsprof record --nproc, torchrun, mpirun, srun) sets RANK and WORLD_SIZE;
// sim-core picks the adapter from GSPROF_ADAPTER, which `record --nproc` sets to LOCAL_RANK.
//   gsprof record --nproc 2 -- node examples/multi-gpu/rank.mjs               (CPU backend: runs anywhere)
//   gsprof record --nproc 2 -- node examples/multi-gpu/rank.mjs --backend gpu (one adapter per rank)
import { parseArgs } from 'node:util';
import * as gs from '@gsprof/sim-core';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'cpu' },
    'n-envs': { type: 'string', default: '256' },
    steps: { type: 'string', default: '100' },
  },
});
const rank = Number(process.env.RANK ?? 0);
const worldSize = Number(process.env.WORLD_SIZE ?? 1);

await gs.init({ backend: values.backend, seed: rank, loggingLevel: 'warning' });
const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
scene.addEntity(gs.morphs.Plane());
const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
await scene.build({ nEnvs: Number(values['n-envs']) });
// Every rank holds its own pose: the work differs a little between ranks, as real ranks' does.
franka.controlDofsPosition(gs.tensor([0, 0.1 * rank, 0, -1.5, 0, 1.5, 0, 0.02, 0.02]));
const steps = Number(values.steps);
const t0 = performance.now();
for (let i = 0; i < steps; i++) scene.step();
await scene.sync();
const seconds = (performance.now() - t0) / 1000;
console.log(`rank ${rank}/${worldSize} on ${gs.device.name}: ${steps} steps x ${values['n-envs']} envs in ${seconds.toFixed(2)} s`);
await gs.destroy();
