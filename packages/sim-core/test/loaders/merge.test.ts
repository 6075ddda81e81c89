/**
 * mergeModels: entities combined into one scene model with consistent counts and index offsets. A plane plus
 * the bundled Panda must give exactly the model MuJoCo-style compilation of the Panda scene file gives.
 */
import { describe, expect, it } from 'vitest';
import { loadMJCF, loadURDF, mergeModels, planeModel, resolveAsset } from '../../src/loaders/index.js';
import { GeomType, JointType } from '../../src/model/model.js';
import { diffModels } from './compare.js';

const panda = () => loadMJCF(resolveAsset('xml/franka_emika_panda/panda.xml'));
const anymal = () => loadURDF(resolveAsset('urdf/anymal_c/urdf/anymal_c.urdf'), { pos: [1, 0, 0.8] });

describe('planeModel', () => {
  it('is one plane geom on the world body', () => {
    const { model } = planeModel();
    expect(model.nbody).toBe(1);
    expect(model.ngeom).toBe(1);
    expect(model.geomType[0]).toBe(GeomType.Plane);
    expect(model.geomBodyid[0]).toBe(0);
    expect(Array.from(model.geomSize)).toEqual([0, 0, 1]);
  });
});

describe('mergeModels', () => {
  it('plane + Panda equals the Panda scene file compiled as one model', () => {
    const { model, entities } = mergeModels([planeModel(), panda()]);
    const scene = loadMJCF(resolveAsset('xml/franka_emika_panda/scene.xml')).model;
    // the scene file names its floor and gives it a rendering grid, and sets solver options
    scene.geomName[0] = 'plane';
    scene.geomSize[2] = 1;
    const { opt: _o1, ...a } = model;
    const { opt: _o2, ...b } = scene;
    expect(diffModels(a as typeof model, b as typeof scene)).toEqual([]);
    expect(entities[0]).toMatchObject({ nbody: 0, njnt: 0, nv: 0, nu: 0, ngeom: 0, worldGeoms: [0] });
    expect(entities[1]).toMatchObject({
      bodyStart: 1, nbody: 11, jntStart: 0, njnt: 9, dofStart: 0, nv: 9, qposStart: 0, nq: 9,
      actuatorStart: 0, nu: 8, geomStart: 1, ngeom: model.ngeom - 1, worldGeoms: [], eqStart: 0, neq: 1, keyStart: 0, nkey: 1,
    });
  });

  it('offsets every index when a second robot follows', () => {
    const parts = [panda(), planeModel(), anymal()];
    const { model: m, entities } = mergeModels(parts);
    const [p, , a] = [parts[0]!.model, parts[1]!.model, parts[2]!.model];
    expect(m.nbody).toBe(1 + (p.nbody - 1) + (a.nbody - 1));
    expect(m.njnt).toBe(p.njnt + a.njnt);
    expect(m.nq).toBe(p.nq + a.nq);
    expect(m.nv).toBe(p.nv + a.nv);
    expect(m.ngeom).toBe(p.ngeom + 1 + a.ngeom);
    expect(m.nu).toBe(p.nu);
    // the plane is the only world geom, so it comes first although its entity is second
    expect(m.geomType[0]).toBe(GeomType.Plane);
    expect(entities[1]!.worldGeoms).toEqual([0]);
    expect(entities[0]!.geomStart).toBe(1);
    const e = entities[2]!;
    expect(e).toMatchObject({ bodyStart: p.nbody, jntStart: p.njnt, dofStart: p.nv, qposStart: p.nq, geomStart: 1 + p.ngeom });
    // ANYmal's free joint sits right after the Panda's dofs, and is a root again
    expect(m.jntType[e.jntStart]).toBe(JointType.Free);
    expect(m.dofParentid[e.dofStart]).toBe(-1);
    expect(m.bodyParentid[e.bodyStart]).toBe(0);
    expect(m.bodyRootid[e.bodyStart + 3]).toBe(e.bodyStart);
    expect(Array.from(m.qpos0.subarray(e.qposStart, e.qposStart + 3))).toEqual([1, 0, 0.8]);
    for (let g = e.geomStart; g < e.geomStart + e.ngeom; g++) expect(m.geomBodyid[g]).toBeGreaterThanOrEqual(e.bodyStart);
    // the Panda keeps its actuators, equality and exclude
    expect(Array.from(m.actuatorTrnid)).toEqual(Array.from(p.actuatorTrnid));
    expect(m.eqObj1id[0]).toBe(p.eqObj1id[0]);
    expect(Array.from(m.excludeSignature)).toEqual(Array.from(p.excludeSignature));
    // keyframes cover the whole scene: the Panda's home, with ANYmal at its reference pose
    expect(m.nkey).toBe(1);
    expect(Array.from(m.keyQpos.subarray(0, p.nq))).toEqual(Array.from(p.keyQpos));
    expect(Array.from(m.keyQpos.subarray(p.nq))).toEqual(Array.from(a.qpos0));
    expect(m.bodySubtreemass[0]).toBeCloseTo(p.bodySubtreemass[0]! + a.bodySubtreemass[0]!, 12);
  });

  it('offsets actuators, equalities and excludes of later entities', () => {
    const { model: m, entities } = mergeModels([panda(), panda()]);
    const second = entities[1]!;
    expect(second.actuatorStart).toBe(8);
    expect(m.actuatorTrnid[2 * 8]).toBe(second.jntStart);
    expect(m.eqObj1id[1]).toBe(second.jntStart + 7);
    expect(m.eqObj2id[1]).toBe(second.jntStart + 8);
    const b0 = second.bodyStart;
    expect(Array.from(m.excludeSignature)).toEqual([(1 << 16) + 2, (b0 << 16) + b0 + 1]);
    expect(m.nkey).toBe(2);
    expect(Array.from(m.keyCtrl.subarray(0, 8))).toEqual(Array.from(m.keyCtrl.subarray(24, 32)));
  });
});
