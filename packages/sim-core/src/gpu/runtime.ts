/**
 * The WebGPU pipeline for one built scene: buffers for Model and Data, one compute pipeline per kernel,
 * and a step that records one compute pass per kernel, labelled with the kernel's name (the name traces,
 * summaries and baselines show). Nothing here waits for the GPU except `sync()` and reads.
 */
import type { SimTracer } from '../instrument.js';
import type { Model } from '../model/model.js';
import { isSoftwareAdapter, type OpenedGpu } from './adapter.js';
import { bytesPerEnv, dataFields, maxEnvsFor, packLayout, packModel, type Capacities, type PackedLayout } from './layout.js';
import { kernelSource, layoutWords, prelude, preludeScalars, WORKGROUP_SIZE } from './prelude.js';
import { ReadbackRing } from './readback.js';
import { DeviceScatter } from './scatter.js';

export interface KernelDef {
  name: string;
  /** WGSL functions the body uses (may be empty). */
  helpers: string;
  /** WGSL statements run once per env, with `e: u32` the env index. */
  body: string;
}

export interface GpuSimOptions {
  performanceMode: boolean;
  capacities: Capacities;
  /** The tracer installed now (asked at every compile and step, so a profiler can attach after build). */
  tracer?: () => SimTracer | null;
  /** |qpos| or |qvel| beyond this flags an env as blown up (rigidOptions.blowUpThreshold; default 1e10). */
  blowUpThreshold?: number;
}

/** Adds per-pass descriptor fields (e.g. timestampWrites) chosen by a profiler. */
export type PassHook = (kernel: string) => Partial<GPUComputePassDescriptor> | undefined;

export class WgslCompileError extends Error {
  override name = 'WgslCompileError';
}

export class GpuNEnvsTooLargeError extends Error {
  override name = 'GpuNEnvsTooLargeError';
}

interface CompiledKernel {
  name: string;
  pipeline: GPUComputePipeline;
}

/**
 * What every scene on a device shares: the bind group and pipeline layouts (the same five buffers) and the
 * compiled pipelines, by kernel source. Dawn reuses a pipeline only while one is alive, so once a scene's
 * pipelines were collected the next scene compiled every kernel again: the collision kernel took 11-25 s on
 * lavapipe each time, Mesa's disk cache notwithstanding. Generic-mode sources are the same for every scene and
 * nEnvs, so a process that builds many scenes compiles each kernel once. Baked (performance-mode) sources differ
 * per scene, hence the bound.
 */
interface DeviceKernels {
  bindLayout: GPUBindGroupLayout;
  pipelineLayout: GPUPipelineLayout;
  pipelines: Map<string, GPUComputePipeline>;
}
const PIPELINES_KEPT = 256;
const deviceKernels = new WeakMap<GPUDevice, DeviceKernels>();

function kernelsOf(dev: GPUDevice): DeviceKernels {
  let k = deviceKernels.get(dev);
  if (!k) {
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
      binding, visibility: GPUShaderStage.COMPUTE, buffer: { type },
    });
    const bindLayout = dev.createBindGroupLayout({
      label: 'sim.bind',
      entries: [entry(0, 'read-only-storage'), entry(1, 'read-only-storage'), entry(2, 'storage'), entry(3, 'storage'), entry(4, 'read-only-storage')],
    });
    const pipelineLayout = dev.createPipelineLayout({ label: 'sim.pipeline', bindGroupLayouts: [bindLayout] });
    k = { bindLayout, pipelineLayout, pipelines: new Map() };
    deviceKernels.set(dev, k);
  }
  return k;
}

function keepPipeline(k: DeviceKernels, wgsl: string, pipeline: GPUComputePipeline): void {
  k.pipelines.set(wgsl, pipeline);
  if (k.pipelines.size > PIPELINES_KEPT) k.pipelines.delete(k.pipelines.keys().next().value!);
}

export class GpuSim {
  readonly device: GPUDevice;
  readonly layout: PackedLayout;
  readonly nEnvs: number;
  readonly realBuf: GPUBuffer;
  readonly intBuf: GPUBuffer;
  private readonly modelReal: GPUBuffer;
  private readonly modelInt: GPUBuffer;
  private readonly layoutBuf: GPUBuffer;
  /** Group 0 of every kernel (Model, Data, layout): also bound by the step counters' reduction (step-stats.ts). */
  readonly bindGroup: GPUBindGroup;
  readonly bindLayout: GPUBindGroupLayout;
  private readonly pipelineLayout: GPUPipelineLayout;
  private readonly shared: DeviceKernels;
  private readonly kernels: CompiledKernel[] = [];
  private readonly ring: ReadbackRing;
  private readonly scatter: DeviceScatter;
  readonly preludeSrc: string;
  passHook: PassHook | null = null;

  constructor(readonly gpu: OpenedGpu, readonly model: Model, nEnvs: number, readonly opts: GpuSimOptions) {
    this.device = gpu.device;
    this.nEnvs = Math.max(1, nEnvs);
    this.layout = packLayout(dataFields(model, opts.capacities));
    const limits = {
      maxStorageBufferBindingSize: this.device.limits.maxStorageBufferBindingSize,
      maxBufferSize: this.device.limits.maxBufferSize,
    };
    const maxEnvs = maxEnvsFor(this.layout, limits);
    if (this.nEnvs > maxEnvs) {
      throw new GpuNEnvsTooLargeError(
        `nEnvs=${this.nEnvs} does not fit this device's buffer limits (${bytesPerEnv(this.layout)} bytes of state per env, ` +
          `maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}); the largest nEnvs that fits is ${maxEnvs}`,
      );
    }
    const pm = packModel(model);
    const scalars = preludeScalars(model, this.nEnvs, this.layout, pm, opts.capacities, opts.blowUpThreshold);
    this.preludeSrc = prelude(scalars, opts.performanceMode, !isSoftwareAdapter(gpu.info));
    const dev = this.device;
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    this.realBuf = dev.createBuffer({ label: 'sim.data.f32', size: 4 * this.layout.realsPerEnv * this.nEnvs, usage: storage });
    this.intBuf = dev.createBuffer({ label: 'sim.data.i32', size: 4 * this.layout.intsPerEnv * this.nEnvs, usage: storage });
    this.modelReal = dev.createBuffer({ label: 'sim.model.f32', size: pm.reals.byteLength, usage: storage });
    this.modelInt = dev.createBuffer({ label: 'sim.model.i32', size: pm.ints.byteLength, usage: storage });
    const words = layoutWords(scalars);
    this.layoutBuf = dev.createBuffer({ label: 'sim.layout', size: words.byteLength, usage: storage });
    dev.queue.writeBuffer(this.modelReal, 0, pm.reals);
    dev.queue.writeBuffer(this.modelInt, 0, pm.ints);
    dev.queue.writeBuffer(this.layoutBuf, 0, words);
    this.shared = kernelsOf(dev);
    this.bindLayout = this.shared.bindLayout;
    this.pipelineLayout = this.shared.pipelineLayout;
    this.bindGroup = dev.createBindGroup({
      label: 'sim.bind',
      layout: this.bindLayout,
      entries: [this.modelReal, this.modelInt, this.realBuf, this.intBuf, this.layoutBuf].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.ring = new ReadbackRing(dev);
    this.scatter = new DeviceScatter(dev);
  }

  /** Compiles the kernels in pipeline order. The spans cover WGSL generation, shader-module and pipeline
   * creation; a driver may still compile at the first dispatch (Mesa does), which the first step then pays. */
  async compile(defs: KernelDef[]): Promise<void> {
    const tracer = this.opts.tracer?.() ?? null;
    for (const def of defs) {
      const t0 = performance.now();
      const wgsl = kernelSource(this.preludeSrc, def.helpers, def.body);
      const kept = this.shared.pipelines.get(wgsl);
      // `reused`: this device compiled the same source for an earlier scene, so the span is a lookup.
      tracer?.begin(`compile:${def.name}`, 'compile', { kernel: def.name, reused: kept !== undefined });
      if (kept) {
        this.kernels.push({ name: def.name, pipeline: kept });
        this.compileMs.set(def.name, performance.now() - t0);
        tracer?.end();
        continue;
      }
      // The scope keeps Dawn from also printing the error as an uncaptured one; we report it ourselves.
      this.device.pushErrorScope('validation');
      const module = this.device.createShaderModule({ label: def.name, code: wgsl });
      const info = await module.getCompilationInfo();
      await this.device.popErrorScope();
      const errors = info.messages.filter((msg) => msg.type === 'error');
      if (errors.length > 0) {
        tracer?.end();
        const preludeLines = this.preludeSrc.split('\n').length + def.helpers.split('\n').length;
        const first = errors[0]!;
        throw new WgslCompileError(
          `WGSL kernel '${def.name}' failed to compile: line ${first.lineNum} of the generated source ` +
            `(kernel body line ${first.lineNum - preludeLines - 3}): ${first.message}`,
        );
      }
      this.device.pushErrorScope('validation');
      const pipeline = await this.device.createComputePipelineAsync({
        label: def.name,
        layout: this.pipelineLayout,
        compute: { module, entryPoint: 'main' },
      });
      const err = await this.device.popErrorScope();
      if (err) {
        tracer?.end();
        throw new WgslCompileError(`WGSL kernel '${def.name}': pipeline creation failed: ${err.message}`);
      }
      keepPipeline(this.shared, wgsl, pipeline);
      this.kernels.push({ name: def.name, pipeline });
      this.compileMs.set(def.name, performance.now() - t0);
      tracer?.end();
    }
  }

  readonly compileMs = new Map<string, number>();

  get kernelNames(): string[] {
    return this.kernels.map((k) => k.name);
  }

  /** Records one compute pass per kernel (optionally only `only`), then whatever `after` adds, into one submit.
   *  Does not wait. */
  step(substeps = 1, only?: ReadonlySet<string>, after?: (enc: GPUCommandEncoder) => void): void {
    const tracer = this.opts.tracer?.() ?? null;
    const groups = Math.ceil(this.nEnvs / WORKGROUP_SIZE);
    tracer?.begin('encode', 'encode', { kernels: this.kernels.length * substeps });
    const enc = this.device.createCommandEncoder({ label: 'sim.step' });
    for (let s = 0; s < substeps; s++) {
      for (const k of this.kernels) {
        if (only && !only.has(k.name)) continue;
        const pass = enc.beginComputePass({ label: k.name, ...(this.passHook?.(k.name) ?? {}) });
        pass.setPipeline(k.pipeline);
        pass.setBindGroup(0, this.bindGroup);
        pass.dispatchWorkgroups(groups);
        pass.end();
      }
    }
    after?.(enc);
    const cmd = enc.finish();
    tracer?.end();
    tracer?.begin('queue.submit', 'submit');
    this.device.queue.submit([cmd]);
    tracer?.end();
  }

  async sync(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
  }

  private region(name: string): { buf: GPUBuffer; base: number; size: number; kind: 'f32' | 'i32' } {
    const spec = this.layout.spec.get(name);
    if (!spec) throw new Error(`unknown GPU data field '${name}'`);
    return { buf: spec.kind === 'f32' ? this.realBuf : this.intBuf, base: this.layout.base.get(name)!, size: spec.size, kind: spec.kind };
  }

  /** Writes a whole field for every env, host layout [k * nEnvs + e]. */
  writeField(name: string, values: Float32Array | Int32Array): void {
    const r = this.region(name);
    this.device.queue.writeBuffer(r.buf, 4 * r.base * this.nEnvs, values.buffer, values.byteOffset, 4 * r.size * this.nEnvs);
  }

  /** Writes one element (k) of a field for the given envs. Contiguous runs of envs become one write. */
  writeElements(name: string, k: number, envs: ArrayLike<number>, values: ArrayLike<number>): void {
    const r = this.region(name);
    const Arr = r.kind === 'f32' ? Float32Array : Int32Array;
    let i = 0;
    while (i < envs.length) {
      let j = i + 1;
      while (j < envs.length && envs[j] === envs[j - 1]! + 1) j++;
      const chunk = new Arr(j - i);
      for (let t = i; t < j; t++) chunk[t - i] = values[t]!;
      this.device.queue.writeBuffer(r.buf, 4 * ((r.base + k) * this.nEnvs + envs[i]!), chunk);
      i = j;
    }
  }

  /** Copies a GPU-resident buffer (layout [k * nEnvs + e], the field's full size) into a field. */
  copyField(name: string, src: GPUBuffer): void {
    const r = this.region(name);
    const enc = this.device.createCommandEncoder({ label: 'sim.copy' });
    enc.copyBufferToBuffer(src, 0, r.buf, 4 * r.base * this.nEnvs, 4 * r.size * this.nEnvs);
    this.device.queue.submit([enc.finish()]);
  }

  /** Writes elements idx of the given envs from a device tensor (rows = envs or one broadcast row). f32 fields only. */
  writeFromDevice(name: string, idx: ArrayLike<number>, envs: ArrayLike<number>, src: GPUBuffer, broadcast: boolean): void {
    const r = this.region(name);
    if (r.kind !== 'f32') throw new Error(`writeFromDevice: field '${name}' is not real-valued`);
    this.scatter.run(r.buf, this.nEnvs, r.base, idx, envs, src, broadcast);
  }

  /** Reads a whole field, host layout [k * nEnvs + e]. Waits only for the work that produces it. */
  async readField(name: string): Promise<Float32Array | Int32Array> {
    const r = this.region(name);
    const bytes = await this.ring.read(r.buf, 4 * r.base * this.nEnvs, 4 * r.size * this.nEnvs);
    return r.kind === 'f32' ? new Float32Array(bytes) : new Int32Array(bytes);
  }

  destroy(): void {
    for (const b of [this.realBuf, this.intBuf, this.modelReal, this.modelInt, this.layoutBuf]) b.destroy();
    this.ring.destroy();
  }
}
