// A batched run where a few envs fail on purpose, profiled with profile() (no gsprof CLI involved), for
// `gsprof envs`: 64 envs of a box resting on a plane (the CG solver, at most 30 iterations); at step 40 envs 5,
// 17 and 42 get NaN velocities, at step 60 env 23 a velocity of 1e14 (a blow-up: 1e12 m in one step, past the
// threshold in position, which both backends check), and at step 80 the program resets env 7 itself. With
// resetOnError and a check after every step the scene resets each failing env at once and goes on. Writes a
// .pftrace and a Chrome JSON trace into the folder given (default out/unstable).
//   node examples/profiling/unstable-envs.mjs [OUT] [cpu|gpu]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perfettoTraceHandler, profile, schedule, tensorboardTraceHandler } from '@gsprof/profiler';
import * as gs from '@gsprof/sim-core';

const out = process.argv[2] ?? 'out/unstable';
const backend = process.argv[3] ?? 'cpu';
const nEnvs = 64, steps = 120;
const WILD = [5, 17, 42];
const model = join(mkdtempSync(join(tmpdir(), 'unstable-')), 'box.xml');
writeFileSync(model, `<mujoco>
  <option timestep="0.01" solver="CG" iterations="30"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>`);

await gs.init({ backend, loggingLevel: 'warning' });
const scene = new gs.Scene({ rigidOptions: { resetOnError: true, errorCheckInterval: 1 }, profilingOptions: { showFPS: false } });
const box = scene.addEntity(gs.morphs.MJCF({ file: model }));
await scene.build({ nEnvs });

const toPerfetto = perfettoTraceHandler(out);
const toJson = tensorboardTraceHandler(out);
const prof = profile({
  schedule: schedule({ wait: 0, warmup: 10, active: steps - 10, repeat: 1 }),
  onTraceReady: async (p) => { await toPerfetto(p); await toJson(p); },
});
prof.setRunInfo({ nEnvs, backend });
gs.setTracer(prof.tracer);
await prof.start();
for (let i = 0; i < steps; i++) {
  if (i === 40) box.setDofsVelocity(new Array(6).fill(Number.NaN), { envsIdx: WILD });
  if (i === 60) box.setDofsVelocity(new Array(6).fill(1e14), { envsIdx: [23] });
  if (i === 80) scene.reset({ envsIdx: [7] });
  scene.step();
  // Per-env solver timers (iterations, contacts, ...) for `gsprof envs` and `gsprof timers`; on the GPU backend
  // they are current after a sync.
  if (backend === 'gpu') await scene.sync();
  if (prof.isRecording) prof.recordEnvTimers(gs.TIMER_LABELS, nEnvs, scene.rigidSolver.constraintSolver.timers.data);
  await prof.step();
}
await prof.stop();
gs.setTracer(null);
const c = scene.envEventCounts;
console.log(`resets: ${JSON.stringify(c.resets)}, NaN findings: ${c.nan}, unconverged solves: ${c.notConverged}`);
for (const path of prof.tracePaths) console.log(`wrote ${path}`);
await scene.destroy();
await gs.destroy();
