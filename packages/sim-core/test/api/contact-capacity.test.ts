/**
 * Contact capacity is a scene option (Genesis' max_collision_pairs, here rigidOptions.maxCollisionPairs) and
 * the overflow error names it (issue 13). A table on four box legs makes 16 contacts; the default room was two
 * per geom (12 for its 6 geoms), so it overflowed with no way out. The default now counts what each geom can
 * make against a plane or box (8 per box: 40).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';

const legs = ['0.4 0.25', '-0.4 0.25', '0.4 -0.25', '-0.4 -0.25']
  .map((xy) => `<geom type="box" pos="${xy} -0.2" size="0.03 0.03 0.2" mass="0.5"/>`).join('');
const TABLE = `<mujoco><option timestep="0.002" integrator="implicitfast"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="table" pos="0 0 0.419" euler="0.5 0 0"><freejoint/>
    <geom type="box" size="0.45 0.3 0.02" mass="4"/>${legs}</body>
</worldbody></mujoco>`;
const STEPS = 150;

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-table-'));
  writeFileSync(join(dir, 'table.xml'), TABLE);
  return join(dir, 'table.xml');
}

afterEach(async () => { await gs.destroy(); });

test('with room for 12 the table overflows, and the error names the room and the option', async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'error' });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002, errorCheckInterval: 1, maxCollisionPairs: 12 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: file() }));
  await scene.build();
  let err: unknown = null;
  for (let s = 0; s < STEPS && !err; s++) {
    try { scene.step(); } catch (e) { err = e; }
  }
  expect(err).toBeInstanceOf(gs.SimulationError);
  expect((err as Error).message).toContain('contact/constraint buffer overflow (room for 12 contacts and');
  expect((err as Error).message).toContain('raise rigidOptions.maxCollisionPairs');
});

test.each([16, 'auto'] as const)('maxCollisionPairs %s holds every contact: the table lands on its four legs as in MuJoCo (1e-9 over 150 steps)', async (room) => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'error' });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002, errorCheckInterval: 1, maxCollisionPairs: room }, profilingOptions: { showFPS: false } });
  const table = scene.addEntity(gs.morphs.MJCF({ file: file() }));
  await scene.build();
  for (let s = 0; s < STEPS; s++) scene.step();
  const q = (await table.getQpos()).toArray() as number[];
  const ref = await loadMujocoXml(TABLE);
  try {
    let maxNcon = 0;
    for (let s = 0; s < STEPS; s++) { ref.mj.mj_step(ref.m, ref.d); maxNcon = Math.max(maxNcon, ref.d.ncon as number); }
    expect(maxNcon).toBe(16); // MuJoCo needs the room too
    const refQ = Array.from(ref.d.qpos as ArrayLike<number>);
    // f64 through the same operations: measured 3.5e-18; 1e-9 is the bound
    for (let k = 0; k < 7; k++) expect(Math.abs(q[k]! - refQ[k]!)).toBeLessThanOrEqual(1e-9);
  } finally {
    disposeMujoco(ref);
  }
  expect(() => new gs.Scene({ rigidOptions: { maxCollisionPairs: 0 } })).toThrow(/rigidOptions\.maxCollisionPairs/);
});
