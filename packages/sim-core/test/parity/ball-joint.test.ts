/**
 * Ball joints against MuJoCo (issue 13): the loader compiles them as MuJoCo does (degrees to radians, cone
 * limits), and the f64 pipeline follows MuJoCo through swings that hit the cone limit and the floor.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { disposeMujoco, loadMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from '../loaders/compare.js';
import { BALL_CHAIN_XML } from './models.js';
import { run, twin } from './trajectory.js';

describe('ball joints against MuJoCo', () => {
  it('the loader compiles a ball chain as MuJoCo does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-ball-'));
    writeFileSync(join(dir, 'm.xml'), BALL_CHAIN_XML);
    const ours = loadMJCF(join(dir, 'm.xml')).model;
    const loaded = await loadMujoco(join(dir, 'm.xml'));
    try {
      expect(diffModels(ours, mujocoModel(loaded.mj, loaded.m))).toEqual([]);
      expect(ours.jntRange[2 * 1 + 1]).toBeCloseTo((20 * Math.PI) / 180, 15);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('a swinging ball chain that meets its cone limit and the floor follows MuJoCo for 500 steps to 1e-9 (f64)', async () => {
    const loaded = await loadMujocoXml(BALL_CHAIN_XML);
    try {
      // a spin about each joint's own axes: the middle joint runs into its 20-degree cone
      const qvel = [0.5, 3, -1, 0, 6, 2, 4, -2, 1];
      for (let k = 0; k < qvel.length; k++) loaded.d.qvel[k] = qvel[k]!;
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      let limitRows = 0, contacts = 0;
      const worst = run(p, 500, () => {
        for (let r = 0; r < p.d.nefc[0]!; r++) if (p.d.efcType[r] === 3) limitRows++;
        contacts = Math.max(contacts, p.d.ncon[0]!);
      });
      expect(limitRows).toBeGreaterThan(0); // the cone limit was active
      expect(contacts).toBeGreaterThan(0); // and the chain hit the floor
      // f64 through the same operations: measured 2.7e-13 over 500 steps; 1e-9 is the bound (fails on NaN)
      expect(worst).toBeLessThanOrEqual(1e-9);
    } finally {
      disposeMujoco(loaded);
    }
  });
});
