/**
 * The physics pipeline: every stage, in MuJoCo's order (mj_step = mj_forward + integrator), with its two
 * implementations side by side: `cpu` (stages/<name>/cpu.ts, runs envs [e0, e1) of the SoA Data) and `wgsl`
 * (stages/<name>/wgsl.ts, the WGSL kernel of the same name, one invocation per env). Position (kinematics, com,
 * crb, factor_m, collision, make_constraint), velocity (passive, rne), actuation, acceleration (smooth_acc),
 * constraint solve, sensors, then integrate. The CPU pipeline (cpu/step.ts) and the GPU kernel list
 * (gpu/kernels/index.ts) are both this list, so a stage added or reordered here is added or reordered on both
 * backends. One stage is CPU-only (wgsl null): `sensor`, which the GPU backend does not run and whose output it
 * refuses to read.
 */
import type { Data } from '../data/data.js';
import type { KernelDef } from '../gpu/runtime.js';
import type { Model } from '../model/model.js';
import { actuation } from './actuation/cpu.js';
import { actuationKernel } from './actuation/wgsl.js';
import { collision } from './collision/cpu.js';
import { collisionKernel } from './collision/wgsl.js';
import { com } from './com/cpu.js';
import { comKernel } from './com/wgsl.js';
import { crb } from './crb/cpu.js';
import { crbKernel } from './crb/wgsl.js';
import { factorM } from './factor_m/cpu.js';
import { factorMKernel } from './factor_m/wgsl.js';
import { integrate } from './integrate/cpu.js';
import { integrateKernel } from './integrate/wgsl.js';
import { kinematics } from './kinematics/cpu.js';
import { kinematicsKernel } from './kinematics/wgsl.js';
import { makeConstraint } from './make_constraint/cpu.js';
import { makeConstraintKernel } from './make_constraint/wgsl.js';
import { passive } from './passive/cpu.js';
import { passiveKernel } from './passive/wgsl.js';
import { rne } from './rne/cpu.js';
import { rneKernel } from './rne/wgsl.js';
import { smoothAcc } from './smooth_acc/cpu.js';
import { smoothAccKernel } from './smooth_acc/wgsl.js';
import { solve } from './solve/cpu.js';
import { solveKernel } from './solve/wgsl.js';
import { sensor } from './sensor/cpu.js';

export type StageFn = (m: Model, d: Data, e0: number, e1: number) => void;

export interface Stage {
  /** Kernel name, shared by both implementations, traces and baselines. */
  readonly name: string;
  /** The CPU implementation: envs [e0, e1) of the SoA Data. */
  readonly cpu: StageFn;
  /** The WGSL kernel with every optional routine compiled in (gpuKernelsFor leaves out what a model cannot reach);
   *  null for a stage the GPU backend does not run. */
  readonly wgsl: KernelDef | null;
}

export const STAGES: readonly Stage[] = [
  { name: 'kinematics', cpu: kinematics, wgsl: kinematicsKernel },
  { name: 'com', cpu: com, wgsl: comKernel },
  { name: 'crb', cpu: crb, wgsl: crbKernel },
  { name: 'factor_m', cpu: factorM, wgsl: factorMKernel },
  { name: 'collision', cpu: collision, wgsl: collisionKernel },
  { name: 'make_constraint', cpu: makeConstraint, wgsl: makeConstraintKernel },
  { name: 'passive', cpu: passive, wgsl: passiveKernel },
  { name: 'rne', cpu: rne, wgsl: rneKernel },
  { name: 'actuation', cpu: actuation, wgsl: actuationKernel },
  { name: 'smooth_acc', cpu: smoothAcc, wgsl: smoothAccKernel },
  { name: 'solve', cpu: solve, wgsl: solveKernel },
  { name: 'sensor', cpu: sensor, wgsl: null },
  { name: 'integrate', cpu: integrate, wgsl: integrateKernel },
];
