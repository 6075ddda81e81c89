/**
 * The GPU backend collides meshes with planes only (gpu/kernels/mesh.ts): it refuses, at build and naming both
 * geoms, a mesh geom that can touch anything else, instead of letting the WGSL narrow phase skip the pair (the
 * mesh would pass through the box). A mesh that only touches planes, or only adds mass, is fine there. No GPU
 * needed: the check runs first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refuseMeshCollision } from '../../src/backend/gpu.js';
import { loadMJCF } from '../../src/loaders/index.js';

const TET = '0 0 0  .3 0 0  0 .2 0  0 0 .1';

function model(geomAttrs: string, more = '') {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-mesh-'));
  writeFileSync(join(dir, 'm.xml'), `<mujoco><asset><mesh name="tet" vertex="${TET}"/></asset><worldbody>
    <geom name="floor" type="plane" size="0 0 1"/><body pos="0 0 .5"><freejoint/><geom name="rock" type="mesh" mesh="tet" ${geomAttrs}/></body>
    ${more}</worldbody></mujoco>`);
  return loadMJCF(join(dir, 'm.xml')).model;
}

describe('the GPU backend and mesh geoms', () => {
  test('a mesh that can touch only the floor plane is accepted: plane-mesh has a WGSL narrow phase', () => {
    expect(() => refuseMeshCollision(model(''))).not.toThrow();
  });

  test('a mesh that can touch a box is refused with one line naming both geoms and the CPU backend', () => {
    expect(() => refuseMeshCollision(model('', '<body pos="1 0 .5"><freejoint/><geom name="crate" type="box" size=".1 .1 .1"/></body>'))).toThrow(
      "the GPU backend collides meshes with planes only: mesh 'rock' can touch box 'crate'; mesh against other geoms runs on the CPU backend (backend cpu), or keep the pair from colliding (contype/conaffinity, <exclude>)");
  });

  test('two meshes that can touch are refused, naming the pair', () => {
    expect(() => refuseMeshCollision(model('', '<body pos="1 0 .5"><freejoint/><geom name="pebble" type="mesh" mesh="tet"/></body>'))).toThrow(
      /^the GPU backend collides meshes with planes only: mesh 'rock' can touch mesh 'pebble';/);
  });

  test('a mesh kept from the box by contype/conaffinity, still on the floor, is accepted', () => {
    // the floor (1/1) still touches both; rock (2/1) and crate (4/1) do not touch each other
    expect(() => refuseMeshCollision(model('contype="2" conaffinity="1"',
      '<body pos="1 0 .5"><freejoint/><geom name="crate" type="box" size=".1 .1 .1" contype="4" conaffinity="1"/></body>'))).not.toThrow();
  });

  test('a mesh geom that only adds mass is accepted', () => {
    expect(() => refuseMeshCollision(model('contype="0" conaffinity="0"', '<body pos="1 0 .5"><freejoint/><geom type="sphere" size=".1"/></body>'))).not.toThrow();
  });
});
