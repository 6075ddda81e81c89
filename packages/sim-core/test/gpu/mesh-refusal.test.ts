/**
 * The GPU backend collides meshes with every primitive and every mesh (plane-mesh in gpu/kernels/mesh.ts, the rest
 * through the WGSL convex routine with the hulls' supports), so it builds scenes where a mesh can touch a box, a
 * sphere or another mesh. Height fields still collide on the CPU backend only: a pair that can touch is refused at
 * build, naming the geoms, instead of letting the WGSL narrow phase skip it. No GPU needed: the checks run first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refuseCpuOnlyPairs, refuseHFieldCollision } from '../../src/backend/gpu.js';
import { loadMJCF } from '../../src/loaders/index.js';

const TET = '0 0 0  .3 0 0  0 .2 0  0 0 .1';

function model(more: string, asset = '') {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-mesh-'));
  writeFileSync(join(dir, 'm.xml'), `<mujoco><asset><mesh name="tet" vertex="${TET}"/>${asset}</asset><worldbody>
    <geom name="floor" type="plane" size="0 0 1"/><body pos="0 0 .5"><freejoint/><geom name="rock" type="mesh" mesh="tet"/></body>
    ${more}</worldbody></mujoco>`);
  return loadMJCF(join(dir, 'm.xml')).model;
}

const refusals = (m: ReturnType<typeof model>) => () => { refuseHFieldCollision(m); refuseCpuOnlyPairs(m); };

describe('the GPU backend and mesh geoms', () => {
  test('a mesh that can touch a box, a sphere, a capsule, a cylinder and an ellipsoid is accepted', () => {
    const others = ['type="box" size=".1 .1 .1"', 'type="sphere" size=".1"', 'type="capsule" size=".05 .1"', 'type="cylinder" size=".05 .1"',
      'type="ellipsoid" size=".1 .07 .05"'];
    const bodies = others.map((g, i) => `<body pos="${0.2 * (i + 1)} 0 .5"><freejoint/><geom ${g}/></body>`).join('');
    expect(refusals(model(bodies))).not.toThrow();
  });

  test('two meshes that can touch are accepted', () => {
    expect(refusals(model('<body pos="1 0 .5"><freejoint/><geom name="pebble" type="mesh" mesh="tet"/></body>'))).not.toThrow();
  });

  test('a height field that can touch the mesh is refused in one line naming it and the CPU backend', () => {
    expect(refusals(model('<geom name="ground" type="hfield" hfield="h"/>', '<hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/>'))).toThrow(
      "the GPU backend has no height field collision: hfield 'ground' can touch other geoms; height fields run on the CPU backend (backend cpu)");
  });

  test('the same height field kept from every geom by contype/conaffinity is accepted', () => {
    expect(refusals(model('<geom type="hfield" hfield="h" contype="0" conaffinity="0"/>', '<hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/>'))).not.toThrow();
  });
});
