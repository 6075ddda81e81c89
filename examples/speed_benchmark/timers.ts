/**
 * Genesis' examples/speed_benchmark/timers.py in TypeScript, with ANYmal C in place of the Go2: 128 envs,
 * 500 steps, dt 0.02 with 2 substeps, no self-collision. As timers.py, the standing pose is set first and every
 * step's position targets are that pose + 0.3 x noise in [0, 1): --mode 0 none, 1 the same noise for all envs,
 * 2 per-env noise (default). Differences, and why (docs/profiling.md): the joints get Genesis' default rotor
 * inertia (0.1) and the solver runs 10 iterations, not 1; with 1 iteration the unconverged contact solve adds
 * energy at foot impacts and envs blow up (MuJoCo does the same with these settings).
 * Without --profiling it reads the constraint solver's per-env timers every step and plots, in the terminal,
 * slot 0 (solve ns): the last step per env, the running mean per env, and the running mean of each step's
 * sorted values. With --profiling it wraps the loop in the profiler instead (wait 0, warmup 0, active 1, and no
 * prof.step() calls, so the whole loop is one recorded step) and writes a TensorBoard/Chrome trace to ./benchmark.
 *
 *   node --conditions=@gsprof/source --import tsx examples/speed_benchmark/timers.ts [--mode 2] [--profiling] [--backend cpu]
 * The same run through the CLI: gsprof record --example timers
 */
import { plot } from 'asciichart';
import * as gs from '@gsprof/sim-core';
import { profile, schedule, tensorboardTraceHandler } from '@gsprof/profiler';
import { benchArgs } from './args.js';

const LEG_JOINTS = ['LF_HAA', 'LF_HFE', 'LF_KFE', 'RF_HAA', 'RF_HFE', 'RF_KFE', 'LH_HAA', 'LH_HFE', 'LH_KFE', 'RH_HAA', 'RH_HFE', 'RH_KFE'];

const args = benchArgs({ nEnvs: 128, steps: 500, backend: 'cpu' });
await gs.init({ backend: args.backend, seed: 0 });
const scene = new gs.Scene({
  simOptions: { dt: 0.02, substeps: 2 },
  rigidOptions: { dt: 0.02, iterations: 10, lsIterations: 10, enableSelfCollision: false },
  profilingOptions: { showFPS: false },
});
scene.addEntity(gs.morphs.Plane());
// Standing: hips 0, thighs +-0.4, knees -+0.8, base where the feet touch the plane.
const STANDING = [0, 0.4, -0.8, 0, 0.4, -0.8, 0, -0.4, 0.8, 0, -0.4, 0.8];
const robot = scene.addEntity(gs.morphs.URDF({ file: 'urdf/anymal_c/urdf/anymal_c.urdf', pos: [0, 0, 0.56], defaultArmature: 0.1 }));
const nEnvs = Math.max(1, args.nEnvs);
await scene.build({ nEnvs });
const dofs = LEG_JOINTS.map((name) => robot.getJoint(name).dofsIdxLocal[0]!);
robot.setDofsPosition(Float64Array.from(STANDING), { dofsIdx: dofs });
robot.controlDofsPosition(Float64Array.from(STANDING), { dofsIdx: dofs });

const targets = new Float64Array(nEnvs * dofs.length);
function addNoise(): void {
  const n = dofs.length;
  const shared = STANDING.map((p) => p + (args.mode === 1 ? Math.random() * 0.3 : 0));
  for (let e = 0; e < nEnvs; e++) {
    for (let d = 0; d < n; d++) targets[e * n + d] = args.mode === 2 ? STANDING[d]! + Math.random() * 0.3 : shared[d]!;
  }
  robot.controlDofsPosition(new gs.Tensor(targets, [nEnvs, dofs.length]), { dofsIdx: dofs });
}

if (args.profiling) {
  const prof = profile({ schedule: schedule({ wait: 0, warmup: 0, active: 1 }), onTraceReady: tensorboardTraceHandler('./benchmark') });
  gs.setTracer(prof.tracer);
  await prof.start();
  // As in timers.py, the loop never calls prof.step(): the whole loop is the one recorded (active) step.
  for (let step = 0; step < args.steps; step++) { addNoise(); scene.step(); }
  await scene.sync();
  await prof.stop();
  gs.setTracer(null);
  console.log(`wrote ${prof.tracePaths.join(', ')}`);
} else {
  const perEnvSum = new Float64Array(nEnvs);
  const sortedSum = new Float64Array(nEnvs);
  let last = new Float64Array(nEnvs);
  for (let step = 0; step < args.steps; step++) {
    addNoise();
    scene.step();
    await scene.sync();
    last = Float64Array.from(scene.rigidSolver.constraintSolver.timers.data.subarray(0, nEnvs)); // slot 0: solve_ns
    const sorted = Float64Array.from(last).sort();
    for (let e = 0; e < nEnvs; e++) { perEnvSum[e]! += last[e]!; sortedSum[e]! += sorted[e]!; }
  }
  const us = (xs: Float64Array): number[] => Array.from(xs, (v) => v / 1e3);
  const cfg = { height: 10, format: (v: number) => `${v.toFixed(1).padStart(8)} us` };
  console.log(`${gs.TIMER_LABELS[0]}: last step, per env\n${plot(us(last), cfg)}\n`);
  console.log(`running mean per env\n${plot(us(perEnvSum.map((v) => v / args.steps)), cfg)}\n`);
  console.log(`running mean of the sorted values (average distribution)\n${plot(us(sortedSum.map((v) => v / args.steps)), cfg)}`);
}
await scene.destroy();
await gs.destroy();
