/**
 * The GPU backend compiles the general convex routine, its mesh support, plane-mesh and the spatial tendons' wraps only into
 * models that reach them: lavapipe compiles every routine of a kernel whether it runs or not, and with all of
 * them the Franka scene's first step took minutes longer. A model that does reach one must get it, or its
 * pairs would find no contact and its tendons no length. No GPU is needed to check which source a model gets.
 */
import { describe, expect, test } from 'vitest';
import { gpuKernelsFor, GPU_KERNELS } from '../../src/gpu/kernels/index.js';
import { resolveAsset } from '../../src/loaders/assets.js';
import { loadMJCF } from '../../src/loaders/mjcf.js';
import type { Model } from '../../src/model/model.js';
import { SPATIAL_ARM_XML } from '../parity/spatial-models.js';
import { writeXml } from '../helpers/xml-file.js';

const FRANKA = resolveAsset('xml/franka_emika_panda/scene.xml');
const TET = '0 0 0  0.1 0 0  0 0.1 0  0 0 0.1';

function model(xml: string): Model {
  return loadMJCF(writeXml(xml, 'gsprof-kernel-select-')).model;
}

function scene(bodies: string, extra = ''): Model {
  return model(`<mujoco>${extra}<worldbody><geom name="floor" type="plane" size="1 1 0.1"/>${bodies}</worldbody></mujoco>`);
}

/** Which optional routines the model's kernels carry. */
function routines(m: Model): { convex: boolean; meshSupport: boolean; planeMesh: boolean; spatial: boolean } {
  const ks = gpuKernelsFor(m);
  const helpers = (name: string): string => ks.find((k) => k.name === name)!.helpers;
  return {
    convex: helpers('collision').includes('fn cv_support'),
    // the hull search called from the convex routine's support switch
    meshSupport: helpers('collision').includes('mesh_support(i, cv_geom[i]'),
    planeMesh: helpers('collision').includes('fn mesh_plane_support') && helpers('collision').includes('MESH_PLANE_MAX'),
    spatial: helpers('com').includes('fn ten_wrap_geom'),
  };
}

describe('which optional WGSL a model compiles', () => {
  test('the full kernel set has every routine, and the selection keeps the pipeline order', () => {
    const all = { collision: GPU_KERNELS.find((k) => k.name === 'collision')!.helpers, com: GPU_KERNELS.find((k) => k.name === 'com')!.helpers };
    expect(all.collision).toContain('fn cv_support');
    expect(all.collision).toContain('mesh_support(i, cv_geom[i]');
    expect(all.collision).toContain('MESH_PLANE_MAX');
    expect(all.com).toContain('fn ten_wrap_geom');
    expect(gpuKernelsFor(loadMJCF(FRANKA).model).map((k) => k.name)).toEqual(GPU_KERNELS.map((k) => k.name));
  });

  test('Franka (capsules, cylinders never touching each other, a plane) gets none of them', () => {
    expect(routines(loadMJCF(FRANKA).model)).toEqual({ convex: false, meshSupport: false, planeMesh: false, spatial: false });
  });

  test('an ellipsoid or a cylinder pair that can touch gets the convex routine; one that cannot does not', () => {
    expect(routines(scene('<body pos="0 0 1"><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.3"/></body>'))).toEqual({ convex: true, meshSupport: false, planeMesh: false, spatial: false });
    expect(routines(scene('<body pos="0 0 1"><freejoint/><geom type="cylinder" size="0.1 0.2"/></body><body pos="0 0 2"><freejoint/><geom type="cylinder" size="0.1 0.2"/></body>')).convex).toBe(true);
    expect(routines(scene('<body pos="0 0 1"><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.3" contype="0" conaffinity="0"/></body>')).convex).toBe(false);
    expect(routines(scene('<body pos="0 0 1"><freejoint/><geom type="cylinder" size="0.1 0.2"/></body>')).convex).toBe(false);
  });

  test('a mesh that can touch the floor gets plane-mesh', () => {
    const m = scene('<body pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet"/></body>', `<asset><mesh name="tet" vertex="${TET}"/></asset>`);
    expect(routines(m)).toEqual({ convex: false, meshSupport: false, planeMesh: true, spatial: false });
  });

  test('a mesh that can touch a box or a ball gets the convex routine with the mesh support; kept apart, it does not', () => {
    const asset = `<asset><mesh name="tet" vertex="${TET}"/></asset>`;
    const rock = (attrs = '') => `<body pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet" ${attrs}/></body>`;
    const crate = '<body pos="0 0 2"><freejoint/><geom type="box" size="0.1 0.1 0.1" contype="2" conaffinity="2"/></body>';
    expect(routines(scene(rock('contype="3" conaffinity="3"') + crate, asset))).toEqual({ convex: true, meshSupport: true, planeMesh: true, spatial: false });
    expect(routines(scene(rock() + crate, asset))).toEqual({ convex: false, meshSupport: false, planeMesh: true, spatial: false });
    const ball = '<body pos="0 0 2"><freejoint/><geom type="sphere" size="0.1"/></body>';
    expect(routines(scene(rock() + ball, asset)).meshSupport).toBe(true);
  });

  test('two meshes that can touch get mesh-mesh in the convex routine; a mesh and a box alone do not', () => {
    const asset = `<asset><mesh name="tet" vertex="${TET}"/></asset>`;
    const rock = '<body pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet"/></body>';
    const pebble = '<body pos="0 0 2"><freejoint/><geom type="mesh" mesh="tet"/></body>';
    const crate = '<body pos="0 0 2"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>';
    const meshMesh = (m: Model): boolean => gpuKernelsFor(m).find((k) => k.name === 'collision')!.helpers.includes('|| t1 == 7; }');
    expect(routines(scene(rock + pebble, asset))).toEqual({ convex: true, meshSupport: true, planeMesh: true, spatial: false });
    expect(meshMesh(scene(rock + pebble, asset))).toBe(true);
    expect(meshMesh(scene(rock + crate, asset))).toBe(false);
    expect(GPU_KERNELS.find((k) => k.name === 'collision')!.helpers).toContain('|| t1 == 7; }');
  });

  test('a spatial tendon gets the wraps', () => {
    expect(routines(model(SPATIAL_ARM_XML)).spatial).toBe(true);
  });
});
