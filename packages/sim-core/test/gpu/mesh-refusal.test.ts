/**
 * Mesh collision runs on the CPU backend only: the GPU backend refuses, at build and naming the geom, a mesh
 * geom that can touch another geom, instead of letting the WGSL narrow phase skip the pair (the mesh would
 * fall through the floor). A mesh geom that only adds mass is fine there. No GPU needed: the check runs first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refuseMeshCollision } from '../../src/backend/gpu.js';
import { loadMJCF } from '../../src/loaders/index.js';

const TET = '0 0 0  .3 0 0  0 .2 0  0 0 .1';

function model(geomAttrs: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-mesh-'));
  writeFileSync(join(dir, 'm.xml'), `<mujoco><asset><mesh name="tet" vertex="${TET}"/></asset><worldbody>
    <geom type="plane" size="0 0 1"/><body pos="0 0 .5"><freejoint/><geom name="rock" type="mesh" mesh="tet" ${geomAttrs}/></body>
  </worldbody></mujoco>`);
  return loadMJCF(join(dir, 'm.xml')).model;
}

describe('the GPU backend and mesh geoms', () => {
  test('a colliding mesh geom is refused with one line naming it and the CPU backend', () => {
    expect(() => refuseMeshCollision(model(''))).toThrow(
      "the GPU backend has no mesh collision: mesh 'rock' can touch other geoms; meshes run on the CPU backend (backend cpu), or keep the geom from colliding (contype/conaffinity 0)");
  });

  test('a mesh geom that only adds mass is accepted', () => {
    expect(() => refuseMeshCollision(model('contype="0" conaffinity="0"'))).not.toThrow();
  });
});
