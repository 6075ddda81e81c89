/**
 * WGSL twin of stage `integrate` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const integrateKernel: KernelDef = {
  name: 'integrate',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  let h = OPT_TIMESTEP;
  // Euler with implicit joint damping (eulerdamp) or implicitfast: qacc solved with M - h * qDeriv.
  var damped = false;
  if (OPT_INTEGRATOR == 3) { damped = true; }
  if (OPT_INTEGRATOR == 0 && OPT_EULERDAMP != 0) {
    for (var d = 0; d < NV; d++) { if (mr(M_DOF_DAMPING, d) > 0.0) { damped = true; } }
  }
  for (var d = 0; d < NV; d++) { dset(D_SOL_QFRC, d, e, dget(D_QACC, d, e)); dset(D_QACC_WARMSTART, d, e, dget(D_QACC, d, e)); }
  if (damped) {
    for (var k = 0; k < NV * NV; k++) { dset(D_SOL_H, k, e, dget(D_Q_M, k, e)); }
    for (var d = 0; d < NV; d++) {
      var dd = mr(M_DOF_DAMPING, d);
      if (OPT_INTEGRATOR == 3) { dd = -dget(D_Q_DERIV, d, e); }
      dset(D_SOL_H, d * NV + d, e, dget(D_SOL_H, d * NV + d, e) + h * dd);
      dset(D_SOL_QFRC, d, e, dget(D_QFRC_SMOOTH, d, e) + dget(D_QFRC_CONSTRAINT, d, e));
    }
    ldl_factor(D_SOL_H, e);
    ldl_solve(D_SOL_H, D_SOL_QFRC, e);
  }
  var bad = 0;
  for (var d = 0; d < NV; d++) {
    let v = dget(D_QVEL, d, e) + h * dget(D_SOL_QFRC, d, e);
    dset(D_QVEL, d, e, v);
    if ((bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u) { bad = bad | 1; } else if (abs(v) > OPT_BLOWUP) { bad = bad | 2; }
  }
  for (var j = 0; j < NJNT; j++) {
    let jtype = mn(M_JNT_TYPE, j);
    let qa = mn(M_JNT_QPOSADR, j);
    let da = mn(M_JNT_DOFADR, j);
    var qrot = qa;
    var vrot = da;
    if (jtype == 0) {
      for (var k = 0; k < 3; k++) { dset(D_QPOS, qa + k, e, dget(D_QPOS, qa + k, e) + h * dget(D_QVEL, da + k, e)); }
      qrot = qa + 3;
      vrot = da + 3;
    }
    if (jtype == 0 || jtype == 1) {
      let w = vec3<f32>(dget(D_QVEL, vrot, e), dget(D_QVEL, vrot + 1, e), dget(D_QVEL, vrot + 2, e));
      var q = vec4<f32>(dget(D_QPOS, qrot, e), dget(D_QPOS, qrot + 1, e), dget(D_QPOS, qrot + 2, e), dget(D_QPOS, qrot + 3, e));
      let n = length(w);
      if (n > 1e-15) { q = quat_mul(q, axis_angle_quat(w / n, n * h)); }
      q = quat_normalize(q);
      for (var k = 0; k < 4; k++) { dset(D_QPOS, qrot + k, e, q[k]); }
    } else {
      dset(D_QPOS, qa, e, dget(D_QPOS, qa, e) + h * dget(D_QVEL, da, e));
    }
  }
  for (var k = 0; k < NQ; k++) {
    let q = dget(D_QPOS, k, e);
    if ((bitcast<u32>(q) & 0x7f800000u) == 0x7f800000u) { bad = bad | 1; } else if (abs(q) > OPT_BLOWUP) { bad = bad | 2; }
  }
  dset(D_TIME, 0, e, dget(D_TIME, 0, e) + h);
  if (bad != 0) { iset(D_ERR_FLAGS, 0, e, iget(D_ERR_FLAGS, 0, e) | bad); }`,
};
