/**
 * Friction 0 on both geoms (issue 13): MuJoCo floors every contact friction coefficient at mjMINMU = 1e-5;
 * without the floor the pyramid's rows are degenerate and the state goes NaN.
 */
import { describe, expect, it } from 'vitest';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { FRICTIONLESS_BOX_XML } from './models.js';
import { run, twin } from './trajectory.js';

describe('friction 0 on both geoms against MuJoCo', () => {
  it('a sliding box stays finite and follows MuJoCo for 100 steps to 1e-9 (f64)', async () => {
    const loaded = await loadMujocoXml(FRICTIONLESS_BOX_XML);
    try {
      loaded.d.qvel[0] = 0.5; // sliding along x
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      const worst = run(p, 100);
      expect(p.d.ncon[0]).toBeGreaterThan(0); // it is in contact, so the friction rows exist
      expect(p.d.contactFriction[0]).toBe(1e-5);
      expect(worst).toBeLessThanOrEqual(1e-9); // NaN fails this too
    } finally {
      disposeMujoco(loaded);
    }
  });
});
