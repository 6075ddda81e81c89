/**
 * The bundled ANYmal C in MJCF (assets/xml/anymal_c): MuJoCo loads it, loadMJCF compiles it exactly as MuJoCo
 * does, and it describes the same robot as the bundled URDF, so either can stand in for the other in tests.
 */
import { describe, expect, it } from 'vitest';
import { loadMJCF, loadURDF, resolveAsset } from '../../src/loaders/index.js';
import { quatToMat, rotatedInertia, type Quat, type Vec3 } from '../../src/model/frame-math.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

describe('bundled ANYmal C MJCF', () => {
  for (const name of ['xml/anymal_c/anymal_c.xml', 'xml/anymal_c/scene.xml']) {
    it(`${name} compiles exactly as in MuJoCo`, async () => {
      const file = resolveAsset(name);
      const ours = loadMJCF(file);
      const { mj, m } = await loadMujoco(file);
      expect(diffModels(ours.model, mujocoModel(mj, m))).toEqual([]);
    });
  }

  it('describes the same robot as the bundled URDF', () => {
    const x = loadMJCF(resolveAsset('xml/anymal_c/anymal_c.xml')).model;
    const u = loadURDF(resolveAsset('urdf/anymal_c/urdf/anymal_c.urdf'), { pos: [0, 0, 0.62] }).model;
    expect(u.bodyName).toEqual(x.bodyName);
    expect(u.jntName).toEqual(x.jntName);
    expect(Array.from(u.bodyMass)).toEqual(Array.from(x.bodyMass));
    const close = (a: ArrayLike<number>, b: ArrayLike<number>, tol: number) =>
      Array.from(a).every((v, i) => Math.abs(v - b[i]!) <= tol);
    for (let b = 0; b < x.nbody; b++) {
      expect(close(u.bodyPos.subarray(3 * b, 3 * b + 3), x.bodyPos.subarray(3 * b, 3 * b + 3), 1e-12)).toBe(true);
      const rot = (m: typeof x) => quatToMat(Array.from(m.bodyQuat.subarray(4 * b, 4 * b + 4)) as Quat);
      expect(close(rot(u), rot(x), 1e-9)).toBe(true);
      const t = (m: typeof x) => rotatedInertia(Array.from(m.bodyInertia.subarray(3 * b, 3 * b + 3)) as Vec3,
        Array.from(m.bodyIquat.subarray(4 * b, 4 * b + 4)) as Quat);
      expect(close(t(u), t(x), 2e-6 * Math.max(...t(x), 1e-12))).toBe(true);
    }
    expect(Array.from(u.jntAxis)).toEqual(Array.from(x.jntAxis));
    expect(Array.from(u.jntRange)).toEqual(Array.from(x.jntRange));
    expect(Array.from(u.jntActfrcrange!)).toEqual(Array.from(x.jntActfrcrange!));
    expect(Array.from(u.dofDamping)).toEqual(Array.from(x.dofDamping));
    expect(u.ngeom).toBe(x.ngeom);
    expect(Array.from(u.geomPos)).toEqual(Array.from(x.geomPos));
  });
});
