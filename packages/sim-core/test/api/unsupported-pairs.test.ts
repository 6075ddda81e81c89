/**
 * Geom pairs without collision code used to be refused at build (issue 13); before that, they got one warning
 * and then passed through each other. Box-box, and now box-cylinder, cylinder-cylinder and capsule-cylinder
 * (MuJoCo's general convex routine, collision/convex.ts), have their collision code: the pile below stands.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

// a box, two cans and a pill: box-cylinder, cylinder-cylinder and capsule-cylinder pairs
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

test('a pile with cylinders builds on the CPU and stands: the cans rest on the crate and on each other', async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'error' });
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  const pile = scene.addEntity(gs.morphs.MJCF({ file: file(PILE('')) }));
  await scene.build();
  for (let i = 0; i < 100; i++) scene.step();
  const q = (await pile.getQpos()).toArray() as number[];
  // free joints of b1..b4, 7 numbers each: z at 2, 9, 16. Passing through, a can would drop below the crate top (0.1)
  expect(q[2]!).toBeGreaterThan(0.04);
  expect(q[9]!).toBeGreaterThan(0.19);
  expect(q[16]!).toBeGreaterThan(0.39);
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
