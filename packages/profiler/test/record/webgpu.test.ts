/// <reference types="@webgpu/types" />
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import { writeChromeTrace, writePerfettoTrace } from '../../src/export/index.js';
import type { SliceEvent, TraceModel } from '../../src/model/trace.js';
import {
  createGpu, instrumentDevice, profile, recordFunction, requestProfiledDevice, schedule, type DeviceInstrumentation,
} from '../../src/record/index.js';

/** Dawn instances created directly by a test; never released (see createGpu). */
const liveGpus: unknown[] = [];

const WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  var x = a[g.x];
  for (var k = 0u; k < 256u; k++) { x = x * 1.0001 + 0.5; }
  a[g.x] = x;
}`;

let device: GPUDevice;
let inst: DeviceInstrumentation;
let pipeA: GPUComputePipeline;
let pipeB: GPUComputePipeline;
let bindA: GPUBindGroup;
let bindB: GPUBindGroup;

beforeAll(async () => {
  const gpu = await createGpu();
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter (install Mesa lavapipe: see docs)');
  device = await requestProfiledDevice(adapter);
  inst = instrumentDevice(device);
  const module = device.createShaderModule({ code: WGSL, label: 'tiny' });
  pipeA = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: 'pipeA' });
  pipeB = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: 'collide' });
  const buf = (): GPUBuffer => device.createBuffer({ size: 4 * 64 * 64, usage: GPUBufferUsage.STORAGE });
  bindA = device.createBindGroup({ layout: pipeA.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buf() } }] });
  bindB = device.createBindGroup({ layout: pipeB.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buf() } }] });
});
afterAll(() => { inst?.restore(); device?.destroy(); });

/** One step: two labelled passes (one by pass label, one by pipeline label), a submit, and a wait for the queue. */
async function runStep(): Promise<void> {
  const enc = device.createCommandEncoder({ label: 'step' });
  const a = enc.beginComputePass({ label: 'integrate' });
  a.setPipeline(pipeA); a.setBindGroup(0, bindA); a.dispatchWorkgroups(64); a.end();
  const b = enc.beginComputePass();
  b.setPipeline(pipeB); b.setBindGroup(0, bindB); b.dispatchWorkgroups(32, 2); b.end();
  device.queue.submit([enc.finish()]);
  await device.queue.onSubmittedWorkDone();
}

const trackOf = (t: TraceModel, kind: string): number => t.tracks.find((x) => x.kind === kind)!.id;
const gpuSpans = (t: TraceModel): SliceEvent[] => t.slices.filter((s) => s.track === trackOf(t, 'gpu_queue'));

describe('instrumentDevice on a real WebGPU device', () => {
  it('times every pass of every active step: positive, ordered on the queue, inside its step after alignment', async () => {
    const traces: TraceModel[] = [];
    const before = inst.getStats().passesTimed;
    const prof = profile({ schedule: schedule({ wait: 1, warmup: 1, active: 3, repeat: 1 }), onTraceReady: (p) => { traces.push(p.trace); } });
    prof.setRunInfo({ nEnvs: 64 });
    await prof.start();
    for (let i = 0; i < 6; i++) { await runStep(); await prof.step(); }
    await prof.stop();
    expect(traces).toHaveLength(1);
    const t = traces[0]!;
    // Warmup (step 1) passes were timed to prime the pool, then discarded; the wait step was not touched.
    expect(inst.getStats().passesTimed - before).toBe(2 * 4);
    const spans = gpuSpans(t);
    expect(spans.map((s) => `${s.args?.step}:${s.name}`)).toEqual(['2:integrate', '2:collide', '3:integrate', '3:collide', '4:integrate', '4:collide']);
    expect(spans.every((s) => s.category === 'kernel' && s.dur > 0)).toBe(true);
    expect(spans[0]!.args).toMatchObject({ kernel: 'integrate', pipeline: 'pipeA', workgroups: '64x1x1', nEnvs: 64, device: 0, queue: 0 });
    expect(spans[1]!.args).toMatchObject({ kernel: 'collide', workgroups: '32x2x1' });
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.ts).toBeGreaterThanOrEqual(spans[i - 1]!.ts + spans[i - 1]!.dur);

    const align = t.metadata.clockAlignment!;
    expect(align.samples).toBe(6);
    expect(align.errorBoundNs).toBeGreaterThanOrEqual(0);
    expect(align.errorBoundNs).toBeLessThan(5e6);
    const bound = align.errorBoundNs + 1;
    for (const s of spans) {
      const step = t.slices.find((x) => x.name === `ProfilerStep#${s.args!.step}`)!;
      expect(s.ts).toBeGreaterThanOrEqual(step.ts - bound);
      expect(s.ts + s.dur).toBeLessThanOrEqual(step.ts + step.dur + bound);
    }
    // Each kernel has an ac2g arrow from the queue.submit of its step.
    expect(t.flows).toHaveLength(6);
    for (const f of t.flows) {
      const from = t.slices[f.fromSlice]!;
      const to = t.slices[f.toSlice]!;
      expect([from.name, from.category, f.category]).toEqual(['queue.submit', 'cuda_runtime', 'ac2g']);
      expect(from.args?.step).toBe(to.args?.step);
      expect(to.args?.correlation).toBe(f.id);
    }
    expect(t.slices.filter((s) => s.name === 'encode' && s.category === 'cuda_runtime')).toHaveLength(3);
    expect(t.metadata.deviceProperties[0]).toMatchObject({ id: 0, backend: 'webgpu', timestampQuery: true });
    expect(t.processes.map((p) => p.kind)).toEqual(['cpu', 'gpu']);
    expect(t.metadata.run.gpuTimestampQuantizationNs).toBeUndefined();

    // Both exporters take the recorded trace: kernels, flows and steps reach the files.
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-webgpu-'));
    try {
      await writeChromeTrace(t, join(dir, 'run.json'));
      await writePerfettoTrace(t, join(dir, 'run.pftrace'));
      const chrome = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { traceEvents: { name: string; cat?: string; ph: string }[] };
      expect(chrome.traceEvents.filter((e) => e.cat === 'kernel' && e.ph === 'X').map((e) => e.name).sort()).toEqual(['collide', 'collide', 'collide', 'integrate', 'integrate', 'integrate']);
      expect(chrome.traceEvents.filter((e) => e.cat === 'ac2g' && e.ph === 's')).toHaveLength(6);
      expect(readFileSync(join(dir, 'run.pftrace')).includes(Buffer.from('integrate'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const table = prof.keyAverages().table({ sortBy: 'self_cuda_time_total' });
    expect(table).toMatch(/^\s+queue\.submit\s.*\s3\s\s$/m);
    expect(table).toMatch(/^\s+integrate\s.*\s3\s\s$/m);
    expect(table).toMatch(/Self CUDA time total: /);
  });

  it('adds nothing while idle: encoders are untouched and no pass is timed', async () => {
    const prof = profile({ schedule: schedule({ wait: 5, warmup: 1, active: 1 }) });
    const before = inst.getStats();
    await prof.start();
    for (let i = 0; i < 3; i++) { await runStep(); await prof.step(); }
    const enc = device.createCommandEncoder();
    expect(Object.getOwnPropertyNames(enc)).not.toContain('beginComputePass');
    enc.finish();
    await prof.stop();
    const after = inst.getStats();
    expect(after.passesTimed).toBe(before.passesTimed);
    expect(after.querySets).toBe(before.querySets);
    expect(() => prof.trace).toThrow(/no trace yet/);
  });

  it('sync markers and syncEachStep: instants on the CPU and GPU tracks, noted in the metadata', async () => {
    const prof = profile({ syncEachStep: true, schedule: schedule({ wait: 0, warmup: 1, active: 2, repeat: 1 }) });
    await prof.start();
    for (let i = 0; i < 3; i++) {
      await runStep();
      if (i === 2) await prof.sync('checkpoint');
      await prof.step();
    }
    await prof.stop();
    const t = prof.trace;
    expect(t.metadata.syncEachStep).toBe(true);
    const host = trackOf(t, 'thread');
    const gpu = trackOf(t, 'gpu_queue');
    const names = (track: number): string[] => t.instants.filter((i) => i.track === track).map((i) => i.name);
    // Steps 1 and 2 record: each begins with a sync ('step'); step 2 also syncs explicitly ('checkpoint').
    // The sync at start() fell in the warmup step and left nothing.
    expect(names(host)).toEqual(['step', 'step', 'checkpoint']);
    expect(names(gpu)).toEqual(['step', 'step', 'checkpoint']);
    // Each GPU marker lies after the queue was seen idle... and close to it: within the alignment bound.
    const align = t.metadata.clockAlignment!;
    const hostMarks = t.instants.filter((i) => i.track === host);
    const gpuMarks = t.instants.filter((i) => i.track === gpu);
    for (let i = 0; i < 3; i++) expect(gpuMarks[i]!.ts).toBeGreaterThanOrEqual(hostMarks[i]!.ts - align.errorBoundNs - 1);
    expect(t.metadata.clockAlignment!.method).toMatch(/sync-markers/);
    expect(t.slices.some((s) => s.name === 'sync' && s.category === 'cuda_sync')).toBe(true);
    // Markers are not kernels.
    expect(gpuSpans(t).every((s) => s.name === 'integrate' || s.name === 'collide')).toBe(true);
  });

  it('profileMemory: a counter of live GPUBuffer bytes follows createBuffer and destroy', async () => {
    const prof = profile({ profileMemory: true });
    await prof.start();
    const base = inst.liveBufferBytes;
    const big = device.createBuffer({ size: 1 << 20, usage: GPUBufferUsage.STORAGE });
    big.destroy();
    big.destroy(); // twice is harmless and not double-counted
    await prof.stop();
    const t = prof.trace;
    const track = t.tracks.find((x) => x.kind === 'counter' && x.name === 'gpu_memory')!;
    expect(track.unit).toBe('bytes');
    const values = t.counters.filter((c) => c.track === track.id).map((c) => c.value);
    expect(values).toEqual([base, base + (1 << 20), base, base]);
  });

  it('host spans: compiles and readback waits while recording', async () => {
    const prof = profile({});
    await prof.start();
    { using _ = recordFunction('build'); device.createShaderModule({ code: WGSL, label: 'again' }); }
    const rb = device.createBuffer({ size: 256, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    await rb.mapAsync(GPUMapMode.READ);
    rb.unmap();
    rb.destroy();
    await prof.stop();
    const t = prof.trace;
    const compile = t.slices.find((s) => s.category === 'compile')!;
    expect(compile).toMatchObject({ name: 'GPUDevice.createShaderModule', args: { label: 'again' } });
    const build = t.slices.find((s) => s.name === 'build')!;
    expect(compile.ts).toBeGreaterThanOrEqual(build.ts);
    expect(t.slices.some((s) => s.name === 'GPUBuffer.mapAsync' && s.category === 'cuda_sync')).toBe(true);
  });

  it('queue.writeBuffer: a host span with the bytes moved (typed-array sizes count elements)', async () => {
    const prof = profile({});
    await prof.start();
    const dst = device.createBuffer({ size: 1024, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(dst, 0, new Float32Array(64));
    device.queue.writeBuffer(dst, 256, new Float32Array(64), 8, 16);
    device.queue.writeBuffer(dst, 512, new ArrayBuffer(100), 4, 96);
    await prof.stop();
    dst.destroy();
    const writes = prof.trace.slices.filter((s) => s.name === 'queue.writeBuffer');
    expect(writes.map((s) => [s.category, s.args?.bytes])).toEqual([['cuda_runtime', 256], ['cuda_runtime', 64], ['cuda_runtime', 96]]);
  });

  it('never waits on the caller: readbacks pile up in flight, query sets are added past 4096 queries, all spans arrive', async () => {
    const before = inst.getStats();
    const prof = profile({ activities: ['gpu'] });
    await prof.start();
    // 40 submits of 60 passes each (4,800 queries) without yielding once: nothing can be read back meanwhile.
    for (let i = 0; i < 40; i++) {
      const enc = device.createCommandEncoder();
      for (let k = 0; k < 60; k++) enc.beginComputePass({ label: `p${k}` }).end();
      device.queue.submit([enc.finish()]);
    }
    const during = inst.getStats();
    expect(during.inFlight).toBe(40);
    expect(during.querySets - before.querySets).toBeGreaterThanOrEqual(1);
    expect(during.querySets).toBeGreaterThanOrEqual(2);
    await prof.stop();
    const spans = gpuSpans(prof.trace);
    expect(spans).toHaveLength(2400);
    expect(spans.slice(0, 3).map((s) => s.name)).toEqual(['p0', 'p1', 'p2']);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.ts).toBeGreaterThanOrEqual(spans[i - 1]!.ts + spans[i - 1]!.dur);
    const after = inst.getStats();
    expect(after.inFlight).toBe(0);
    // The pool is reused afterwards: another burst of the same size creates nothing new.
    const prof2 = profile({ activities: ['gpu'] });
    await prof2.start();
    for (let i = 0; i < 40; i++) {
      const enc = device.createCommandEncoder();
      for (let k = 0; k < 60; k++) enc.beginComputePass({ label: `p${k}` }).end();
      device.queue.submit([enc.finish()]);
    }
    await prof2.stop();
    expect(inst.getStats().querySets).toBe(after.querySets);
    expect(inst.getStats().readbackBuffers).toBe(after.readbackBuffers);
  });

  it('a device bound with profile({ device }) reports to that profiler only; restore() undoes the patches', async () => {
    const other = await requestProfiledDevice((await (await createGpu()).requestAdapter())!);
    const bound = profile({ device: other });
    const boundInst = instrumentDevice(other);
    expect(boundInst.boundRecorder).toBe(bound);
    const run = async (): Promise<void> => {
      const enc = other.createCommandEncoder();
      enc.beginComputePass({ label: 'mine' }).end();
      other.queue.submit([enc.finish()]);
      await other.queue.onSubmittedWorkDone();
    };
    const unrelated = profile({});
    await unrelated.start();
    await run();
    await unrelated.stop();
    expect(gpuSpans(unrelated.trace).filter((s) => s.name === 'mine')).toEqual([]);
    await bound.start();
    await run();
    await bound.stop();
    expect(bound.trace.slices.filter((s) => s.name === 'mine')).toHaveLength(1);
    boundInst.restore();
    expect(Object.getOwnPropertyNames(other)).not.toContain('createCommandEncoder');
    expect(Object.getOwnPropertyNames(other.queue)).not.toContain('submit');
    other.destroy();
  });

  // Unlabelled passes used to be 'compute pass', and a pass with two pipelines was named after the first only.
  it('names a pass by its label, else its pipelines (label, else WGSL entry point), all of them when several', async () => {
    const module = device.createShaderModule({ code: WGSL });
    const unlabelled = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const bind = device.createBindGroup({ layout: unlabelled.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: device.createBuffer({ size: 4 * 64 * 64, usage: GPUBufferUsage.STORAGE }) } }] });
    const prof = profile({});
    await prof.start();
    const enc = device.createCommandEncoder();
    const a = enc.beginComputePass();
    a.setPipeline(unlabelled); a.setBindGroup(0, bind); a.dispatchWorkgroups(64); a.end();
    const b = enc.beginComputePass();
    b.setPipeline(pipeA); b.setBindGroup(0, bindA); b.dispatchWorkgroups(64);
    b.setPipeline(pipeB); b.setBindGroup(0, bindB); b.dispatchWorkgroups(64); b.end();
    const c = enc.beginComputePass({ label: 'labelled' });
    c.setPipeline(pipeA); c.setBindGroup(0, bindA); c.dispatchWorkgroups(64); c.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    await prof.stop();
    const spans = gpuSpans(prof.trace);
    expect(spans.map((s) => s.name)).toEqual(['main', 'pipeA + collide', 'labelled']);
    expect(spans[1]!.args).toMatchObject({ pipelines: 'pipeA, collide', dispatches: 2 });
    expect(spans[2]!.args).toMatchObject({ kernel: 'labelled', pipeline: 'pipeA' });
  });

  it('times render passes too, named after the render pipeline, with their draw count', async () => {
    const module = device.createShaderModule({ code: /* wgsl */ `
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));
  return vec4f(p[i], 0, 1);
}
@fragment fn fs() -> @location(0) vec4f { return vec4f(1, 0.5, 0, 1); }` });
    const pipeline = device.createRenderPipeline({
      label: 'fullscreen', layout: 'auto',
      vertex: { module, entryPoint: 'vs' },
      fragment: { module, entryPoint: 'fs', targets: [{ format: 'rgba8unorm' }] },
    });
    const target = device.createTexture({ size: [64, 64], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const prof = profile({});
    await prof.start();
    const enc = device.createCommandEncoder();
    const pass = enc.beginRenderPass({ colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }] });
    pass.setPipeline(pipeline);
    pass.draw(3);
    pass.draw(3);
    pass.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    await prof.stop();
    target.destroy();
    const spans = gpuSpans(prof.trace);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: 'fullscreen', category: 'kernel', args: { kernel: 'fullscreen', draws: 2 } });
    expect(spans[0]!.dur).toBeGreaterThan(0);
  });

  it("detects Dawn's 65,536 ns quantization and warns", async () => {
    const warnings: string[] = [];
    logger.setSink((r) => { warnings.push(r.message); });
    const { create } = await import('webgpu');
    // Kept for the life of the process: dawn.node crashes if its GPU object is collected while a device works.
    const quantizedGpu = create([]);
    liveGpus.push(quantizedGpu);
    const adapter = await quantizedGpu.requestAdapter();
    const dev = await requestProfiledDevice(adapter!);
    const qi = instrumentDevice(dev);
    const prof = profile({});
    await prof.start();
    for (let i = 0; i < 3; i++) {
      const enc = dev.createCommandEncoder();
      enc.beginComputePass({ label: 'p' }).end();
      dev.queue.submit([enc.finish()]);
      await dev.queue.onSubmittedWorkDone();
      await new Promise((r) => setTimeout(r, 1));
    }
    await prof.stop();
    logger.setSink(null);
    qi.restore();
    dev.destroy();
    expect(prof.trace.metadata.run.gpuTimestampQuantizationNs).toBe(65536);
    expect(warnings.some((w) => w.includes('quantized to 65,536 ns'))).toBe(true);
  });
});
