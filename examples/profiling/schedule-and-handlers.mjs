// torch.profiler's schedule and handlers on the simulator: wait 1, warmup 1, active 3, twice; each recorded
// cycle is written as Chrome JSON (TensorBoard / Kineto layout) and as a Perfetto .pftrace.
//   node examples/profiling/schedule-and-handlers.mjs [out-folder]
import { perfettoTraceHandler, profile, schedule, tensorboardTraceHandler } from '@gsprof/profiler';
import * as gs from '@gsprof/sim-core';

const out = process.argv[2] ?? 'out/schedule-example';
await gs.init({ backend: 'cpu', loggingLevel: 'warning' });
const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
scene.addEntity(gs.morphs.Plane());
scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
await scene.build({ nEnvs: 16 });

const toJson = tensorboardTraceHandler(out);
const toPerfetto = perfettoTraceHandler(out);
const prof = profile({
  schedule: schedule({ wait: 1, warmup: 1, active: 3, repeat: 2 }),
  // Called once per recorded cycle, inside the step() that ends it.
  onTraceReady: async (p) => { await toJson(p); await toPerfetto(p); },
});
prof.setRunInfo({ nEnvs: scene.nEnvs });
gs.setTracer(prof.tracer);
await prof.start();
for (let i = 0; i < 12; i++) {
  scene.step();
  await prof.step();
}
await prof.stop();
for (const path of prof.tracePaths) console.log(`wrote ${path}`);
await gs.destroy();
