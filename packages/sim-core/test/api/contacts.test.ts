/**
 * entity.getContacts (issue 13): the contacts of the last step that involve an entity, as MuJoCo's d->contact
 * holds them after mj_step, filtered by the other entity when asked.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { mujocoContacts } from '../constraints/mujoco-data.js';

const BOX = `<mujoco><option timestep="0.002" integrator="implicitfast"/><worldbody>
  <body name="box" pos="0 0 0.06" euler="0.02 0.01 0.3"><freejoint/><geom name="crate" type="box" size="0.1 0.08 0.05" mass="1"/></body>
</worldbody></mujoco>`;
const STEPS = 100;

afterEach(async () => { await gs.destroy(); });

test('a box settled on a plane: its 4 corner contacts as MuJoCo has them, and none with another entity', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-contacts-'));
  writeFileSync(join(dir, 'box.xml'), BOX);
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
  const plane = scene.addEntity(gs.morphs.Plane());
  const box = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'box.xml') }));
  const bystander = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'box.xml'), pos: [2, 0, 0] }));
  await scene.build({ nEnvs: 2 });
  for (let s = 0; s < STEPS; s++) scene.step();
  const all = (await box.getContacts()) as gs.Contact[][];
  expect(all).toHaveLength(2);
  const contacts = all[1]!;
  expect(contacts).toHaveLength(4);
  expect((await box.getContacts({ withEntity: plane })) as gs.Contact[][]).toEqual(all);
  expect(((await box.getContacts({ withEntity: bystander, envsIdx: [0] })) as gs.Contact[][])[0]).toEqual([]);

  // the same box alone on MuJoCo's plane: positions, normals and depths of the last step's contacts
  const ref = await loadMujocoXml(BOX.replace('<worldbody>', '<worldbody><geom type="plane" size="0 0 0.05"/>'));
  try {
    for (let s = 0; s < STEPS; s++) ref.mj.mj_step(ref.m, ref.d);
    const theirs = mujocoContacts(ref.d);
    expect(theirs).toHaveLength(4);
    for (let k = 0; k < 4; k++) {
      const c = theirs[k]!;
      const got = contacts[k]!;
      // f64 through the same pipeline: measured at rounding level; 1e-9 fails on NaN
      for (let i = 0; i < 3; i++) {
        expect(Math.abs(got.position[i]! - (c.pos[i] as number))).toBeLessThan(1e-9);
        expect(Math.abs(got.normal[i]! - (c.frame[i] as number))).toBeLessThan(1e-9);
      }
      expect(Math.abs(got.penetration + (c.dist as number))).toBeLessThan(1e-9);
      expect([got.geomA, got.linkA]).toEqual([0, 0]); // the plane, on the world body
    }
  } finally {
    disposeMujoco(ref);
  }
  expect(contacts.every((c) => c.normal[2] > 0.999 && c.penetration > 0 && c.penetration < 1e-3)).toBe(true);
});
