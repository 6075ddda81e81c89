/**
 * WGSL twin of stage `actuation` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';
import { TENDON_USE_WGSL } from '../../gpu/kernels/tendon.js';

export const actuationKernel: KernelDef = {
  name: 'actuation',
  helpers: SMOOTH_HELPERS + TENDON_USE_WGSL,
  body: /* wgsl */ `
  for (var d = 0; d < NV; d++) { dset(D_QFRC_ACTUATOR, d, e, 0.0); dset(D_Q_DERIV, d, e, -mr(M_DOF_DAMPING, d)); }
  // As MuJoCo (and the CPU stage): one NaN, Inf or |ctrl| > 1e10 after clamping zeroes every ctrl of the env.
  var badCtrl = false;
  for (var u = 0; u < NU; u++) {
    var c = dget(D_CTRL, u, e);
    if ((bitcast<u32>(c) & 0x7f800000u) == 0x7f800000u) { badCtrl = true; continue; }
    if (mn(M_ACTUATOR_CTRLLIMITED, u) != 0) { c = clamp(c, mr(M_ACTUATOR_CTRLRANGE, 2 * u), mr(M_ACTUATOR_CTRLRANGE, 2 * u + 1)); }
    if (abs(c) > 1e10) { badCtrl = true; }
  }
  for (var u = 0; u < NU; u++) {
    // An actuator on a tendon (trntype 3), as the CPU stage: gear * the tendon's length and velocity, its
    // force through gear * coef on each of the tendon's joints (spatial: gear * J on every dof); no dof
    // controller silences it, no qDeriv term.
    if (mn(M_ACTUATOR_TRNTYPE, u) == 3) {
      let t = mn(M_ACTUATOR_TRNID, 2 * u);
      let spatial = ten_is_spatial(t);
      let adr = mn(M_TENDON_ADR, t);
      let end = select(adr + mn(M_TENDON_NUM, t), adr, spatial);
      let tgear = mr(M_ACTUATOR_GEAR, 6 * u);
      var tlen = 0.0;
      var tvel = 0.0;
      if (spatial) { tlen = dget(D_TEN_LENGTH, t, e); tvel = ten_velocity(t, e); }
      for (var w = adr; w < end; w++) {
        let jw = mn(M_WRAP_OBJID, w);
        tlen += mr(M_WRAP_PRM, w) * dget(D_QPOS, mn(M_JNT_QPOSADR, jw), e);
        tvel += mr(M_WRAP_PRM, w) * dget(D_QVEL, mn(M_JNT_DOFADR, jw), e);
      }
      tlen *= tgear;
      tvel *= tgear;
      dset(D_ACTUATOR_LENGTH, u, e, tlen);
      dset(D_ACTUATOR_VELOCITY, u, e, tvel);
      var tc = 0.0;
      if (!badCtrl) {
        tc = dget(D_CTRL, u, e);
        if (mn(M_ACTUATOR_CTRLLIMITED, u) != 0) { tc = clamp(tc, mr(M_ACTUATOR_CTRLRANGE, 2 * u), mr(M_ACTUATOR_CTRLRANGE, 2 * u + 1)); }
      }
      var tf = mr(M_ACTUATOR_GAINPRM, 10 * u) * tc;
      if (mn(M_ACTUATOR_BIASTYPE, u) == 1) {
        tf += mr(M_ACTUATOR_BIASPRM, 10 * u) + mr(M_ACTUATOR_BIASPRM, 10 * u + 1) * tlen + mr(M_ACTUATOR_BIASPRM, 10 * u + 2) * tvel;
      }
      if (mn(M_ACTUATOR_FORCELIMITED, u) != 0) { tf = clamp(tf, mr(M_ACTUATOR_FORCERANGE, 2 * u), mr(M_ACTUATOR_FORCERANGE, 2 * u + 1)); }
      dset(D_ACTUATOR_FORCE, u, e, tf);
      if (spatial) { ten_add(D_QFRC_ACTUATOR, t, tgear, tf, e); }
      for (var w = adr; w < end; w++) {
        let dw = mn(M_JNT_DOFADR, mn(M_WRAP_OBJID, w));
        dset(D_QFRC_ACTUATOR, dw, e, dget(D_QFRC_ACTUATOR, dw, e) + tgear * mr(M_WRAP_PRM, w) * tf);
      }
      continue;
    }
    let j = mn(M_ACTUATOR_TRNID, 2 * u);
    let d = mn(M_JNT_DOFADR, j);
    let qa = mn(M_JNT_QPOSADR, j);
    let gear = mr(M_ACTUATOR_GEAR, 6 * u);
    let len = gear * dget(D_QPOS, qa, e);
    let vel = gear * dget(D_QVEL, d, e);
    dset(D_ACTUATOR_LENGTH, u, e, len);
    dset(D_ACTUATOR_VELOCITY, u, e, vel);
    if (iget(D_DOF_CTRL_MODE, d, e) != 0) { dset(D_ACTUATOR_FORCE, u, e, 0.0); continue; }
    var c = 0.0;
    if (!badCtrl) {
      c = dget(D_CTRL, u, e);
      if (mn(M_ACTUATOR_CTRLLIMITED, u) != 0) { c = clamp(c, mr(M_ACTUATOR_CTRLRANGE, 2 * u), mr(M_ACTUATOR_CTRLRANGE, 2 * u + 1)); }
    }
    var f = mr(M_ACTUATOR_GAINPRM, 10 * u) * c;
    if (mn(M_ACTUATOR_BIASTYPE, u) == 1) {
      f += mr(M_ACTUATOR_BIASPRM, 10 * u) + mr(M_ACTUATOR_BIASPRM, 10 * u + 1) * len + mr(M_ACTUATOR_BIASPRM, 10 * u + 2) * vel;
      dset(D_Q_DERIV, d, e, dget(D_Q_DERIV, d, e) + gear * gear * mr(M_ACTUATOR_BIASPRM, 10 * u + 2));
    }
    if (mn(M_ACTUATOR_FORCELIMITED, u) != 0) { f = clamp(f, mr(M_ACTUATOR_FORCERANGE, 2 * u), mr(M_ACTUATOR_FORCERANGE, 2 * u + 1)); }
    dset(D_ACTUATOR_FORCE, u, e, f);
    dset(D_QFRC_ACTUATOR, d, e, dget(D_QFRC_ACTUATOR, d, e) + gear * f);
  }
  // MuJoCo's joint-level clamp (actuatorfrcrange, URDF effort) at hinge and slide joints, as the CPU stage
  for (var j = 0; j < NJNT; j++) {
    if (mn(M_JNT_ACTFRCLIMITED, j) == 0 || mn(M_JNT_TYPE, j) < 2) { continue; }
    let d = mn(M_JNT_DOFADR, j);
    dset(D_QFRC_ACTUATOR, d, e, clamp(dget(D_QFRC_ACTUATOR, d, e), mr(M_JNT_ACTFRCRANGE, 2 * j), mr(M_JNT_ACTFRCRANGE, 2 * j + 1)));
  }
  for (var d = 0; d < NV; d++) {
    let mode = iget(D_DOF_CTRL_MODE, d, e);
    if (mode == 0) { continue; }
    let kp = dget(D_DOF_KP, d, e);
    let kv = dget(D_DOF_KV, d, e);
    let v = dget(D_QVEL, d, e);
    var f = 0.0;
    if (mode == 1) {
      let q = dget(D_QPOS, mn(M_JNT_QPOSADR, mn(M_DOF_JNTID, d)), e);
      f = kp * (dget(D_DOF_CTRL_POS, d, e) - q) - kv * (v - dget(D_DOF_CTRL_VEL, d, e));
      dset(D_Q_DERIV, d, e, dget(D_Q_DERIV, d, e) - kv);
    } else if (mode == 2) {
      f = kv * (dget(D_DOF_CTRL_VEL, d, e) - v);
      dset(D_Q_DERIV, d, e, dget(D_Q_DERIV, d, e) - kv);
    } else {
      f = dget(D_DOF_CTRL_FORCE, d, e);
    }
    f = clamp(f, dget(D_DOF_FORCE_RANGE, 2 * d, e), dget(D_DOF_FORCE_RANGE, 2 * d + 1, e));
    dset(D_QFRC_ACTUATOR, d, e, dget(D_QFRC_ACTUATOR, d, e) + f);
  }`,
};
