/**
 * WGSL twin of stage `passive` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';
import { TENDON_USE_WGSL } from '../../gpu/kernels/tendon.js';

export const passiveKernel: KernelDef = {
  name: 'passive',
  helpers: SMOOTH_HELPERS + TENDON_USE_WGSL,
  body: /* wgsl */ `
  for (var d = 0; d < NV; d++) { dset(D_QFRC_PASSIVE, d, e, -mr(M_DOF_DAMPING, d) * dget(D_QVEL, d, e)); }
  for (var j = 0; j < NJNT; j++) {
    let jtype = mn(M_JNT_TYPE, j);
    let k = mr(M_JNT_STIFFNESS, j);
    if (k == 0.0) { continue; }
    let qa = mn(M_JNT_QPOSADR, j);
    let da = mn(M_JNT_DOFADR, j);
    if (jtype >= 2) {
      dset(D_QFRC_PASSIVE, da, e, dget(D_QFRC_PASSIVE, da, e) - k * (dget(D_QPOS, qa, e) - mr(M_QPOS_SPRING, qa)));
      continue;
    }
    // Free joint: a linear spring on the position first. Free and ball: as MuJoCo, the rotation vector from the
    // spring quaternion to the normalized qpos quaternion.
    var qr = qa;
    var dr = da;
    if (jtype == 0) {
      for (var c = 0; c < 3; c++) {
        dset(D_QFRC_PASSIVE, da + c, e, dget(D_QFRC_PASSIVE, da + c, e) - k * (dget(D_QPOS, qa + c, e) - mr(M_QPOS_SPRING, qa + c)));
      }
      qr = qa + 3;
      dr = da + 3;
    }
    var q = vec4<f32>(dget(D_QPOS, qr, e), dget(D_QPOS, qr + 1, e), dget(D_QPOS, qr + 2, e), dget(D_QPOS, qr + 3, e));
    let nrm = length(q);
    if (nrm < 1e-15) { q = vec4<f32>(1.0, 0.0, 0.0, 0.0); } else { q = q / nrm; }
    let sp = vec4<f32>(mr(M_QPOS_SPRING, qr), -mr(M_QPOS_SPRING, qr + 1), -mr(M_QPOS_SPRING, qr + 2), -mr(M_QPOS_SPRING, qr + 3));
    let dif = quat_mul(sp, q);
    var axis = dif.yzw;
    let sinHalf = length(axis);
    if (sinHalf < 1e-15) { axis = vec3<f32>(1.0, 0.0, 0.0); } else { axis = axis / sinHalf; }
    var angle = 2.0 * atan2(sinHalf, dif.x);
    if (angle > 3.14159265358979) { angle -= 6.28318530717959; }
    for (var c = 0; c < 3; c++) {
      dset(D_QFRC_PASSIVE, dr + c, e, dget(D_QFRC_PASSIVE, dr + c, e) - k * axis[c] * angle);
    }
  }
  // Tendons: J' * (spring outside the dead band - damping * tendon velocity), as passive.ts; a spatial one's
  // length and J from com (its wraps are no joints, so the joint loops are empty for it).
  for (var t = 0; t < NTENDON; t++) {
    let k = mr(M_TENDON_STIFFNESS, t);
    let b = mr(M_TENDON_DAMPING, t);
    if (k == 0.0 && b == 0.0) { continue; }
    let spatial = ten_is_spatial(t);
    let adr = mn(M_TENDON_ADR, t);
    let end = select(adr + mn(M_TENDON_NUM, t), adr, spatial);
    var len = 0.0;
    var vel = 0.0;
    if (spatial) { len = dget(D_TEN_LENGTH, t, e); vel = ten_velocity(t, e); }
    for (var w = adr; w < end; w++) {
      let j = mn(M_WRAP_OBJID, w);
      let c = mr(M_WRAP_PRM, w);
      len += c * dget(D_QPOS, mn(M_JNT_QPOSADR, j), e);
      vel += c * dget(D_QVEL, mn(M_JNT_DOFADR, j), e);
    }
    let lo = mr(M_TENDON_LENGTHSPRING, 2 * t);
    let hi = mr(M_TENDON_LENGTHSPRING, 2 * t + 1);
    var spring = 0.0;
    if (len > hi) { spring = k * (hi - len); } else if (len < lo) { spring = k * (lo - len); }
    let f = spring - b * vel;
    if (spatial) { ten_add(D_QFRC_PASSIVE, t, 1.0, f, e); }
    for (var w = adr; w < end; w++) {
      let d = mn(M_JNT_DOFADR, mn(M_WRAP_OBJID, w));
      dset(D_QFRC_PASSIVE, d, e, dget(D_QFRC_PASSIVE, d, e) + mr(M_WRAP_PRM, w) * f);
    }
  }`,
};
