/**
 * WGSL twin of stage `factor_m` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const factorMKernel: KernelDef = {
  name: 'factor_m',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  for (var k = 0; k < NV * NV; k++) { dset(D_Q_LD, k, e, dget(D_Q_M, k, e)); }
  ldl_factor(D_Q_LD, e);
  for (var k = 0; k < NV; k++) { dset(D_Q_LDIAG_INV, k, e, 1.0 / dget(D_Q_LD, k * NV + k, e)); }`,
};
