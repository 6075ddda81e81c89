/** The Entity API on a batched scene: envsIdx forms, broadcasting, Genesis shape errors, joints, reset, timers. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const FRANKA = 'xml/franka_emika_panda/panda.xml';
const B = 20;
let scene: gs.Scene;
let franka: gs.Entity;

beforeAll(async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
  scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.Plane());
  franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
  await scene.build({ nEnvs: B, envSpacing: [1, 1] });
});

afterAll(async () => {
  await scene.destroy();
  await gs.destroy();
});

const rowsOf = async (envsIdx?: gs.IndexInput): Promise<number[][]> =>
  (await franka.getDofsPosition(envsIdx === undefined ? {} : { envsIdx })).toArray() as number[][];

describe('Entity on a 20-env scene', () => {
  test('init state: backend, device, joints, nDofs', () => {
    expect(gs.backend).toBe('cpu');
    expect(gs.device?.type).toBe('cpu');
    expect(franka.nDofs).toBe(9);
    expect(franka.getJoint('joint4').dofsIdxLocal).toEqual([3]);
    expect(franka.getJoint('finger_joint2').dofsIdxLocal).toEqual([8]);
    expect(() => franka.getJoint('elbow')).toThrow(/Joint 'elbow' not found/);
    expect(gs.TIMER_LABELS).toHaveLength(10);
    expect(gs.TIMER_LABELS[0]).toBe('solve_ns');
  });

  test('every envsIdx form sets exactly envs 1, 5, 7; a (nDofs,) value broadcasts', async () => {
    const pose = [0.1, 0.2, 0.3, -1, 0.5, 1, 0.7, 0.01, 0.01];
    const mask = Array.from({ length: B }, (_, i) => i === 1 || i === 5 || i === 7);
    const forms: gs.IndexInput[] = [[1, 5, 7], Int32Array.of(1, 5, 7), gs.tensor([1, 5, 7]), mask, gs.tensor(mask)];
    for (const envsIdx of forms) {
      scene.reset();
      franka.setDofsPosition(pose, { envsIdx });
      const rows = await rowsOf();
      rows.forEach((r, e) => {
        if ([1, 5, 7].includes(e)) expect(r).toEqual(pose);
        else expect(r.every((x) => x === 0)).toBe(true);
      });
    }
    scene.reset();
    franka.setDofsPosition(pose, { envsIdx: 5 });
    const one = await franka.getDofsPosition({ envsIdx: 5 });
    expect(one.shape).toEqual([9]); // an int drops the env dimension
    expect(one.toArray()).toEqual(pose);
  });

  test('a full (len(envs), nDofs) value sets different rows; dofsIdx picks columns', async () => {
    scene.reset();
    const v = gs.tensor([[1, 2], [3, 4], [5, 6]], { dtype: 'float64' });
    franka.setDofsPosition(v, { envsIdx: [2, 4, 6], dofsIdx: [0, 3] });
    const got = await franka.getDofsPosition({ envsIdx: [2, 4, 6], dofsIdx: [0, 3] });
    expect(got.shape).toEqual([3, 2]);
    expect(got.toArray()).toEqual([[1, 2], [3, 4], [5, 6]]);
    const all = await franka.getDofsPosition();
    expect(all.shape).toEqual([B, 9]);
    expect((all.toArray() as number[][])[4]![3]).toBe(4);
  });

  test('out-of-range envs and dofs are rejected with a clear error', () => {
    expect(() => franka.controlDofsPosition(new Float64Array(9), { envsIdx: [3, 20] }))
      .toThrow('`envs_idx` contains 20, out of range for n_envs=20.');
    expect(() => franka.controlDofsForce([1], { dofsIdx: [9] })).toThrow('`dofs_idx` contains 9, out of range for n_dofs=9.');
    expect(() => franka.setDofsKp([1, 2], { envsIdx: [true, false] })).toThrow('`envs_idx` is a bool mask of length 2, expecting n_envs=20.');
  });

  test("shape errors use Genesis' messages", () => {
    expect(() => franka.controlDofsPosition(gs.zeros([5, 9]))).toThrow('Invalid input shape: (5, 9). Dimension 0 consistent with len(envs_idx)=20.');
    expect(() => franka.controlDofsPosition(gs.zeros([2, 3]), { envsIdx: [0, 1] }))
      .toThrow('Invalid shape: (2, 3). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
  });

  test('kp/kv: actuated MJCF dofs start from their actuator, and setDofsKp changes only the selected envs', async () => {
    const kp = await franka.getDofsKp({ envsIdx: [0] });
    expect((kp.toArray() as number[][])[0]!.slice(0, 4)).toEqual([1000, 1000, 750, 750]) // kp of actuator1-4 in panda.xml;
    franka.setDofsKp([1, 2, 3, 4, 5, 6, 7, 8, 9], { envsIdx: 3 });
    expect((await franka.getDofsKp({ envsIdx: 3 })).toArray()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await franka.getDofsKp({ envsIdx: 2 })).toArray()).toEqual((kp.toArray() as number[][])[0]);
  });

  test('position control moves the selected envs only; reset restores build state and drops the controls', async () => {
    scene.reset();
    const target = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02];
    franka.controlDofsPosition(gs.tile(gs.tensor(target), [B, 1]));
    franka.controlDofsPosition(gs.zeros([3, 9]), { envsIdx: [1, 5, 7] });
    for (let i = 0; i < 100; i++) scene.step();
    const q = await rowsOf();
    expect(q[0]![3]).toBeLessThan(-0.5); // moving towards -1
    expect(Math.abs(q[5]![3]!)).toBeLessThan(0.2); // held near 0
    expect(q[0]).toEqual(q[19]); // identical envs stay identical

    // reset env 0 only: state back to the build state, others untouched
    scene.reset({ envsIdx: [0] });
    const after = await rowsOf();
    expect(after[0]!.every((x) => x === 0)).toBe(true);
    expect(after[19]).toEqual(q[19]);
    expect((await franka.getDofsVelocity({ envsIdx: 0 })).toArray()).toEqual(new Array(9).fill(0));

    // controls are gone after a full reset: every env now evolves like env 0 (no Genesis controller)
    scene.reset();
    for (let i = 0; i < 20; i++) scene.step();
    const free = await rowsOf();
    for (const r of free) expect(r).toEqual(free[0]);
  });

  test('setQpos zeroes velocities by default; getQpos reads back', async () => {
    scene.reset();
    franka.setDofsVelocity(new Array(9).fill(0.5));
    franka.setQpos([0, 0.1, 0, -1.2, 0, 1.1, 0, 0.01, 0.01], { envsIdx: [4] });
    expect((await franka.getDofsVelocity({ envsIdx: 4 })).toArray()).toEqual(new Array(9).fill(0));
    expect((await franka.getDofsVelocity({ envsIdx: 3 })).toArray()).toEqual(new Array(9).fill(0.5));
    expect((await franka.getQpos({ envsIdx: 4, qsIdx: [1, 3] })).toArray()).toEqual([0.1, -1.2]);
    franka.setQpos([0, 0.2, 0, -1.2, 0, 1.1, 0, 0.01, 0.01], { envsIdx: [3], zeroVelocity: false });
    expect((await franka.getDofsVelocity({ envsIdx: 3 })).toArray()).toEqual(new Array(9).fill(0.5));
  });

  test('timers are a [10, nEnvs] tensor; a second build is refused', async () => {
    scene.step();
    const t = scene.rigidSolver.constraintSolver.timers;
    expect(t).toBeInstanceOf(gs.Tensor);
    expect(t.shape).toEqual([10, B]);
    await expect(scene.build({ nEnvs: 2 })).rejects.toThrow('Scene is already built.');
  });
});
