/**
 * The CPU pipeline: every stage as a named kernel, in MuJoCo's order (mj_step = mj_forward + integrator):
 * position (kinematics, com, crb, factor_m, collision, make_constraint), velocity (passive, rne),
 * actuation, acceleration (smooth_acc), constraint solve, then integrate.
 * Each kernel runs envs [e0, e1) of the SoA Data, so worker threads can split the envs.
 */
import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';
import type { SimTracer } from '../instrument.js';
import { kinematics } from '../stages/kinematics/cpu.js';
import { com } from '../stages/com/cpu.js';
import { crb } from '../stages/crb/cpu.js';
import { factorM } from '../stages/factor_m/cpu.js';
import { collision } from '../stages/collision/cpu.js';
import { makeConstraint } from '../stages/make_constraint/cpu.js';
import { passive } from '../stages/passive/cpu.js';
import { rne } from '../stages/rne/cpu.js';
import { actuation } from '../stages/actuation/cpu.js';
import { smoothAcc } from '../stages/smooth_acc/cpu.js';
import { solve } from '../stages/solve/cpu.js';
import { integrate } from '../stages/integrate/cpu.js';

export type StageFn = (m: Model, d: Data, e0: number, e1: number) => void;

export interface CpuStage {
  /** Kernel name, shared with the WGSL twin, traces and baselines. */
  readonly name: string;
  readonly run: StageFn;
}

export const CPU_STAGES: readonly CpuStage[] = [
  { name: 'kinematics', run: kinematics },
  { name: 'com', run: com },
  { name: 'crb', run: crb },
  { name: 'factor_m', run: factorM },
  { name: 'collision', run: collision },
  { name: 'make_constraint', run: makeConstraint },
  { name: 'passive', run: passive },
  { name: 'rne', run: rne },
  { name: 'actuation', run: actuation },
  { name: 'smooth_acc', run: smoothAcc },
  { name: 'solve', run: solve },
  { name: 'integrate', run: integrate },
];

/** Stages of mj_forward: all but integrate. */
export const CPU_FORWARD_STAGES: readonly CpuStage[] = CPU_STAGES.filter((s) => s.name !== 'integrate');

/** One timestep (mj_step) of envs [e0, e1); with a tracer, each stage is one 'cpu_op' span on the calling thread
 *  (CPU work, Kineto's host-op category: 'kernel' would claim it ran on a GPU). */
export function stepCpu(m: Model, d: Data, e0: number, e1: number, tracer?: SimTracer | null): void {
  if (tracer) {
    const args = { nEnvs: e1 - e0 };
    for (const s of CPU_STAGES) {
      tracer.begin(s.name, 'cpu_op', args);
      try { s.run(m, d, e0, e1); } finally { tracer.end(); }
    }
    return;
  }
  kinematics(m, d, e0, e1);
  com(m, d, e0, e1);
  crb(m, d, e0, e1);
  factorM(m, d, e0, e1);
  collision(m, d, e0, e1);
  makeConstraint(m, d, e0, e1);
  passive(m, d, e0, e1);
  rne(m, d, e0, e1);
  actuation(m, d, e0, e1);
  smoothAcc(m, d, e0, e1);
  solve(m, d, e0, e1);
  integrate(m, d, e0, e1);
}
