/**
 * The narrow phase alone against MuJoCo: along MuJoCo's own trajectory, sim-core's collision stage gets MuJoCo's
 * poses every step and must give MuJoCo's contacts (count and geoms asserted here; distance, point and normal
 * measured).
 */
import { expect } from 'vitest';
import type { Model } from '../../src/model/model.js';
import { collision } from '../../src/stages/collision/cpu.js';
import { allocData, copyFromMujoco, mujocoContacts } from '../constraints/mujoco-data.js';
import { disposeMujoco, loadMujocoXml, type Mj, modelFromMujoco } from '../helpers/mujoco.js';

/**
 * Steps MuJoCo `steps` times from `qvel`; returns the largest contact difference (distance, point, normal) and
 * the most contacts seen in one step. `extra` adds fields the helper's model copy leaves out.
 */
export async function narrowAlongMujoco(
  xml: string, qvel: number[], steps: number, extra?: (m: Mj) => Partial<Model>,
): Promise<{ worst: number; most: number }> {
  const { mj, m, d } = await loadMujocoXml(xml);
  try {
    d.qvel.set(qvel);
    const model = Object.assign(modelFromMujoco(mj, m), extra?.(m));
    const sd = allocData(model, 1, { maxContacts: 64 });
    let worst = 0, most = 0;
    for (let s = 0; s < steps; s++) {
      mj.mj_step(m, d);
      mj.mj_forward(m, d);
      copyFromMujoco(mj, m, model, sd, [d]);
      collision(model, sd, 0, 1);
      const ref = mujocoContacts(d);
      expect(sd.ncon[0], `step ${s} contact count`).toBe(ref.length);
      most = Math.max(most, ref.length);
      ref.forEach((con, k) => {
        expect([sd.contactGeom[2 * k], sd.contactGeom[2 * k + 1]]).toEqual(con.geom);
        worst = Math.max(worst, Math.abs(sd.contactDist[k]! - con.dist));
        for (let i = 0; i < 3; i++) worst = Math.max(worst, Math.abs(sd.contactPos[3 * k + i]! - con.pos[i]!));
        for (let i = 0; i < 3; i++) worst = Math.max(worst, Math.abs(sd.contactFrame[9 * k + i]! - con.frame[i]!));
      });
    }
    return { worst, most };
  } finally {
    disposeMujoco({ m, d });
  }
}
