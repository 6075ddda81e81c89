/**
 * Stage `crb` (MuJoCo mj_crb, as called by mj_makeM): composite rigid-body inertias and the joint-space
 * mass matrix M(i, j) = cdof_j . (crb_body(i) * cdof_i) for j = i and its dof ancestors, plus armature on
 * the diagonal. qM is stored dense and symmetric; entries between unrelated dofs are structurally zero
 * (set once by makeData and never written).
 */
import type { Data } from '../../data/data.js';
import type { Model } from '../../model/model.js';
import { planOf } from '../../data/plan.js';
import { mulInertVec } from '../../math/inertia.js';
import { addRows } from '../../math/rows.js';

const buf = new Float64Array(6);

export function crb(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const nv = m.nv;
  const { cinert, crb: crbs, cdof, qM } = d;
  const plan = planOf(m);

  if (e0 === 0 && e1 === n) crbs.set(cinert);
  else {
    for (let k = 0; k < 10 * m.nbody; k++) {
      const o = k * n;
      for (let e = e0; e < e1; e++) crbs[o + e] = cinert[o + e]!;
    }
  }
  for (let b = m.nbody - 1; b > 0; b--) {
    const p = m.bodyParentid[b]!;
    if (p === 0) continue;
    addRows(crbs, 10 * p * n, 10 * b * n, 10, n, e0, e1);
  }

  const { ancDescAdr, ancDescNum, ancDesc } = plan;
  for (let i = 0; i < nv; i++) {
    const C = 10 * m.dofBodyid[i]! * n;
    const Di = 6 * i * n;
    const arm = m.dofArmature[i]!;
    const a0 = ancDescAdr[i]!, a1 = a0 + ancDescNum[i]!;
    for (let e = e0; e < e1; e++) {
      // buf = crb * cdof_i (mju_mulInertVec)
      const c0 = crbs[C + e]!, c1 = crbs[C + n + e]!, c2 = crbs[C + 2 * n + e]!, c3 = crbs[C + 3 * n + e]!;
      const c4 = crbs[C + 4 * n + e]!, c5 = crbs[C + 5 * n + e]!, c6 = crbs[C + 6 * n + e]!, c7 = crbs[C + 7 * n + e]!;
      const c8 = crbs[C + 8 * n + e]!, c9 = crbs[C + 9 * n + e]!;
      const v0 = cdof[Di + e]!, v1 = cdof[Di + n + e]!, v2 = cdof[Di + 2 * n + e]!;
      const v3 = cdof[Di + 3 * n + e]!, v4 = cdof[Di + 4 * n + e]!, v5 = cdof[Di + 5 * n + e]!;
      mulInertVec(buf, 0, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, v0, v1, v2, v3, v4, v5);
      const b0 = buf[0]!, b1 = buf[1]!, b2 = buf[2]!, b3 = buf[3]!, b4 = buf[4]!, b5 = buf[5]!;
      qM[(i * nv + i) * n + e] = arm + (v0 * b0 + v1 * b1 + v2 * b2 + v3 * b3 + v4 * b4 + v5 * b5);
      for (let a = a0; a < a1; a++) {
        const j = ancDesc[a]!;
        const Dj = 6 * j * n + e;
        const v = cdof[Dj]! * b0 + cdof[Dj + n]! * b1 + cdof[Dj + 2 * n]! * b2 +
          cdof[Dj + 3 * n]! * b3 + cdof[Dj + 4 * n]! * b4 + cdof[Dj + 5 * n]! * b5;
        qM[(i * nv + j) * n + e] = v;
        qM[(j * nv + i) * n + e] = v;
      }
    }
  }
}
