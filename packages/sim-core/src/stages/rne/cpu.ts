/**
 * Stage `rne` (MuJoCo mj_comVel + mj_rne with zero acceleration): body spatial velocities cvel and dof
 * velocity derivatives cdofDot (= cvel x cdof), then the bias force qfrcBias = C(q, qdot) + gravity
 * terms by recursive Newton-Euler: accelerations forward from the world's -gravity, body forces
 * I*a + v x* (I*v), accumulated leaf to root and projected on the dofs.
 * Spatial vectors are [angular, linear] in the com-based frame, as MuJoCo's.
 */
import type { Data } from '../../data/data.js';
import { JointType, type Model } from '../../model/model.js';
import { planOf } from '../../data/plan.js';
import { scratchOf } from '../../data/scratch.js';
import { mulInertVec } from '../../math/inertia.js';
import { addRows } from '../../math/rows.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const BALL: number = JointType.Ball;
/** I * cacc in [0, 6), I * cvel in [6, 12). */
const products = new Float64Array(12);

export function rne(m: Model, d: Data, e0: number, e1: number): void {
  comVel(m, d, e0, e1);
  bias(m, d, e0, e1);
}

/** mj_comVel: cvel and cdofDot. */
export function comVel(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const plan = planOf(m);
  const { cvel, cdof, cdofDot, qvel } = d;
  for (let e = e0; e < e1; e++) for (let k = 0; k < 6 * n; k += n) cvel[k + e] = 0;

  for (let b = 1; b < m.nbody; b++) {
    const P = 6 * m.bodyParentid[b]! * n, B = 6 * b * n;
    const bda = m.bodyDofadr[b]!, dofnum = m.bodyDofnum[b]!;
    for (let e = e0; e < e1; e++) {
      let w0 = cvel[P + e]!, w1 = cvel[P + n + e]!, w2 = cvel[P + 2 * n + e]!;
      let l0 = cvel[P + 3 * n + e]!, l1 = cvel[P + 4 * n + e]!, l2 = cvel[P + 5 * n + e]!;
      let j = 0;
      while (j < dofnum) {
        const dof = bda + j;
        const type = plan.dofJntType[dof]!;
        let nrot: number;
        let rot: number;
        if (type === FREE) {
          // translations: cdofDot = 0, velocity adds before the rotations' cdofDot
          for (let t = 0; t < 3; t++) {
            const D = 6 * (dof + t) * n + e;
            for (let k = 0; k < 6; k++) cdofDot[D + k * n] = 0;
            const q = qvel[(dof + t) * n + e]!;
            w0 += cdof[D]! * q; w1 += cdof[D + n]! * q; w2 += cdof[D + 2 * n]! * q;
            l0 += cdof[D + 3 * n]! * q; l1 += cdof[D + 4 * n]! * q; l2 += cdof[D + 5 * n]! * q;
          }
          rot = dof + 3; nrot = 3; j += 6;
        } else if (type === BALL) {
          rot = dof; nrot = 3; j += 3;
        } else {
          rot = dof; nrot = 1; j += 1;
        }
        // cdofDot of all rotational dofs of the joint use the velocity before the joint's own
        let a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
        for (let r = 0; r < nrot; r++) {
          const D = 6 * (rot + r) * n + e;
          const v0 = cdof[D]!, v1 = cdof[D + n]!, v2 = cdof[D + 2 * n]!;
          const v3 = cdof[D + 3 * n]!, v4 = cdof[D + 4 * n]!, v5 = cdof[D + 5 * n]!;
          cdofDot[D] = -w2 * v1 + w1 * v2;
          cdofDot[D + n] = w2 * v0 - w0 * v2;
          cdofDot[D + 2 * n] = -w1 * v0 + w0 * v1;
          cdofDot[D + 3 * n] = -w2 * v4 + w1 * v5 + (-l2 * v1 + l1 * v2);
          cdofDot[D + 4 * n] = w2 * v3 - w0 * v5 + (l2 * v0 - l0 * v2);
          cdofDot[D + 5 * n] = -w1 * v3 + w0 * v4 + (-l1 * v0 + l0 * v1);
          const q = qvel[(rot + r) * n + e]!;
          a0 += v0 * q; a1 += v1 * q; a2 += v2 * q; a3 += v3 * q; a4 += v4 * q; a5 += v5 * q;
        }
        w0 += a0; w1 += a1; w2 += a2; l0 += a3; l1 += a4; l2 += a5;
      }
      cvel[B + e] = w0; cvel[B + n + e] = w1; cvel[B + 2 * n + e] = w2;
      cvel[B + 3 * n + e] = l0; cvel[B + 4 * n + e] = l1; cvel[B + 5 * n + e] = l2;
    }
  }
}

/** mj_rne(flg_acc = 0) -> qfrcBias. */
function bias(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const { cacc, cfrc } = scratchOf(m, d);
  const { cvel, cinert, cdof, cdofDot, qvel, qfrcBias } = d;
  const g = m.opt.gravity;
  const gx = -g[0], gy = -g[1], gz = -g[2];
  for (let e = e0; e < e1; e++) {
    cacc[e] = 0; cacc[n + e] = 0; cacc[2 * n + e] = 0;
    cacc[3 * n + e] = gx; cacc[4 * n + e] = gy; cacc[5 * n + e] = gz;
    for (let k = 0; k < 6; k++) cfrc[k * n + e] = 0;
  }

  for (let b = 1; b < m.nbody; b++) {
    const P = 6 * m.bodyParentid[b]! * n, B = 6 * b * n, C = 10 * b * n;
    const bda = m.bodyDofadr[b]!, dofnum = m.bodyDofnum[b]!;
    for (let e = e0; e < e1; e++) {
      // cacc = cacc_parent + sum cdofDot * qvel
      let t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0;
      for (let j = 0; j < dofnum; j++) {
        const D = 6 * (bda + j) * n + e;
        const q = qvel[(bda + j) * n + e]!;
        t0 += cdofDot[D]! * q; t1 += cdofDot[D + n]! * q; t2 += cdofDot[D + 2 * n]! * q;
        t3 += cdofDot[D + 3 * n]! * q; t4 += cdofDot[D + 4 * n]! * q; t5 += cdofDot[D + 5 * n]! * q;
      }
      const a0 = cacc[P + e]! + t0, a1 = cacc[P + n + e]! + t1, a2 = cacc[P + 2 * n + e]! + t2;
      const a3 = cacc[P + 3 * n + e]! + t3, a4 = cacc[P + 4 * n + e]! + t4, a5 = cacc[P + 5 * n + e]! + t5;
      cacc[B + e] = a0; cacc[B + n + e] = a1; cacc[B + 2 * n + e] = a2;
      cacc[B + 3 * n + e] = a3; cacc[B + 4 * n + e] = a4; cacc[B + 5 * n + e] = a5;

      const i0 = cinert[C + e]!, i1 = cinert[C + n + e]!, i2 = cinert[C + 2 * n + e]!, i3 = cinert[C + 3 * n + e]!;
      const i4 = cinert[C + 4 * n + e]!, i5 = cinert[C + 5 * n + e]!, i6 = cinert[C + 6 * n + e]!, i7 = cinert[C + 7 * n + e]!;
      const i8 = cinert[C + 8 * n + e]!, i9 = cinert[C + 9 * n + e]!;
      // f = I * cacc
      mulInertVec(products, 0, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, a0, a1, a2, a3, a4, a5);
      // h = I * cvel
      const w0 = cvel[B + e]!, w1 = cvel[B + n + e]!, w2 = cvel[B + 2 * n + e]!;
      const l0 = cvel[B + 3 * n + e]!, l1 = cvel[B + 4 * n + e]!, l2 = cvel[B + 5 * n + e]!;
      mulInertVec(products, 6, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, w0, w1, w2, l0, l1, l2);
      const f0 = products[0]!, f1 = products[1]!, f2 = products[2]!, f3 = products[3]!, f4 = products[4]!, f5 = products[5]!;
      const h0 = products[6]!, h1 = products[7]!, h2 = products[8]!, h3 = products[9]!, h4 = products[10]!, h5 = products[11]!;
      // cfrc = f + cvel x* h
      cfrc[B + e] = f0 + (-w2 * h1 + w1 * h2 + (-l2 * h4 + l1 * h5));
      cfrc[B + n + e] = f1 + (w2 * h0 - w0 * h2 + (l2 * h3 - l0 * h5));
      cfrc[B + 2 * n + e] = f2 + (-w1 * h0 + w0 * h1 + (-l1 * h3 + l0 * h4));
      cfrc[B + 3 * n + e] = f3 + (-w2 * h4 + w1 * h5);
      cfrc[B + 4 * n + e] = f4 + (w2 * h3 - w0 * h5);
      cfrc[B + 5 * n + e] = f5 + (-w1 * h3 + w0 * h4);
    }
  }

  for (let b = m.nbody - 1; b > 0; b--) {
    const p = m.bodyParentid[b]!;
    if (p === 0) continue;
    addRows(cfrc, 6 * p * n, 6 * b * n, 6, n, e0, e1);
  }

  for (let i = 0; i < m.nv; i++) {
    const D = 6 * i * n, F = 6 * m.dofBodyid[i]! * n, o = i * n;
    for (let e = e0; e < e1; e++) {
      qfrcBias[o + e] = cdof[D + e]! * cfrc[F + e]! + cdof[D + n + e]! * cfrc[F + n + e]! +
        cdof[D + 2 * n + e]! * cfrc[F + 2 * n + e]! + cdof[D + 3 * n + e]! * cfrc[F + 3 * n + e]! +
        cdof[D + 4 * n + e]! * cfrc[F + 4 * n + e]! + cdof[D + 5 * n + e]! * cfrc[F + 5 * n + e]!;
    }
  }
}
