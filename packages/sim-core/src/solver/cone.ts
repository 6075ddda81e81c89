/**
 * The elliptic friction cone in MuJoCo's primal solvers (engine_core_constraint.c mj_constraintUpdate_impl,
 * engine_solver.c CGprepare / CGeval / HessianCone). A contact of dim d has d rows: the normal and d-1
 * frictional directions. Scaled by U = (mu * jar_0, friction_j * jar_j), with N = U_0 and T = |U_1..|, it is in
 * one of three zones: top (N >= mu T: no force, no cost), bottom (mu N + T <= 0: every row quadratic) or the
 * cone surface between them, with cost 1/2 Dm (N - mu T)^2, Dm = D_0 / (mu^2 (1 + mu^2)).
 */
import { cholFactor, cholUpdate } from './cholesky.js';
import { ConstraintState, ConstraintType, MINVAL, type Problem } from './types.js';

/** mju_dot's order of additions (four running sums, then the tail), so norms round as MuJoCo's do. */
function dotMj(a: Float64Array, b: Float64Array, at: number, n: number): number {
  let res = 0, i = 0;
  if (n >= 4) {
    let r0 = 0, r1 = 0, r2 = 0, r3 = 0;
    for (; i <= n - 4; i += 4) {
      r0 += a[at + i]! * b[at + i]!;
      r1 += a[at + i + 1]! * b[at + i + 1]!;
      r2 += a[at + i + 2]! * b[at + i + 2]!;
      r3 += a[at + i + 3]! * b[at + i + 3]!;
    }
    res = (r0 + r2) + (r1 + r3);
  }
  const k = at + i;
  const left = n - i;
  if (left === 3) res += a[k]! * b[k]! + a[k + 1]! * b[k + 1]! + a[k + 2]! * b[k + 2]!;
  else if (left === 2) res += a[k]! * b[k]! + a[k + 1]! * b[k + 1]!;
  else if (left === 1) res += a[k]! * b[k]!;
  return res;
}

const U = new Float64Array(6);
const V = new Float64Array(6);

/**
 * State and force of the elliptic contact whose first row is i, from jar; returns cost plus its cost (added
 * row by row as MuJoCo sums). With `coneHessian`, a contact on the cone surface gets its d x d Hessian block
 * in p.coneH at 6 i.
 */
export function ellipticUpdate(p: Problem, jar: Float64Array, i: number, cost: number, coneHessian: boolean): number {
  const { D, coneMu, force, state } = p;
  const dim = p.coneDim[i]!, mu = coneMu[i]!;
  for (let j = 0; j < dim; j++) force[i + j] = -D[i + j]! * jar[i + j]!;
  U[0] = jar[i]! * mu;
  for (let j = 1; j < dim; j++) U[j] = jar[i + j]! * coneMu[i + j]!;
  const N = U[0]!;
  const T = Math.sqrt(dotMj(U, U, 1, dim - 1));
  let st: ConstraintState;
  if (N >= mu * T || (T <= 0 && N >= 0)) {
    for (let j = 0; j < dim; j++) force[i + j] = 0;
    st = ConstraintState.Satisfied;
  } else if (mu * N + T <= 0 || (T <= 0 && N < 0)) {
    for (let j = 0; j < dim; j++) cost += 0.5 * D[i + j]! * jar[i + j]! * jar[i + j]!;
    st = ConstraintState.Quadratic;
  } else {
    const Dm = D[i]! / (mu * mu * (1 + mu * mu));
    const NmT = N - mu * T;
    cost += 0.5 * Dm * NmT * NmT;
    // force = -d cost / d jar, through dU / d jar = diag(mu, friction)
    force[i] = -Dm * NmT * mu;
    for (let j = 1; j < dim; j++) force[i + j] = (-force[i]! / T) * U[j]! * coneMu[i + j]!;
    st = ConstraintState.Cone;
    if (coneHessian) coneBlock(p, i, dim, mu, N, T, Dm);
  }
  for (let j = 0; j < dim; j++) state[i + j] = st;
  return cost;
}

/** The cone-surface Hessian of the contact at row i in U space, mapped back through diag(mu, friction). */
function coneBlock(p: Problem, i: number, dim: number, mu: number, N: number, T: number, Dm: number): void {
  const H = p.coneH, o = 6 * i, f = p.coneMu;
  // first row (1, -mu/T U'), then mu N / T^3 U U' below it, plus (mu^2 - mu N / T) on the diagonal
  let scl = -mu / T;
  H[o] = 1;
  for (let j = 1; j < dim; j++) H[o + j] = scl * U[j]!;
  scl = (mu * N) / (T * T * T);
  for (let k = 1; k < dim; k++) for (let j = k; j < dim; j++) H[o + k * dim + j] = scl * U[j]! * U[k]!;
  scl = mu * mu - (mu * N) / T;
  for (let j = 1; j < dim; j++) H[o + j * (dim + 1)] = H[o + j * (dim + 1)]! + scl;
  for (let k = 0; k < dim; k++) {
    scl = Dm * (k === 0 ? mu : f[i + k]!);
    for (let j = k; j < dim; j++) H[o + k * dim + j] = H[o + k * dim + j]! * (scl * (j === 0 ? mu : f[i + j]!));
  }
  for (let k = 0; k < dim; k++) for (let j = k + 1; j < dim; j++) H[o + j * dim + k] = H[o + k * dim + j]!;
}

const local = new Float64Array(36);
let ltj = new Float64Array(0);

/**
 * Lcone = L with every cone-zone contact's J_c' H_c J_c added (MuJoCo's HessianCone): H_c = C C' (Cholesky of
 * the block), then one rank-1 update of the factor per row of C' J_c.
 */
export function factorCones(p: Problem): void {
  const { nv, nefc, J, state, type } = p;
  const Lc = p.Lcone;
  Lc.set(p.L.subarray(0, nv * nv));
  if (ltj.length < 6 * nv) ltj = new Float64Array(6 * nv);
  for (let i = 0; i < nefc; i++) {
    if (state[i] !== ConstraintState.Cone) continue;
    if (type[i] !== ConstraintType.ContactElliptic) continue;
    const dim = p.coneDim[i]!;
    const o = 6 * i;
    for (let k = 0; k < dim * dim; k++) local[k] = p.coneH[o + k]!;
    cholFactor(local, dim, MINVAL);
    ltj.fill(0, 0, dim * nv);
    for (let r = 0; r < dim; r++) {
      const jr = (i + r) * nv;
      for (let c = 0; c <= r; c++) {
        const s = local[r * dim + c]!, at = c * nv;
        for (let j = 0; j < nv; j++) ltj[at + j] = ltj[at + j]! + s * J[jr + j]!;
      }
    }
    for (let r = 0; r < dim; r++) cholUpdate(Lc, ltj.subarray(r * nv, (r + 1) * nv), nv, MINVAL);
    i += dim - 1;
  }
}

/**
 * The line search's quadratic of the elliptic contact at row i (CGprepare): quad[3i..3i+2] the sum of its
 * rows' quadratics (used in the bottom zone), quad[3i+3..3i+8] U_0, V_0, UU, UV, VV and Dm (dim >= 3 leaves
 * room). Returns dim.
 */
export function prepareCone(p: Problem, i: number): number {
  const { Jaref, Jv, D, quad, coneMu } = p;
  const dim = p.coneDim[i]!, mu = coneMu[i]!, q = 3 * i;
  const d0 = D[i]! * Jaref[i]!;
  let q0 = Jaref[i]! * d0, q1 = Jv[i]! * d0, q2 = Jv[i]! * D[i]! * Jv[i]!;
  for (let j = 1; j < dim; j++) {
    const dj = D[i + j]! * Jaref[i + j]!;
    q0 += Jaref[i + j]! * dj;
    q1 += Jv[i + j]! * dj;
    q2 += Jv[i + j]! * D[i + j]! * Jv[i + j]!;
  }
  U[0] = Jaref[i]! * mu;
  V[0] = Jv[i]! * mu;
  for (let j = 1; j < dim; j++) {
    U[j] = Jaref[i + j]! * coneMu[i + j]!;
    V[j] = Jv[i + j]! * coneMu[i + j]!;
  }
  let uu = 0, uv = 0, vv = 0;
  for (let j = 1; j < dim; j++) {
    uu += U[j]! * U[j]!;
    uv += U[j]! * V[j]!;
    vv += V[j]! * V[j]!;
  }
  quad[q] = q0 * 0.5;
  quad[q + 1] = q1;
  quad[q + 2] = q2 * 0.5;
  quad[q + 3] = U[0]!;
  quad[q + 4] = V[0]!;
  quad[q + 5] = uu;
  quad[q + 6] = uv;
  quad[q + 7] = vv;
  quad[q + 8] = D[i]! / (mu * mu * (1 + mu * mu));
  return dim;
}

/**
 * The cone-surface part of the line-search cost at alpha for the contact at row i (CGeval): adds cost, slope
 * and curvature into acc[0..2] on the surface; returns true when the contact is in the bottom zone (its
 * quadratic applies), false otherwise.
 */
export function evalCone(p: Problem, i: number, alpha: number, acc: Float64Array): boolean {
  const quad = p.quad, q = 3 * i, mu = p.coneMu[i]!;
  const U0 = quad[q + 3]!, V0 = quad[q + 4]!, UU = quad[q + 5]!, UV = quad[q + 6]!, VV = quad[q + 7]!, Dm = quad[q + 8]!;
  const N = U0 + alpha * V0;
  const Tsqr = UU + alpha * (2 * UV + alpha * VV);
  if (Tsqr <= 0) return N < 0;
  const T = Math.sqrt(Tsqr);
  if (N >= mu * T) return false;
  if (mu * N + T <= 0) return true;
  const N1 = V0;
  const T1 = (UV + alpha * VV) / T;
  const T2 = VV / T - ((UV + alpha * VV) * T1) / (T * T);
  acc[0] = acc[0]! + 0.5 * Dm * (N - mu * T) * (N - mu * T);
  acc[1] = acc[1]! + Dm * (N - mu * T) * (N1 - mu * T1);
  acc[2] = acc[2]! + Dm * ((N1 - mu * T1) * (N1 - mu * T1) + (N - mu * T) * (-mu * T2));
  return false;
}
