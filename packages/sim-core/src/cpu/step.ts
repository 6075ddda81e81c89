/**
 * The CPU pipeline: every stage of the registry (stages/registry.ts) as a named kernel, in its order
 * (mj_step = mj_forward + integrator). Each kernel runs envs [e0, e1) of the SoA Data, so worker threads can
 * split the envs.
 */
import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';
import type { SimTracer } from '../instrument.js';
import { STAGES, type StageFn } from '../stages/registry.js';

export interface CpuStage {
  /** Kernel name, shared with the WGSL twin, traces and baselines. */
  readonly name: string;
  readonly run: StageFn;
}

export const CPU_STAGES: readonly CpuStage[] = STAGES.map((s) => ({ name: s.name, run: s.cpu }));

/** Stages of mj_forward: all but integrate. */
export const CPU_FORWARD_STAGES: readonly CpuStage[] = CPU_STAGES.filter((s) => s.name !== 'integrate');

/** One timestep (mj_step) of envs [e0, e1); with a tracer, each stage is one 'cpu_op' span on the calling thread
 *  (CPU work, Kineto's host-op category: 'kernel' would claim it ran on a GPU). */
export function stepCpu(m: Model, d: Data, e0: number, e1: number, tracer?: SimTracer | null): void {
  if (tracer) {
    const args = { nEnvs: e1 - e0 };
    for (const s of CPU_STAGES) {
      if (s.name === 'sensor' && !m.nsensor) continue;
      tracer.begin(s.name, 'cpu_op', args);
      try { s.run(m, d, e0, e1); } finally { tracer.end(); }
    }
    return;
  }
  // the sensor stage only in a model with sensors (it returns at once otherwise; a traced step shows no span)
  for (const s of CPU_STAGES) s.run(m, d, e0, e1);
}
