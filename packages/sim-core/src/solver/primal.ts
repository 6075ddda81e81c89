/**
 * MuJoCo's primal solvers (mj_solCGNewton): Newton (search = -H^-1 grad, H = M + J'DJ over quadratic rows,
 * refactored when row states change) and nonlinear conjugate gradient (Polak-Ribiere on the M-preconditioned
 * gradient), both with the exact line search. Stops when the scaled cost improvement or gradient falls below
 * the tolerance, when the line search finds no improvement, or after maxIter iterations. With elliptic
 * contacts on the cone surface, Newton's Hessian also carries their cone blocks (solver/cone.ts), refreshed
 * every iteration as they depend on the point, as MuJoCo's HessianCone.
 */
import { factorCones } from './cone.js';
import { lineSearch } from './linesearch.js';
import {
  type Problem, computeGradient, factorHessian, factorMass, jacMinusAref, mulM, precondition, updateConstraint,
  updateGradient,
} from './problem.js';
import { ConstraintState, MINVAL } from './types.js';

function quadraticSetChanged(p: Problem): boolean {
  const { nefc, state, oldState } = p;
  for (let r = 0; r < nefc; r++) {
    if ((state[r] === ConstraintState.Quadratic) !== (oldState[r] === ConstraintState.Quadratic)) return true;
  }
  return false;
}

export interface SolveStats {
  iterations: number;
  lsIterations: number;
  /** The last iteration's scaled cost improvement (0 when no iteration ran). */
  improvement: number;
  /** True when the solve stopped at maxIter with improvement and gradient still at or above the tolerance. */
  notConverged: boolean;
}

export function newSolveStats(): SolveStats {
  return { iterations: 0, lsIterations: 0, improvement: 0, notConverged: false };
}

/**
 * Solves from p.qacc (the warm start) in place and fills `stats`. With `haveProducts`, p.Ma = M qacc and
 * p.Jaref = J qacc - aref are already computed for that start.
 */
export function solvePrimal(
  p: Problem, newton: boolean, maxIter: number, tolerance: number, lsTolerance: number, lsIterations: number,
  stats: SolveStats, haveProducts = false,
): void {
  const { nv, nefc, qacc, search, grad, Mgrad, gradOld, MgradOld, Ma, Mv, Jaref, Jv } = p;
  stats.iterations = 0;
  stats.lsIterations = 0;
  stats.improvement = 0;
  stats.notConverged = false;

  if (!haveProducts) {
    mulM(p, Ma, qacc);
    jacMinusAref(p, Jaref, qacc);
  }
  updateConstraint(p, newton);
  if (newton) factorHessian(p); else factorMass(p);
  if (newton && p.ncone > 0) factorCones(p);
  updateGradient(p, newton);
  for (let i = 0; i < nv; i++) search[i] = -Mgrad[i]!;

  let iter = 0;
  while (iter < maxIter) {
    const alpha = lineSearch(p, tolerance * lsTolerance, lsIterations);
    stats.lsIterations += p.lsIterations;
    if (alpha === 0) break;

    for (let i = 0; i < nv; i++) {
      qacc[i] = qacc[i]! + alpha * search[i]!;
      Ma[i] = Ma[i]! + alpha * Mv[i]!;
    }
    for (let r = 0; r < nefc; r++) Jaref[r] = Jaref[r]! + alpha * Jv[r]!;
    if (!newton) {
      gradOld.set(grad);
      MgradOld.set(Mgrad);
    }
    const oldCost = p.cost;
    if (newton) for (let r = 0; r < nefc; r++) p.oldState[r] = p.state[r]!;
    updateConstraint(p, newton);
    computeGradient(p);

    let gnorm = 0;
    for (let i = 0; i < nv; i++) gnorm += grad[i]! * grad[i]!;
    const improvement = p.scale * (oldCost - p.cost);
    const gradient = p.scale * Math.sqrt(gnorm);
    iter++;
    stats.improvement = improvement;
    // the preconditioned gradient only serves the next direction: skip it (and any refactoring) when stopping
    if (improvement < tolerance || gradient < tolerance) break;
    if (iter >= maxIter) { stats.notConverged = true; break; }
    // the Hessian changes only when rows enter or leave the quadratic state (MuJoCo updates its factor then)
    if (newton && quadraticSetChanged(p)) factorHessian(p);
    if (newton && p.ncone > 0) factorCones(p);
    precondition(p, newton);

    if (newton) {
      for (let i = 0; i < nv; i++) search[i] = -Mgrad[i]!;
    } else {
      let num = 0, den = 0;
      for (let i = 0; i < nv; i++) {
        num += grad[i]! * (Mgrad[i]! - MgradOld[i]!);
        den += gradOld[i]! * MgradOld[i]!;
      }
      const beta = Math.max(0, num / Math.max(MINVAL, den));
      for (let i = 0; i < nv; i++) search[i] = -Mgrad[i]! + beta * search[i]!;
    }
  }
  stats.iterations = iter;
}
