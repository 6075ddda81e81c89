/** A URDF robot through the public API: Genesis' default PD gains, the free base's dofs, standing control. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const ANYMAL = 'urdf/anymal_c/urdf/anymal_c.urdf';
const LEGS = ['LF_HAA', 'LF_HFE', 'LF_KFE', 'RF_HAA', 'RF_HFE', 'RF_KFE', 'LH_HAA', 'LH_HFE', 'LH_KFE', 'RH_HAA', 'RH_HFE', 'RH_KFE'];

beforeAll(async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
});
afterAll(async () => {
  await gs.destroy();
});

describe('URDF entity (ANYmal C)', () => {
  test('free base plus 12 legs; leg dofs get kp 100 / kv 10, the base none', async () => {
    const scene = new gs.Scene({ rigidOptions: { dt: 0.004 }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.Plane());
    const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL, pos: [0, 0, 0.8] }));
    expect(robot.nDofs).toBe(18);
    expect(robot.nQs).toBe(19);
    expect(robot.joints[0]!.type).toBe('free');
    const legDofs = LEGS.map((n) => robot.getJoint(n).dofsIdxLocal[0]!);
    expect(legDofs).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    await scene.build({ nEnvs: 3 });
    const kp = (await robot.getDofsKp({ envsIdx: 0 })).toArray() as number[];
    expect(kp.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(kp.slice(6)).toEqual(new Array(12).fill(gs.URDF_DEFAULT_KP));
    expect(((await robot.getDofsKv({ envsIdx: 0 })).toArray() as number[]).slice(6)).toEqual(new Array(12).fill(gs.URDF_DEFAULT_KV));
    // the base starts where the morph put it; its position dofs read it back
    const base = (await robot.getDofsPosition({ envsIdx: 1, dofsIdx: [0, 1, 2] })).toArray() as number[];
    expect(base[2]).toBeCloseTo(0.8, 12);
    await scene.destroy();
  });

  test("a free joint's rotational dofs read and write a rotation vector", async () => {
    const scene = new gs.Scene({ rigidOptions: { dt: 0.004 }, profilingOptions: { showFPS: false } });
    const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL, pos: [0, 0, 0.8] }));
    await scene.build({ nEnvs: 2 });
    const rot = [0.1, -0.2, 0.3];
    robot.setDofsPosition(rot, { dofsIdx: [3, 4, 5], envsIdx: [1] });
    const q = (await robot.getQpos({ envsIdx: 1, qsIdx: [3, 4, 5, 6] })).toArray() as number[];
    const angle = Math.hypot(...rot);
    expect(q[0]).toBeCloseTo(Math.cos(angle / 2), 12);
    expect(q[1]).toBeCloseTo((Math.sin(angle / 2) * rot[0]!) / angle, 12);
    const back = (await robot.getDofsPosition({ envsIdx: 1, dofsIdx: [3, 4, 5] })).toArray() as number[];
    back.forEach((v, i) => { expect(v).toBeCloseTo(rot[i]!, 12); });
    expect(() => robot.setDofsPosition([0.1], { dofsIdx: [4] })).toThrow(/must be set all three at once/);
    await scene.destroy();
  });

  test('holding the zero pose with kp 1000 (the Genesis benchmark) keeps the base up', async () => {
    const scene = new gs.Scene({ rigidOptions: { dt: 0.004 }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.Plane());
    const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL, pos: [0, 0, 0.8] }));
    await scene.build({ nEnvs: 2 });
    const dofsIdx = LEGS.map((n) => robot.getJoint(n).dofsIdxLocal[0]!);
    robot.setDofsKp(new Array(12).fill(1000), { dofsIdx });
    robot.controlDofsPosition(new Array(12).fill(0), { dofsIdx });
    for (let i = 0; i < 250; i++) scene.step(); // 1 s
    const z = (await robot.getDofsPosition({ dofsIdx: [2] })).toArray() as number[][];
    for (const [h] of z) {
      expect(h).toBeGreaterThan(0.3);
      expect(h).toBeLessThan(0.8);
    }
    expect(z[0]).toEqual(z[1]);
    await scene.destroy();
  });
});
