/**
 * gs.morphs.MJCF's pos / euler / quat place the entity (issue 13): before, they were accepted and ignored. The
 * check is MuJoCo itself, given the same file with its contents wrapped in a <frame> at that pose.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';

// the ball turns by quat, not euler: the reference file sets eulerseq XYZ for the frame's euler
const BODIES = `<geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="ball" pos="0.3 0 0.4" quat="0.9 0.1 0.2 0.3"><freejoint/><geom type="sphere" size="0.05" mass="0.3"/></body>
  <body name="arm" pos="-0.3 0.1 0.3"><joint axis="1 0 0" damping="0.1"/><geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.03"/></body>`;
const xml = (inner: string): string =>
  `<mujoco><option timestep="0.002" integrator="implicitfast"/><worldbody>${inner}</worldbody></mujoco>`;
const STEPS = 200;

afterEach(async () => { await gs.destroy(); });

describe('MJCF morph pose', () => {
  test('pos and euler move the whole file as MuJoCo moves a <frame> around it: 200 steps to 1e-9', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-morph-'));
    writeFileSync(join(dir, 'm.xml'), xml(BODIES));
    const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
    const e = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'm.xml'), pos: [1, -2, 0.5], euler: [5, -10, 90] }));
    await scene.build();
    const q0 = (await e.getQpos()).toArray() as number[];
    for (let s = 0; s < STEPS; s++) scene.step();
    const q = (await e.getQpos()).toArray() as number[];

    // MuJoCo's euler is degrees with eulerseq "xyz" (intrinsic) by default; Genesis' is fixed-axis x, y, z,
    // which is MuJoCo's "XYZ"
    const ref = await loadMujocoXml(xml(`<frame pos="1 -2 0.5" euler="5 -10 90">${BODIES}</frame>`)
      .replace('<option', '<compiler eulerseq="XYZ"/><option'));
    try {
      const refQ0 = Array.from(ref.d.qpos as ArrayLike<number>);
      // the free ball starts where MuJoCo puts it: moved by the pose, not at its place in the file
      expect(Math.abs(q0[0]! - 0.3)).toBeGreaterThan(0.1);
      for (let k = 0; k < refQ0.length; k++) expect(Math.abs(q0[k]! - refQ0[k]!)).toBeLessThanOrEqual(1e-12);
      for (let s = 0; s < STEPS; s++) ref.mj.mj_step(ref.m, ref.d);
      const refQ = Array.from(ref.d.qpos as ArrayLike<number>);
      // the ball fell onto the turned floor and the arm swung: both follow MuJoCo
      expect(Math.abs(q[2]! - q0[2]!)).toBeGreaterThan(0.01);
      for (let k = 0; k < refQ.length; k++) expect(Math.abs(q[k]! - refQ[k]!)).toBeLessThanOrEqual(1e-9);
    } finally {
      disposeMujoco(ref);
    }
  });

  test('options gsprof lacks are refused, not ignored; euler and quat together are refused', () => {
    expect(() => gs.morphs.MJCF({ file: 'x.xml', scale: 2 } as never)).toThrow("gs.morphs.MJCF: unknown option 'scale' (known: file, pos, euler, quat)");
    expect(() => gs.morphs.URDF({ file: 'x.urdf', merge_fixed_links: false } as never)).toThrow(/gs\.morphs\.URDF: unknown option 'merge_fixed_links'/);
    expect(() => gs.morphs.MJCF({ file: 'x.xml', euler: [0, 0, 90], quat: [1, 0, 0, 0] })).toThrow('gs.morphs.MJCF: give euler or quat, not both');
  });
});
