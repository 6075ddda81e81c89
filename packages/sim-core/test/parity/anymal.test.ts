import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { run, twin } from './trajectory.js';

describe.skipIf(!hasShared())('ANYmal C standing for 5 s against MuJoCo', () => {
  test('dt 0.004, standing keyframe held by its position actuators: base height within 1 cm', async () => {
    const { mj, m, d } = await loadMujoco(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml'));
    m.opt.timestep = 0.004;
    mj.mj_resetDataKeyframe(m, d, 0);
    for (let k = 0; k < 12; k++) d.ctrl[k] = d.qpos[7 + k];
    const p = twin(mj, m, d, 2);
    const n = p.d.nEnvs;
    let worstHeight = 0, minContacts = Infinity;
    const worstState = run(p, 1250, (s) => {
      for (let e = 0; e < n; e++) worstHeight = Math.max(worstHeight, Math.abs(p.d.qpos[2 * n + e]! - (p.md.qpos[2] as number)));
      if (s > 100) minContacts = Math.min(minContacts, p.d.ncon[0]!);
    });
    expect(minContacts).toBe(4);          // standing on all four feet throughout
    expect(p.md.qpos[2]).toBeGreaterThan(0.4);
    expect(worstHeight).toBeLessThan(0.01);
    // in fact the whole state follows MuJoCo's to solver round-off (3e-13 when written)
    expect(worstState).toBeLessThan(1e-6);
  });
});
