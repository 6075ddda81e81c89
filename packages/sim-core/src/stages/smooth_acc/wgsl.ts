/**
 * WGSL twin of stage `smooth_acc` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const smoothAccKernel: KernelDef = {
  name: 'smooth_acc',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  for (var d = 0; d < NV; d++) {
    let f = dget(D_QFRC_PASSIVE, d, e) - dget(D_QFRC_BIAS, d, e) + dget(D_QFRC_APPLIED, d, e) + dget(D_QFRC_ACTUATOR, d, e);
    dset(D_QFRC_SMOOTH, d, e, f);
    dset(D_QACC_SMOOTH, d, e, f);
  }
  ldl_solve(D_Q_LD, D_QACC_SMOOTH, e);`,
};
