/**
 * Stage `smooth_acc` (MuJoCo mj_fwdAcceleration): the sum of all non-constraint forces
 * qfrcSmooth = qfrcPassive - qfrcBias + qfrcApplied + qfrcActuator, and the unconstrained acceleration
 * qaccSmooth = M^-1 qfrcSmooth from the factor of stage factor_m.
 */
import type { Data } from '../../data/data.js';
import type { Model } from '../../model/model.js';
import { scratchOf } from '../../data/scratch.js';
import { solveM } from '../factor_m/cpu.js';

export function smoothAcc(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const { qfrcPassive, qfrcBias, qfrcApplied, qfrcActuator, qfrcSmooth, qaccSmooth } = d;
  // solve in f64 scratch so an f32 Data only rounds the result
  const x = scratchOf(m, d).vecNv;
  for (let i = 0; i < m.nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) {
      const f = qfrcPassive[o + e]! - qfrcBias[o + e]! + qfrcApplied[o + e]! + qfrcActuator[o + e]!;
      qfrcSmooth[o + e] = f;
      x[o + e] = f;
    }
  }
  solveM(m, d, x, e0, e1);
  for (let i = 0; i < m.nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) qaccSmooth[o + e] = x[o + e]!;
  }
}
