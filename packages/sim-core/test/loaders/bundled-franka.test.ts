/**
 * The bundled Franka Panda (assets/xml/franka_emika_panda): MuJoCo loads it, loadMJCF compiles it exactly as
 * MuJoCo does, and its physics (bodies, joints, masses, inertias, actuators, equality) are those of the
 * Menagerie model it was written from; only the collision primitives and the home keyframe are its own.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMJCF, resolveAsset } from '../../src/loaders/index.js';
import { GeomType } from '../../src/model/model.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

const PANDA = 'xml/franka_emika_panda/panda.xml';
const SCENE = 'xml/franka_emika_panda/scene.xml';

describe('bundled Franka Panda', () => {
  it('is found by its bundled name', () => {
    const file = resolveAsset(PANDA);
    expect(existsSync(file)).toBe(true);
    expect(file.endsWith('packages/sim-core/assets/xml/franka_emika_panda/panda.xml')).toBe(true);
  });

  for (const name of [PANDA, SCENE]) {
    it(`${name} compiles exactly as in MuJoCo`, async () => {
      const file = resolveAsset(name);
      const ours = loadMJCF(file);
      const { mj, m } = await loadMujoco(file);
      expect(diffModels(ours.model, mujocoModel(mj, m))).toEqual([]);
    });
  }

  it('collides through primitives only, and the arm does not collide with itself', () => {
    const m = loadMJCF(resolveAsset(PANDA)).model;
    const types = new Set(Array.from(m.geomType));
    expect([...types].every((t) => t === GeomType.Capsule || t === GeomType.Box)).toBe(true);
    for (let g = 0; g < m.ngeom; g++) expect(m.geomContype[g]).toBe(0);
    const links = Array.from(m.geomBodyid).filter((_b, g) => m.geomConaffinity[g] === 1);
    expect(new Set(links).size).toBeGreaterThanOrEqual(9); // link0..link7 and the hand
  });

  it('has a home keyframe inside the joint ranges', () => {
    const m = loadMJCF(resolveAsset(PANDA)).model;
    expect(m.keyName).toEqual(['home']);
    for (let j = 0; j < m.njnt; j++) {
      const q = m.keyQpos[m.jntQposadr[j]!]!;
      expect(q).toBeGreaterThanOrEqual(m.jntRange[2 * j]!);
      expect(q).toBeLessThanOrEqual(m.jntRange[2 * j + 1]!);
    }
    expect(Array.from(m.keyCtrl)).toEqual([0, 0, 0, -1.57079, 0, 1.57079, -0.7853, 0.04]);
  });
});

describe.skipIf(!hasShared())('bundled Franka Panda against the Menagerie figures', () => {
  it('has the same bodies, joints, inertias, actuators, equality and options-free defaults', () => {
    const ref = loadMJCF(sharedPath('models', 'franka_emika_panda_nomesh', 'mjx_panda.xml')).model;
    const ours = loadMJCF(resolveAsset(PANDA)).model;
    // everything except collision geometry and keyframes must be identical
    const geomFree = (m: typeof ours) => Object.fromEntries(
      Object.entries(m).filter(([k]) => !k.startsWith('geom') && !k.startsWith('key') && !k.startsWith('bodyGeom') && k !== 'ngeom' && k !== 'nkey'),
    ) as typeof ours;
    expect(diffModels(geomFree(ours), geomFree(ref))).toEqual([]);
    expect(ours.nu).toBe(8);
    expect(Array.from(ours.actuatorForcerange.subarray(0, 8))).toEqual([-100, 100, -100, 100, -100, 100, -100, 100]);
  });
});
