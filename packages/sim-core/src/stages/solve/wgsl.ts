/**
 * WGSL twin of stage `solve` (cpu.ts beside it, with solver/primal.ts, problem.ts, linesearch.ts): one
 * invocation per env runs MuJoCo's primal solver on that env's rows and stops on its own (per-env early exit).
 * Newton (H = M + J'DJ over quadratic rows, dense Cholesky in solH, refactored only when the quadratic set
 * changes) or CG when OPT_SOLVER == 1 (Polak-Ribiere, preconditioned by M), both with the exact line search.
 * Warm start from qaccWarmstart when it costs no more than qacc_smooth; dofs of untouched trees keep
 * qacc_smooth. Constraint islands as on the CPU (solver/islands.ts, MuJoCo 3.3): trees joined by rows form an
 * island, each solved on its own with its own iterations and inertia scale. Instead of gathering a
 * sub-problem, an island's solve masks the dofs and rows of the others (M is block-diagonal over trees and an
 * island's rows touch only its dofs, so the masked problem is the island's problem).
 *
 * Writes qacc, qfrcConstraint, efcForce, efcState and the timers: timerIterations, timerActive (rows not
 * satisfied), timerContacts (ncon), timerLsIterations, timerImprovement (the last iteration's) and
 * timerNotConverged (1: stopped at the iteration limit unconverged, as solver/primal.ts). The CPU's slot 0 (ns per env) has no GPU twin: WGSL
 * has no shader clock. Rows are dense (the CPU skips zero columns; the sums are the same).
 * Row types: 0 equality, 1 dof friction, 2 tendon friction, 7 elliptic contact; states: 0 satisfied,
 * 1 quadratic, 2/3 linear, 4 cone surface. An elliptic contact's rows are one cone (solver/cone.ts): its zone
 * sets every row's state, Newton's Hessian gets its cone-surface block (the whole Hessian is refactored while
 * any contact is on the surface, where the CPU updates its factor by rank one), and the line search follows
 * the cone's cost along the search.
 */
import type { KernelDef } from '../../gpu/runtime.js';

const SOLVE_HELPERS = /* wgsl */ `
const MINVAL_S: f32 = 1e-15;
var<private> sv_nefc: i32;
var<private> sv_scale: f32;
var<private> sv_cost: f32;
var<private> sv_nactive: i32;
var<private> sv_qg: vec3<f32>;      // the Gauss term's quadratic along the search: cost, slope, curvature/2
var<private> ls_evals: i32;
var<private> sv_isl: i32;           // the island being solved; -1: the whole problem
var<private> sv_ncone: i32;         // elliptic contacts on the cone surface after the last update
var<private> sv_cone_cost: f32;     // the cost of the last cone_update's contact
var<private> sv_improvement: f32;   // the last iteration's scaled cost improvement (0 without one)
var<private> sv_unconverged: bool;  // stopped at OPT_ITERATIONS with improvement and gradient at or above the tolerance
var<private> cn_u: array<f32, 6>;   // the cone's scaled jar (U), then its direction's (V), of the last cone_load
var<private> cn_v: array<f32, 6>;

fn dof_in(j: i32, e: u32) -> bool { return sv_isl < 0 || iget(D_SOL_DOF_ISLAND, j, e) == sv_isl; }
fn row_in(r: i32, e: u32) -> bool { return sv_isl < 0 || iget(D_SOL_ROW_ISLAND, r, e) == sv_isl; }

// dst = M src (nv-vector fields)
fn mul_m(dst: u32, src: u32, e: u32) {
  for (var i = 0; i < NV; i++) {
    var s = 0.0;
    for (var j = 0; j < NV; j++) { s += dget(D_Q_M, i * NV + j, e) * dget(src, j, e); }
    dset(dst, i, e, s);
  }
}
// dst = J src, minus aref when asked (nefc-vector dst)
fn mul_j(dst: u32, src: u32, minus_aref: bool, e: u32) {
  for (var r = 0; r < sv_nefc; r++) {
    if (!row_in(r, e)) { continue; }
    var s = 0.0;
    for (var j = 0; j < NV; j++) { s += dget(D_EFC_J, r * NV + j, e) * dget(src, j, e); }
    if (minus_aref) { s -= dget(D_EFC_AREF, r, e); }
    dset(dst, r, e, s);
  }
}

// Forces and states from jar (a field of nefc values); returns the constraint cost and counts active rows.
fn constraint_cost(jar: u32, e: u32) -> f32 {
  var cost = 0.0;
  var nactive = 0;
  var ncone = 0;
  for (var i = 0; i < sv_nefc; i++) {
    if (!row_in(i, e)) { continue; }
    let t = iget(D_EFC_TYPE, i, e);
    if (t == 7) {
      let dim = cone_dim(i, e);
      let st = cone_update(i, dim, jar, e);
      cost += sv_cone_cost;
      if (st != 0) { nactive += dim; }
      if (st == 4) { ncone++; }
      i += dim - 1;
      continue;
    }
    let x = dget(jar, i, e);
    let D = dget(D_EFC_D, i, e);
    var force = 0.0;
    var state = 1;
    if (t == 0) {
      force = -D * x;
      cost += 0.5 * D * x * x;
    } else if (t == 1 || t == 2) {
      let f = dget(D_EFC_FRICTIONLOSS, i, e);
      let R = dget(D_EFC_R, i, e);
      let Rf = R * f;
      if (x <= -Rf) { force = f; cost += -0.5 * R * f * f - f * x; state = 2; }
      else if (x >= Rf) { force = -f; cost += -0.5 * R * f * f + f * x; state = 3; }
      else { force = -D * x; cost += 0.5 * D * x * x; }
    } else if (x >= 0.0) {
      state = 0;
    } else {
      force = -D * x;
      cost += 0.5 * D * x * x;
    }
    dset(D_EFC_FORCE, i, e, force);
    iset(D_EFC_STATE, i, e, state);
    if (state != 0) { nactive++; }
  }
  sv_nactive = nactive;
  sv_ncone = ncone;
  return cost;
}

// The number of rows of the elliptic contact whose first row is i (its run of rows with one efcId).
fn cone_dim(i: i32, e: u32) -> i32 {
  let c = iget(D_EFC_ID, i, e);
  var dim = 1;
  while (i + dim < sv_nefc && iget(D_EFC_TYPE, i + dim, e) == 7 && iget(D_EFC_ID, i + dim, e) == c) { dim++; }
  return dim;
}

// Row j's cone coefficient: the regularised mu for the normal (friction[0] sqrt(R_1 / R_0), MuJoCo's
// mjContact.mu), friction[j-1] for frictional row j.
fn cone_coef(i: i32, j: i32, e: u32) -> f32 {
  let c = iget(D_EFC_ID, i, e);
  if (j > 0) { return dget(D_CONTACT_FRICTION, 5 * c + j - 1, e); }
  return dget(D_CONTACT_FRICTION, 5 * c, e) * sqrt(dget(D_EFC_R, i + 1, e) / dget(D_EFC_R, i, e));
}

// cn_u = the cone's rows of field a scaled by their coefficients (and cn_v from field b when b != a);
// returns the regularised mu.
fn cone_load(i: i32, dim: i32, a: u32, b: u32, e: u32) -> f32 {
  let mu = cone_coef(i, 0, e);
  cn_u[0] = dget(a, i, e) * mu;
  cn_v[0] = dget(b, i, e) * mu;
  for (var j = 1; j < dim; j++) {
    let f = cone_coef(i, j, e);
    cn_u[j] = dget(a, i + j, e) * f;
    cn_v[j] = dget(b, i + j, e) * f;
  }
  return mu;
}

// Forces and state of the cone at row i from jar (ellipticUpdate in solver/cone.ts); its cost in sv_cone_cost.
// Returns the state: 0 top (no force), 1 bottom (every row quadratic), 4 on the surface.
fn cone_update(i: i32, dim: i32, jar: u32, e: u32) -> i32 {
  let mu = cone_load(i, dim, jar, jar, e);
  let N = cn_u[0];
  var tt = 0.0;
  for (var j = 1; j < dim; j++) { tt += cn_u[j] * cn_u[j]; }
  let T = sqrt(tt);
  var st = 4;
  var cost = 0.0;
  if (N >= mu * T || (T <= 0.0 && N >= 0.0)) {
    st = 0;
    for (var j = 0; j < dim; j++) { dset(D_EFC_FORCE, i + j, e, 0.0); }
  } else if (mu * N + T <= 0.0 || (T <= 0.0 && N < 0.0)) {
    st = 1;
    for (var j = 0; j < dim; j++) {
      let x = dget(jar, i + j, e);
      let D = dget(D_EFC_D, i + j, e);
      dset(D_EFC_FORCE, i + j, e, -D * x);
      cost += 0.5 * D * x * x;
    }
  } else {
    let Dm = dget(D_EFC_D, i, e) / (mu * mu * (1.0 + mu * mu));
    let NmT = N - mu * T;
    cost = 0.5 * Dm * NmT * NmT;
    // force = -d cost / d jar, through dU / d jar = diag(mu, friction)
    let f0 = -Dm * NmT * mu;
    dset(D_EFC_FORCE, i, e, f0);
    for (var j = 1; j < dim; j++) { dset(D_EFC_FORCE, i + j, e, (-f0 / T) * cn_u[j] * cone_coef(i, j, e)); }
  }
  for (var j = 0; j < dim; j++) { iset(D_EFC_STATE, i + j, e, st); }
  sv_cone_cost = cost;
  return st;
}

// solH += J_c' H_c J_c for the cone at row i on its surface (coneBlock in solver/cone.ts): H_c is the cost's
// Hessian in U space, mapped back through diag(mu, friction).
fn add_cone_hessian(i: i32, dim: i32, e: u32) {
  let mu = cone_load(i, dim, D_SOL_JAREF, D_SOL_JAREF, e);
  let N = cn_u[0];
  var tt = 0.0;
  for (var j = 1; j < dim; j++) { tt += cn_u[j] * cn_u[j]; }
  let T = sqrt(tt);
  let Dm = dget(D_EFC_D, i, e) / (mu * mu * (1.0 + mu * mu));
  var h: array<f32, 36>;
  var s: array<f32, 6>;
  for (var k = 0; k < dim; k++) { s[k] = select(cone_coef(i, k, e), mu, k == 0); }
  h[0] = 1.0;
  for (var j = 1; j < dim; j++) { h[j] = (-mu / T) * cn_u[j]; h[j * dim] = h[j]; }
  let c3 = mu * N / (T * T * T);
  let cd = mu * mu - mu * N / T;
  for (var k = 1; k < dim; k++) {
    for (var j = 1; j < dim; j++) { h[k * dim + j] = c3 * cn_u[j] * cn_u[k] + select(0.0, cd, j == k); }
  }
  for (var k = 0; k < dim; k++) { for (var j = 0; j < dim; j++) { h[k * dim + j] *= Dm * s[k] * s[j]; } }
  for (var a = 0; a < NV; a++) {
    // w = (J_c column a)' H_c
    var w: array<f32, 6>;
    var touches = false;
    for (var l = 0; l < dim; l++) {
      var acc = 0.0;
      for (var k = 0; k < dim; k++) { acc += dget(D_EFC_J, (i + k) * NV + a, e) * h[k * dim + l]; }
      w[l] = acc;
      if (dget(D_EFC_J, (i + l) * NV + a, e) != 0.0) { touches = true; }
    }
    if (!touches) { continue; }
    for (var b = 0; b <= a; b++) {
      var acc = 0.0;
      for (var l = 0; l < dim; l++) { acc += w[l] * dget(D_EFC_J, (i + l) * NV + b, e); }
      dset(D_SOL_H, a * NV + b, e, dget(D_SOL_H, a * NV + b, e) + acc);
    }
  }
}

// The cone at row i along the search at alpha (CGeval): (cost, slope, curvature) on the surface in .xyz, w = 1
// when it is in the bottom zone (its rows' quadratics apply), 0 otherwise.
fn cone_eval(i: i32, dim: i32, alpha: f32, e: u32) -> vec4<f32> {
  let mu = cone_load(i, dim, D_SOL_JAREF, D_SOL_JV, e);
  var uu = 0.0; var uv = 0.0; var vv = 0.0;
  for (var j = 1; j < dim; j++) { uu += cn_u[j] * cn_u[j]; uv += cn_u[j] * cn_v[j]; vv += cn_v[j] * cn_v[j]; }
  let N = cn_u[0] + alpha * cn_v[0];
  let Tsqr = uu + alpha * (2.0 * uv + alpha * vv);
  if (Tsqr <= 0.0) { return vec4<f32>(0.0, 0.0, 0.0, select(0.0, 1.0, N < 0.0)); }
  let T = sqrt(Tsqr);
  if (N >= mu * T) { return vec4<f32>(0.0); }
  if (mu * N + T <= 0.0) { return vec4<f32>(0.0, 0.0, 0.0, 1.0); }
  let Dm = dget(D_EFC_D, i, e) / (mu * mu * (1.0 + mu * mu));
  let N1 = cn_v[0];
  let T1 = (uv + alpha * vv) / T;
  let T2 = vv / T - (uv + alpha * vv) * T1 / (T * T);
  let g = N - mu * T;
  let g1 = N1 - mu * T1;
  return vec4<f32>(0.5 * Dm * g * g, Dm * g * g1, Dm * (g1 * g1 + g * (-mu * T2)), 0.0);
}

// 1/2 (M qacc - qfrc_smooth)'(qacc - qacc_smooth), with solMa = M qacc
fn gauss_cost(e: u32) -> f32 {
  var g = 0.0;
  for (var i = 0; i < NV; i++) {
    if (!dof_in(i, e)) { continue; }
    g += 0.5 * (dget(D_SOL_MA, i, e) - dget(D_QFRC_SMOOTH, i, e)) * (dget(D_QACC, i, e) - dget(D_QACC_SMOOTH, i, e));
  }
  return g;
}

// From solJaref and solMa: forces, states, qfrc_constraint = J' force, the total cost.
fn update_constraint(e: u32) {
  let c = constraint_cost(D_SOL_JAREF, e);
  for (var j = 0; j < NV; j++) { if (dof_in(j, e)) { dset(D_QFRC_CONSTRAINT, j, e, 0.0); } }
  for (var r = 0; r < sv_nefc; r++) {
    if (!row_in(r, e)) { continue; }
    let f = dget(D_EFC_FORCE, r, e);
    if (f == 0.0) { continue; }
    for (var j = 0; j < NV; j++) {
      dset(D_QFRC_CONSTRAINT, j, e, dget(D_QFRC_CONSTRAINT, j, e) + dget(D_EFC_J, r * NV + j, e) * f);
    }
  }
  let g = gauss_cost(e);
  sv_qg.x = g;
  sv_cost = c + g;
}

// Dense Cholesky of the lower triangle of solH in place (mju_cholFactor, pivots raised to MINVAL).
fn chol_factor(e: u32) {
  for (var j = 0; j < NV; j++) {
    var t = dget(D_SOL_H, j * NV + j, e);
    for (var k = 0; k < j; k++) { let l = dget(D_SOL_H, j * NV + k, e); t -= l * l; }
    if (t < MINVAL_S) { t = MINVAL_S; }
    let djj = sqrt(t);
    dset(D_SOL_H, j * NV + j, e, djj);
    let inv = 1.0 / djj;
    for (var i = j + 1; i < NV; i++) {
      var s = dget(D_SOL_H, i * NV + j, e);
      for (var k = 0; k < j; k++) { s -= dget(D_SOL_H, i * NV + k, e) * dget(D_SOL_H, j * NV + k, e); }
      dset(D_SOL_H, i * NV + j, e, s * inv);
    }
  }
}

// H = M (+ J' diag(D) J over quadratic rows for Newton), factored.
fn factor(newton: bool, e: u32) {
  for (var i = 0; i < NV; i++) { for (var j = 0; j <= i; j++) { dset(D_SOL_H, i * NV + j, e, dget(D_Q_M, i * NV + j, e)); } }
  if (newton) {
    for (var r = 0; r < sv_nefc; r++) {
      if (!row_in(r, e) || iget(D_EFC_STATE, r, e) != 1) { continue; }
      let dr = dget(D_EFC_D, r, e);
      for (var i = 0; i < NV; i++) {
        let ji = dget(D_EFC_J, r * NV + i, e);
        if (ji == 0.0) { continue; }
        let da = dr * ji;
        for (var j = 0; j <= i; j++) {
          dset(D_SOL_H, i * NV + j, e, dget(D_SOL_H, i * NV + j, e) + da * dget(D_EFC_J, r * NV + j, e));
        }
      }
    }
    for (var r = 0; r < sv_nefc; r++) {
      if (!row_in(r, e) || iget(D_EFC_TYPE, r, e) != 7) { continue; }
      let dim = cone_dim(r, e);
      if (iget(D_EFC_STATE, r, e) == 4) { add_cone_hessian(r, dim, e); }
      r += dim - 1;
    }
  }
  chol_factor(e);
}

// grad = M qacc - qfrc_smooth - qfrc_constraint
fn compute_gradient(e: u32) {
  // other islands' dofs get a zero gradient, hence (H block-diagonal) a zero search direction
  for (var i = 0; i < NV; i++) {
    var g = 0.0;
    if (dof_in(i, e)) { g = dget(D_SOL_MA, i, e) - dget(D_QFRC_SMOOTH, i, e) - dget(D_QFRC_CONSTRAINT, i, e); }
    dset(D_SOL_GRAD, i, e, g);
  }
}

// Mgrad = (L L')^-1 grad
fn precondition(e: u32) {
  for (var i = 0; i < NV; i++) {
    var s = dget(D_SOL_GRAD, i, e);
    for (var k = 0; k < i; k++) { s -= dget(D_SOL_H, i * NV + k, e) * dget(D_SOL_MGRAD, k, e); }
    dset(D_SOL_MGRAD, i, e, s / dget(D_SOL_H, i * NV + i, e));
  }
  for (var i = NV - 1; i >= 0; i--) {
    var s = dget(D_SOL_MGRAD, i, e);
    for (var k = i + 1; k < NV; k++) { s -= dget(D_SOL_H, k * NV + i, e) * dget(D_SOL_MGRAD, k, e); }
    dset(D_SOL_MGRAD, i, e, s / dget(D_SOL_H, i * NV + i, e));
  }
}

// Cost, slope and curvature (x, y, z, w = alpha, cost, d0, d1) along the search at alpha.
fn ls_eval(alpha: f32, e: u32) -> vec4<f32> {
  var q0 = sv_qg.x; var q1 = sv_qg.y; var q2 = sv_qg.z;
  var cone = vec3<f32>(0.0);
  for (var i = 0; i < sv_nefc; i++) {
    if (!row_in(i, e)) { continue; }
    let t = iget(D_EFC_TYPE, i, e);
    if (t == 7) {
      let dim = cone_dim(i, e);
      let ce = cone_eval(i, dim, alpha, e);
      cone += ce.xyz;
      if (ce.w != 0.0) {
        for (var j = i; j < i + dim; j++) {
          let st = dget(D_SOL_JAREF, j, e);
          let dr = dget(D_SOL_JV, j, e);
          let Dj = dget(D_EFC_D, j, e);
          q0 += 0.5 * st * Dj * st; q1 += dr * Dj * st; q2 += 0.5 * dr * Dj * dr;
        }
      }
      i += dim - 1;
      continue;
    }
    let start = dget(D_SOL_JAREF, i, e);
    let dir = dget(D_SOL_JV, i, e);
    let D = dget(D_EFC_D, i, e);
    let dj = D * start;
    let a0 = 0.5 * start * dj;
    let a1 = dir * dj;
    let a2 = 0.5 * dir * D * dir;
    if (t == 0) { q0 += a0; q1 += a1; q2 += a2; continue; }
    let x = start + alpha * dir;
    if (t == 1 || t == 2) {
      let f = dget(D_EFC_FRICTIONLOSS, i, e);
      let Rf = dget(D_EFC_R, i, e) * f;
      if (-Rf < x && x < Rf) { q0 += a0; q1 += a1; q2 += a2; }
      else if (x <= -Rf) { q0 += f * (-0.5 * Rf - start); q1 += -f * dir; }
      else { q0 += f * (-0.5 * Rf + start); q1 += f * dir; }
      continue;
    }
    if (x < 0.0) { q0 += a0; q1 += a1; q2 += a2; }
  }
  ls_evals++;
  // the cone terms are zero without elliptic contacts, and x + 0 is x: the pyramidal sums are unchanged
  let d1 = cone.z + 2.0 * q2;
  return vec4<f32>(alpha, cone.x + (alpha * alpha * q2 + alpha * q1 + q0), cone.y + (2.0 * alpha * q2 + q1), select(MINVAL_S, d1, d1 > 0.0));
}

// True when candidate c has a smaller slope of the same sign as bracket end b (b then moves to c).
fn better_end(b: vec4<f32>, c: vec4<f32>) -> bool {
  return (b.z < 0.0 && c.z < 0.0 && b.z < c.z) || (b.z > 0.0 && c.z > 0.0 && b.z > c.z);
}

// MuJoCo's exact line search along solSearch (CGsearch); returns the step (0: no improvement). Written as a
// state machine around one evaluation site, so the compiled kernel holds one copy of the row loop.
fn line_search(tolerance: f32, max_evals: i32, e: u32) -> f32 {
  ls_evals = 0;
  var search_norm = 0.0;
  for (var i = 0; i < NV; i++) { let s = dget(D_SOL_SEARCH, i, e); search_norm += s * s; }
  search_norm = sqrt(search_norm);
  if (search_norm < MINVAL_S) { return 0.0; }
  let gtol = tolerance * search_norm / sv_scale;
  mul_m(D_SOL_MV, D_SOL_SEARCH, e);
  mul_j(D_SOL_JV, D_SOL_SEARCH, false, e);
  var a = 0.0; var b = 0.0; var c = 0.0;
  for (var i = 0; i < NV; i++) {
    let s = dget(D_SOL_SEARCH, i, e);
    a += s * dget(D_SOL_MA, i, e);
    b += dget(D_QFRC_SMOOTH, i, e) * s;
    c += s * dget(D_SOL_MV, i, e);
  }
  sv_qg.y = a - b;
  sv_qg.z = 0.5 * c;

  // phases: 0 p0, 1 first Newton step, 3 one-sided Newton steps, 4 p1next, 5 midpoint, 6 p1next, 7 p2next;
  // 2 decides the one-sided loop, 8 the bracketed loop
  var phase = 0;
  var alpha = 0.0;
  var p0 = vec4<f32>(0.0); var p1 = p0; var p2 = p0; var p1next = p0; var p2next = p0;
  var dir = 1.0;
  var bracketed = false;
  var moved2 = false;
  loop {
    let r = ls_eval(alpha, e);
    if (phase == 0) {
      p0 = r;
      alpha = p0.x - p0.z / p0.w;
      phase = 1;
      continue;
    }
    if (phase == 1) {
      p1 = r;
      if (p0.y < p1.y) { p1 = p0; }
      if (abs(p1.z) < gtol) { return p1.x; }
      dir = select(-1.0, 1.0, p1.z < 0.0);
      phase = 2;
    } else if (phase == 3) {
      p1 = r;
      if (abs(p1.z) < gtol) { return p1.x; }
      phase = 2;
    } else if (phase == 4) {
      p1next = r;
      phase = 8;
    } else if (phase == 5) {
      var cand = array<vec4<f32>, 3>(p1next, p2next, r);
      var best = -1;
      for (var i = 0; i < 3; i++) {
        if (abs(cand[i].z) < gtol && (best == -1 || cand[i].y < cand[best].y)) { best = i; }
      }
      if (best >= 0) { return cand[best].x; }
      var moved1 = false;
      for (var i = 0; i < 3; i++) { if (better_end(p1, cand[i])) { p1 = cand[i]; moved1 = true; } }
      moved2 = false;
      for (var i = 0; i < 3; i++) { if (better_end(p2, cand[i])) { p2 = cand[i]; moved2 = true; } }
      if (!moved1 && !moved2) { return r.x; }
      if (moved1) { alpha = p1.x - p1.z / p1.w; phase = 6; } else { alpha = p2.x - p2.z / p2.w; phase = 7; }
      continue;
    } else if (phase == 6) {
      p1next = r;
      if (moved2) { alpha = p2.x - p2.z / p2.w; phase = 7; continue; }
      phase = 8;
    } else if (phase == 7) {
      p2next = r;
      phase = 8;
    }
    if (phase == 2) {
      if (p1.z * dir <= -gtol && ls_evals < max_evals) {
        p2 = p1;
        bracketed = true;
        alpha = p1.x - p1.z / p1.w;
        phase = 3;
        continue;
      }
      if (ls_evals >= max_evals || !bracketed) { return p1.x; }
      p2next = p1;
      alpha = p1.x - p1.z / p1.w;
      phase = 4;
      continue;
    }
    if (ls_evals < max_evals) {
      alpha = 0.5 * (p1.x + p2.x);
      phase = 5;
      continue;
    }
    break;
  }
  if (p1.y <= p2.y && p1.y < p0.y) { return p1.x; }
  if (p2.y <= p1.y && p2.y < p0.y) { return p2.x; }
  return 0.0;
}

// The root dof of dof j's kinematic tree.
fn tree_of(j: i32) -> i32 {
  var r = j;
  while (mn(M_DOF_PARENTID, r) >= 0) { r = mn(M_DOF_PARENTID, r); }
  return r;
}

// Marks the constrained trees, sets the tolerance scale, and picks the start: warm start unless qacc_smooth
// costs less; dofs of unconstrained trees take qacc_smooth.
fn warmstart(ntrees: i32, e: u32) {
  sv_isl = -1;
  for (var j = 0; j < NV; j++) { iset(D_SOL_TOUCHED, j, e, select(0, 1, ntrees == 1)); }
  for (var r = 0; r < sv_nefc; r++) {
    if (ntrees == 1) { break; }
    for (var j = 0; j < NV; j++) { if (dget(D_EFC_J, r * NV + j, e) != 0.0) { iset(D_SOL_TOUCHED, tree_of(j), e, 1); } }
  }
  var inertia = 0.0;
  for (var j = 0; j < NV; j++) { if (iget(D_SOL_TOUCHED, tree_of(j), e) != 0) { inertia += dget(D_Q_M, j * NV + j, e); } }
  sv_scale = 1.0 / inertia;
  for (var j = 0; j < NV; j++) { dset(D_QACC, j, e, dget(D_QACC_WARMSTART, j, e)); }
  mul_m(D_SOL_MA, D_QACC, e);
  // 0: the warm start (with its Gauss term), 1: qacc_smooth (no Gauss term)
  var costs = vec2<f32>(gauss_cost(e), 0.0);
  for (var which = 0; which < 2; which++) {
    let jar = select(D_SOL_JV, D_SOL_JAREF, which == 0);
    mul_j(jar, select(D_QACC_SMOOTH, D_QACC, which == 0), true, e);
    costs[which] += constraint_cost(jar, e);
  }
  let cost_warm = costs.x;
  let cost_smooth = costs.y;
  let smooth_start = cost_warm > cost_smooth;
  for (var j = 0; j < NV; j++) {
    if (smooth_start || iget(D_SOL_TOUCHED, tree_of(j), e) == 0) { dset(D_QACC, j, e, dget(D_QACC_SMOOTH, j, e)); }
  }
}

fn isl_find(t0: i32, e: u32) -> i32 {
  var t = t0;
  while (iget(D_SOL_ISL_ROOT, t, e) != t) {
    iset(D_SOL_ISL_ROOT, t, e, iget(D_SOL_ISL_ROOT, iget(D_SOL_ISL_ROOT, t, e), e));
    t = iget(D_SOL_ISL_ROOT, t, e);
  }
  return t;
}

// The first non-zero column of row r, or -1.
fn first_col(r: i32, e: u32) -> i32 {
  for (var j = 0; j < NV; j++) { if (dget(D_EFC_J, r * NV + j, e) != 0.0) { return j; } }
  return -1;
}

// Islands of the env's rows (Islands.discover): solDofIsland / solRowIsland, -1 outside any; returns the count.
fn discover_islands(e: u32) -> i32 {
  for (var t = 0; t < NV; t++) { iset(D_SOL_ISL_ROOT, t, e, t); iset(D_SOL_ISL_LABEL, t, e, -1); }
  for (var r = 0; r < sv_nefc; r++) {
    let c0 = first_col(r, e);
    if (c0 < 0) { continue; }
    let first = isl_find(tree_of(c0), e);
    for (var j = c0 + 1; j < NV; j++) {
      if (dget(D_EFC_J, r * NV + j, e) == 0.0) { continue; }
      let t = isl_find(tree_of(j), e);
      if (t != first) { iset(D_SOL_ISL_ROOT, t, e, first); }
    }
  }
  for (var r = 0; r < sv_nefc; r++) {
    let c0 = first_col(r, e);
    if (c0 >= 0) { iset(D_SOL_ISL_LABEL, isl_find(tree_of(c0), e), e, -2); }
  }
  var count = 0;
  for (var j = 0; j < NV; j++) {
    if (mn(M_DOF_PARENTID, j) >= 0) { continue; }
    let grp = isl_find(j, e);
    if (iget(D_SOL_ISL_LABEL, grp, e) == -2) { iset(D_SOL_ISL_LABEL, grp, e, count); count++; }
  }
  for (var j = 0; j < NV; j++) { iset(D_SOL_DOF_ISLAND, j, e, max(-1, iget(D_SOL_ISL_LABEL, isl_find(tree_of(j), e), e))); }
  for (var r = 0; r < sv_nefc; r++) {
    let c0 = first_col(r, e);
    // a row that touches no dof joins island 0, as on the CPU (solver/islands.ts)
    iset(D_SOL_ROW_ISLAND, r, e, select(0, iget(D_SOL_DOF_ISLAND, max(c0, 0), e), c0 >= 0));
  }
  // an elliptic contact is one cone: a frictional row with no dof (a body on a slide joint) stays with the rest
  for (var r = 0; r < sv_nefc; r++) {
    if (iget(D_EFC_TYPE, r, e) != 7) { continue; }
    let dim = cone_dim(r, e);
    var k = r;
    while (k < r + dim - 1 && first_col(k, e) < 0) { k++; }
    let isl = iget(D_SOL_ROW_ISLAND, k, e);
    for (var j = r; j < r + dim; j++) { iset(D_SOL_ROW_ISLAND, j, e, isl); }
    r += dim - 1;
  }
  return count;
}

// solvePrimal from qacc; returns (iterations, line-search evaluations). One loop with one call site per
// step (update, gradient, factor, preconditioner, line search) keeps the compiled kernel small.
fn solve_primal(newton: bool, e: u32) -> vec2<i32> {
  mul_m(D_SOL_MA, D_QACC, e);
  mul_j(D_SOL_JAREF, D_QACC, true, e);
  var iter = 0;
  var ls_total = 0;
  var first = true;
  var old_cost = 0.0;
  var cone_blocks = false;  // the factor holds cone-surface blocks
  sv_improvement = 0.0;
  sv_unconverged = false;
  loop {
    update_constraint(e);
    compute_gradient(e);
    var refactor = first;
    if (!first) {
      var gnorm = 0.0;
      for (var i = 0; i < NV; i++) { let g = dget(D_SOL_GRAD, i, e); gnorm += g * g; }
      let improvement = sv_scale * (old_cost - sv_cost);
      let gradient = sv_scale * sqrt(gnorm);
      iter++;
      sv_improvement = improvement;
      if (improvement < OPT_TOLERANCE || gradient < OPT_TOLERANCE) { break; }
      if (iter >= OPT_ITERATIONS) { sv_unconverged = true; break; }
      // the Hessian changes only when rows enter or leave the quadratic state
      if (newton) {
        for (var r = 0; r < sv_nefc; r++) {
          if (row_in(r, e) && (iget(D_EFC_STATE, r, e) == 1) != (iget(D_SOL_OLD_STATE, r, e) == 1)) { refactor = true; break; }
        }
      }
    }
    // cone blocks depend on the point: refactor while any contact is on the surface, and once after
    let cones = newton && sv_ncone > 0;
    if (refactor || cones || cone_blocks) { factor(newton, e); }
    cone_blocks = cones;
    precondition(e);
    var beta = 0.0;
    if (!first && !newton) {
      var num = 0.0;
      var den = 0.0;
      for (var i = 0; i < NV; i++) {
        num += dget(D_SOL_GRAD, i, e) * (dget(D_SOL_MGRAD, i, e) - dget(D_SOL_MGRAD_OLD, i, e));
        den += dget(D_SOL_GRAD_OLD, i, e) * dget(D_SOL_MGRAD_OLD, i, e);
      }
      beta = max(0.0, num / max(MINVAL_S, den));
    }
    for (var i = 0; i < NV; i++) { dset(D_SOL_SEARCH, i, e, -dget(D_SOL_MGRAD, i, e) + beta * dget(D_SOL_SEARCH, i, e)); }
    first = false;
    if (iter >= OPT_ITERATIONS) { break; }
    let alpha = line_search(OPT_TOLERANCE * OPT_LS_TOLERANCE, OPT_LS_ITERATIONS, e);
    ls_total += ls_evals;
    if (alpha == 0.0) { break; }
    for (var i = 0; i < NV; i++) {
      dset(D_QACC, i, e, dget(D_QACC, i, e) + alpha * dget(D_SOL_SEARCH, i, e));
      dset(D_SOL_MA, i, e, dget(D_SOL_MA, i, e) + alpha * dget(D_SOL_MV, i, e));
    }
    for (var r = 0; r < sv_nefc; r++) { if (row_in(r, e)) { dset(D_SOL_JAREF, r, e, dget(D_SOL_JAREF, r, e) + alpha * dget(D_SOL_JV, r, e)); } }
    if (newton) {
      for (var r = 0; r < sv_nefc; r++) { iset(D_SOL_OLD_STATE, r, e, iget(D_EFC_STATE, r, e)); }
    } else {
      for (var i = 0; i < NV; i++) { dset(D_SOL_GRAD_OLD, i, e, dget(D_SOL_GRAD, i, e)); dset(D_SOL_MGRAD_OLD, i, e, dget(D_SOL_MGRAD, i, e)); }
    }
    old_cost = sv_cost;
  }
  return vec2<i32>(iter, ls_total);
}
`;

export const solveKernel: KernelDef = {
  name: 'solve',
  helpers: SOLVE_HELPERS,
  body: /* wgsl */ `
  sv_nefc = iget(D_NEFC, 0, e);
  var stats = vec2<i32>(0, 0);
  var nactive = 0;
  // As the CPU (solver/islands.ts): unconverged if any island is; over several islands the largest improvement (or 0).
  var improvement = 0.0;
  var unconverged = false;
  if (sv_nefc == 0 || NV == 0) {
    for (var j = 0; j < NV; j++) { dset(D_QACC, j, e, dget(D_QACC_SMOOTH, j, e)); dset(D_QFRC_CONSTRAINT, j, e, 0.0); }
  } else {
    var ntrees = 0;
    for (var j = 0; j < NV; j++) { if (mn(M_DOF_PARENTID, j) < 0) { ntrees++; } }
    warmstart(ntrees, e);
    var nisl = 1;
    if (ntrees > 1) { nisl = discover_islands(e); }
    if (nisl > 1) { for (var j = 0; j < NV; j++) { dset(D_QFRC_CONSTRAINT, j, e, 0.0); } }
    // one island (or one tree): the whole problem; several: each on its own with its own inertia scale
    for (var k = 0; k < max(nisl, 1); k++) {
      sv_isl = select(-1, k, nisl > 1);
      if (nisl > 1) {
        var inertia = 0.0;
        for (var j = 0; j < NV; j++) { if (dof_in(j, e)) { inertia += dget(D_Q_M, j * NV + j, e); } }
        sv_scale = 1.0 / inertia;
      }
      stats += solve_primal(OPT_SOLVER != 1, e);
      nactive += sv_nactive;
      improvement = select(sv_improvement, max(improvement, sv_improvement), nisl > 1);
      unconverged = unconverged || sv_unconverged;
    }
  }
  iset(D_TIMER_ITERATIONS, 0, e, stats.x);
  iset(D_TIMER_ACTIVE, 0, e, nactive);
  iset(D_TIMER_CONTACTS, 0, e, iget(D_NCON, 0, e));
  iset(D_TIMER_LS_ITERATIONS, 0, e, stats.y);
  dset(D_TIMER_IMPROVEMENT, 0, e, improvement);
  iset(D_TIMER_NOT_CONVERGED, 0, e, select(0, 1, unconverged));`,
};
