import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../test/support/shared.js';
import { fullM, loadMujoco, modelFromMujoco } from './helpers/mujoco.js';

describe.skipIf(!hasShared())('MuJoCo reference oracle', () => {
  test('loads the Menagerie Franka and reports its compiled figures', async () => {
    const { mj, m, d } = await loadMujoco(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const model = modelFromMujoco(mj, m);
    expect(model.nv).toBe(9);
    expect(model.nu).toBe(8);
    expect(model.bodyName[1]).toBe('link0');
    // Actuators 1-4 compile to +-100 (PROVENANCE.md: shared default slot, the later one wins).
    expect(Array.from(model.actuatorForcerange.slice(0, 2))).toEqual([-100, 100]);
    mj.mj_forward(m, d);
    const M = fullM(mj, m, d);
    for (let i = 0; i < 9; i++) {
      expect(M[i * 9 + i]).toBeGreaterThan(0);
      for (let j = 0; j < 9; j++) expect(M[i * 9 + j]).toBeCloseTo(M[j * 9 + i]!, 12);
    }
  });
});
