/**
 * Geom pairs without collision code are refused at build (issue 13). Before, a 3-box tower got one warning
 * and then sank into itself: box-box contacts were never made.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const TOWER = (contact: string): string => `<mujoco><worldbody><geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="b1" pos="0 0 0.05"><freejoint/><geom name="g1" type="box" size="0.1 0.1 0.05"/></body>
  <body name="b2" pos="0 0 0.15"><freejoint/><geom name="g2" type="box" size="0.1 0.1 0.05"/></body>
  <body name="b3" pos="0 0 0.25"><freejoint/><geom type="box" size="0.1 0.1 0.05"/></body>
  <body name="can" pos="1 0 0.1"><freejoint/><geom name="can" type="cylinder" size="0.05 0.1"/></body>
</worldbody>${contact}</mujoco>`;

function file(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-pairs-'));
  writeFileSync(join(dir, 'm.xml'), xml);
  return join(dir, 'm.xml');
}

afterEach(async () => { await gs.destroy(); });

test('a box tower is refused at build, naming the pairs and how to keep them apart', async () => {
  await gs.init({ backend: 'cpu', loggingLevel: 'error' });
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: file(TOWER('')) }));
  const err = await scene.build().then(() => null, (e: unknown) => e as Error);
  expect(err?.message).toMatch(/^sim-core collision: no collision code for 6 geom pair\(s\) that can touch: /);
  // named as box 'g1' - box 'g2', unnamed geoms by index; cylinder-box ordered by geom type as MuJoCo
  expect(err?.message).toContain("box 'g1' - box 'g2', box 'g1' - box #3");
  expect(err?.message).toContain("cylinder 'can' - box 'g1'");
  expect(err?.message).toMatch(/contype\/conaffinity, or <contact><exclude/);
});

test('the same scene builds and steps once the pairs are excluded, and collision off needs no exclusion', async () => {
  await gs.init({ backend: 'cpu', loggingLevel: 'error' });
  const excluded = TOWER(`<contact>${['b1 b2', 'b1 b3', 'b2 b3', 'b1 can', 'b2 can', 'b3 can']
    .map((p) => `<exclude body1="${p.split(' ')[0]}" body2="${p.split(' ')[1]}"/>`).join('')}</contact>`);
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: file(excluded) }));
  await scene.build();
  scene.step();
  const off = new gs.Scene({ rigidOptions: { enableCollision: false }, profilingOptions: { showFPS: false } });
  off.addEntity(gs.morphs.MJCF({ file: file(TOWER('')) }));
  await off.build();
  off.step();
  expect(off.nEnvs).toBe(0);
});
