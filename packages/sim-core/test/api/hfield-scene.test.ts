/**
 * A height field entity through the public API: a terrain MJCF (an hfield geom, merged into the scene with its
 * height field) and a ball MJCF as a second entity, stepped on one CPU thread and on two worker threads. The
 * ball lands on the terrain's flat cells instead of falling through, and the threads agree exactly.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const N = 130; // three chunks of envs on two threads
const RADIUS = 0.04;

afterEach(async () => {
  if (gs.isInitialized()) await gs.destroy();
});

function files(): { terrain: string; ball: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-hfield-scene-'));
  writeFileSync(join(dir, 'terrain.xml'), `<mujoco><asset><hfield name="corner" nrow="4" ncol="4" size="0.4 0.4 0.05 0.05"
    elevation="0 0 0 1  0 0 0 0  0 0 0 0  0 0 0 0"/></asset><worldbody><geom type="hfield" hfield="corner"/></worldbody></mujoco>`);
  writeFileSync(join(dir, 'ball.xml'), `<mujoco><worldbody><body name="ball" pos="0.06 -0.06 0.2"><freejoint/>
    <geom type="sphere" size="${RADIUS}"/></body></worldbody></mujoco>`);
  return { terrain: join(dir, 'terrain.xml'), ball: join(dir, 'ball.xml') };
}

async function run(cpuThreads: number): Promise<{ qpos: Float64Array; z: number[]; ncon: number[] }> {
  const f = files();
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning', cpuThreads });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file: f.terrain }));
  scene.addEntity(gs.morphs.MJCF({ file: f.ball }));
  await scene.build({ nEnvs: N });
  for (let i = 0; i < 400; i++) scene.step();
  const d = scene.requireSim().hostData!;
  const z = Array.from({ length: N }, (_, e) => d.qpos[2 * N + e]!);
  const out = { qpos: Float64Array.from(d.qpos), z, ncon: Array.from(d.ncon) };
  await scene.destroy();
  await gs.destroy();
  return out;
}

describe('a height field entity in a scene', () => {
  test('a ball lands on the terrain, and two worker threads match one thread exactly', async () => {
    const one = await run(1);
    const two = await run(2);
    expect(two.qpos).toEqual(one.qpos);
    // resting inside one flat prism (elevation 0 at z 0; 0.085 from the cell diagonal) on one contact, sunk into the soft contact by well under
    // 1 mm; without height field collision the ball falls through to z far below 0
    for (let e = 0; e < N; e++) {
      expect(Math.abs(one.z[e]! - RADIUS)).toBeLessThan(1e-3);
      expect(one.ncon[e]).toBe(1);
    }
  });
});
