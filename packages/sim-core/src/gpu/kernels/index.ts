/** Every WGSL kernel of one scene step, in the CPU pipeline's order (src/cpu/step.ts) and with its names. */
import type { KernelDef } from '../runtime.js';
import { collisionKernel } from './collision.js';
import { makeConstraintKernel } from './make_constraint.js';
import { SMOOTH_KERNELS as S } from './smooth.js';
import { solveKernel } from './solve.js';

export const GPU_KERNELS: readonly KernelDef[] = [
  S.kinematics, S.com, S.crb, S.factorM, collisionKernel, makeConstraintKernel,
  S.passive, S.rne, S.actuation, S.smoothAcc, solveKernel, S.integrate,
];
