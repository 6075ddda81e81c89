/**
 * Copies a device-resident tensor ([rows, cols], row-major, one row per selected env or one row for all)
 * into Data's field layout ([k * nEnvs + e]) on the GPU, so a control loop that keeps its targets on the
 * device never transfers them through the host.
 */
const SCATTER_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> dst: array<f32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
// p: [nEnvs, base, nIdx, nSel, broadcast, idx[nIdx]..., envs[nSel]...]
@group(0) @binding(2) var<storage, read> p: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  let n = p[0]; let base = p[1]; let nIdx = p[2]; let nSel = p[3]; let broadcast = p[4];
  if (t >= nSel) { return; }
  let e = p[5u + nIdx + t];
  var row = t;
  if (broadcast != 0u) { row = 0u; }
  for (var j = 0u; j < nIdx; j++) {
    dst[(base + p[5u + j]) * n + e] = src[row * nIdx + j];
  }
}
`;

export class DeviceScatter {
  private pipeline: GPUComputePipeline | null = null;

  constructor(private readonly device: GPUDevice) {}

  private get kernel(): GPUComputePipeline {
    this.pipeline ??= this.device.createComputePipeline({
      label: 'scatter_dofs',
      layout: 'auto',
      compute: { module: this.device.createShaderModule({ label: 'scatter_dofs', code: SCATTER_WGSL }), entryPoint: 'main' },
    });
    return this.pipeline;
  }

  /** dst field elements idx[j] of envs[t] <- src[t or 0][j]. */
  run(dst: GPUBuffer, nEnvs: number, base: number, idx: ArrayLike<number>, envs: ArrayLike<number>, src: GPUBuffer, broadcast: boolean): void {
    const params = new Uint32Array(5 + idx.length + envs.length);
    params.set([nEnvs, base, idx.length, envs.length, broadcast ? 1 : 0]);
    params.set(Array.from(idx), 5);
    params.set(Array.from(envs), 5 + idx.length);
    const pbuf = this.device.createBuffer({ label: 'scatter_dofs.params', size: params.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    this.device.queue.writeBuffer(pbuf, 0, params);
    const bind = this.device.createBindGroup({
      layout: this.kernel.getBindGroupLayout(0),
      entries: [dst, src, pbuf].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    const enc = this.device.createCommandEncoder({ label: 'scatter_dofs' });
    const pass = enc.beginComputePass({ label: 'scatter_dofs' });
    pass.setPipeline(this.kernel);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(Math.ceil(envs.length / 64));
    pass.end();
    this.device.queue.submit([enc.finish()]);
    pbuf.destroy();
  }
}
