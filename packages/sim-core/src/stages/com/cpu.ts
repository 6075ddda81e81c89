/**
 * Stage `com` (MuJoCo mj_comPos): subtree centres of mass, body inertias in the com-based frame (cinert:
 * [Ixx Iyy Izz Ixy Ixz Iyz, m*c (3), m] about the subtree com of the body's root) and the motion axes of
 * the dofs in that frame (cdof: [angular, linear]).
 */
import type { Data } from '../../data/data.js';
import { JointType, type Model } from '../../model/model.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const SLIDE: number = JointType.Slide;
const HINGE: number = JointType.Hinge;

const MINVAL = 1e-15;

export function com(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const { xipos, ximat, subtreeCom, cinert, cdof, xmat, xanchor, xaxis } = d;
  const nbody = m.nbody;

  // subtree_com: body moments, accumulated leaf to root, then normalised by the subtree mass
  const n2 = 2 * n;
  for (let b = 0; b < nbody; b++) {
    const mass = m.bodyMass[b]!;
    const o = 3 * b * n;
    for (let e = e0; e < e1; e++) {
      subtreeCom[o + e] = xipos[o + e]! * mass;
      subtreeCom[o + n + e] = xipos[o + n + e]! * mass;
      subtreeCom[o + n2 + e] = xipos[o + n2 + e]! * mass;
    }
  }
  for (let b = nbody - 1; b > 0; b--) {
    const o = 3 * b * n, op = 3 * m.bodyParentid[b]! * n;
    for (let e = e0; e < e1; e++) {
      subtreeCom[op + e] = subtreeCom[op + e]! + subtreeCom[o + e]!;
      subtreeCom[op + n + e] = subtreeCom[op + n + e]! + subtreeCom[o + n + e]!;
      subtreeCom[op + n2 + e] = subtreeCom[op + n2 + e]! + subtreeCom[o + n2 + e]!;
    }
  }
  for (let b = 0; b < nbody; b++) {
    const st = m.bodySubtreemass[b]!;
    const o = 3 * b * n;
    if (st < MINVAL) {
      for (let e = e0; e < e1; e++) {
        subtreeCom[o + e] = xipos[o + e]!; subtreeCom[o + n + e] = xipos[o + n + e]!; subtreeCom[o + n2 + e] = xipos[o + n2 + e]!;
      }
    } else {
      const s = 1 / st;
      for (let e = e0; e < e1; e++) {
        subtreeCom[o + e] = subtreeCom[o + e]! * s;
        subtreeCom[o + n + e] = subtreeCom[o + n + e]! * s;
        subtreeCom[o + n2 + e] = subtreeCom[o + n2 + e]! * s;
      }
    }
  }

  // cinert (world body: zero)
  for (let k = 0; k < 10; k++) for (let e = e0; e < e1; e++) cinert[k * n + e] = 0;
  for (let b = 1; b < nbody; b++) {
    const mass = m.bodyMass[b]!;
    const i0 = m.bodyInertia[3 * b]!, i1 = m.bodyInertia[3 * b + 1]!, i2 = m.bodyInertia[3 * b + 2]!;
    const R = 3 * m.bodyRootid[b]! * n, X = 3 * b * n, M9 = 9 * b * n, C = 10 * b * n;
    for (let e = e0; e < e1; e++) {
      const dx = xipos[X + e]! - subtreeCom[R + e]!;
      const dy = xipos[X + n + e]! - subtreeCom[R + n + e]!;
      const dz = xipos[X + 2 * n + e]! - subtreeCom[R + 2 * n + e]!;
      const a0 = ximat[M9 + e]!, a1 = ximat[M9 + n + e]!, a2 = ximat[M9 + 2 * n + e]!;
      const a3 = ximat[M9 + 3 * n + e]!, a4 = ximat[M9 + 4 * n + e]!, a5 = ximat[M9 + 5 * n + e]!;
      const a6 = ximat[M9 + 6 * n + e]!, a7 = ximat[M9 + 7 * n + e]!, a8 = ximat[M9 + 8 * n + e]!;
      // tmp = diag(inertia) * mat'
      const t0 = a0 * i0, t1 = a3 * i0, t2 = a6 * i0;
      const t3 = a1 * i1, t4 = a4 * i1, t5 = a7 * i1;
      const t6 = a2 * i2, t7 = a5 * i2, t8 = a8 * i2;
      cinert[C + e] = a0 * t0 + a1 * t3 + a2 * t6 + mass * (dy * dy + dz * dz);
      cinert[C + n + e] = a3 * t1 + a4 * t4 + a5 * t7 + mass * (dx * dx + dz * dz);
      cinert[C + 2 * n + e] = a6 * t2 + a7 * t5 + a8 * t8 + mass * (dx * dx + dy * dy);
      cinert[C + 3 * n + e] = a0 * t1 + a1 * t4 + a2 * t7 - mass * dx * dy;
      cinert[C + 4 * n + e] = a0 * t2 + a1 * t5 + a2 * t8 - mass * dx * dz;
      cinert[C + 5 * n + e] = a3 * t2 + a4 * t5 + a5 * t8 - mass * dy * dz;
      cinert[C + 6 * n + e] = mass * dx;
      cinert[C + 7 * n + e] = mass * dy;
      cinert[C + 8 * n + e] = mass * dz;
      cinert[C + 9 * n + e] = mass;
    }
  }

  // cdof: motion axes about the subtree com of the root
  for (let j = 0; j < m.njnt; j++) {
    const da = m.jntDofadr[j]!;
    const bi = m.jntBodyid[j]!;
    const type = m.jntType[j]!;
    const R = 3 * m.bodyRootid[bi]! * n, A = 3 * j * n, M9 = 9 * bi * n;
    for (let e = e0; e < e1; e++) {
      const ox = subtreeCom[R + e]! - xanchor[A + e]!;
      const oy = subtreeCom[R + n + e]! - xanchor[A + n + e]!;
      const oz = subtreeCom[R + 2 * n + e]! - xanchor[A + 2 * n + e]!;
      if (type === HINGE || type === SLIDE) {
        const ax = xaxis[A + e]!, ay = xaxis[A + n + e]!, az = xaxis[A + 2 * n + e]!;
        const D = 6 * da * n + e;
        if (type === HINGE) {
          cdof[D] = ax; cdof[D + n] = ay; cdof[D + 2 * n] = az;
          cdof[D + 3 * n] = ay * oz - az * oy; cdof[D + 4 * n] = az * ox - ax * oz; cdof[D + 5 * n] = ax * oy - ay * ox;
        } else {
          cdof[D] = 0; cdof[D + n] = 0; cdof[D + 2 * n] = 0;
          cdof[D + 3 * n] = ax; cdof[D + 4 * n] = ay; cdof[D + 5 * n] = az;
        }
        continue;
      }
      let rot = da;
      if (type === FREE) {
        for (let i = 0; i < 3; i++) {
          const D = 6 * (da + i) * n + e;
          for (let k = 0; k < 6; k++) cdof[D + k * n] = k === 3 + i ? 1 : 0;
        }
        rot = da + 3;
      }
      // ball (and the rotations of free): the body frame's axes, columns of xmat
      for (let i = 0; i < 3; i++) {
        const ax = xmat[M9 + i * n + e]!, ay = xmat[M9 + (i + 3) * n + e]!, az = xmat[M9 + (i + 6) * n + e]!;
        const D = 6 * (rot + i) * n + e;
        cdof[D] = ax; cdof[D + n] = ay; cdof[D + 2 * n] = az;
        cdof[D + 3 * n] = ay * oz - az * oy; cdof[D + 4 * n] = az * ox - ax * oz; cdof[D + 5 * n] = ax * oy - ay * ox;
      }
    }
  }
}
