// recordFunction marks your own code as user ranges (torch.profiler.record_function), and keyAverages()
// prints torch's key_averages() table; every ProfilerStep#k is one row, ProfilerStep*.
//   node examples/profiling/record-function.mjs
import { profile, recordFunction, schedule } from '@gsprof/profiler';
import * as gs from '@gsprof/sim-core';

await gs.init({ backend: 'cpu', loggingLevel: 'warning' });
const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
scene.addEntity(gs.morphs.Plane());
const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
await scene.build({ nEnvs: 8 });

// A function wrapped once: every call is a span named 'policy'.
const policy = recordFunction('policy', (t) => gs.tensor([0, 0.1 * Math.sin(t), 0, -1, 0, 1, 0, 0.02, 0.02]));

const prof = profile({ schedule: schedule({ wait: 0, warmup: 1, active: 4, repeat: 1 }) });
gs.setTracer(prof.tracer);
await prof.start();
for (let t = 0; t < 5; t++) {
  const target = policy(t);
  const scope = recordFunction('control');   // a scope: from here to end()
  franka.controlDofsPosition(gs.tile(target, [scene.nEnvs, 1]));
  scope.end();
  scene.step();
  await prof.step();
}
await prof.stop();
console.log(prof.keyAverages().table({ sortBy: 'cpu_time_total', rowLimit: 20 }));
await gs.destroy();
