/**
 * The velocity derivative of the bias force, qDeriv -= d(qfrc_bias)/d(qvel) (MuJoCo's mjd_rne_vel, which the
 * implicit integrator adds to qDeriv and implicitfast leaves out): the derivatives of the body velocities cvel
 * and of cdof_dot (mjd_comVel_vel), carried forward into the body accelerations, through each body's force
 * cinert * cacc + cvel x* (cinert * cvel), summed leaf to root and projected on each dof's cdof.
 *
 * Each body's (or dof's) derivative is kept for every column (dof) c as 6 numbers [c * 6 + k], as MuJoCo keeps
 * them for its nonzero columns; the columns MuJoCo leaves out are zero here, so the same products are summed
 * in the same order. Spatial vectors are [angular, linear] in the com-based frame (as the rne stage's).
 */
import type { Data, Real } from '../data/data.js';
import { JointType, type Model } from '../model/model.js';
import { planOf } from '../data/plan.js';

const FREE: number = JointType.Free;
const BALL: number = JointType.Ball;

/** d(vel x v)/d(vel) (MuJoCo's mjd_crossMotion_vel), 6x6 row-major into D. */
function crossMotionVel(D: Float64Array, v: Float64Array): void {
  D.fill(0);
  D[2] = -v[1]!; D[1] = v[2]!;
  D[8] = v[0]!; D[6] = -v[2]!;
  D[13] = -v[0]!; D[12] = v[1]!;
  D[20] = -v[4]!; D[19] = v[5]!; D[23] = -v[1]!; D[22] = v[2]!;
  D[26] = v[3]!; D[24] = -v[5]!; D[29] = v[0]!; D[27] = -v[2]!;
  D[31] = -v[3]!; D[30] = v[4]!; D[34] = -v[0]!; D[33] = v[1]!;
}

/** d(vel x* f)/d(vel) (mjd_crossForce_vel). */
function crossForceVel(D: Float64Array, f: Float64Array): void {
  D.fill(0);
  D[2] = -f[1]!; D[1] = f[2]!; D[5] = -f[4]!; D[4] = f[5]!;
  D[8] = f[0]!; D[6] = -f[2]!; D[11] = f[3]!; D[9] = -f[5]!;
  D[13] = -f[0]!; D[12] = f[1]!; D[16] = -f[3]!; D[15] = f[4]!;
  D[20] = -f[4]!; D[19] = f[5]!;
  D[26] = f[3]!; D[24] = -f[5]!;
  D[31] = -f[3]!; D[30] = f[4]!;
}

/** d(vel x* f)/d(f) (mjd_crossForce_frc). */
function crossForceFrc(D: Float64Array, vel: Float64Array): void {
  D.fill(0);
  D[1] = -vel[2]!; D[2] = vel[1]!; D[4] = -vel[5]!; D[5] = vel[4]!;
  D[6] = vel[2]!; D[8] = -vel[0]!; D[9] = vel[5]!; D[11] = -vel[3]!;
  D[12] = -vel[1]!; D[13] = vel[0]!; D[15] = -vel[4]!; D[16] = vel[3]!;
  D[22] = -vel[2]!; D[23] = vel[1]!;
  D[27] = vel[2]!; D[29] = -vel[0]!;
  D[33] = -vel[1]!; D[34] = vel[0]!;
}

/** d(I * v)/d(v) for a spatial inertia in MuJoCo's 10-number layout (mjd_mulInertVec_vel). */
function mulInertVecVel(D: Float64Array, i: Float64Array): void {
  D.fill(0);
  D[0] = i[0]!; D[1] = i[3]!; D[2] = i[4]!; D[4] = -i[8]!; D[5] = i[7]!;
  D[6] = i[3]!; D[7] = i[1]!; D[8] = i[5]!; D[9] = i[8]!; D[11] = -i[6]!;
  D[12] = i[4]!; D[13] = i[5]!; D[14] = i[2]!; D[15] = -i[7]!; D[16] = i[6]!;
  D[19] = i[8]!; D[20] = -i[7]!; D[21] = i[9]!;
  D[26] = i[6]!; D[24] = -i[8]!; D[28] = i[9]!;
  D[30] = i[7]!; D[31] = -i[6]!; D[35] = i[9]!;
}

/**
 * out[c][r] = sum_k a[c][k] * B[r][k] for `cols` rows c of 6 (a matrix times B's transpose, MuJoCo's
 * mju_mulMatMat with the transposed 6x6: terms added in k order, zero factors skipped).
 */
function mulRowsByT(out: Float64Array, oOff: number, a: Float64Array, aOff: number, B: Float64Array, cols: number, add: boolean): void {
  for (let c = 0; c < cols; c++) {
    const A = aOff + 6 * c, O = oOff + 6 * c;
    for (let r = 0; r < 6; r++) {
      let s = 0;
      for (let k = 0; k < 6; k++) {
        const x = a[A + k]!;
        if (x !== 0) s += x * B[6 * r + k]!;
      }
      out[O + r] = add ? out[O + r]! + s : s;
    }
  }
}

/** mju_dot of 6: the pairs summed as MuJoCo's unrolled loop sums them. */
function dot6(a: Float64Array, ao: number, b: Float64Array): number {
  const r = (a[ao]! * b[0]! + a[ao + 2]! * b[2]!) + (a[ao + 1]! * b[1]! + a[ao + 3]! * b[3]!);
  return r + (a[ao + 4]! * b[4]! + a[ao + 5]! * b[5]!);
}

/** Working memory for one env at a time (per thread: one per Model and Data pair through rneDerivativeOf). */
export class RneVelDerivative {
  private readonly Dcvel: Float64Array;
  private readonly Dcdofdot: Float64Array;
  private readonly Dcacc: Float64Array;
  private readonly Dcfrc: Float64Array;
  private readonly tmpRows: Float64Array;
  private readonly mat = new Float64Array(36);
  private readonly mat1 = new Float64Array(36);
  private readonly mat2 = new Float64Array(36);
  private readonly dmul = new Float64Array(36);
  private readonly v6 = new Float64Array(6);
  private readonly f6 = new Float64Array(6);
  private readonly i10 = new Float64Array(10);

  constructor(private readonly m: Model) {
    const nv = m.nv;
    this.Dcvel = new Float64Array(m.nbody * nv * 6);
    this.Dcdofdot = new Float64Array(nv * nv * 6);
    this.Dcacc = new Float64Array(m.nbody * nv * 6);
    this.Dcfrc = new Float64Array(m.nbody * nv * 6);
    this.tmpRows = new Float64Array(nv * 6);
  }

  /** qDeriv -= d(qfrc_bias)/d(qvel) for env e: the diagonal in d.qDeriv, the rest in d.qDerivOffdiag. */
  subtract(d: Data, e: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs, W = nv * 6;
    const { Dcvel, Dcdofdot, Dcacc, Dcfrc, mat, mat1, mat2, dmul, v6, f6 } = this;
    const plan = planOf(m);
    Dcvel.fill(0); Dcdofdot.fill(0); Dcacc.fill(0); Dcfrc.fill(0);
    const { cdof, cdofDot, cvel, qvel } = d;
    const load6 = (src: Real, row: number, out: Float64Array): Float64Array => {
      for (let k = 0; k < 6; k++) out[k] = src[(6 * row + k) * n + e]!;
      return out;
    };
    const addCdof = (b: number, j: number): void => {
      for (let k = 0; k < 6; k++) Dcvel[b * W + 6 * j + k] = Dcvel[b * W + 6 * j + k]! + cdof[(6 * j + k) * n + e]!;
    };
    // Dcdofdot(j) = Dcvel(b) * D crossMotion(cvel, cdof_j)'
    const setCdofdot = (b: number, j: number): void => {
      crossMotionVel(mat, load6(cdof, j, v6));
      mulRowsByT(Dcdofdot, j * W, Dcvel, b * W, mat, nv, false);
    };

    // mjd_comVel_vel: forward over bodies
    for (let b = 1; b < m.nbody; b++) {
      const p = m.bodyParentid[b]!;
      Dcvel.copyWithin(b * W, p * W, p * W + W);
      const end = m.bodyDofadr[b]! + m.bodyDofnum[b]!;
      for (let j = m.bodyDofadr[b]!; j < end; j++) {
        const type = plan.dofJntType[j]!;
        if (type === FREE || type === BALL) {
          if (type === FREE) {
            for (let t = 0; t < 3; t++) addCdof(b, j + t);
            j += 3;
          }
          for (let t = 0; t < 3; t++) setCdofdot(b, j + t);
          for (let t = 0; t < 3; t++) addCdof(b, j + t);
          j += 2;
          continue;
        }
        setCdofdot(b, j);
        addCdof(b, j);
      }
    }

    // forward over bodies: Dcacc, then Dcfrcbody = D(cinert * cacc + cvel x* (cinert * cvel))
    const i10 = this.i10;
    for (let b = 1; b < m.nbody; b++) {
      const p = m.bodyParentid[b]!;
      Dcacc.copyWithin(b * W, p * W, p * W + W);
      const end = m.bodyDofadr[b]! + m.bodyDofnum[b]!;
      for (let j = m.bodyDofadr[b]!; j < end; j++) {
        for (let k = 0; k < 6; k++) Dcacc[b * W + 6 * j + k] = Dcacc[b * W + 6 * j + k]! + cdofDot[(6 * j + k) * n + e]!;
        const q = qvel[j * n + e]!;
        for (let c = 0; c < W; c++) Dcacc[b * W + c] = Dcacc[b * W + c]! + Dcdofdot[j * W + c]! * q;
      }
      for (let k = 0; k < 10; k++) i10[k] = d.cinert[(10 * b + k) * n + e]!;
      mulInertVecVel(dmul, i10);
      mulRowsByT(Dcfrc, b * W, Dcacc, b * W, dmul, nv, false);

      load6(cvel, b, v6);
      // f6 = cinert * cvel (mju_mulInertVec)
      f6[0] = i10[0]! * v6[0]! + i10[3]! * v6[1]! + i10[4]! * v6[2]! - i10[8]! * v6[4]! + i10[7]! * v6[5]!;
      f6[1] = i10[3]! * v6[0]! + i10[1]! * v6[1]! + i10[5]! * v6[2]! + i10[8]! * v6[3]! - i10[6]! * v6[5]!;
      f6[2] = i10[4]! * v6[0]! + i10[5]! * v6[1]! + i10[2]! * v6[2]! - i10[7]! * v6[3]! + i10[6]! * v6[4]!;
      f6[3] = i10[8]! * v6[1]! - i10[7]! * v6[2]! + i10[9]! * v6[3]!;
      f6[4] = i10[6]! * v6[2]! - i10[8]! * v6[0]! + i10[9]! * v6[4]!;
      f6[5] = i10[7]! * v6[0]! - i10[6]! * v6[1]! + i10[9]! * v6[5]!;
      crossForceVel(mat, f6);
      crossForceFrc(mat1, v6);
      // mat2 = mat1 * dmul; mat += mat2
      for (let r = 0; r < 6; r++) {
        for (let c = 0; c < 6; c++) {
          let s = 0;
          for (let k = 0; k < 6; k++) {
            const x = mat1[6 * r + k]!;
            if (x !== 0) s += x * dmul[6 * k + c]!;
          }
          mat2[6 * r + c] = s;
        }
      }
      for (let k = 0; k < 36; k++) mat[k] = mat[k]! + mat2[k]!;
      // Dcfrcbody += Dcvel * mat'
      mulRowsByT(this.tmpRows, 0, Dcvel, b * W, mat, nv, false);
      for (let c = 0; c < W; c++) Dcfrc[b * W + c] = Dcfrc[b * W + c]! + this.tmpRows[c]!;
    }

    // backward: each body's derivative into its parent's
    for (let b = m.nbody - 1; b > 0; b--) {
      const p = m.bodyParentid[b]!;
      if (p === 0) continue;
      for (let c = 0; c < W; c++) Dcfrc[p * W + c] = Dcfrc[p * W + c]! + Dcfrc[b * W + c]!;
    }

    // qDeriv -= D(cdof * cfrc_body), on MuJoCo's D sparsity (a dof, its ancestors and its descendants)
    const { rowadr, rownnz, colind } = plan;
    const { qDeriv, qDerivOffdiag } = d;
    for (let j = 0; j < nv; j++) {
      const b = m.dofBodyid[j]!;
      load6(cdof, j, v6);
      qDeriv[j * n + e] = qDeriv[j * n + e]! - dot6(Dcfrc, b * W + 6 * j, v6);
      // ancestors c of j: (j, c) and (c, j)
      for (let a = rowadr[j]!, last = a + rownnz[j]! - 1; a < last; a++) {
        const c = colind[a]!;
        const lo = (j * nv + c) * n + e;
        qDerivOffdiag[lo] = qDerivOffdiag[lo]! - dot6(Dcfrc, b * W + 6 * c, v6);
        const bc = m.dofBodyid[c]!;
        const hi = (c * nv + j) * n + e;
        qDerivOffdiag[hi] = qDerivOffdiag[hi]! - dot6(Dcfrc, bc * W + 6 * j, load6(cdof, c, f6));
        load6(cdof, j, v6);
      }
    }
  }
}

const derivatives = new WeakMap<Model, RneVelDerivative>();

/** The per-thread working memory for a model's bias-force derivative. */
export function rneDerivativeOf(m: Model): RneVelDerivative {
  let r = derivatives.get(m);
  if (!r) { r = new RneVelDerivative(m); derivatives.set(m, r); }
  return r;
}
