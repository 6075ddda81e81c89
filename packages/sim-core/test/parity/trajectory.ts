/**
 * Steps MuJoCo (mujoco-js) and sim-core's CPU pipeline side by side on the same model (built from MuJoCo's
 * own compiled model, so the loaders are not under test, with the derived constants recomputed by sim-core's
 * setConst as a loaded model gets them) and reports how far the trajectories drift apart.
 */
import { stepCpu } from '../../src/cpu/step.js';
import type { Data } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import { setConst } from '../../src/physics/setconst.js';
import type { Model } from '../../src/model/model.js';
import { modelFromMujoco, type Mj } from '../helpers/mujoco.js';

export interface Pair { mj: Mj; mjm: Mj; md: Mj; model: Model; d: Data }

/** sim-core Data (f64 unless told, `nEnvs` identical envs) in the same state as MuJoCo's `md` (qpos, qvel, ctrl). */
export function twin(
  mj: Mj, mjm: Mj, md: Mj, nEnvs: number, patch?: (m: Model) => void, precision: '32' | '64' = '64', maxContacts?: number,
): Pair {
  const model = setConst(modelFromMujoco(mj, mjm));
  patch?.(model);
  const d = makeData(model, nEnvs, precision, maxContacts === undefined ? {} : { maxContacts });
  const n = d.nEnvs;
  for (let e = 0; e < n; e++) {
    for (let k = 0; k < model.nq; k++) d.qpos[k * n + e] = md.qpos[k];
    for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = md.qvel[k];
    for (let k = 0; k < model.nu; k++) d.ctrl[k * n + e] = md.ctrl[k];
  }
  return { mj, mjm, md, model, d };
}

/** Largest |sim - mujoco| / max(1, |mujoco|) over qpos and qvel of every env. */
export function stateError(p: Pair): number {
  const { d, md, model } = p;
  const n = d.nEnvs;
  let err = 0;
  for (let e = 0; e < n; e++) {
    for (let k = 0; k < model.nq; k++) {
      const ref = md.qpos[k] as number;
      err = Math.max(err, Math.abs(d.qpos[k * n + e]! - ref) / Math.max(1, Math.abs(ref)));
    }
    for (let k = 0; k < model.nv; k++) {
      const ref = md.qvel[k] as number;
      err = Math.max(err, Math.abs(d.qvel[k * n + e]! - ref) / Math.max(1, Math.abs(ref)));
    }
  }
  return err;
}

/** Steps both `steps` times; `each` sees the pair after every step. Returns the largest state error seen. */
export function run(p: Pair, steps: number, each?: (step: number) => void): number {
  let worst = 0;
  for (let s = 0; s < steps; s++) {
    p.mj.mj_step(p.mjm, p.md);
    stepCpu(p.model, p.d, 0, p.d.nEnvs);
    worst = Math.max(worst, stateError(p));
    each?.(s);
  }
  return worst;
}
