// Entity-local dof indices: a joint's `dofsIdxLocal` is what the control, set and get methods take as dofsIdx.
//   node examples/tutorials/control_dofs.mjs
import * as gs from '@gsprof/sim-core';

await gs.init({ backend: 'cpu', loggingLevel: 'warning' });
const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
scene.addEntity(gs.morphs.Plane());
const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
await scene.build({ nEnvs: 4 });

const names = ['joint1', 'joint2', 'joint3', 'joint4', 'joint5', 'joint6', 'joint7'];
const dofsIdx = names.map((name) => franka.getJoint(name).dofIdxLocal);
// One target row for every env, then env 2 alone gets its own.
franka.controlDofsPosition(gs.tensor([0, 0, 0, -1.5, 0, 1.5, 0]), { dofsIdx });
franka.controlDofsPosition(gs.tensor([[0.5, 0, 0, -1, 0, 1, 0]]), { dofsIdx, envsIdx: [2] });
for (let i = 0; i < 300; i++) scene.step();
const q = await franka.getDofsPosition({ dofsIdx: [dofsIdx[0]] });
console.log(`joint1 per env: ${(q.toArray()).map((row) => row[0].toFixed(2)).join(' ')}`);
await gs.destroy();
