import { describe, expect, test } from 'vitest';
import { loadMujocoXml } from '../helpers/mujoco.js';
import { run, twin } from './trajectory.js';

const xml = (solver: string) => `<mujoco><option timestep="0.002" solver="${solver}"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body pos="0 0 0.3" euler="0.3 0.2 0"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1"/></body>
</worldbody></mujoco>`;

describe('a box dropped on a plane, stepped by sim-core and by MuJoCo', () => {
  for (const solver of ['Newton', 'CG']) {
    test(`${solver}: same contact onset step and resting height within 0.1 mm`, async () => {
      const { mj, m, d } = await loadMujocoXml(xml(solver));
      const p = twin(mj, m, d, 2);
      const n = p.d.nEnvs;
      let onsetMj = -1, onsetSim = -1;
      const worst = run(p, 600, (s) => {
        if (onsetMj < 0 && p.md.ncon > 0) onsetMj = s;
        for (let e = 0; e < n; e++) if (onsetSim < 0 && p.d.ncon[e]! > 0) onsetSim = s;
      });
      expect(onsetMj).toBeGreaterThan(100);
      expect(onsetSim).toBe(onsetMj);
      const zMj = p.md.qpos[2] as number;
      expect(zMj).toBeGreaterThan(0.045);
      expect(zMj).toBeLessThan(0.055);
      for (let e = 0; e < n; e++) expect(Math.abs(p.d.qpos[2 * n + e]! - zMj)).toBeLessThan(1e-4);
      // the whole trajectory, impacts included, stays within solver tolerance of MuJoCo's
      expect(worst).toBeLessThan(1e-6);
    });
  }

  test('f32 Data: the box still lands at the same step and rests within 0.5 mm', async () => {
    const { mj, m, d } = await loadMujocoXml(xml('Newton'));
    const p = twin(mj, m, d, 3, undefined, '32');
    let onsetMj = -1, onsetSim = -1;
    run(p, 600, (s) => {
      if (onsetMj < 0 && p.md.ncon > 0) onsetMj = s;
      if (onsetSim < 0 && p.d.ncon[1]! > 0) onsetSim = s;
    });
    expect(Math.abs(onsetSim - onsetMj)).toBeLessThanOrEqual(1);
    const n = p.d.nEnvs;
    for (let e = 0; e < n; e++) expect(Math.abs(p.d.qpos[2 * n + e]! - (p.md.qpos[2] as number))).toBeLessThan(5e-4);
  });
});
