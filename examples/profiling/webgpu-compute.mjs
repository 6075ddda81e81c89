#!/usr/bin/env node
// A small WebGPU compute program that knows nothing about gsprof: a particle update (two compute passes per
// frame: integrate, then a workgroup reduction of kinetic energy), one queue submit per frame, and a readback
// at the end. Profile it without changing a line:
//
//   gsprof record --active 5 -- node examples/profiling/webgpu-compute.mjs --frames 20
//
// Usage: node webgpu-compute.mjs [--frames N] [--particles N] [--substeps N]
// --substeps runs the integration that many times per frame inside the integrate kernel (more work per frame).
import { create, globals } from 'webgpu';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`webgpu-compute: --${name} needs a positive integer`);
    process.exit(2);
  }
  return value;
}

const frames = option('frames', 20);
const particles = option('particles', 65536);
const substeps = option('substeps', 1);
const WG = 64;

Object.assign(globalThis, globals);
const gpu = create([]);
// Dawn frees its instance when this object is garbage-collected, even with work in flight (a crash in
// ProcessEvents); the exit hook keeps it referenced for the program's whole life.
process.on('exit', () => gpu);
const adapter = await gpu.requestAdapter();
if (!adapter) {
  console.error('webgpu-compute: no WebGPU adapter (on a CPU-only machine run scripts/install-webgpu-cpu.sh)');
  process.exit(1);
}
const device = await adapter.requestDevice();

const integrateCode = /* wgsl */ `
struct Params { dt: f32, n: u32 };
@group(0) @binding(0) var<storage, read_write> pos: array<vec2f>;
@group(0) @binding(1) var<storage, read_write> vel: array<vec2f>;
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= params.n) { return; }
  let h = params.dt / ${substeps}.0;
  var v = vel[i];
  var p = pos[i];
  for (var s = 0u; s < ${substeps}u; s++) {
    v += vec2f(0.0, -9.81) * h;
    p += v * h;
    if (p.y < 0.0) { p.y = -p.y; v.y = -0.9 * v.y; }
  }
  pos[i] = p;
  vel[i] = v;
}`;

const energyCode = /* wgsl */ `
struct Params { dt: f32, n: u32 };
@group(0) @binding(0) var<storage, read> vel: array<vec2f>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
var<workgroup> scratch: array<f32, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u,
        @builtin(workgroup_id) wid: vec3u) {
  var e = 0.0;
  if (gid.x < params.n) { let v = vel[gid.x]; e = 0.5 * dot(v, v); }
  scratch[lid.x] = e;
  workgroupBarrier();
  for (var s = ${WG / 2}u; s > 0u; s = s / 2u) {
    if (lid.x < s) { scratch[lid.x] += scratch[lid.x + s]; }
    workgroupBarrier();
  }
  if (lid.x == 0u) { partial[wid.x] = scratch[0]; }
}`;

const groups = Math.ceil(particles / WG);
const posData = new Float32Array(particles * 2);
for (let i = 0; i < particles; i++) { posData[2 * i] = i / particles; posData[2 * i + 1] = 1 + (i % 97) / 97; }
const pos = device.createBuffer({ label: 'pos', size: posData.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const vel = device.createBuffer({ label: 'vel', size: posData.byteLength, usage: GPUBufferUsage.STORAGE });
const partial = device.createBuffer({ label: 'partial', size: groups * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
const readback = device.createBuffer({ label: 'readback', size: groups * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const params = device.createBuffer({ label: 'params', size: 8, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(pos, 0, posData);
const paramData = new ArrayBuffer(8);
new Float32Array(paramData, 0, 1)[0] = 1 / 60;
new Uint32Array(paramData, 4, 1)[0] = particles;
device.queue.writeBuffer(params, 0, paramData);

const integrate = device.createComputePipeline({ label: 'integrate', layout: 'auto', compute: { module: device.createShaderModule({ code: integrateCode }), entryPoint: 'main' } });
const energy = device.createComputePipeline({ label: 'kinetic_energy', layout: 'auto', compute: { module: device.createShaderModule({ code: energyCode }), entryPoint: 'main' } });
const integrateBind = device.createBindGroup({ layout: integrate.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: pos } }, { binding: 1, resource: { buffer: vel } }, { binding: 2, resource: { buffer: params } }] });
const energyBind = device.createBindGroup({ layout: energy.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: vel } }, { binding: 1, resource: { buffer: partial } }, { binding: 2, resource: { buffer: params } }] });

const started = performance.now();
for (let frame = 0; frame < frames; frame++) {
  const encoder = device.createCommandEncoder({ label: `frame ${frame}` });
  const a = encoder.beginComputePass({ label: 'integrate' });
  a.setPipeline(integrate);
  a.setBindGroup(0, integrateBind);
  a.dispatchWorkgroups(groups);
  a.end();
  const b = encoder.beginComputePass({ label: 'kinetic_energy' });
  b.setPipeline(energy);
  b.setBindGroup(0, energyBind);
  b.dispatchWorkgroups(groups);
  b.end();
  if (frame === frames - 1) encoder.copyBufferToBuffer(partial, 0, readback, 0, groups * 4);
  device.queue.submit([encoder.finish()]);
}
await readback.mapAsync(GPUMapMode.READ);
const sums = new Float32Array(readback.getMappedRange());
let total = 0;
for (const s of sums) total += s;
readback.unmap();
const ms = performance.now() - started;
console.log(`webgpu-compute: ${frames} frames x ${particles} particles x ${substeps} substeps in ${ms.toFixed(1)} ms; kinetic energy ${total.toFixed(3)}`);
device.destroy();
