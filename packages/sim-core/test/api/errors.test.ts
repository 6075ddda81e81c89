/** Error flags: NaN/Inf or blow-up in an env is found every errorCheckInterval steps; it throws or resets. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const FRANKA = 'xml/franka_emika_panda/panda.xml';

beforeAll(async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
});
afterAll(async () => {
  await gs.destroy();
});

async function frankaScene(rigidOptions: gs.RigidOptions): Promise<{ scene: gs.Scene; franka: gs.Entity }> {
  const scene = new gs.Scene({ rigidOptions: { dt: 0.01, ...rigidOptions }, profilingOptions: { showFPS: false } });
  const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
  await scene.build({ nEnvs: 8 });
  return { scene, franka };
}

describe('error flags', () => {
  test('a NaN in env 3 raises at the next check (every 10 steps by default), naming env 3', async () => {
    const { scene, franka } = await frankaScene({});
    for (let i = 0; i < 4; i++) scene.step();
    franka.setDofsVelocity(new Array(9).fill(Number.NaN), { envsIdx: [3] });
    for (let i = 0; i < 5; i++) scene.step(); // steps 5..9: no check yet
    let err: unknown;
    try { scene.step(); } catch (e) { err = e; } // step 10
    expect(err).toBeInstanceOf(gs.SimulationError);
    const se = err as gs.SimulationError;
    expect(se.envsIdx).toEqual([3]);
    expect(se.step).toBe(10);
    expect(se.message).toBe(
      'Simulation failed by step 10: NaN/Inf in the state of envs [3]. Set rigidOptions.resetOnError: true to reset such envs instead.');
    await scene.destroy();
  });

  test('a blow-up is reported as such; errorCheckInterval sets the period', async () => {
    const { scene, franka } = await frankaScene({ errorCheckInterval: 2 });
    franka.setDofsVelocity(new Array(9).fill(1e12), { envsIdx: [6], });
    scene.step();
    expect(() => scene.step()).toThrow(/blow-up \(\|qpos\| or \|qvel\| > 1e\+10\) of envs \[6\]/);
    await scene.destroy();
  });

  test('blowUpThreshold sets the blow-up limit (qvel 100 against a threshold of 50)', async () => {
    const { scene, franka } = await frankaScene({ blowUpThreshold: 50, errorCheckInterval: 1 });
    franka.setDofsVelocity(new Array(9).fill(100), { envsIdx: [2] });
    expect(() => scene.step()).toThrow(/blow-up \(\|qpos\| or \|qvel\| > (50|5e\+1)\) of envs \[2\]/);
    await scene.destroy();
  });

  test('with resetOnError the bad envs are reset and reported, the others keep going', async () => {
    const { scene, franka } = await frankaScene({ resetOnError: true });
    const log = gs.captureLogs();
    try {
      franka.controlDofsPosition([0, 0, 0, -1, 0, 1, 0, 0.02, 0.02]);
      for (let i = 0; i < 5; i++) scene.step();
      franka.setDofsVelocity(new Array(9).fill(Number.POSITIVE_INFINITY), { envsIdx: [1, 4] });
      for (let i = 0; i < 5; i++) scene.step(); // the check at step 10 resets envs 1 and 4
      expect(scene.lastError).toMatchObject({ step: 10, envsIdx: [1, 4], reset: true });
      expect(scene.errorResetCount).toBe(2);
      expect(log.lines()).toContain('Step 10: NaN/Inf in the state of envs [1, 4]. Reset envs [1, 4].');
      const q = (await franka.getDofsPosition()).toArray() as number[][];
      expect(q[1]!.every((x) => x === 0)).toBe(true); // back at the build state
      expect(q[0]![3]).toBeLessThan(-0.05); // still under control, moving to -1
      for (const r of q) expect(r.every(Number.isFinite)).toBe(true);
      for (let i = 0; i < 10; i++) scene.step(); // no further errors
      expect(scene.errorResetCount).toBe(2);
    } finally {
      log.restore();
      await scene.destroy();
    }
  });
});
