// Exporter benchmark: events/s, bytes/event and peak memory of gsprof's Chrome JSON and Perfetto writers
// against chrome-trace-event (the baseline named in our design), in one process on the same events.
//
//   npm run bench:profiler                 (1M events, best of 3 runs each, after a warm-up run)
//   npm run bench:profiler -- --events 200000 --reps 2
//   npm run bench:profiler -- --physics-only [--physics-backends gpu] [--physics-pairs 1000] [--physics-control]
//                                          (only the physics counters' cost, with its verdict on the 3 % goal)
//
// An "event" is one complete slice: name, category, ts, dur, pid/tid, args {step, kernel}. Perfetto writes it
// as a BEGIN/END packet pair; Chrome as one X event. Memory: peak RSS and heap sampled every 10 ms while
// each writer runs, minus what the process held just before the run started (the 1M-event trace itself).
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Tracer } from 'chrome-trace-event';
import { emptyTrace, writeChromeTrace, writePerfettoTrace, writePerfettoTraceWithOptions, type TraceModel } from '@gsprof/profiler';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    reps: { type: 'string', default: '3' },
    /** Run only the writers whose name contains this text (the ratios need the baseline among them). */
    only: { type: 'string', default: '' },
    /** Skip the second part, the recorder's overhead on a stepping WebGPU workload (bench/profiler-overhead.ts),
     *  and the third, sim-core's physics counters on the recorded step time (bench/physics-counters.ts). */
    'exporters-only': { type: 'boolean', default: false },
    /** Backends the physics-counter part runs on (comma-separated; gpu needs a WebGPU adapter). */
    'physics-backends': { type: 'string', default: 'cpu,gpu' },
    /** Run only the third part, the physics counters' cost (bench/physics-counters.ts). */
    'physics-only': { type: 'boolean', default: false },
    /** Pairs of on/off blocks the physics-counter part measures per backend (after its warm-up pairs). */
    'physics-pairs': { type: 'string', default: '1000' },
    /** The physics-counter part also measures off/off pairs, whose interval must hold 1 (twice the time). */
    'physics-control': { type: 'boolean', default: false },
  },
});
const nEvents = Number(opts.events);
const reps = Number(opts.reps);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const KERNELS = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'rne', 'smooth_acc', 'collision', 'solve', 'integrate'];
const HOST_PID = 4242, GPU_PID = 1_000_001;

/** nEvents slices: per step a ProfilerStep and a submit on the host thread, kernels back to back on the queue. */
function buildTrace(n: number): TraceModel {
  const trace = emptyTrace({
    baseTimeNs: 1_764_680_000_000_000_000n, traceName: 'bench', producer: 'gsprof bench', hostname: 'bench',
    pid: HOST_PID, deviceProperties: [{ id: 0, name: 'bench' }], syncEachStep: false, run: {},
  });
  trace.processes.push({ pid: HOST_PID, name: 'node', kind: 'cpu' }, { pid: GPU_PID, name: 'GPU 0', kind: 'gpu' });
  trace.tracks.push({ id: 1, kind: 'thread', name: 'main', pid: HOST_PID, tid: HOST_PID }, { id: 2, kind: 'gpu_queue', name: 'queue 0', pid: GPU_PID, tid: 0 });
  let t = 0;
  for (let step = 0; trace.slices.length < n; step++) {
    const start = t;
    trace.slices.push({ track: 1, name: 'queue.submit', category: 'cuda_runtime', ts: t + 1_000, dur: 5_123, args: { step } });
    t += 10_000;
    for (const kernel of KERNELS) {
      if (trace.slices.length >= n - 1) break;
      trace.slices.push({ track: 2, name: kernel, category: 'kernel', ts: t, dur: 7_321, args: { step, kernel } });
      t += 8_017;
    }
    trace.slices.push({ track: 1, name: `ProfilerStep#${step}`, category: 'user_annotation', ts: start, dur: t - start, args: { step } });
  }
  return trace;
}

interface Result { name: string; seconds: number; cpuSeconds: number; bytes: number; rssMiB: number; heapMiB: number }

async function measure(name: string, path: string, run: () => Promise<void>): Promise<Result> {
  const before = process.memoryUsage();
  let peakRss = before.rss, peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 10);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await run();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(sampler);
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  const mib = (b: number) => b / 2 ** 20;
  return { name, seconds, cpuSeconds, bytes: statSync(path).size, rssMiB: mib(peakRss - before.rss), heapMiB: mib(peakHeap - before.heapUsed) };
}

/** The baseline: chrome-trace-event streaming to a file (its documented use); it has no backpressure. */
async function baseline(trace: TraceModel, path: string): Promise<void> {
  const tracer = new Tracer();
  const out = createWriteStream(path);
  tracer.pipe(out);
  const tids = new Map(trace.tracks.map((t) => [t.id, { pid: t.pid, tid: t.tid ?? t.id }]));
  for (const s of trace.slices) {
    const { pid, tid } = tids.get(s.track)!;
    // chrome-trace-event needs cat as an array, and takes ts/dur in µs.
    tracer.completeEvent({ name: s.name, cat: [s.category], ts: s.ts / 1000, dur: s.dur / 1000, pid, tid, args: s.args });
  }
  tracer.push(null);
  await finished(out);
}

// The exporters' part (all but --physics-only) writes its traces here.
const dir = opts['physics-only'] ? null : mkdtempSync(join(tmpdir(), 'gsprof-bench-'));
if (dir) try {
  console.log(`building a trace of ${nEvents.toLocaleString('en-US')} slices...`);
  const trace = buildTrace(nEvents);
  const warm = (name: string, t: TraceModel, p: string): Promise<void> =>
    name.startsWith('chrome-trace-event') ? baseline(t, p)
      : name.includes('protobufjs') ? writePerfettoTraceWithOptions(t, p, { encoder: 'protobufjs' })
      : name.includes('Perfetto') ? writePerfettoTrace(t, p) : writeChromeTrace(t, p);
  const writers: Array<[string, string, (p: string) => Promise<void>]> = [
    ['gsprof Chrome JSON', 'trace.json', (p) => writeChromeTrace(trace, p)],
    ['gsprof Chrome JSON .gz', 'trace.json.gz', (p) => writeChromeTrace(trace, p)],
    ['gsprof Perfetto .pftrace', 'trace.pftrace', (p) => writePerfettoTrace(trace, p)],
    // The same file through protobufjs's encode for every packet: the case for the hand-written encoder.
    ['gsprof Perfetto, protobufjs encoder', 'trace-pbjs.pftrace', (p) => writePerfettoTraceWithOptions(trace, p, { encoder: 'protobufjs' })],
    // Last: its unbounded buffering would inflate the others' memory readings.
    ['chrome-trace-event (baseline)', 'baseline.json', (p) => baseline(trace, p)],
  ];
  if (opts.only) writers.splice(0, writers.length, ...writers.filter(([name]) => name.toLowerCase().includes(opts.only!.toLowerCase())));
  // Warm-up: every writer once on a small trace, so that no one pays JIT compilation in the measured run.
  const small = buildTrace(Math.min(50_000, nEvents));
  for (const [name, file] of writers) {
    const path = join(dir, `warm-${file}`);
    await warm(name, small, path);
    rmSync(path);
  }
  const results: Result[] = [];
  for (const [name, file, write] of writers) {
    // Fastest run by CPU time; memory is the largest seen over all runs. A full GC first gives the memory
    // readings a clean start; the run right after it is slower (V8 rebuilds state it dropped), so R >= 2.
    gc();
    let best: Result | undefined;
    let rss = 0, heap = 0;
    const cpuRuns: string[] = [];
    for (let r = 0; r < reps; r++) {
      const path = join(dir, file);
      const result = await measure(name, path, () => write(path));
      rmSync(path);
      rss = Math.max(rss, result.rssMiB);
      heap = Math.max(heap, result.heapMiB);
      cpuRuns.push(result.cpuSeconds.toFixed(2));
      if (!best || result.cpuSeconds < best.cpuSeconds) best = result;
    }
    best = { ...best!, rssMiB: rss, heapMiB: heap };
    results.push(best!);
    console.log(`  ${name}: best ${best!.seconds.toFixed(2)} s wall, ${best!.cpuSeconds.toFixed(2)} s CPU (CPU s per run: ${cpuRuns.join(', ')})`);
  }
  const base = results.find((r) => r.name.startsWith('chrome-trace-event'));
  if (!base) process.exit(0);
  // Rates by wall time and by CPU time (user+sys of the whole process, zlib's threads included): on a
  // shared, busy machine the CPU-time rate is the steadier of the two.
  const wall = (r: Result) => nEvents / r.seconds;
  const cpu = (r: Result) => nEvents / r.cpuSeconds;
  const m = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
  console.log(`\nExporters, ${nEvents.toLocaleString('en-US')} slices, best of ${reps} (node ${process.version}):`);
  console.log('| writer | events/s (wall) | vs baseline | events/s (CPU) | vs baseline | bytes/event | peak RSS delta | peak heap delta |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${m(wall(r))} | ${(wall(r) / wall(base)).toFixed(1)}x | ${m(cpu(r))} | ${(cpu(r) / cpu(base)).toFixed(1)}x | ` +
        `${(r.bytes / nEvents).toFixed(1)} | ${r.rssMiB.toFixed(0)} MiB | ${r.heapMiB.toFixed(0)} MiB |`,
    );
  }
  const ours = results.filter((r) => r.name.startsWith('gsprof') && !r.name.includes('protobufjs encoder'));
  const ratios = (rate: (r: Result) => number) => ours.map((r) => `${r.name.replace('gsprof ', '')} ${(rate(r) / rate(base)).toFixed(1)}x`).join(', ');
  console.log(`\nvs chrome-trace-event (goal: >= 5x) by CPU time: ${ratios(cpu)}`);
  console.log(`vs chrome-trace-event (goal: >= 5x) by wall time: ${ratios(wall)}`);
  const direct = results.find((r) => r.name === 'gsprof Perfetto .pftrace');
  const pbjs = results.find((r) => r.name.includes('protobufjs encoder'));
  if (direct && pbjs) console.log(`hand-written Perfetto encoder vs protobufjs: ${(pbjs.seconds / direct.seconds).toFixed(1)}x by wall time, ` +
    `${(pbjs.cpuSeconds / direct.cpuSeconds).toFixed(1)}x by CPU time (kept only if >= 2x)`);
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// One command covers both halves of the profiler's cost: writing traces (above) and recording them.
if (!opts['exporters-only'] && !opts['physics-only']) {
  console.log('\n# recorder overhead (bench/profiler-overhead.ts)\n');
  const { main } = await import('./profiler-overhead.js');
  await main([]);
}
if (!opts['exporters-only']) {
  console.log('\n# physics counters on the recorded step time (bench/physics-counters.ts), record\'s default sizes\n');
  const physics = await import('./physics-counters.js');
  console.log(`Franka, 1024 envs; pairs of one-step on/off blocks, order drawn per pair, 20 warm-up pairs discarded (${cpus().length} CPUs):`);
  console.log(physics.tableHeader);
  for (const backend of opts['physics-backends'].split(',').filter(Boolean)) {
    try {
      const args = ['--backend', backend, '--pairs', opts['physics-pairs'], ...(opts['physics-control'] ? ['--control'] : [])];
      console.log(physics.tableRow(await physics.main(args)));
    } catch (err) {
      console.log(`| ${backend} | not run: ${(err as Error).message.split('\n')[0]} | | | | | | | |`);
    }
  }
}
