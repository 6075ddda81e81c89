// The GPU recorder's memory over a long run (issue 33): RSS and heap after every --every steps of a recording
// cycle fed GPU work of the shape a WebGPU step produces, then the time stop() takes to finalise and write it
// (.pftrace, then .json). The cycle spills its finished events past --held (gsprof record's default, 50,000)
// to a temporary file; --held 0 holds every event, as the recorder did before (the peer to compare with).
//
//   npm run bench:gpu-recorder                      (100,000 steps, spilling)
//   npm run bench:gpu-recorder -- --held 0          (100,000 steps, every event held)
//   npm run bench:gpu-recorder -- --steps 30000 --every 5000
//
// Synthetic, not lavapipe: each step is a ProfilerStep span and a queue.submit span on the host track, and one
// GPU batch of 10 passes with resolved timestamps, as instrument-device.ts hands the cycle (names, args with
// kernel, device, queue, step, workgroups and nEnvs). 100,000 steps of a real WebGPU scene on lavapipe take
// hours on this machine; the recorder holds the same objects either way. The ratio compares the last sample's
// RSS with the first: a recorder bounded by size would read about 1.0.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { writeChromeTrace, writePerfettoTrace } from '@gsprof/profiler';
import { Cycle } from '../packages/profiler/src/record/cycle.js';
import { FakeClock } from '../packages/profiler/src/record/host-clock.js';

const { values: opts } = parseArgs({
  options: {
    steps: { type: 'string', default: '100000' },
    every: { type: 'string', default: '10000' },
    held: { type: 'string', default: '50000' },
  },
});
const steps = Number(opts.steps);
const every = Number(opts.every);
const held = Number(opts.held);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const KERNELS = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'rne', 'smooth_acc', 'collision', 'solve', 'integrate'];
const STEP_NS = 1_000_000;

const clock = new FakeClock();
const device = { index: 0, properties: { id: 0, name: 'bench' } };
const cycle = new Cycle({ clock, traceName: 'bench', syncEachStep: false, run: { nEnvs: 1024 }, devices: [device], ...(held > 0 ? { maxHeldEvents: held } : {}) });
cycle.start(0);

const mb = (b: number): string => (b / 1048576).toFixed(0);
gc();
const rss0 = process.memoryUsage().rss;
console.log(`GPU recorder memory: ${steps} steps of 2 host spans + 10 GPU passes, ${held > 0 ? `spilling past ${held} held events` : 'every event held'}; node ${process.version}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`);
console.log('steps      rss MB   heap MB   held events');
const samples: number[] = [];
let gpuNs = 5_000_000_000n;
for (let step = 0; step < steps; step++) {
  const t = step * STEP_NS;
  const submit = cycle.completeSlice('queue.submit', 'cuda_runtime', t + 10_000, t + 15_000, { step });
  const passes = KERNELS.map((kernel, k) => {
    const begin = gpuNs + BigInt(20_000 + k * 8_000);
    return { name: kernel, args: { kernel, device: 0, queue: 0, step, workgroups: '16x1x1', nEnvs: 1024 }, begin, end: begin + 7_000n };
  });
  cycle.addGpuBatch({ device, submitHostNs: t + 10_000, doneHostNs: t + 200_000, submitSlice: submit, passes });
  cycle.completeSlice(`ProfilerStep#${step}`, 'user_annotation', t, t + STEP_NS - 1_000, { step });
  gpuNs += BigInt(STEP_NS);
  if ((step + 1) % every === 0) {
    gc();
    const m = process.memoryUsage();
    samples.push(m.rss);
    console.log(`${String(step + 1).padEnd(10)} ${mb(m.rss - rss0).padStart(6)}   ${mb(m.heapUsed).padStart(7)}   ${cycle.heldEvents}`);
  }
}
const dir = mkdtempSync(join(tmpdir(), 'gsprof-bench-rec-'));
try {
  const t0 = performance.now();
  cycle.stop(steps * STEP_NS);
  const trace = await cycle.finalize();
  const t1 = performance.now();
  const out = join(dir, 'run.pftrace');
  await writePerfettoTrace(trace, out);
  const t2 = performance.now();
  const json = join(dir, 'run.json');
  await writeChromeTrace(trace, json);
  const t3 = performance.now();
  const s = (a: number, b: number): string => `${((b - a) / 1000).toFixed(1)} s`;
  console.log(`stop: finalize ${s(t0, t1)}, write .pftrace ${s(t1, t2)} (${mb(statSync(out).size)} MB), .json ${s(t2, t3)} (${mb(statSync(json).size)} MB); most held at once ${held > 0 ? cycle.maxHeldSeen : 'all'}; peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB`);
  cycle.disposeSpill();
  const first = samples[0]! - rss0, last = samples[samples.length - 1]! - rss0;
  console.log(`ratio: RSS growth at step ${steps} / at step ${every} = ${(last / Math.max(first, 1)).toFixed(1)} (1.0 = flat)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
