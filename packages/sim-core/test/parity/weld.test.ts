/**
 * Weld equalities against MuJoCo (issue 13): the loader and setConst give MuJoCo's equality data (body 1's
 * anchor and the relative pose computed at qpos0 when none is given), and the f64 pipeline follows MuJoCo with
 * a tool welded to a moving arm (torquescale 2) and a box pulled to a given pose.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { setConst } from '../../src/physics/setconst.js';
import { disposeMujoco, loadMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from '../loaders/compare.js';
import { WELD_XML } from './models.js';
import { run, twin } from './trajectory.js';

describe('weld equalities against MuJoCo', () => {
  it('the loader and setConst give the equality data MuJoCo compiles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-weld-'));
    writeFileSync(join(dir, 'm.xml'), WELD_XML);
    const ours = setConst(loadMJCF(join(dir, 'm.xml')).model);
    const loaded = await loadMujoco(join(dir, 'm.xml'));
    try {
      expect(diffModels(ours, setConst(mujocoModel(loaded.mj, loaded.m)))).toEqual([]);
      // anchor, body 1's anchor, relative pose and torquescale of both welds: f64 of the same formulas
      for (let k = 0; k < 22; k++) expect(Math.abs(ours.eqData[k]! - (loaded.m.eq_data[k] as number)), `eq_data[${k}]`).toBeLessThan(1e-12);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('a tool welded to a swinging arm and a box pulled to its pose follow MuJoCo for 500 steps (f64)', async () => {
    const loaded = await loadMujocoXml(WELD_XML);
    try {
      loaded.d.qvel[0] = 3; // swing the arm
      loaded.d.qvel[1] = -2;
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      let rows = 0;
      const worst = run(p, 500, () => { rows = Math.max(rows, p.d.nefc[0]!); });
      expect(rows).toBeGreaterThanOrEqual(12); // two welds, six rows each
      // f64 through the same operations: measured 1.0e-11 over 500 steps; 1e-9 is the bound (a 100x
      // margin; fails on NaN)
      expect(worst).toBeLessThanOrEqual(1e-9);
    } finally {
      disposeMujoco(loaded);
    }
  });
});
