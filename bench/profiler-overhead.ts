/// <reference types="@webgpu/types" />
/**
 * What recording costs a WebGPU program, in one process: the same compute workload (12 labelled passes per
 * step, one submit, the queue drained every `--depth` steps) is stepped in four modes, interleaved round by
 * round so that machine load hits them alike:
 *   off           a device that was never instrumented
 *   driverTimestamps  the same device, the program writing timestamps on every pass itself (no profiler):
 *                 what the driver charges for timestamps, separate from what gsprof adds
 *   idle          an instrumented device, profiler started but in a wait step (nothing recorded)
 *   timestamps    recording: timestamp writes on every pass, submit/encode spans, readbacks
 *   syncEachStep  recording, plus a wait for the queue (and a sync marker) before every step
 * Reports median steps/s per mode over the rounds and the ratio to `off`; the caller's own time per step in
 * encode, submit and prof.step() (what the profiler adds on the launching thread); and the process CPU time per
 * step (all threads: on lavapipe that includes the GPU work itself).
 *
 *   node --conditions=@gsprof/source --import tsx bench/profiler-overhead.ts [--steps 200] [--rounds 7]
 *        [--passes 12] [--envs 4096] [--iters 64] [--depth 4] [--json]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createGpu, instrumentDevice, profile, requestProfiledDevice, schedule, type Profiler } from '@gsprof/profiler';

const OPTIONS = {
  steps: { type: 'string', default: '200' },
  rounds: { type: 'string', default: '7' },
  passes: { type: 'string', default: '12' },
  envs: { type: 'string', default: '4096' },
  iters: { type: 'string', default: '64' },
  depth: { type: 'string', default: '4' },
  json: { type: 'boolean', default: false },
} as const;
let STEPS = 200;
let ROUNDS = 7;
let PASSES = 12;
let ENVS = 4096;
let ITERS = 64;
let DEPTH = 4;

const STAGES = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'actuation', 'rne', 'smooth_acc', 'collision', 'make_constraint', 'solve', 'integrate'];

interface Workload {
  device: GPUDevice;
  /** `ownTimestamps`: the program itself writes timestamps on every pass (no resolve, no readback). */
  encode(ownTimestamps?: boolean): GPUCommandBuffer;
}

/** PASSES compute passes over ENVS floats, each a short dependent loop per env (a stand-in for a stage). */
function makeWorkload(device: GPUDevice): Workload {
  const module = device.createShaderModule({
    code: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> state: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= arrayLength(&state)) { return; }
  var x = state[g.x];
  for (var k = 0u; k < ${ITERS}u; k++) { x = fma(x, 0.999, 0.001); }
  state[g.x] = x;
}`,
  });
  const state = device.createBuffer({ size: ENVS * 4, usage: GPUBufferUsage.STORAGE });
  const stages = Array.from({ length: PASSES }, (_, i) => {
    const label = STAGES[i % STAGES.length]! + (i >= STAGES.length ? `_${i}` : '');
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label });
    const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: state } }] });
    return { label, pipeline, bind };
  });
  const groups = Math.ceil(ENVS / 64);
  const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * PASSES });
  return {
    device,
    encode(ownTimestamps = false) {
      const enc = device.createCommandEncoder();
      for (const [i, s] of stages.entries()) {
        const pass = enc.beginComputePass(ownTimestamps
          ? { label: s.label, timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } }
          : { label: s.label });
        pass.setPipeline(s.pipeline);
        pass.setBindGroup(0, s.bind);
        pass.dispatchWorkgroups(groups);
        pass.end();
      }
      return enc.finish();
    },
  };
}

type Mode = 'off' | 'driverTimestamps' | 'idle' | 'timestamps' | 'syncEachStep';
const MODES: Mode[] = ['off', 'driverTimestamps', 'idle', 'timestamps', 'syncEachStep'];

interface Sample { wallMs: number; cpuMs: number; encode: number[]; submit: number[]; profStep: number[] }

async function runMode(mode: Mode, plain: Workload, instrumented: Workload): Promise<Sample> {
  const w = mode === 'off' || mode === 'driverTimestamps' ? plain : instrumented;
  const own = mode === 'driverTimestamps';
  let prof: Profiler | null = null;
  if (mode === 'idle') prof = profile({ schedule: schedule({ wait: 1_000_000_000, warmup: 1, active: 1 }) });
  if (mode === 'timestamps') prof = profile({});
  if (mode === 'syncEachStep') prof = profile({ syncEachStep: true });
  // Untimed: one step to take every lazy allocation (query sets, readback buffers) out of the measurement.
  if (prof) await prof.start();
  w.device.queue.submit([w.encode(own)]);
  await w.device.queue.onSubmittedWorkDone();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const encode: number[] = [];
  const submit: number[] = [];
  const profStep: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    // The caller's own time in encode, submit and prof.step(), without the waits.
    const a = performance.now();
    const commands = w.encode(own);
    const b = performance.now();
    w.device.queue.submit([commands]);
    const c = performance.now();
    const stepped = prof?.step();
    const d = performance.now();
    encode.push(b - a);
    submit.push(c - b);
    profStep.push(d - c);
    if (stepped) await stepped;
    if ((i + 1) % DEPTH === 0) await w.device.queue.onSubmittedWorkDone();
  }
  await w.device.queue.onSubmittedWorkDone();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // Readbacks still in flight and the trace's finalisation happen after the clock stops: they are not per step.
  if (prof) await prof.stop();
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, encode, submit, profStep };
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** ns per tracer.begin/end pair (what sim-core pays per kernel span), idle and recording; best of 5 batches. */
async function tracerCost(): Promise<{ idleNs: number; recordingNs: number }> {
  const N = 100_000;
  const measure = (prof: Profiler): number => {
    let best = Infinity;
    for (let b = 0; b < 5; b++) {
      const t0 = performance.now();
      for (let i = 0; i < N; i++) { prof.tracer.begin('kinematics', 'kernel'); prof.tracer.end(); }
      best = Math.min(best, ((performance.now() - t0) * 1e6) / N);
    }
    return best;
  };
  const idle = profile({ schedule: schedule({ wait: 1_000_000_000, warmup: 1, active: 1 }) });
  await idle.start();
  const idleNs = measure(idle);
  await idle.stop();
  const rec = profile({ activities: ['cpu'] });
  await rec.start();
  const recordingNs = measure(rec);
  await rec.stop();
  return { idleNs, recordingNs };
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values: flags } = parseArgs({ args: argv, options: OPTIONS });
  STEPS = Number(flags.steps);
  ROUNDS = Number(flags.rounds);
  PASSES = Number(flags.passes);
  ENVS = Number(flags.envs);
  ITERS = Number(flags.iters);
  DEPTH = Number(flags.depth);
  process.removeAllListeners('warning'); // the bench's profilers warn about warmup 0; not news here
  const gpu = await createGpu();
  // An adapter makes one device: one adapter per device.
  const adapter = await gpu.requestAdapter();
  const adapter2 = await gpu.requestAdapter();
  if (!adapter || !adapter2) throw new Error('no WebGPU adapter');
  const plain = makeWorkload(await requestProfiledDevice(adapter));
  const instrumentedDevice = await requestProfiledDevice(adapter2);
  instrumentDevice(instrumentedDevice);
  const instrumented = makeWorkload(instrumentedDevice);

  const samples = new Map<Mode, Sample[]>(MODES.map((m) => [m, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order each round so no mode always runs first.
    for (let k = 0; k < MODES.length; k++) {
      const mode = MODES[(k + r) % MODES.length]!;
      samples.get(mode)!.push(await runMode(mode, plain, instrumented));
    }
  }
  const rows = MODES.map((mode) => {
    const s = samples.get(mode)!;
    const stepsPerS = median(s.map((x) => (STEPS * 1000) / x.wallMs));
    const bestStepsPerS = s.map((x) => (STEPS * 1000) / x.wallMs).reduce((m, x) => Math.max(m, x), -Infinity);
    const cpuMsPerStep = median(s.map((x) => x.cpuMs / STEPS));
    // Per-call times: the 10th percentile over every step of every round, which preemption on a loaded
    // machine inflates far less than a mean.
    const p10us = (f: (x: Sample) => number[]): number => quantile(s.flatMap(f), 0.1) * 1000;
    return { mode, stepsPerS, bestStepsPerS, cpuMsPerStep, encodeUs: p10us((x) => x.encode), submitUs: p10us((x) => x.submit), profStepUs: p10us((x) => x.profStep), all: s.map((x) => Math.round((STEPS * 1000) / x.wallMs)) };
  });
  const off = rows[0]!;
  const tracer = await tracerCost();
  const result = {
    tracer,
    config: { steps: STEPS, rounds: ROUNDS, passes: PASSES, envs: ENVS, iters: ITERS, depth: DEPTH, adapter: adapter.info.description || adapter.info.vendor },
    rows: rows.map((r) => ({
      ...r, ratioToOff: r.stepsPerS / off.stepsPerS, bestRatioToOff: r.bestStepsPerS / off.bestStepsPerS,
      overheadPct: (off.stepsPerS / r.stepsPerS - 1) * 100,
    })),
  };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  console.log(`profiler overhead: ${PASSES} passes/step over ${ENVS} envs (${ITERS} iterations), drain every ${DEPTH} steps, ` +
    `${STEPS} steps x ${ROUNDS} rounds, ${result.config.adapter}`);
  console.log('| mode | steps/s (median) | vs off | best round steps/s | vs off | encode us (p10) | submit us (p10) | prof.step() us (p10) | process CPU ms/step | steps/s per round |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of result.rows) {
    console.log(`| ${r.mode} | ${r.stepsPerS.toFixed(1)} | ${r.ratioToOff.toFixed(3)}x | ${r.bestStepsPerS.toFixed(1)} | ${r.bestRatioToOff.toFixed(3)}x | ${r.encodeUs.toFixed(1)} | ${r.submitUs.toFixed(1)} | ${r.profStepUs.toFixed(1)} | ${r.cpuMsPerStep.toFixed(3)} | ${r.all.join(' ')} |`);
  }
  console.log(`structural tracer, ns per begin/end pair: idle ${result.tracer.idleNs.toFixed(1)}, recording ${result.tracer.recordingNs.toFixed(1)}`);
}

// Runs when executed directly; bench/profiler.ts (or anyone) can import and call main().
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
