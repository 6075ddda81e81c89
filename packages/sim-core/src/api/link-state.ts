/**
 * Link poses and velocities for the state as it is now. The backends' derived fields (xpos, cvel, ...) are
 * those the last step computed before integrating, as MuJoCo's mj_step leaves them, so they lag qpos by one
 * step. The getters instead run MuJoCo's mj_kinematics, mj_comPos and mj_comVel on the host, in f64, for the
 * envs asked for, from the current qpos and qvel.
 */
import type { SimInstance } from '../backend/backend.js';
import type { Data } from '../data/data.js';
import { makeData } from '../data/make-data.js';
import type { Model } from '../model/model.js';
import { com } from '../stages/com/cpu.js';
import { kinematics } from '../stages/kinematics/cpu.js';
import { comVel } from '../stages/rne/cpu.js';

/** A host Data (env t = envs[t]) with the current qpos and qvel and their kinematics; velocities if asked. */
export async function currentLinkState(sim: SimInstance, model: Model, envs: Int32Array, velocities: boolean): Promise<Data> {
  const n = envs.length;
  const d = makeData(model, n, '64', { maxContacts: 0, maxEfc: 0 });
  const qpos = await sim.readQpos(Int32Array.from({ length: model.nq }, (_, k) => k), envs);
  for (let t = 0; t < n; t++) for (let k = 0; k < model.nq; k++) d.qpos[k * n + t] = qpos[t * model.nq + k]!;
  kinematics(model, d, 0, n);
  com(model, d, 0, n);
  if (velocities) {
    const qvel = await sim.readDofs('qvel', Int32Array.from({ length: model.nv }, (_, k) => k), envs);
    for (let t = 0; t < n; t++) for (let k = 0; k < model.nv; k++) d.qvel[k * n + t] = qvel[t * model.nv + k]!;
    comVel(model, d, 0, n);
  }
  return d;
}
