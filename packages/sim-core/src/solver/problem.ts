/**
 * One env's constraint problem, gathered contiguously, and the pieces of MuJoCo's primal solver that act on
 * it (engine_solver.c): the cost
 *   cost(qacc) = 1/2 (qacc - qacc_smooth)' M (qacc - qacc_smooth) + sum_rows s(J qacc - aref)
 * where s is 1/2 D x^2 for equality rows, for violated inequalities (x < 0) and inside the friction-loss band,
 * and linear outside that band; an elliptic contact's rows are one cone (solver/cone.ts). Also its gradient
 * and its Newton Hessian M + J' diag(D of quadratic rows) J (plus the cone blocks, in Lcone).
 */
import { cholFactor, cholSolve } from './cholesky.js';
import { ellipticUpdate } from './cone.js';
import { ConstraintState, ConstraintType, MINVAL, type Problem } from './types.js';

/** The problem's fields live in types.ts, so cone.ts (which problem.ts calls) needs no import of this file. */
export type { Problem } from './types.js';

export function makeProblem(nv: number, maxEfc: number): Problem {
  const v = (): Float64Array => new Float64Array(Math.max(1, nv));
  const c = (k = 1): Float64Array => new Float64Array(Math.max(1, maxEfc) * k);
  return {
    nv, nefc: 0,
    M: new Float64Array(nv * nv), J: c(Math.max(1, nv)), D: c(), R: c(), aref: c(), floss: c(),
    rownnz: new Int32Array(Math.max(1, maxEfc)), colind: new Int32Array(Math.max(1, maxEfc) * Math.max(1, nv)),
    type: new Int32Array(Math.max(1, maxEfc)), coneMu: c(), coneDim: new Int32Array(Math.max(1, maxEfc)),
    qfrcSmooth: v(), qaccSmooth: v(), scale: 1,
    qacc: v(), force: c(), state: new Int32Array(Math.max(1, maxEfc)), oldState: new Int32Array(Math.max(1, maxEfc)),
    qfrcConstraint: v(), cost: 0, nactive: 0, ncone: 0,
    Jaref: c(), Jv: c(), quad: c(3), Ma: v(), Mv: v(), grad: v(), Mgrad: v(), search: v(), gradOld: v(),
    MgradOld: v(), quadGauss: new Float64Array(3), L: new Float64Array(Math.max(1, nv * nv)),
    Lcone: new Float64Array(Math.max(1, nv * nv)), coneH: c(6), lsIterations: 0,
  };
}

/** Records the non-zero columns of every row of p.J. */
export function indexRows(p: Problem): void {
  const { nv, nefc, J, rownnz, colind } = p;
  for (let r = 0; r < nefc; r++) {
    const o = r * nv;
    let k = 0;
    for (let j = 0; j < nv; j++) if (J[o + j] !== 0) colind[o + k++] = j;
    rownnz[r] = k;
  }
}

/** res = J x (rows of the sparse pattern) */
export function mulJ(p: Problem, res: Float64Array, x: Float64Array): void {
  const { nv, nefc, J, rownnz, colind } = p;
  for (let r = 0; r < nefc; r++) {
    const o = r * nv, nnz = rownnz[r]!;
    let s = 0;
    for (let k = 0; k < nnz; k++) {
      const j = colind[o + k]!;
      s += J[o + j]! * x[j]!;
    }
    res[r] = s;
  }
}

/** res = M x */
export function mulM(p: Problem, res: Float64Array, x: Float64Array): void {
  const { nv, M } = p;
  for (let i = 0; i < nv; i++) {
    let s = 0;
    for (let j = 0; j < nv; j++) s += M[i * nv + j]! * x[j]!;
    res[i] = s;
  }
}

/** res = J x - aref (the "jar" of MuJoCo) */
export function jacMinusAref(p: Problem, res: Float64Array, x: Float64Array): void {
  mulJ(p, res, x);
  for (let r = 0; r < p.nefc; r++) res[r] = res[r]! - p.aref[r]!;
}

/**
 * Sets force and state of every row from jar and returns the constraint part of the cost
 * (mj_constraintUpdate). Counts the rows that are not satisfied into p.nactive and the elliptic contacts in
 * the cone zone into p.ncone; with `coneHessian`, also their Hessian blocks (p.coneH).
 */
export function constraintCost(p: Problem, jar: Float64Array, coneHessian = false): number {
  const { nefc, D, R, floss, type, force, state } = p;
  let cost = 0, nactive = 0, ncone = 0;
  for (let i = 0; i < nefc; i++) {
    const x = jar[i]!, t = type[i]!;
    if (t === ConstraintType.ContactElliptic) {
      const dim = p.coneDim[i]!;
      cost = ellipticUpdate(p, jar, i, cost, coneHessian);
      const st = state[i]!;
      if (st !== ConstraintState.Satisfied) nactive += dim;
      if (st === ConstraintState.Cone) ncone++;
      i += dim - 1;
      continue;
    }
    if (t === ConstraintType.Equality) {
      force[i] = -D[i]! * x;
      cost += 0.5 * D[i]! * x * x;
      state[i] = ConstraintState.Quadratic;
    } else if (t === ConstraintType.FrictionDof || t === ConstraintType.FrictionTendon) {
      const f = floss[i]!, Rf = R[i]! * f;
      if (x <= -Rf) {
        force[i] = f;
        cost += -0.5 * R[i]! * f * f - f * x;
        state[i] = ConstraintState.LinearNeg;
      } else if (x >= Rf) {
        force[i] = -f;
        cost += -0.5 * R[i]! * f * f + f * x;
        state[i] = ConstraintState.LinearPos;
      } else {
        force[i] = -D[i]! * x;
        cost += 0.5 * D[i]! * x * x;
        state[i] = ConstraintState.Quadratic;
      }
    } else if (x >= 0) {
      force[i] = 0;
      state[i] = ConstraintState.Satisfied;
    } else {
      force[i] = -D[i]! * x;
      cost += 0.5 * D[i]! * x * x;
      state[i] = ConstraintState.Quadratic;
    }
    if (state[i] !== ConstraintState.Satisfied) nactive++;
  }
  p.nactive = nactive;
  p.ncone = ncone;
  return cost;
}

/** 1/2 (M qacc - qfrc_smooth)'(qacc - qacc_smooth), given Ma = M qacc */
export function gaussCost(p: Problem, Ma: Float64Array, qacc: Float64Array): number {
  let g = 0;
  for (let i = 0; i < p.nv; i++) g += 0.5 * (Ma[i]! - p.qfrcSmooth[i]!) * (qacc[i]! - p.qaccSmooth[i]!);
  return g;
}

/**
 * From p.Jaref, p.Ma, p.qacc: forces, states, qfrc_constraint = J' force, and the total cost; with
 * `coneHessian` (Newton), the cone blocks of elliptic contacts in the cone zone.
 */
export function updateConstraint(p: Problem, coneHessian = false): void {
  const { nv, nefc, J, force, qfrcConstraint, rownnz, colind } = p;
  const c = constraintCost(p, p.Jaref, coneHessian);
  qfrcConstraint.fill(0);
  for (let r = 0; r < nefc; r++) {
    const f = force[r]!;
    if (f === 0) continue;
    const o = r * nv, nnz = rownnz[r]!;
    for (let k = 0; k < nnz; k++) {
      const j = colind[o + k]!;
      qfrcConstraint[j] = qfrcConstraint[j]! + J[o + j]! * f;
    }
  }
  const gauss = gaussCost(p, p.Ma, p.qacc);
  p.quadGauss[0] = gauss;
  p.cost = c + gauss;
}

/** Newton Hessian H = M + J' diag(D of quadratic rows) J, factored into p.L. */
export function factorHessian(p: Problem): void {
  const { nv, nefc, J, D, state, M, L, rownnz, colind } = p;
  for (let i = 0; i < nv; i++) {
    for (let j = 0; j <= i; j++) L[i * nv + j] = M[i * nv + j]!;
  }
  for (let r = 0; r < nefc; r++) {
    if (state[r] !== ConstraintState.Quadratic) continue;
    const dr = D[r]!, o = r * nv, nnz = rownnz[r]!;
    // columns ascend, so the lower triangle of the row's outer product is k2 <= k1
    for (let k1 = 0; k1 < nnz; k1++) {
      const i = colind[o + k1]!;
      const da = dr * J[o + i]!;
      for (let k2 = 0; k2 <= k1; k2++) {
        const j = colind[o + k2]!;
        L[i * nv + j] = L[i * nv + j]! + da * J[o + j]!;
      }
    }
  }
  cholFactor(L, nv, MINVAL);
}

/** Factors M alone into p.L (the CG preconditioner). */
export function factorMass(p: Problem): void {
  const { nv, M, L } = p;
  for (let i = 0; i < nv; i++) {
    for (let j = 0; j <= i; j++) L[i * nv + j] = M[i * nv + j]!;
  }
  cholFactor(L, nv, MINVAL);
}

/** grad = M qacc - qfrc_smooth - qfrc_constraint */
export function computeGradient(p: Problem): void {
  const { nv, grad } = p;
  for (let i = 0; i < nv; i++) grad[i] = p.Ma[i]! - p.qfrcSmooth[i]! - p.qfrcConstraint[i]!;
}

/** Mgrad = (factored matrix)^-1 grad; Newton's matrix includes the cone blocks when contacts are in the cone. */
export function precondition(p: Problem, newton = false): void {
  cholSolve(p.Mgrad, newton && p.ncone > 0 ? p.Lcone : p.L, p.grad, p.nv);
}

export function updateGradient(p: Problem, newton = false): void {
  computeGradient(p);
  precondition(p, newton);
}
