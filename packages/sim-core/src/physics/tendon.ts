/** A fixed tendon's state: its length sum(coef * qpos) and velocity sum(coef * qvel) over its joints. */
import type { Real } from '../data/data.js';
import type { Model } from '../model/model.js';

/** Writes fixed tendon t's [length, velocity] in env e of SoA arrays with n envs into out. */
export function tendonState(m: Model, t: number, qpos: Real, qvel: Real, n: number, e: number, out: Float64Array): void {
  let length = 0, velocity = 0;
  for (let w = m.tendonAdr[t]!; w < m.tendonAdr[t]! + m.tendonNum[t]!; w++) {
    const j = m.wrapObjid[w]!, c = m.wrapPrm[w]!;
    length += c * qpos[m.jntQposadr[j]! * n + e]!;
    velocity += c * qvel[m.jntDofadr[j]! * n + e]!;
  }
  out[0] = length;
  out[1] = velocity;
}
