/**
 * LU of a non-symmetric matrix on the dof tree's symmetric sparsity (MuJoCo's D: a dof, its ancestors and its
 * descendants), as MuJoCo's mju_factorLUSparse / mju_solveLUSparse: reverse-order elimination with no fill-in,
 * original = (U + I) * L, U strictly above the diagonal, L on and below it. The implicit integrator factors
 * M - h * qDeriv with it. One env at a time, on a dense row-major nv x nv matrix whose other entries are unused.
 */
import type { Plan } from '../data/plan.js';

/** Each dof's descendants in ascending order (the part of D's row right of the diagonal). */
export interface Descendants { adr: Int32Array; num: Int32Array; list: Int32Array }

export function descendantsOf(plan: Plan, nv: number): Descendants {
  const rows: number[][] = Array.from({ length: nv }, () => []);
  for (let i = 0; i < nv; i++) {
    for (let a = plan.rowadr[i]!, last = a + plan.rownnz[i]! - 1; a < last; a++) rows[plan.colind[a]!]!.push(i);
  }
  const adr = new Int32Array(nv), num = new Int32Array(nv), list: number[] = [];
  for (let i = 0; i < nv; i++) {
    adr[i] = list.length; num[i] = rows[i]!.length;
    for (const c of rows[i]!) list.push(c);
  }
  return { adr, num, list: Int32Array.from(list) };
}

/** In-place LU of A (nv x nv, row-major): for each dof i from the last, its ancestors' rows eliminate column i. */
export function factorLU(plan: Plan, nv: number, A: Float64Array): void {
  const { rowadr, rownnz, colind, ancDescAdr, ancDescNum, ancDesc } = plan;
  for (let i = nv - 1; i >= 0; i--) {
    const pivot = A[i * nv + i]!;
    // rows j above i with (j, i) non-zero: i's ancestors, nearest first
    for (let a = ancDescAdr[i]!, end = a + ancDescNum[i]!; a < end; a++) {
      const j = ancDesc[a]!;
      const u = A[j * nv + i]! / pivot;
      A[j * nv + i] = u;
      // (j, k) -= (i, k) * (j, i) for k < i: k over i's ancestors
      for (let c = rowadr[i]!, last = c + rownnz[i]! - 1; c < last; c++) {
        const k = colind[c]!;
        A[j * nv + k] = A[j * nv + k]! - A[i * nv + k]! * u;
      }
    }
  }
}

/** x <- A^-1 x with A's LU from factorLU: (U + I) y = x, then L x = y. */
export function solveLU(plan: Plan, desc: Descendants, nv: number, A: Float64Array, x: Float64Array): void {
  const { rowadr, rownnz, colind } = plan;
  for (let i = nv - 1; i >= 0; i--) {
    let s = 0;
    for (let a = desc.adr[i]!, end = a + desc.num[i]!; a < end; a++) { const c = desc.list[a]!; s += A[i * nv + c]! * x[c]!; }
    x[i] = x[i]! - s;
  }
  for (let i = 0; i < nv; i++) {
    let s = 0;
    for (let a = rowadr[i]!, last = a + rownnz[i]! - 1; a < last; a++) { const c = colind[a]!; s += A[i * nv + c]! * x[c]!; }
    x[i] = (x[i]! - s) / A[i * nv + i]!;
  }
}
