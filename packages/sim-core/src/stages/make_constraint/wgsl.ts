/**
 * WGSL twin of stage `make_constraint` (cpu.ts beside it): one invocation per env builds its
 * rows in MuJoCo's order: joint equalities, dof friction loss, joint limits, contacts (frictionless: 1 row,
 * pyramidal: 2*(condim-1) rows, elliptic when OPT_CONE == 1: condim rows, the normal then the frame's
 * frictional directions). Per row: efcJ (dense MAXEFC x NV per env), efcPos, efcMargin,
 * efcFrictionloss, efcType, efcId and the soft-constraint terms efcR, efcD, efcAref (solver/impedance.ts),
 * diagApprox from dof/body invweight0. A constraint whose rows do not all fit in MAXEFC is dropped whole and
 * sets errFlags bit 2 (value 4); no later constraint is added.
 * The contact's point Jacobian difference is kept in the Data scratch field conJac.
 * Not mirrored: equality types other than joint, connect and weld.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { WGSL_MATH } from '../../gpu/wgsl-math.js';
import { TENDON_USE_WGSL } from '../../gpu/kernels/tendon.js';

export const IMPEDANCE_WGSL = /* wgsl */ `
const MINVAL_I: f32 = 1e-15;
const MINIMP: f32 = 0.0001;
const MAXIMP: f32 = 0.9999;
struct Solimp { dmin: f32, dmax: f32, width: f32, mid: f32, power: f32 }

fn clamp_solimp(s: Solimp) -> Solimp {
  return Solimp(clamp(s.dmin, MINIMP, MAXIMP), clamp(s.dmax, MINIMP, MAXIMP), max(0.0, s.width),
    clamp(s.mid, MINIMP, MAXIMP), max(1.0, s.power));
}
// Mixed signs fall back to (0.02, 1); a time constant below 2 timesteps is raised to it.
fn safe_solref(s: vec2<f32>) -> vec2<f32> {
  var r = s;
  if ((r.x > 0.0) != (r.y > 0.0)) { r = vec2<f32>(0.02, 1.0); }
  if (r.x > 0.0) { r.x = max(r.x, 2.0 * OPT_TIMESTEP); }
  return r;
}
fn imp_power(a: f32, b: f32) -> f32 {
  if (b == 1.0) { return a; }
  if (b == 2.0) { return a * a; }
  return pow(a, b);
}
fn impedance(s: Solimp, pos: f32, margin: f32) -> f32 {
  if (s.dmin == s.dmax || s.width <= MINVAL_I) { return 0.5 * (s.dmin + s.dmax); }
  let x = abs((pos - margin) / s.width);
  if (x >= 1.0) { return s.dmax; }
  if (x <= 0.0) { return s.dmin; }
  var y: f32;
  if (s.power == 1.0) { y = x; }
  else if (x <= s.mid) { y = (1.0 / imp_power(s.mid, s.power - 1.0)) * imp_power(x, s.power); }
  else { y = 1.0 - (1.0 / imp_power(1.0 - s.mid, s.power - 1.0)) * imp_power(1.0 - x, s.power); }
  return s.dmin + y * (s.dmax - s.dmin);
}
fn ref_stiffness(r: vec2<f32>, s: Solimp) -> f32 {
  if (r.x > 0.0) { return 1.0 / max(MINVAL_I, s.dmax * s.dmax * r.x * r.x * r.y * r.y); }
  return -r.x / max(MINVAL_I, s.dmax * s.dmax);
}
fn ref_damping(r: vec2<f32>, s: Solimp) -> f32 {
  if (r.y > 0.0) { return 2.0 / max(MINVAL_I, s.dmax * r.x); }
  return -r.y / max(MINVAL_I, s.dmax);
}
fn regularizer(imp: f32, diag: f32) -> f32 { return max(MINVAL_I, (1.0 - imp) * diag / imp); }
`;

const MAKE_CONSTRAINT_HELPERS = /* wgsl */ `
var<private> mc_nefc: i32;
var<private> mc_full: bool;

fn model_solimp(base: i32, k: i32) -> Solimp {
  return Solimp(mr(base, 5 * k), mr(base, 5 * k + 1), mr(base, 5 * k + 2), mr(base, 5 * k + 3), mr(base, 5 * k + 4));
}

// The first of 'count' new rows, or -1 (the env then is full and flagged): a constraint is complete or absent.
fn alloc_rows(count: i32, e: u32) -> i32 {
  if (mc_nefc + count > MAXEFC) {
    mc_full = true;
    iset(D_ERR_FLAGS, 0, e, iget(D_ERR_FLAGS, 0, e) | 4);
    return -1;
  }
  let r = mc_nefc;
  mc_nefc += count;
  return r;
}

fn zero_row(r: i32, e: u32) { for (var j = 0; j < NV; j++) { dset(D_EFC_J, r * NV + j, e, 0.0); } }

// Everything of row r but its Jacobian (already in efcJ): aref from the row's velocity J qvel.
fn finish_row(r: i32, e: u32, typ: i32, id: i32, pos: f32, margin: f32, floss: f32, R: f32, K: f32, B: f32, imp: f32) {
  var vel = 0.0;
  for (var j = 0; j < NV; j++) { vel += dget(D_EFC_J, r * NV + j, e) * dget(D_QVEL, j, e); }
  iset(D_EFC_TYPE, r, e, typ);
  iset(D_EFC_ID, r, e, id);
  dset(D_EFC_POS, r, e, pos);
  dset(D_EFC_MARGIN, r, e, margin);
  dset(D_EFC_FRICTIONLOSS, r, e, floss);
  dset(D_EFC_R, r, e, R);
  dset(D_EFC_D, r, e, 1.0 / R);
  dset(D_EFC_AREF, r, e, -B * vel - K * imp * (pos - margin));
}

// A scalar row (equality, friction loss, limit) with its own impedance.
fn scalar_row(r: i32, e: u32, typ: i32, id: i32, pos: f32, margin: f32, floss: f32, diag: f32, sr0: vec2<f32>, si0: Solimp) {
  let sr = safe_solref(sr0);
  let si = clamp_solimp(si0);
  let imp = impedance(si, pos, margin);
  var K = ref_stiffness(sr, si);
  if (typ == 1 || typ == 2) { K = 0.0; }
  finish_row(r, e, typ, id, pos, margin, floss, regularizer(imp, diag), K, ref_damping(sr, si), imp);
}

fn equality_rows(e: u32) {
  for (var i = 0; i < NEQ; i++) {
    if (mc_full) { return; }
    if (mn(M_EQ_ACTIVE0, i) == 0) { continue; }
    if (mn(M_EQ_TYPE, i) == 0) { connect_rows(i, e); continue; }
    if (mn(M_EQ_TYPE, i) == 1) { weld_rows(i, e); continue; }
    if (mn(M_EQ_TYPE, i) != 2) { continue; }
    let j1 = mn(M_EQ_OBJ1ID, i);
    let j2 = mn(M_EQ_OBJ2ID, i);
    let c = 11 * i;
    let dof1 = mn(M_JNT_DOFADR, j1);
    let qa1 = mn(M_JNT_QPOSADR, j1);
    let q1 = dget(D_QPOS, qa1, e) - mr(M_QPOS0, qa1);
    var pos: f32;
    var dA = mr(M_DOF_INVWEIGHT0, dof1);
    var dof2 = -1;
    var deriv = 0.0;
    if (j2 >= 0) {
      dof2 = mn(M_JNT_DOFADR, j2);
      let qa2 = mn(M_JNT_QPOSADR, j2);
      let x = dget(D_QPOS, qa2, e) - mr(M_QPOS0, qa2);
      let a0 = mr(M_EQ_DATA, c); let a1 = mr(M_EQ_DATA, c + 1); let a2 = mr(M_EQ_DATA, c + 2);
      let a3 = mr(M_EQ_DATA, c + 3); let a4 = mr(M_EQ_DATA, c + 4);
      pos = q1 - a0 - (a1 * x + a2 * x * x + a3 * x * x * x + a4 * x * x * x * x);
      deriv = a1 + 2.0 * a2 * x + 3.0 * a3 * x * x + 4.0 * a4 * x * x * x;
      dA += mr(M_DOF_INVWEIGHT0, dof2);
    } else {
      pos = q1 - mr(M_EQ_DATA, c);
    }
    // a row that cancels to zero (q1 coupled to itself with slope 1) is no constraint
    if (dof2 == dof1 && 1.0 - deriv == 0.0) { continue; }
    let r = alloc_rows(1, e);
    if (r < 0) { return; }
    zero_row(r, e);
    dset(D_EFC_J, r * NV + dof1, e, 1.0);
    if (dof2 >= 0) { dset(D_EFC_J, r * NV + dof2, e, dget(D_EFC_J, r * NV + dof2, e) - deriv); }
    scalar_row(r, e, 0, i, pos, 0.0, 0.0, dA, vec2<f32>(mr(M_EQ_SOLREF, 2 * i), mr(M_EQ_SOLREF, 2 * i + 1)), model_solimp(M_EQ_SOLIMP, i));
  }
}

// A connect equality (as make_constraint.ts): the anchors on the two bodies coincide; three rows, x y z of
// their difference, sharing the impedance of its norm.
fn connect_rows(i: i32, e: u32) {
  let b1 = mn(M_EQ_OBJ1ID, i);
  let b2 = mn(M_EQ_OBJ2ID, i);
  let c = 11 * i;
  let p1 = ldmat(D_XMAT, b1, e) * vec3<f32>(mr(M_EQ_DATA, c), mr(M_EQ_DATA, c + 1), mr(M_EQ_DATA, c + 2)) + ld3(D_XPOS, b1, e);
  let p2 = ldmat(D_XMAT, b2, e) * vec3<f32>(mr(M_EQ_DATA, c + 3), mr(M_EQ_DATA, c + 4), mr(M_EQ_DATA, c + 5)) + ld3(D_XPOS, b2, e);
  for (var j = 0; j < 6 * NV; j++) { dset(D_CON_JAC, j, e, 0.0); }
  add_point_jacobian(b1, p1, 1.0, e);
  add_point_jacobian(b2, p2, -1.0, e);
  let r = alloc_rows(3, e);
  if (r < 0) { return; }
  let d = p1 - p2;
  let dA = mr(M_BODY_INVWEIGHT0, 2 * b1) + mr(M_BODY_INVWEIGHT0, 2 * b2);
  let sr = safe_solref(vec2<f32>(mr(M_EQ_SOLREF, 2 * i), mr(M_EQ_SOLREF, 2 * i + 1)));
  let si = clamp_solimp(model_solimp(M_EQ_SOLIMP, i));
  let imp = impedance(si, length(d), 0.0);
  for (var k = 0; k < 3; k++) {
    for (var j = 0; j < NV; j++) { dset(D_EFC_J, (r + k) * NV + j, e, dget(D_CON_JAC, 6 * j + k, e)); }
    finish_row(r + k, e, 0, i, d[k], 0.0, 0.0, regularizer(imp, dA), ref_stiffness(sr, si), ref_damping(sr, si), imp);
  }
}

// A weld equality (as make_constraint.ts): body 1's anchor on body 2's, and the axis part of
// neg(q2) * q1 * relpose times torquescale; six rows sharing the impedance of their norm, the rotational
// Jacobian corrected as MuJoCo does.
fn weld_rows(i: i32, e: u32) {
  let b1 = mn(M_EQ_OBJ1ID, i);
  let b2 = mn(M_EQ_OBJ2ID, i);
  let c = 11 * i;
  let p1 = ldmat(D_XMAT, b1, e) * vec3<f32>(mr(M_EQ_DATA, c + 3), mr(M_EQ_DATA, c + 4), mr(M_EQ_DATA, c + 5)) + ld3(D_XPOS, b1, e);
  let p2 = ldmat(D_XMAT, b2, e) * vec3<f32>(mr(M_EQ_DATA, c), mr(M_EQ_DATA, c + 1), mr(M_EQ_DATA, c + 2)) + ld3(D_XPOS, b2, e);
  for (var j = 0; j < 6 * NV; j++) { dset(D_CON_JAC, j, e, 0.0); }
  add_point_jacobian(b1, p1, 1.0, e);
  add_point_jacobian(b2, p2, -1.0, e);
  let r = alloc_rows(6, e);
  if (r < 0) { return; }
  let ts = mr(M_EQ_DATA, c + 10);
  let qa = quat_mul(ld4(D_XQUAT, b1, e), vec4<f32>(mr(M_EQ_DATA, c + 6), mr(M_EQ_DATA, c + 7), mr(M_EQ_DATA, c + 8), mr(M_EQ_DATA, c + 9)));
  let q2 = ld4(D_XQUAT, b2, e);
  let qb = vec4<f32>(q2.x, -q2.y, -q2.z, -q2.w);
  let rot = quat_mul(qb, qa).yzw * ts;
  let d = p1 - p2;
  var pos: array<f32, 6> = array<f32, 6>(d.x, d.y, d.z, rot.x, rot.y, rot.z);
  var norm2 = 0.0;
  for (var k = 0; k < 6; k++) { norm2 += pos[k] * pos[k]; }
  let sr = safe_solref(vec2<f32>(mr(M_EQ_SOLREF, 2 * i), mr(M_EQ_SOLREF, 2 * i + 1)));
  let si = clamp_solimp(model_solimp(M_EQ_SOLIMP, i));
  let imp = impedance(si, sqrt(norm2), 0.0);
  for (var j = 0; j < NV; j++) {
    for (var k = 0; k < 3; k++) { dset(D_EFC_J, (r + k) * NV + j, e, dget(D_CON_JAC, 6 * j + k, e)); }
    // 0.5 * neg(q2) * (0, jr column) * qa: the rotation rows of the error's derivative
    let w = vec3<f32>(dget(D_CON_JAC, 6 * j + 3, e), dget(D_CON_JAC, 6 * j + 4, e), dget(D_CON_JAC, 6 * j + 5, e));
    let jr = quat_mul(quat_mul(qb, vec4<f32>(0.0, w)), qa).yzw * (0.5 * ts);
    for (var k = 0; k < 3; k++) { dset(D_EFC_J, (r + 3 + k) * NV + j, e, jr[k]); }
  }
  for (var k = 0; k < 6; k++) {
    let rotRow = select(0, 1, k > 2);
    let dA = mr(M_BODY_INVWEIGHT0, 2 * b1 + rotRow) + mr(M_BODY_INVWEIGHT0, 2 * b2 + rotRow);
    finish_row(r + k, e, 0, i, pos[k], 0.0, 0.0, regularizer(imp, dA), ref_stiffness(sr, si), ref_damping(sr, si), imp);
  }
}

fn friction_rows(e: u32) {
  for (var i = 0; i < NV; i++) {
    if (mc_full) { return; }
    let floss = mr(M_DOF_FRICTIONLOSS, i);
    if (!(floss > 0.0)) { continue; }
    let r = alloc_rows(1, e);
    if (r < 0) { return; }
    zero_row(r, e);
    dset(D_EFC_J, r * NV + i, e, 1.0);
    scalar_row(r, e, 1, i, 0.0, 0.0, floss, mr(M_DOF_INVWEIGHT0, i), vec2<f32>(mr(M_DOF_SOLREF, 2 * i), mr(M_DOF_SOLREF, 2 * i + 1)), model_solimp(M_DOF_SOLIMP, i));
  }
  // then the tendons' (MuJoCo's order: dofs, then tendons)
  for (var t = 0; t < NTENDON; t++) {
    if (mc_full) { return; }
    let floss = mr(M_TENDON_FRICTIONLOSS, t);
    if (!(floss > 0.0)) { continue; }
    let r = alloc_rows(1, e);
    if (r < 0) { return; }
    zero_row(r, e);
    tendon_row(r, t, 1.0, e);
    scalar_row(r, e, 2, t, 0.0, 0.0, floss, mr(M_TENDON_INVWEIGHT0, t), vec2<f32>(mr(M_TENDON_SOLREF_FRI, 2 * t), mr(M_TENDON_SOLREF_FRI, 2 * t + 1)), model_solimp(M_TENDON_SOLIMP_FRI, t));
  }
}

// Tendon t's length; with r >= 0, also its Jacobian times scale into row r (zeroed before). A spatial
// tendon's come from com (tenLength, tenJ).
fn tendon_row(r: i32, t: i32, scale: f32, e: u32) -> f32 {
  if (ten_is_spatial(t)) {
    if (r >= 0) { ten_add(D_EFC_J + u32(r * NV), t, scale, 1.0, e); }
    return dget(D_TEN_LENGTH, t, e);
  }
  let adr = mn(M_TENDON_ADR, t);
  var len = 0.0;
  for (var w = adr; w < adr + mn(M_TENDON_NUM, t); w++) {
    let j = mn(M_WRAP_OBJID, w);
    let c = mr(M_WRAP_PRM, w);
    len += c * dget(D_QPOS, mn(M_JNT_QPOSADR, j), e);
    if (r >= 0) { dset(D_EFC_J, r * NV + mn(M_JNT_DOFADR, j), e, scale * c); }
  }
  return len;
}

fn limit_rows(e: u32) {
  if (OPT_JOINT_LIMIT == 0) { return; }
  for (var j = 0; j < NJNT; j++) {
    if (mc_full) { return; }
    if (mn(M_JNT_LIMITED, j) == 0) { continue; }
    let t = mn(M_JNT_TYPE, j);
    if (t == 1) { ball_limit_row(j, e); continue; }
    if (t != 2 && t != 3) { continue; }
    let margin = mr(M_JNT_MARGIN, j);
    let value = dget(D_QPOS, mn(M_JNT_QPOSADR, j), e);
    let dof = mn(M_JNT_DOFADR, j);
    for (var side = -1; side <= 1; side += 2) {
      let sgn = f32(side);
      let dist = sgn * (mr(M_JNT_RANGE, 2 * j + (side + 1) / 2) - value);
      if (!(dist < margin)) { continue; }
      let r = alloc_rows(1, e);
      if (r < 0) { return; }
      zero_row(r, e);
      dset(D_EFC_J, r * NV + dof, e, -sgn);
      scalar_row(r, e, 3, j, dist, margin, 0.0, mr(M_DOF_INVWEIGHT0, dof), vec2<f32>(mr(M_JNT_SOLREF, 2 * j), mr(M_JNT_SOLREF, 2 * j + 1)), model_solimp(M_JNT_SOLIMP, j));
    }
  }
  // then the tendons' limits, as the joints': a row of minus side times the tendon's Jacobian
  for (var t = 0; t < NTENDON; t++) {
    if (mc_full) { return; }
    if (mn(M_TENDON_LIMITED, t) == 0) { continue; }
    let margin = mr(M_TENDON_MARGIN, t);
    let len = tendon_row(-1, t, 0.0, e);
    for (var side = -1; side <= 1; side += 2) {
      let sgn = f32(side);
      let dist = sgn * (mr(M_TENDON_RANGE, 2 * t + (side + 1) / 2) - len);
      if (!(dist < margin)) { continue; }
      let r = alloc_rows(1, e);
      if (r < 0) { return; }
      zero_row(r, e);
      tendon_row(r, t, -sgn, e);
      scalar_row(r, e, 4, t, dist, margin, 0.0, mr(M_TENDON_INVWEIGHT0, t), vec2<f32>(mr(M_TENDON_SOLREF_LIM, 2 * t), mr(M_TENDON_SOLREF_LIM, 2 * t + 1)), model_solimp(M_TENDON_SOLIMP_LIM, t));
    }
  }
}

// A ball joint's cone limit (as make_constraint.ts): its rotation angle against max(range), one row of minus
// the rotation axis on its three dofs.
fn ball_limit_row(j: i32, e: u32) {
  let qa = mn(M_JNT_QPOSADR, j);
  let dof = mn(M_JNT_DOFADR, j);
  let margin = mr(M_JNT_MARGIN, j);
  var q = vec4<f32>(dget(D_QPOS, qa, e), dget(D_QPOS, qa + 1, e), dget(D_QPOS, qa + 2, e), dget(D_QPOS, qa + 3, e));
  let nq = length(q);
  if (nq < 1e-15) { q = vec4<f32>(1.0, 0.0, 0.0, 0.0); } else { q = q / nq; }
  var axis = q.yzw;
  let sinHalf = length(axis);
  if (sinHalf < 1e-15) { axis = vec3<f32>(1.0, 0.0, 0.0); } else { axis = axis / sinHalf; }
  var speed = 2.0 * atan2(sinHalf, q.x);
  if (speed > 3.14159265358979) { speed -= 6.28318530717959; }
  var v = axis * speed;
  let value = length(v);
  if (value < 1e-15) { v = vec3<f32>(1.0, 0.0, 0.0); } else { v = v / value; }
  let dist = max(mr(M_JNT_RANGE, 2 * j), mr(M_JNT_RANGE, 2 * j + 1)) - value;
  if (!(dist < margin)) { return; }
  let r = alloc_rows(1, e);
  if (r < 0) { return; }
  zero_row(r, e);
  for (var k = 0; k < 3; k++) { dset(D_EFC_J, r * NV + dof + k, e, -v[k]); }
  scalar_row(r, e, 3, j, dist, margin, 0.0, mr(M_DOF_INVWEIGHT0, dof), vec2<f32>(mr(M_JNT_SOLREF, 2 * j), mr(M_JNT_SOLREF, 2 * j + 1)), model_solimp(M_JNT_SOLIMP, j));
}

// The first body at or above b that has dofs (0: welded to the world).
fn moving_body(b0: i32) -> i32 {
  var b = b0;
  while (b != 0 && mn(M_BODY_DOFNUM, b) == 0) { b = mn(M_BODY_PARENTID, b); }
  return b;
}

// conJac += sign * (point Jacobian of p on body): per dof, translational then rotational part.
fn add_point_jacobian(body: i32, p: vec3<f32>, sgn: f32, e: u32) {
  let root = mn(M_BODY_ROOTID, body);
  let o = p - ld3(D_SUBTREE_COM, root, e);
  let b = moving_body(body);
  if (b == 0) { return; }
  var i = mn(M_BODY_DOFADR, b) + mn(M_BODY_DOFNUM, b) - 1;
  while (i >= 0) {
    let w = vec3<f32>(dget(D_CDOF, 6 * i, e), dget(D_CDOF, 6 * i + 1, e), dget(D_CDOF, 6 * i + 2, e));
    let v = vec3<f32>(dget(D_CDOF, 6 * i + 3, e), dget(D_CDOF, 6 * i + 4, e), dget(D_CDOF, 6 * i + 5, e));
    let lin = v + cross(w, o);
    for (var k = 0; k < 3; k++) {
      dset(D_CON_JAC, 6 * i + k, e, dget(D_CON_JAC, 6 * i + k, e) + sgn * lin[k]);
      dset(D_CON_JAC, 6 * i + 3 + k, e, dget(D_CON_JAC, 6 * i + 3 + k, e) + sgn * w[k]);
    }
    i = mn(M_DOF_PARENTID, i);
  }
}

// Row fr of the contact's frame (0 normal, 1-2 tangents) applied to dof j's Jacobian (rot: rotational part).
fn frame_jac(frame: mat3x3<f32>, fr: i32, rot: bool, j: i32, e: u32) -> f32 {
  let o = select(0, 3, rot);
  let jv = vec3<f32>(dget(D_CON_JAC, 6 * j + o, e), dget(D_CON_JAC, 6 * j + o + 1, e), dget(D_CON_JAC, 6 * j + o + 2, e));
  return dot(frame[fr], jv);
}

// An elliptic contact's rows (as finishElliptic in cpu.ts): the normal keeps the distance,
// margin and stiffness; frictional row 1 has R0 / impratio and row j such that R_j friction_j^2 is row 1's.
fn elliptic_rows(start: i32, dim: i32, c: i32, frame: mat3x3<f32>, dist: f32, margin: f32, R0: f32, K: f32, B: f32, imp: f32, e: u32) {
  let R1 = R0 / max(MINVAL_I, OPT_IMPRATIO);
  let f0 = dget(D_CONTACT_FRICTION, 5 * c, e);
  for (var k = 0; k < dim; k++) {
    let r = start + k;
    for (var j = 0; j < NV; j++) { dset(D_EFC_J, r * NV + j, e, frame_jac(frame, select(k - 3, k, k < 3), k >= 3, j, e)); }
    if (k == 0) { finish_row(r, e, 7, c, dist, margin, 0.0, R0, K, B, imp); continue; }
    var R = R1;
    if (k > 1) { let fk = dget(D_CONTACT_FRICTION, 5 * c + k - 1, e); R = R1 * f0 * f0 / (fk * fk); }
    finish_row(r, e, 7, c, 0.0, 0.0, 0.0, R, 0.0, B, imp);
  }
}

fn contact_rows(e: u32) {
  let ncon = iget(D_NCON, 0, e);
  for (var c = 0; c < ncon; c++) {
    if (mc_full) { return; }
    let dist = dget(D_CONTACT_DIST, c, e);
    let includemargin = dget(D_CONTACT_INCLUDEMARGIN, c, e);
    if (dist >= includemargin) { continue; }
    let g1 = iget(D_CONTACT_GEOM, 2 * c, e);
    let g2 = iget(D_CONTACT_GEOM, 2 * c + 1, e);
    let b1 = mn(M_GEOM_BODYID, g1);
    let b2 = mn(M_GEOM_BODYID, g2);
    if (moving_body(b1) == 0 && moving_body(b2) == 0) { continue; }
    let dim = iget(D_CONTACT_DIM, c, e);
    let elliptic = dim > 1 && OPT_CONE == 1;
    let start = alloc_rows(select(2 * (dim - 1), dim, dim == 1 || elliptic), e);
    if (start < 0) { return; }
    let p = ld3(D_CONTACT_POS, c, e);
    for (var k = 0; k < 6 * NV; k++) { dset(D_CON_JAC, k, e, 0.0); }
    add_point_jacobian(b2, p, 1.0, e);
    add_point_jacobian(b1, p, -1.0, e);
    // frame rows as columns of a matrix: frame[r] is row r of contactFrame
    var frame: mat3x3<f32>;
    for (var r = 0; r < 3; r++) { frame[r] = vec3<f32>(dget(D_CONTACT_FRAME, 9 * c + 3 * r, e), dget(D_CONTACT_FRAME, 9 * c + 3 * r + 1, e), dget(D_CONTACT_FRAME, 9 * c + 3 * r + 2, e)); }
    let tran = mr(M_BODY_INVWEIGHT0, 2 * b1) + mr(M_BODY_INVWEIGHT0, 2 * b2);
    let rotw = mr(M_BODY_INVWEIGHT0, 2 * b1 + 1) + mr(M_BODY_INVWEIGHT0, 2 * b2 + 1);
    let sr = safe_solref(vec2<f32>(dget(D_CONTACT_SOLREF, 2 * c, e), dget(D_CONTACT_SOLREF, 2 * c + 1, e)));
    let si = clamp_solimp(Solimp(dget(D_CONTACT_SOLIMP, 5 * c, e), dget(D_CONTACT_SOLIMP, 5 * c + 1, e), dget(D_CONTACT_SOLIMP, 5 * c + 2, e), dget(D_CONTACT_SOLIMP, 5 * c + 3, e), dget(D_CONTACT_SOLIMP, 5 * c + 4, e)));
    let imp = impedance(si, dist, includemargin);
    let K = ref_stiffness(sr, si);
    let B = ref_damping(sr, si);
    if (dim == 1) {
      let r = start;
      for (var j = 0; j < NV; j++) { dset(D_EFC_J, r * NV + j, e, frame_jac(frame, 0, false, j, e)); }
      finish_row(r, e, 5, c, dist, includemargin, 0.0, regularizer(imp, tran), K, B, imp);
      continue;
    }
    if (elliptic) {
      elliptic_rows(start, dim, c, frame, dist, includemargin, regularizer(imp, tran), K, B, imp, e);
      continue;
    }
    // pyramidal: one R for all edges, matching the elliptic cone's friction impedance (impratio)
    let mu0 = dget(D_CONTACT_FRICTION, 5 * c, e);
    let R0 = regularizer(imp, tran + mu0 * mu0 * tran);
    let R1 = R0 / max(MINVAL_I, OPT_IMPRATIO);
    let mu = mu0 * sqrt(R1 / R0);
    let Rpy = 2.0 * mu * mu * R0;
    for (var k = 1; k < dim; k++) {
      let muk = dget(D_CONTACT_FRICTION, 5 * c + k - 1, e);
      for (var s = 0; s < 2; s++) {
        let smu = select(-muk, muk, s == 0);
        let r = start + 2 * (k - 1) + s;
        for (var j = 0; j < NV; j++) {
          let jn = frame_jac(frame, 0, false, j, e);
          let jk = frame_jac(frame, select(k - 3, k, k < 3), k >= 3, j, e);
          dset(D_EFC_J, r * NV + j, e, jn + smu * jk);
        }
        finish_row(r, e, 6, c, dist, includemargin, 0.0, Rpy, K, B, imp);
      }
    }
  }
}
`;

export const makeConstraintKernel: KernelDef = {
  name: 'make_constraint',
  helpers: WGSL_MATH + IMPEDANCE_WGSL + TENDON_USE_WGSL + MAKE_CONSTRAINT_HELPERS,
  body: /* wgsl */ `
  mc_nefc = 0;
  mc_full = false;
  equality_rows(e);
  friction_rows(e);
  limit_rows(e);
  contact_rows(e);
  iset(D_NEFC, 0, e, mc_nefc);`,
};
