/**
 * Stage `factor_m` (MuJoCo mj_factorM): M = L' D L with L unit lower triangular, exploiting the dof tree
 * (L(i, j) is non-zero only for j an ancestor of i, so the factor has no fill-in). qLD holds L strictly
 * below the diagonal and D on it; qLDiagInv = 1/D. The solves (mj_solveM) are exported for the other
 * stages: x <- M^-1 x for SoA vectors of all envs, or for one env's contiguous vector.
 */
import type { Data, Real } from '../../data/data.js';
import type { Model } from '../../model/model.js';
import { planOf, type Plan } from '../../data/plan.js';
import { scratchOf } from '../../data/scratch.js';

type Mat = Real | Float64Array;

/**
 * In-place L'DL of the dense SoA matrices `LD` (nv x nv per env, lower part used) for envs [e0, e1), as
 * mj_factorI: backward over rows, each row's ancestors updated with the scaled row. `invd` and `tmp` are
 * scratch of nEnvs each; `diagInv` receives 1/D.
 */
export function factorLDL(
  plan: Plan, nv: number, n: number, LD: Mat, diagInv: Mat, invd: Float64Array, tmp: Float64Array, e0: number, e1: number,
): void {
  if (e1 - e0 <= NARROW) {
    for (let e = e0; e < e1; e++) factorLDLEnv(plan, nv, n, LD, diagInv, e);
    return;
  }
  const { rowadr, rownnz, colind } = plan;
  for (let k = nv - 1; k >= 0; k--) {
    const kk = (k * nv + k) * n;
    for (let e = e0; e < e1; e++) {
      const v = 1 / LD[kk + e]!;
      invd[e] = v;
      diagInv[k * n + e] = v;
    }
    const start = rowadr[k]!, end = start + rownnz[k]! - 1; // ancestors of k, ascending
    for (let adr = end - 1; adr >= start; adr--) {
      const i = colind[adr]!;
      const ki = (k * nv + i) * n;
      // L(k,i) = M(k,i)/D(k); row i (ancestors of i and i) -= L(k,i) * row k (same columns, still unscaled)
      for (let e = e0; e < e1; e++) tmp[e] = LD[ki + e]! * invd[e]!;
      const si = rowadr[i]!, ei = si + rownnz[i]!;
      for (let c = si; c < ei; c++) {
        const j = colind[c]!;
        const ij = (i * nv + j) * n, kj = (k * nv + j) * n;
        for (let e = e0; e < e1; e++) LD[ij + e] = LD[ij + e]! - tmp[e]! * LD[kj + e]!;
      }
    }
    for (let adr = start; adr < end; adr++) {
      const ki = (k * nv + colind[adr]!) * n;
      for (let e = e0; e < e1; e++) LD[ki + e] = LD[ki + e]! * invd[e]!;
    }
  }
}

/** factorLDL for one env, with scalar loops (faster than env-inner loops of one iteration). */
function factorLDLEnv(plan: Plan, nv: number, n: number, LD: Mat, diagInv: Mat, e: number): void {
  const { rowadr, rownnz, colind } = plan;
  for (let k = nv - 1; k >= 0; k--) {
    const invD = 1 / LD[(k * nv + k) * n + e]!;
    diagInv[k * n + e] = invD;
    const start = rowadr[k]!, end = start + rownnz[k]! - 1;
    const K = k * nv * n + e;
    for (let adr = end - 1; adr >= start; adr--) {
      const i = colind[adr]!;
      const t = LD[K + i * n]! * invD;
      const I = i * nv * n + e;
      for (let c = rowadr[i]!, ei = c + rownnz[i]!; c < ei; c++) {
        const jn = colind[c]! * n;
        LD[I + jn] = LD[I + jn]! - t * LD[K + jn]!;
      }
    }
    for (let adr = start; adr < end; adr++) {
      const o = K + colind[adr]! * n;
      LD[o] = LD[o]! * invD;
    }
  }
}

/** Env ranges this narrow run the per-env scalar factor and solve. */
const NARROW = 2;

/** x <- (L'DL)^-1 x for SoA vectors x (nv per env) of envs [e0, e1). */
export function solveLDL(plan: Plan, nv: number, n: number, LD: Mat, diagInv: Mat, x: Mat, e0: number, e1: number): void {
  if (e1 - e0 <= NARROW) {
    for (let e = e0; e < e1; e++) solveLDLStrided(plan, nv, n, LD, diagInv, e, x, e, n);
    return;
  }
  const { rowadr, rownnz, colind } = plan;
  // x <- L^-T x
  for (let i = nv - 1; i > 0; i--) {
    const start = rowadr[i]!, end = start + rownnz[i]! - 1;
    const xi = i * n;
    for (let adr = start; adr < end; adr++) {
      const j = colind[adr]!;
      const ij = (i * nv + j) * n, xj = j * n;
      for (let e = e0; e < e1; e++) x[xj + e] = x[xj + e]! - LD[ij + e]! * x[xi + e]!;
    }
  }
  // x <- D^-1 x
  for (let i = 0; i < nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) x[o + e] = x[o + e]! * diagInv[o + e]!;
  }
  // x <- L^-1 x
  for (let i = 1; i < nv; i++) {
    const start = rowadr[i]!, end = start + rownnz[i]! - 1;
    const xi = i * n;
    for (let adr = start; adr < end; adr++) {
      const j = colind[adr]!;
      const ij = (i * nv + j) * n, xj = j * n;
      for (let e = e0; e < e1; e++) x[xi + e] = x[xi + e]! - LD[ij + e]! * x[xj + e]!;
    }
  }
}

/** x[off + i*stride] <- ((L'DL)^-1 x)_i for env `e` of the SoA factor (LD, diagInv). */
export function solveLDLStrided(
  plan: Plan, nv: number, n: number, LD: Mat, diagInv: Mat, e: number, x: Mat, off: number, stride: number,
): void {
  const { rowadr, rownnz, colind } = plan;
  for (let i = nv - 1; i > 0; i--) {
    const xi = x[off + i * stride]!;
    if (xi === 0) continue;
    const I = i * nv * n + e;
    for (let adr = rowadr[i]!, end = adr + rownnz[i]! - 1; adr < end; adr++) {
      const j = colind[adr]!;
      x[off + j * stride] = x[off + j * stride]! - LD[I + j * n]! * xi;
    }
  }
  for (let i = 0; i < nv; i++) x[off + i * stride] = x[off + i * stride]! * diagInv[i * n + e]!;
  for (let i = 1; i < nv; i++) {
    const I = i * nv * n + e;
    let s = x[off + i * stride]!;
    for (let adr = rowadr[i]!, end = adr + rownnz[i]! - 1; adr < end; adr++) {
      const j = colind[adr]!;
      s -= LD[I + j * n]! * x[off + j * stride]!;
    }
    x[off + i * stride] = s;
  }
}

export function factorM(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs, nv = m.nv;
  const plan = planOf(m);
  const scratch = scratchOf(m, d);
  const { qM, qLD, qLDiagInv } = d;
  // an f32 Data is factored in f64 scratch and only the result is rounded
  const f64 = qLD instanceof Float64Array;
  const LD = f64 ? qLD : scratch.qH;
  const diagInv = f64 ? qLDiagInv : scratch.qHDiagInv;
  copyTree(plan, nv, n, qM, LD, e0, e1);
  factorLDL(plan, nv, n, LD, diagInv, scratch.invd, scratch.tmp, e0, e1);
  if (f64) return;
  copyTree(plan, nv, n, LD, qLD, e0, e1);
  for (let i = 0; i < nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) qLDiagInv[o + e] = diagInv[o + e]!;
  }
}

/** Copies the entries of the dof tree (lower triangle: M(i, j), j = i or an ancestor) of envs [e0, e1). */
export function copyTree(plan: Plan, nv: number, n: number, src: Mat, dst: Mat, e0: number, e1: number): void {
  const { rowadr, rownnz, colind } = plan;
  if (e1 - e0 <= NARROW) {
    for (let e = e0; e < e1; e++) {
      for (let i = 0; i < nv; i++) {
        const I = i * nv * n + e;
        for (let c = rowadr[i]!, end = c + rownnz[i]!; c < end; c++) {
          const o = I + colind[c]! * n;
          dst[o] = src[o]!;
        }
      }
    }
    return;
  }
  for (let i = 0; i < nv; i++) {
    for (let c = rowadr[i]!, end = c + rownnz[i]!; c < end; c++) {
      const o = (i * nv + colind[c]!) * n;
      for (let e = e0; e < e1; e++) dst[o + e] = src[o + e]!;
    }
  }
}

/** x <- M^-1 x with the current factor in d, for SoA vectors (nv per env) of envs [e0, e1) (mj_solveM). */
export function solveM(m: Model, d: Data, x: Mat, e0: number, e1: number): void {
  solveLDL(planOf(m), m.nv, d.nEnvs, d.qLD, d.qLDiagInv, x, e0, e1);
}

/** x[off .. off+nv) <- M^-1 x for env `e`, x being that env's contiguous vector (mj_solveM for one vector). */
export function solveMEnv(m: Model, d: Data, e: number, x: Mat, off = 0): void {
  solveLDLStrided(planOf(m), m.nv, d.nEnvs, d.qLD, d.qLDiagInv, e, x, off, 1);
}
