/**
 * Geom pairs without collision code are refused at build (issue 13). Before, such pairs got one warning and
 * then passed through each other (a 3-box tower sank into itself; box-box now has its collision code).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

// a box, two cans and a pill: box-cylinder, cylinder-cylinder and capsule-cylinder pairs have no collision code
const PILE = (contact: string): string => `<mujoco><worldbody><geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="b1" pos="0 0 0.05"><freejoint/><geom name="crate" type="box" size="0.1 0.1 0.05"/></body>
  <body name="b2" pos="0 0 0.2"><freejoint/><geom name="can" type="cylinder" size="0.05 0.1"/></body>
  <body name="b3" pos="0 0 0.4"><freejoint/><geom type="cylinder" size="0.05 0.1"/></body>
  <body name="b4" pos="0.3 0 0.1"><freejoint/><geom name="pill" type="capsule" size="0.03 0.1"/></body>
</worldbody>${contact}</mujoco>`;

function file(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-pairs-'));
  writeFileSync(join(dir, 'm.xml'), xml);
  return join(dir, 'm.xml');
}

afterEach(async () => { await gs.destroy(); });

test('a pile with cylinders is refused at build, naming the pairs and how to keep them apart', async () => {
  await gs.init({ backend: 'cpu', loggingLevel: 'error' });
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: file(PILE('')) }));
  const err = await scene.build().then(() => null, (e: unknown) => e as Error);
  expect(err?.message).toMatch(/^sim-core collision: no collision code for 5 geom pair\(s\) that can touch: /);
  // body pairs in order, each pair as MuJoCo orders it (lower geom type first); unnamed geoms by index
  expect(err?.message).toContain("cylinder 'can' - box 'crate', cylinder #3 - box 'crate', cylinder 'can' - cylinder #3, " +
    "capsule 'pill' - cylinder 'can', capsule 'pill' - cylinder #3.");
  expect(err?.message).toMatch(/contype\/conaffinity, or <contact><exclude/);
});

test('the same scene builds and steps once the pairs are excluded, and collision off needs no exclusion', async () => {
  await gs.init({ backend: 'cpu', loggingLevel: 'error' });
  const excluded = PILE(`<contact>${['b1 b2', 'b1 b3', 'b2 b3', 'b2 b4', 'b3 b4']
    .map((p) => `<exclude body1="${p.split(' ')[0]}" body2="${p.split(' ')[1]}"/>`).join('')}</contact>`);
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: file(excluded) }));
  await scene.build();
  scene.step();
  const off = new gs.Scene({ rigidOptions: { enableCollision: false }, profilingOptions: { showFPS: false } });
  off.addEntity(gs.morphs.MJCF({ file: file(PILE('')) }));
  await off.build();
  off.step();
  expect(off.nEnvs).toBe(0);
});
