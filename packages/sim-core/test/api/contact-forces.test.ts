/**
 * Contact forces (issue 13): each contact's world-frame force as MuJoCo's mj_contactForce decodes its constraint
 * forces, and each link's net contact force as Genesis' get_links_net_contact_force gives it. What a user can
 * check without MuJoCo: a box at rest on the floor is held up by exactly its weight.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { hasGpu } from '../gpu/gpu-env.js';

const MASS = 1.5;
const BOX = `<mujoco><option timestep="0.002" integrator="implicitfast"/><worldbody>
  <body name="box" pos="0 0 0.06" euler="0.02 0.01 0.3"><freejoint/><geom name="crate" type="box" size="0.1 0.08 0.05" mass="${MASS}"/></body>
</worldbody></mujoco>`;
const G = 9.81;

afterEach(async () => { await gs.destroy(); });

async function boxOnPlane(backend: 'cpu' | 'gpu', precision: '32' | '64', steps: number) {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-contact-force-'));
  writeFileSync(join(dir, 'box.xml'), BOX);
  await gs.init({ backend, precision, loggingLevel: 'warning' });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.Plane());
  const box = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'box.xml') }));
  await scene.build({ nEnvs: 2 });
  for (let s = 0; s < steps; s++) scene.step();
  return { scene, box };
}

/** MuJoCo's contact forces in the world frame (on geom 2), decoded from its efc_force as mj_contactForce does. */
function mujocoWorldForces(md: { ncon: number; contact: { get(i: number): Record<string, unknown> }; efc_force: ArrayLike<number> }): number[][] {
  const efc = Array.from(md.efc_force);
  const out: number[][] = [];
  for (let i = 0; i < md.ncon; i++) {
    const c = md.contact.get(i) as { efc_address: number; dim: number; friction: ArrayLike<number>; frame: ArrayLike<number>; delete?: () => void };
    const dim = c.dim, adr = c.efc_address;
    const local = [0, 0, 0];
    for (let k = 0; k < 2 * (dim - 1); k++) local[0]! += efc[adr + k]!;
    for (let k = 0; k < Math.min(dim - 1, 2); k++) local[k + 1] = (efc[adr + 2 * k]! - efc[adr + 2 * k + 1]!) * c.friction[k]!;
    const frame = Array.from(c.frame);
    out.push([0, 1, 2].map((j) => local[0]! * frame[j]! + local[1]! * frame[3 + j]! + local[2]! * frame[6 + j]!));
    c.delete?.();
  }
  return out;
}

describe('contact forces', () => {
  test('CPU f64: each contact\'s force is MuJoCo\'s, and the box rests on its weight', async () => {
    const STEPS = 400;
    const { box } = await boxOnPlane('cpu', '64', STEPS);
    const contacts = ((await box.getContacts()) as gs.Contact[][])[1]!;
    expect(contacts).toHaveLength(4);
    const ref = await loadMujocoXml(BOX.replace('<worldbody>', '<worldbody><geom type="plane" size="0 0 0.05"/>'));
    try {
      for (let s = 0; s < STEPS; s++) ref.mj.mj_step(ref.m, ref.d);
      const theirs = mujocoWorldForces(ref.d);
      expect(theirs).toHaveLength(4);
      for (let k = 0; k < 4; k++) {
        for (let j = 0; j < 3; j++) {
          // The same f64 pipeline as MuJoCo's: measured 4.4e-16 N on forces of ~3.7 N; 1e-12 N is a 2,000x
          // margin, and fails on NaN.
          expect(Math.abs(contacts[k]!.forceB[j]! - theirs[k]![j]!)).toBeLessThan(1e-12);
          expect(contacts[k]!.forceA[j]).toBe(-contacts[k]!.forceB[j]! || 0);
        }
      }
    } finally {
      disposeMujoco(ref);
    }
    // The plane is geom A: the box (link B) is pushed up. At rest the four forces carry the weight: measured
    // 2.6e-12 relative after 400 steps (0.8 s); 1e-9 is a 400x margin.
    const up = contacts.reduce((a, c) => a + c.forceB[2], 0);
    expect(Math.abs(up - MASS * G) / (MASS * G)).toBeLessThan(1e-9);
    const net = await box.getLinksNetContactForce();
    expect(net.shape).toEqual([2, 1, 3]);
    const values = net.toArray() as number[][][];
    for (const env of values) {
      expect(Math.abs(env[0]![2]! - MASS * G) / (MASS * G)).toBeLessThan(1e-9);
      // No sideways force at rest: the tangential parts are ~3e-14 N.
      expect(Math.abs(env[0]![0]!)).toBeLessThan(1e-9);
      expect(Math.abs(env[0]![1]!)).toBeLessThan(1e-9);
    }
    const one = await box.getLinksNetContactForce({ envsIdx: 0 });
    expect(one.shape).toEqual([1, 3]);
    await expect(box.getLinksNetContactForce({ envs_idx: [0] } as never)).rejects.toThrow(/envsIdx/);
  }, 60_000);

  test.skipIf(!hasGpu)('GPU f32: the box rests on its weight, as on the CPU', async () => {
    const { box } = await boxOnPlane('gpu', '32', 400);
    const net = (await box.getLinksNetContactForce()).toArray() as number[][][];
    for (const env of net) {
      // f32 solver: measured 2.7e-7 relative (lavapipe); 1e-5 leaves a 37x margin.
      expect(Math.abs(env[0]![2]! - MASS * G) / (MASS * G)).toBeLessThan(1e-5);
    }
    const contacts = ((await box.getContacts()) as gs.Contact[][])[0]!;
    expect(contacts.length).toBeGreaterThan(0);
    expect(contacts.every((c) => c.forceB[2] > 0)).toBe(true);
  }, 120_000);
});
