/**
 * Box-box contacts against MuJoCo (issue 13): a three-box tower settles on a floor as MuJoCo's does. Before,
 * box-box pairs had no collision code and the boxes sank into each other.
 */
import { describe, expect, it } from 'vitest';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { BOX_TOWER_XML } from './models.js';
import { run, twin } from './trajectory.js';

describe('a box tower against MuJoCo', () => {
  it('stands, its box-box contacts as MuJoCo makes them, and follows MuJoCo for 300 steps to 1e-9 (f64)', async () => {
    const loaded = await loadMujocoXml(BOX_TOWER_XML);
    try {
      loaded.d.qvel[12] = 0.3; // the top box slides along x
      // room for the floor's 4 and two box-box faces, as the default gives (8 per box)
      const p = twin(loaded.mj, loaded.m, loaded.d, 1, undefined, '64', 24);
      let boxBoxContacts = 0;
      const worst = run(p, 300, () => {
        let n = 0;
        for (let c = 0; c < p.d.ncon[0]!; c++) if (p.d.contactGeom[2 * c]! > 0) n++;
        boxBoxContacts = Math.max(boxBoxContacts, n);
        expect(p.d.ncon[0]).toBe(loaded.d.ncon as number);
      });
      expect(boxBoxContacts).toBeGreaterThanOrEqual(8); // two box-box interfaces of 4 or more contacts each
      // the tower stands: the top box is still at the height of three boxes, not sunk into the one below
      expect(p.d.qpos[16]).toBeGreaterThan(0.24);
      // f64 through the same operations: measured 8e-16 here; 1e-9 is the bound (fails on NaN)
      expect(worst).toBeLessThanOrEqual(1e-9);
    } finally {
      disposeMujoco(loaded);
    }
  });
});
