/**
 * Connect equalities against MuJoCo (issue 13): the loader compiles them as MuJoCo does (anchor in body 1's
 * frame, the matching point in body 2's frame computed at qpos0), and the f64 pipeline follows MuJoCo through
 * a closed four-bar linkage and a bob hung from the world.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { setConst } from '../../src/physics/setconst.js';
import { disposeMujoco, loadMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from '../loaders/compare.js';
import { CONNECT_XML } from './models.js';
import { run, twin } from './trajectory.js';

describe('connect equalities against MuJoCo', () => {
  it('the loader and setConst give the equality data MuJoCo compiles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-connect-'));
    writeFileSync(join(dir, 'm.xml'), CONNECT_XML);
    const ours = setConst(loadMJCF(join(dir, 'm.xml')).model);
    const loaded = await loadMujoco(join(dir, 'm.xml'));
    try {
      const ref = mujocoModel(loaded.mj, loaded.m);
      expect(diffModels(ours, setConst(ref))).toEqual([]);
      // body2's anchor: set by setConst from the qpos0 pose, as mj_setConst does
      for (let k = 0; k < 11; k++) expect(Math.abs(ours.eqData[k]! - (loaded.m.eq_data[k] as number))).toBeLessThan(1e-12);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('a four-bar linkage and a hung bob follow MuJoCo for 500 steps to 1e-9 (f64)', async () => {
    const loaded = await loadMujocoXml(CONNECT_XML);
    try {
      loaded.d.qvel[0] = 2; // swing the crank
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      let rows = 0;
      const worst = run(p, 500, () => { rows = Math.max(rows, p.d.nefc[0]!); });
      expect(rows).toBeGreaterThanOrEqual(6); // both connects, three rows each
      // f64 through the same operations: measured 6.4e-13 over 500 steps; 1e-9 is the bound (fails on NaN)
      expect(worst).toBeLessThanOrEqual(1e-9);
    } finally {
      disposeMujoco(loaded);
    }
  });
});
