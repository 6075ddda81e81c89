/**
 * A mesh entity through the public API: an OBJ mesh body merged with a Genesis plane into one scene (the
 * mesh travels through the merge), stepped on one CPU thread and on two worker threads. It lands on the floor
 * instead of falling through, and the threads agree exactly.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

const N = 130; // three chunks of envs on two threads

/** Height of the prism's centre of mass standing on its triangular end: half its 0.3 m length. */
const END_HEIGHT = 0.3 / 2;

afterEach(async () => {
  if (gs.isInitialized()) await gs.destroy();
});

/** A 0.2 x 0.2 x 0.3 m triangular prism (OBJ, quads on the sides) with a free joint, dropped from 0.4 m. */
function prismFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-scene-'));
  writeFileSync(join(dir, 'prism.obj'), 'v 0 0 0\nv 0.2 0 0\nv 0.05 0.15 0\nv 0 0 0.3\nv 0.2 0 0.3\nv 0.05 0.15 0.3\n' +
    'f 1 3 2\nf 4 5 6\nf 1 2 5 4\nf 2 3 6 5\nf 3 1 4 6\n');
  writeFileSync(join(dir, 'prism.xml'), `<mujoco><asset><mesh file="prism.obj"/></asset><worldbody>
    <body name="prism" pos="0 0 0.4" euler="3 2 0"><freejoint/><geom type="mesh" mesh="prism"/></body></worldbody></mujoco>`);
  return join(dir, 'prism.xml');
}

async function run(cpuThreads: number): Promise<{ qpos: Float64Array; comZ: number[]; ncon: number[] }> {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning', cpuThreads });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.Plane());
  scene.addEntity(gs.morphs.MJCF({ file: prismFile() }));
  await scene.build({ nEnvs: N });
  for (let i = 0; i < 600; i++) scene.step();
  const d = scene.requireSim().hostData!;
  // geom 1 (after the plane) is the prism, placed at its centre of mass
  const comZ = Array.from({ length: N }, (_, e) => d.geomXpos[(3 * 1 + 2) * N + e]!);
  const out = { qpos: Float64Array.from(d.qpos), comZ, ncon: Array.from(d.ncon) };
  await scene.destroy();
  await gs.destroy();
  return out;
}

describe('a mesh entity in a scene', () => {
  test('lands on the plane, and two worker threads match one thread exactly', async () => {
    const one = await run(1);
    const two = await run(2);
    expect(two.qpos).toEqual(one.qpos);
    // dropped nearly upright, the prism stands on its triangular end on three contacts (sinking 1.4e-4 m into the
    // soft contacts, measured; 1e-3 allows 7 times that); without mesh collision it falls through the floor
    for (let e = 0; e < N; e++) {
      expect(Math.abs(one.comZ[e]! - END_HEIGHT)).toBeLessThan(1e-3);
      expect(one.ncon[e]).toBe(3);
    }
  });
});
