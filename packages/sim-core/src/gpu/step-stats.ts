/**
 * Per-step physics counters on the GPU without a per-env readback: after a step's kernels, the `physics_counters`
 * passes (kernels/step-stats.ts: the reduction, then the stages of the envs found NaN, none in a healthy step)
 * reduce the per-env solver timers and error flags into a record of STEP_STATS_WORDS words (1.3 KB), which is
 * copied into a small MAP_READ buffer in the same submit and read back when the device has run it: the read is
 * a mapAsync that scene.step() does not wait for (scene.ts reports the records in step order as they arrive);
 * scene.sync() waits for it (what the counters cost a synced step on lavapipe: docs/benchmarks.md). Staging
 * buffers are pooled: one per step in flight.
 */
import { STAGE_OUTPUTS } from '../data/nan-stage.js';
import type { DeviceStepStats } from '../backend/backend.js';
import {
  STAT, STAT_NAN, STAT_UNCONVERGED, STEP_STATS_LISTED, STEP_STATS_WORDS, stepStatsSource,
} from './kernels/step-stats.js';
import { WORKGROUP_SIZE } from './prelude.js';
import type { GpuSim } from './runtime.js';

/** The pass's label: the name a GPU trace shows for the reduction's kernel. */
export const STEP_STATS_KERNEL = 'physics_counters';

export class StepStatsReducer {
  private readonly pipeline: GPUComputePipeline;
  private readonly stagePipeline: GPUComputePipeline;
  private readonly record: GPUBuffer;
  private readonly group: GPUBindGroup;
  private readonly free: GPUBuffer[] = [];
  private readonly all = new Set<GPUBuffer>();
  private readonly bytes = 4 * STEP_STATS_WORDS;

  constructor(private readonly sim: GpuSim) {
    const dev = sim.device;
    const tracer = sim.opts.tracer?.() ?? null;
    tracer?.begin(`compile:${STEP_STATS_KERNEL}`, 'compile', { kernel: STEP_STATS_KERNEL });
    try {
      const statsLayout = dev.createBindGroupLayout({
        label: STEP_STATS_KERNEL,
        entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } }],
      });
      const code = stepStatsSource(sim.preludeSrc, WORKGROUP_SIZE, sim.layout, sim.opts.capacities);
      // Made on the first step that asks for counters (a run without them never compiles it), so synchronously.
      const layout = dev.createPipelineLayout({ label: STEP_STATS_KERNEL, bindGroupLayouts: [sim.bindLayout, statsLayout] });
      const module = dev.createShaderModule({ label: STEP_STATS_KERNEL, code });
      this.pipeline = dev.createComputePipeline({ label: STEP_STATS_KERNEL, layout, compute: { module, entryPoint: 'main' } });
      this.stagePipeline = dev.createComputePipeline({ label: STEP_STATS_KERNEL, layout, compute: { module, entryPoint: 'nan_stages' } });
      this.record = dev.createBuffer({
        label: 'sim.step-stats',
        size: this.bytes,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      });
      this.group = dev.createBindGroup({ label: STEP_STATS_KERNEL, layout: statsLayout, entries: [{ binding: 0, resource: { buffer: this.record } }] });
    } finally {
      tracer?.end();
    }
  }

  /** Records the reduction into `enc` (after the step's passes) and its copy out; returns the staging buffer to
   *  read once `enc`'s commands are submitted. */
  encode(enc: GPUCommandEncoder): GPUBuffer {
    const staging = this.free.pop() ?? this.newStaging();
    enc.clearBuffer(this.record);
    const pass = enc.beginComputePass({ label: STEP_STATS_KERNEL, ...(this.sim.passHook?.(STEP_STATS_KERNEL) ?? {}) });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.sim.bindGroup);
    pass.setBindGroup(1, this.group);
    pass.dispatchWorkgroups(Math.ceil(this.sim.nEnvs / WORKGROUP_SIZE));
    pass.end();
    const stages = enc.beginComputePass({ label: STEP_STATS_KERNEL, ...(this.sim.passHook?.(STEP_STATS_KERNEL) ?? {}) });
    stages.setPipeline(this.stagePipeline);
    stages.setBindGroup(0, this.sim.bindGroup);
    stages.setBindGroup(1, this.group);
    stages.dispatchWorkgroups(1);
    stages.end();
    enc.copyBufferToBuffer(this.record, 0, staging, 0, this.bytes);
    return staging;
  }

  /** The record in `staging` (submitted), once the device has written it. */
  async read(staging: GPUBuffer): Promise<DeviceStepStats> {
    try {
      await staging.mapAsync(GPUMapMode.READ, 0, this.bytes);
    } catch (err) {
      this.all.delete(staging);
      staging.destroy();
      throw err;
    }
    const words = new Uint32Array(staging.getMappedRange(0, this.bytes).slice(0));
    staging.unmap();
    this.free.push(staging);
    return decode(words, this.sim.nEnvs);
  }

  private newStaging(): GPUBuffer {
    const buf = this.sim.device.createBuffer({ label: 'sim.step-stats.readback', size: this.bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    this.all.add(buf);
    return buf;
  }

  destroy(): void {
    this.record.destroy();
    for (const b of this.all) b.destroy();
    this.all.clear();
    this.free.length = 0;
  }
}

function decode(w: Uint32Array, nEnvs: number): DeviceStepStats {
  const f = new Float32Array(w.buffer);
  const notConverged = w[STAT.notConverged]!;
  const nanCount = w[STAT.nan]!;
  const unconverged = Array.from({ length: Math.min(notConverged, STEP_STATS_LISTED) }, (_, i) => ({
    env: w[STAT_UNCONVERGED + 3 * i]!, iterations: w[STAT_UNCONVERGED + 3 * i + 1]!, improvement: f[STAT_UNCONVERGED + 3 * i + 2]!,
  })).sort((a, b) => a.env - b.env);
  const nan = Array.from({ length: Math.min(nanCount, STEP_STATS_LISTED) }, (_, i) => ({
    env: w[STAT_NAN + 2 * i]!, stage: STAGE_OUTPUTS[w[STAT_NAN + 2 * i + 1]!]?.stage ?? 'unknown',
  })).sort((a, b) => a.env - b.env);
  return {
    totals: {
      iterationsMax: w[STAT.iterationsMax]!, iterationsMean: w[STAT.iterationsSum]! / nEnvs, contacts: w[STAT.contactsSum]!,
      contactsMax: w[STAT.contactsMax]!, constraints: w[STAT.constraintsSum]!, notConverged,
    },
    unconverged, nan, nanCount,
  };
}
