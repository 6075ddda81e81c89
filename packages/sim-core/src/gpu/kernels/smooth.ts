/**
 * WGSL twins of the smooth (constraint-free) CPU stages, one kernel per stage under the same name.
 * One invocation steps one env through the stage serially over bodies and dofs, exactly as the CPU stage
 * does for that env, so per-kernel GPU time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../runtime.js';
import { WGSL_MATH } from '../wgsl-math.js';
import { SPATIAL_TENDON_STUB_WGSL, SPATIAL_TENDON_WGSL, TENDON_USE_WGSL } from './tendon.js';

const LDL = /* wgsl */ `
// In-place L'DL factorisation of the nv x nv matrix at 'base' (MuJoCo's tree-sparse order: rows follow
// dof_parentid chains). Afterwards the strict lower part holds L and the diagonal holds D.
fn ldl_factor(base: u32, e: u32) {
  for (var k = NV - 1; k >= 0; k--) {
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) {
      let tmp = dget(base, k * NV + i, e) / dget(base, k * NV + k, e);
      var j = i;
      while (j >= 0) {
        dset(base, i * NV + j, e, dget(base, i * NV + j, e) - tmp * dget(base, k * NV + j, e));
        j = mn(M_DOF_PARENTID, j);
      }
      dset(base, k * NV + i, e, tmp);
      i = mn(M_DOF_PARENTID, i);
    }
  }
}
// x <- (L'DL)^-1 x for the factor at 'ld' and the nv-vector field at 'x'.
fn ldl_solve(ld: u32, x: u32, e: u32) {
  for (var k = NV - 1; k >= 0; k--) {
    let xk = dget(x, k, e);
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) { dset(x, i, e, dget(x, i, e) - dget(ld, k * NV + i, e) * xk); i = mn(M_DOF_PARENTID, i); }
  }
  for (var k = 0; k < NV; k++) { dset(x, k, e, dget(x, k, e) / dget(ld, k * NV + k, e)); }
  for (var k = 0; k < NV; k++) {
    var s = dget(x, k, e);
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) { s -= dget(ld, k * NV + i, e) * dget(x, i, e); i = mn(M_DOF_PARENTID, i); }
    dset(x, k, e, s);
  }
}
`;

export const SMOOTH_HELPERS = WGSL_MATH + LDL;

const kinematics: KernelDef = {
  name: 'kinematics',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  let ident = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
  st3(D_XPOS, 0, e, vec3<f32>(0.0)); st4(D_XQUAT, 0, e, vec4<f32>(1.0, 0.0, 0.0, 0.0)); stmat(D_XMAT, 0, e, ident);
  st3(D_XIPOS, 0, e, vec3<f32>(0.0)); stmat(D_XIMAT, 0, e, ident);
  for (var b = 1; b < NBODY; b++) {
    let pid = mn(M_BODY_PARENTID, b);
    let jadr = mn(M_BODY_JNTADR, b);
    let jnum = mn(M_BODY_JNTNUM, b);
    var pos: vec3<f32>;
    var quat: vec4<f32>;
    if (jnum > 0 && mn(M_JNT_TYPE, jadr) == 0) {
      let qa = mn(M_JNT_QPOSADR, jadr);
      pos = vec3<f32>(dget(D_QPOS, qa, e), dget(D_QPOS, qa + 1, e), dget(D_QPOS, qa + 2, e));
      quat = quat_normalize(vec4<f32>(dget(D_QPOS, qa + 3, e), dget(D_QPOS, qa + 4, e), dget(D_QPOS, qa + 5, e), dget(D_QPOS, qa + 6, e)));
      st3(D_XANCHOR, jadr, e, pos);
      st3(D_XAXIS, jadr, e, m3(M_JNT_AXIS, jadr));
    } else {
      let pquat = ld4(D_XQUAT, pid, e);
      pos = ld3(D_XPOS, pid, e) + quat_rotate(pquat, m3(M_BODY_POS, b));
      quat = quat_mul(pquat, m4(M_BODY_QUAT, b));
      for (var j = jadr; j < jadr + jnum; j++) {
        let qa = mn(M_JNT_QPOSADR, j);
        let jtype = mn(M_JNT_TYPE, j);
        let axis = m3(M_JNT_AXIS, j);
        let jpos = m3(M_JNT_POS, j);
        let anchor = quat_rotate(quat, jpos) + pos;
        let xaxis = quat_rotate(quat, axis);
        st3(D_XANCHOR, j, e, anchor);
        st3(D_XAXIS, j, e, xaxis);
        if (jtype == 2) {
          pos += xaxis * (dget(D_QPOS, qa, e) - mr(M_QPOS0, qa));
        } else if (jtype == 3) {
          quat = quat_mul(quat, axis_angle_quat(axis, dget(D_QPOS, qa, e) - mr(M_QPOS0, qa)));
          pos = anchor - quat_rotate(quat, jpos);
        } else if (jtype == 1) {
          quat = quat_mul(quat, quat_normalize(vec4<f32>(dget(D_QPOS, qa, e), dget(D_QPOS, qa + 1, e), dget(D_QPOS, qa + 2, e), dget(D_QPOS, qa + 3, e))));
          pos = anchor - quat_rotate(quat, jpos);
        }
      }
    }
    quat = quat_normalize(quat);
    st3(D_XPOS, b, e, pos);
    st4(D_XQUAT, b, e, quat);
    stmat(D_XMAT, b, e, quat_to_mat(quat));
    st3(D_XIPOS, b, e, pos + quat_rotate(quat, m3(M_BODY_IPOS, b)));
    stmat(D_XIMAT, b, e, quat_to_mat(quat_mul(quat, m4(M_BODY_IQUAT, b))));
  }
  for (var g = 0; g < NGEOM; g++) {
    let b = mn(M_GEOM_BODYID, g);
    let q = ld4(D_XQUAT, b, e);
    st3(D_GEOM_XPOS, g, e, ld3(D_XPOS, b, e) + quat_rotate(q, m3(M_GEOM_POS, g)));
    stmat(D_GEOM_XMAT, g, e, quat_to_mat(quat_mul(q, m4(M_GEOM_QUAT, g))));
  }
  for (var s = 0; s < NSITE; s++) {
    let b = mn(M_SITE_BODYID, s);
    let q = ld4(D_XQUAT, b, e);
    st3(D_SITE_XPOS, s, e, ld3(D_XPOS, b, e) + quat_rotate(q, m3(M_SITE_POS, s)));
    stmat(D_SITE_XMAT, s, e, quat_to_mat(quat_mul(q, m4(M_SITE_QUAT, s))));
  }`,
};

/** `com`, with the spatial tendons' paths and wraps or (`spatial` false) without them. */
export function comKernel(spatial: boolean): KernelDef {
  return {
    name: 'com',
    helpers: SMOOTH_HELPERS + (spatial ? SPATIAL_TENDON_WGSL : SPATIAL_TENDON_STUB_WGSL),
    body: /* wgsl */ `
  for (var b = 0; b < NBODY; b++) { st3(D_SUBTREE_COM, b, e, mr(M_BODY_MASS, b) * ld3(D_XIPOS, b, e)); }
  for (var b = NBODY - 1; b > 0; b--) {
    let p = mn(M_BODY_PARENTID, b);
    st3(D_SUBTREE_COM, p, e, ld3(D_SUBTREE_COM, p, e) + ld3(D_SUBTREE_COM, b, e));
  }
  for (var b = 0; b < NBODY; b++) {
    let sm = mr(M_BODY_SUBTREEMASS, b);
    if (sm >= 1e-15) { st3(D_SUBTREE_COM, b, e, ld3(D_SUBTREE_COM, b, e) / sm); } else { st3(D_SUBTREE_COM, b, e, ld3(D_XIPOS, b, e)); }
  }
  for (var k = 0; k < 10; k++) { dset(D_CINERT, k, e, 0.0); }
  for (var b = 1; b < NBODY; b++) {
    let mass = mr(M_BODY_MASS, b);
    let R = ldmat(D_XIMAT, b, e);
    let I = m3(M_BODY_INERTIA, b);
    let t = R * mat3x3<f32>(vec3<f32>(I.x, 0.0, 0.0), vec3<f32>(0.0, I.y, 0.0), vec3<f32>(0.0, 0.0, I.z)) * transpose(R);
    let d = ld3(D_XIPOS, b, e) - ld3(D_SUBTREE_COM, mn(M_BODY_ROOTID, b), e);
    let o = 10 * b;
    dset(D_CINERT, o + 0, e, t[0][0] + mass * (d.y * d.y + d.z * d.z));
    dset(D_CINERT, o + 1, e, t[1][1] + mass * (d.x * d.x + d.z * d.z));
    dset(D_CINERT, o + 2, e, t[2][2] + mass * (d.x * d.x + d.y * d.y));
    dset(D_CINERT, o + 3, e, t[1][0] - mass * d.x * d.y);
    dset(D_CINERT, o + 4, e, t[2][0] - mass * d.x * d.z);
    dset(D_CINERT, o + 5, e, t[2][1] - mass * d.y * d.z);
    dset(D_CINERT, o + 6, e, mass * d.x);
    dset(D_CINERT, o + 7, e, mass * d.y);
    dset(D_CINERT, o + 8, e, mass * d.z);
    dset(D_CINERT, o + 9, e, mass);
    let jadr = mn(M_BODY_JNTADR, b);
    for (var j = jadr; j < jadr + mn(M_BODY_JNTNUM, b); j++) {
      let da = mn(M_JNT_DOFADR, j);
      let jtype = mn(M_JNT_TYPE, j);
      let offset = ld3(D_SUBTREE_COM, mn(M_BODY_ROOTID, b), e) - ld3(D_XANCHOR, j, e);
      var rot0 = da;
      if (jtype == 0) {
        for (var k = 0; k < 3; k++) {
          // Explicitly zeroed: lavapipe reused the previous iteration's array for a bare declaration.
          var v = array<f32, 6>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
          v[3 + k] = 1.0;
          st6(D_CDOF, da + k, e, v);
        }
        rot0 = da + 3;
      }
      if (jtype == 0 || jtype == 1) {
        let xm = ldmat(D_XMAT, b, e);
        for (var k = 0; k < 3; k++) {
          let axis = xm[k];
          let lin = cross(axis, offset);
          st6(D_CDOF, rot0 + k, e, array<f32, 6>(axis.x, axis.y, axis.z, lin.x, lin.y, lin.z));
        }
      } else if (jtype == 2) {
        let axis = ld3(D_XAXIS, j, e);
        st6(D_CDOF, da, e, array<f32, 6>(0.0, 0.0, 0.0, axis.x, axis.y, axis.z));
      } else {
        let axis = ld3(D_XAXIS, j, e);
        let lin = cross(axis, offset);
        st6(D_CDOF, da, e, array<f32, 6>(axis.x, axis.y, axis.z, lin.x, lin.y, lin.z));
      }
    }
  }
  spatial_tendons(e);`,
};
}

const com = comKernel(true);

const crb: KernelDef = {
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

const factorM: KernelDef = {
  name: 'factor_m',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  for (var k = 0; k < NV * NV; k++) { dset(D_Q_LD, k, e, dget(D_Q_M, k, e)); }
  ldl_factor(D_Q_LD, e);
  for (var k = 0; k < NV; k++) { dset(D_Q_LDIAG_INV, k, e, 1.0 / dget(D_Q_LD, k * NV + k, e)); }`,
};

const passive: KernelDef = {
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

const actuation: KernelDef = {
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

const rne: KernelDef = {
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

const smoothAcc: KernelDef = {
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

const integrate: KernelDef = {
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

export const SMOOTH_KERNELS = { kinematics, com, crb, factorM, passive, actuation, rne, smoothAcc, integrate };
