/**
 * WGSL twin of stage `crb` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const crbKernel: KernelDef = {
  name: 'crb',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  for (var k = 0; k < 10 * NBODY; k++) { dset(D_CRB, k, e, dget(D_CINERT, k, e)); }
  for (var b = NBODY - 1; b > 0; b--) {
    let p = mn(M_BODY_PARENTID, b);
    if (p > 0) { for (var k = 0; k < 10; k++) { dset(D_CRB, 10 * p + k, e, dget(D_CRB, 10 * p + k, e) + dget(D_CRB, 10 * b + k, e)); } }
  }
  for (var k = 0; k < NV * NV; k++) { dset(D_Q_M, k, e, 0.0); }
  for (var i = 0; i < NV; i++) {
    let buf = mul_inert_vec(ld10(D_CRB, mn(M_DOF_BODYID, i), e), ld6(D_CDOF, i, e));
    var j = i;
    while (j >= 0) {
      let v = dot6(ld6(D_CDOF, j, e), buf);
      dset(D_Q_M, i * NV + j, e, v);
      dset(D_Q_M, j * NV + i, e, v);
      j = mn(M_DOF_PARENTID, j);
    }
    dset(D_Q_M, i * NV + i, e, dget(D_Q_M, i * NV + i, e) + mr(M_DOF_ARMATURE, i));
  }`,
};
