/**
 * Genesis' examples/speed_benchmark/timers.py in TypeScript, with ANYmal C in place of the Go2: 128 envs,
 * 500 steps, dt 0.02 with 2 substeps, 1 solver iteration, no self-collision. Every step adds noise x0.3 to the
 * position targets: --mode 0 none, 1 the same noise for all envs, 2 per-env noise (default).
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
  rigidOptions: { dt: 0.02, iterations: 1, enableSelfCollision: false, resetOnError: true },
  profilingOptions: { showFPS: false },
});
scene.addEntity(gs.morphs.Plane());
const robot = scene.addEntity(gs.morphs.URDF({ file: 'urdf/anymal_c/urdf/anymal_c.urdf', pos: [0, 0, 0.8] }));
const nEnvs = Math.max(1, args.nEnvs);
await scene.build({ nEnvs });
const dofs = LEG_JOINTS.map((name) => robot.getJoint(name).dofsIdxLocal[0]!);
robot.setDofsKp(new Float64Array(dofs.length).fill(1000), { dofsIdx: dofs });

const targets = new Float64Array(nEnvs * dofs.length);
function addNoise(): void {
  if (args.mode === 1) {
    for (let d = 0; d < dofs.length; d++) { const v = (Math.random() - 0.5) * 0.3; for (let e = 0; e < nEnvs; e++) targets[e * dofs.length + d] = v; }
  } else if (args.mode === 2) {
    for (let i = 0; i < targets.length; i++) targets[i] = (Math.random() - 0.5) * 0.3;
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
