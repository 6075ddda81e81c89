import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { run, twin } from './trajectory.js';

/** The home pose of Menagerie's panda.xml keyframe (the mesh-free mjx files carry no keyframe). */
const HOME = [0, 0, 0, -1.57079, 0, 1.57079, -0.7853, 0.04, 0.04];
const TARGET_CTRL = [0, 0, 0, -1, 0, 1, 0, 0.02];

describe.skipIf(!hasShared())('Franka trajectories against MuJoCo (implicitfast, Newton, from the file)', () => {
  const file = () => sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml');

  test('PD control from home: qpos and qvel agree to 1e-6 over 2.5 s', async () => {
    const { mj, m, d } = await loadMujoco(file());
    HOME.forEach((v, i) => { d.qpos[i] = v; });
    TARGET_CTRL.forEach((v, i) => { d.ctrl[i] = v; });
    const p = twin(mj, m, d, 2);
    let rows = 0;
    const worst = run(p, 500, () => { rows = Math.max(rows, p.d.nefc[0]!); });
    expect(rows).toBeGreaterThan(0); // the finger equality is a constraint row throughout
    expect(p.d.ncon[0]).toBe(0);
    expect(Math.abs((p.md.qpos[3] as number) + 1)).toBeLessThan(0.05); // it got near its target
    expect(worst).toBeLessThan(1e-6);
  });

  test('from zeros, with the joint-4 limit active: agree to 1e-6 over 2.5 s', async () => {
    const { mj, m, d } = await loadMujoco(file());
    const p = twin(mj, m, d, 1);
    let limitSteps = 0;
    const worst = run(p, 500, () => {
      for (let r = 0; r < p.d.nefc[0]!; r++) if (p.d.efcType[r] === 3) { limitSteps++; break; }
    });
    expect(limitSteps).toBeGreaterThan(400);
    expect(worst).toBeLessThan(1e-6);
  });
});
