/**
 * MuJoCo's joint-level actuator force clamp (`actuatorfrcrange` on a joint; URDF `<limit effort>` lands in the
 * same field) against MuJoCo 3.3.8: the sum of the actuator forces at a hinge or slide joint is clipped to the
 * range, the actuator's own force is not. Before issue 13 the range was parsed and never applied.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMJCF } from '../../src/loaders/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { ACTFRC_CTRL, ACTFRC_XML } from './models.js';
import { run, twin } from './trajectory.js';


describe('actuatorfrcrange (joint-level actuator force clamp) against MuJoCo', () => {
  it('the loader keeps the range and the f64 pipeline follows MuJoCo for 1000 steps to 1e-9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-actfrc-'));
    writeFileSync(join(dir, 'm.xml'), ACTFRC_XML);
    const ours = loadMJCF(join(dir, 'm.xml')).model;
    expect(Array.from(ours.jntActfrclimited ?? [])).toEqual([1, 1]);
    expect(Array.from(ours.jntActfrcrange ?? [])).toEqual([-0.5, 0.5, -1, 0.3]);

    const loaded = await loadMujocoXml(ACTFRC_XML);
    try {
      for (let u = 0; u < ACTFRC_CTRL.length; u++) loaded.d.ctrl[u] = ACTFRC_CTRL[u]!;
      const p = twin(loaded.mj, loaded.m, loaded.d, 2);
      const worst = run(p, 1000);
      // both are f64 through the same operations: measured 0 here; 1e-9 is the bound for f64 parity
      expect(worst).toBeLessThanOrEqual(1e-9);
      // the clamp acted: the hinge turned as 0.5 N m allows, not the 10 N m its motor asks for
      const n = p.d.nEnvs;
      expect(p.d.qfrcActuator[0]).toBe(0.5);
      expect(p.d.qfrcActuator[n]).toBe(0.3);
      expect(p.d.actuatorForce[0]).toBe(5); // the actuator's own force is not clipped, as MuJoCo
      expect(Math.abs(p.d.qpos[0]! - (loaded.d.qpos[0] as number)) <= 1e-9).toBe(true);
    } finally {
      disposeMujoco(loaded);
    }
  });
});
