/**
 * WGSL twin of stage `rne` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const rneKernel: KernelDef = {
  name: 'rne',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  // mj_comVel: body velocities and cdof_dot.
  let zero = array<f32, 6>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  st6(D_CVEL, 0, e, zero);
  for (var b = 1; b < NBODY; b++) {
    var cvel = ld6(D_CVEL, mn(M_BODY_PARENTID, b), e);
    let jadr = mn(M_BODY_JNTADR, b);
    for (var j = jadr; j < jadr + mn(M_BODY_JNTNUM, b); j++) {
      let jtype = mn(M_JNT_TYPE, j);
      var da = mn(M_JNT_DOFADR, j);
      var n = 1;
      if (jtype == 0) {
        for (var k = 0; k < 3; k++) {
          st6(D_CDOF_DOT, da + k, e, zero);
          let cd = ld6(D_CDOF, da + k, e);
          let qv = dget(D_QVEL, da + k, e);
          for (var t = 0; t < 6; t++) { cvel[t] += cd[t] * qv; }
        }
        da += 3;
        n = 3;
      } else if (jtype == 1) {
        n = 3;
      }
      // The rotational dofs of a ball or free joint all see the velocity before any of them is added.
      for (var k = 0; k < n; k++) { st6(D_CDOF_DOT, da + k, e, cross_motion(cvel, ld6(D_CDOF, da + k, e))); }
      for (var k = 0; k < n; k++) {
        let cd = ld6(D_CDOF, da + k, e);
        let qv = dget(D_QVEL, da + k, e);
        for (var t = 0; t < 6; t++) { cvel[t] += cd[t] * qv; }
      }
    }
    st6(D_CVEL, b, e, cvel);
  }
  // mj_rne without acceleration: qfrc_bias = gravity + Coriolis + centrifugal.
  st6(D_CACC, 0, e, array<f32, 6>(0.0, 0.0, 0.0, -OPT_GRAVITY_X, -OPT_GRAVITY_Y, -OPT_GRAVITY_Z));
  for (var b = 1; b < NBODY; b++) {
    var acc = ld6(D_CACC, mn(M_BODY_PARENTID, b), e);
    let da = mn(M_BODY_DOFADR, b);
    for (var d = da; d < da + mn(M_BODY_DOFNUM, b); d++) {
      let cdd = ld6(D_CDOF_DOT, d, e);
      let qv = dget(D_QVEL, d, e);
      for (var t = 0; t < 6; t++) { acc[t] += cdd[t] * qv; }
    }
    st6(D_CACC, b, e, acc);
    let inert = ld10(D_CINERT, b, e);
    let cvel = ld6(D_CVEL, b, e);
    let f1 = mul_inert_vec(inert, acc);
    let f2 = cross_force(cvel, mul_inert_vec(inert, cvel));
    var f: array<f32, 6>;
    for (var t = 0; t < 6; t++) { f[t] = f1[t] + f2[t]; }
    st6(D_CFRC_BODY, b, e, f);
  }
  for (var b = NBODY - 1; b > 0; b--) {
    let p = mn(M_BODY_PARENTID, b);
    if (p > 0) { for (var t = 0; t < 6; t++) { dset(D_CFRC_BODY, 6 * p + t, e, dget(D_CFRC_BODY, 6 * p + t, e) + dget(D_CFRC_BODY, 6 * b + t, e)); } }
  }
  for (var d = 0; d < NV; d++) { dset(D_QFRC_BIAS, d, e, dot6(ld6(D_CDOF, d, e), ld6(D_CFRC_BODY, mn(M_DOF_BODYID, d), e))); }`,
};
