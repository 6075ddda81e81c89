// Hand-built TraceModels for the exporter tests: what the recorder would produce for a few simulator steps.
import { emptyTrace, type TraceModel } from '../../src/model/trace.js';

export const HOST_PID = 4242;
export const GPU_PID = 1_000_001;
export const KERNELS = ['kinematics', 'com', 'crb', 'factor_m', 'rne', 'collision', 'solve', 'integrate'];
export const TRACK = { host: 1, queue: 2, fps: 3, memory: 4, iterations: 5 } as const;

/** baseTimeNs beyond 2^53, as a real epoch-ns clock is, so precision bugs show. */
export const BASE_TIME_NS = 1_764_680_000_123_456_789n;

export function sampleTrace(steps = 3, nEnvs = 4): TraceModel {
  const trace = emptyTrace({
    baseTimeNs: BASE_TIME_NS,
    traceName: 'exporter-fixture',
    producer: 'gsprof test',
    hostname: 'testhost',
    pid: HOST_PID,
    deviceProperties: [{ id: 0, name: 'llvmpipe "quoted"', vendor: 'mesa', backend: 'vulkan', timestampQuery: true }],
    clockAlignment: { offsetNs: 123, driftPpm: 0.5, errorBoundNs: 2000, samples: 10, method: 'causality' },
    syncEachStep: false,
    run: { nEnvs, backend: 'webgpu', example: 'franka' },
    timerLabels: ['func_solve', 'iterations'],
  });
  trace.processes.push({ pid: HOST_PID, name: 'node franka.ts', kind: 'cpu' }, { pid: GPU_PID, name: 'GPU 0 (llvmpipe)', kind: 'gpu' });
  trace.tracks.push(
    { id: TRACK.host, kind: 'thread', name: 'main', pid: HOST_PID, tid: HOST_PID },
    { id: TRACK.queue, kind: 'gpu_queue', name: 'queue 0', pid: GPU_PID, tid: 0 },
    { id: TRACK.fps, kind: 'counter', name: 'FPS', pid: HOST_PID, unit: 'count' },
    { id: TRACK.memory, kind: 'counter', name: 'GPU memory', pid: GPU_PID, unit: 'bytes' },
    { id: TRACK.iterations, kind: 'counter', name: 'solver iterations p95', pid: HOST_PID, unit: 'iterations' },
  );
  let flowId = 1;
  const stepNs = 1_000_000;
  for (let k = 0; k < steps; k++) {
    const t0 = 10_000 + k * stepNs;
    trace.slices.push({ track: TRACK.host, name: `ProfilerStep#${k}`, category: 'user_annotation', ts: t0, dur: 900_000 });
    trace.slices.push({ track: TRACK.host, name: 'encode', category: 'cpu_op', ts: t0 + 1_000, dur: 50_001 });
    const submit = trace.slices.push({ track: TRACK.host, name: 'queue.submit', category: 'cuda_runtime', ts: t0 + 60_000, dur: 7_777 }) - 1;
    let g = t0 + 100_000;
    for (const [j, kernel] of KERNELS.entries()) {
      const dur = 10_000 + j * 1_001;
      const gpu = trace.slices.push({
        track: TRACK.queue, name: kernel, category: 'kernel', ts: g, dur,
        args: { kernel, workgroups: Math.ceil(nEnvs / 64), step: k, nEnvs, 'label "q"': 'a\\b\n', occupancy: 0.25, timestamped: true },
      }) - 1;
      trace.flows.push({ id: flowId++, fromSlice: submit, toSlice: gpu, category: 'ac2g' });
      g += dur + 2_000;
    }
    trace.instants.push({ track: TRACK.host, name: 'sync', category: 'sync', ts: t0 + 850_000, args: { label: `step ${k}` } });
    trace.counters.push({ track: TRACK.fps, ts: t0 + 900_000, value: 1234.5 + k });
    trace.counters.push({ track: TRACK.memory, ts: t0, value: 1_048_576 * (k + 1) });
    trace.counters.push({ track: TRACK.iterations, ts: t0 + 900_000, value: 7 });
    const values = new Float64Array(2 * nEnvs);
    for (let i = 0; i < values.length; i++) values[i] = i * 1.5 + k + 1e-9;
    trace.envTimers.push({ step: k, ts: t0 + 900_000, nEnvs, values });
  }
  return trace;
}

/** Slices on one track that partially overlap each other (A: 0-100, B: 50-150, C: 60-70 inside both). */
export function overlappingTrace(): TraceModel {
  const trace = sampleTrace(1);
  const base = 2_000_000;
  trace.slices.push(
    { track: TRACK.queue, name: 'A', category: 'kernel', ts: base, dur: 100 },
    { track: TRACK.queue, name: 'B', category: 'kernel', ts: base + 50, dur: 100 },
    { track: TRACK.queue, name: 'C', category: 'kernel', ts: base + 60, dur: 10 },
    { track: TRACK.queue, name: 'D', category: 'kernel', ts: base + 140, dur: 100 },
    { track: TRACK.queue, name: 'E', category: 'kernel', ts: base + 240, dur: 0 },
  );
  return trace;
}
