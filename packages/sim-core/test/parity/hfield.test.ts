/**
 * Height fields against MuJoCo 3.3 (mjc_ConvexHField: the geom's box picks cells, each cell's two prisms go
 * through GJK/EPA, normals fixed to round geoms' surfaces), f64 CPU. Per scene, two checks as in convex.test.ts:
 * (1) along MuJoCo's own trajectory, sim-core's collision stage given MuJoCo's poses gives MuJoCo's contacts
 * (count, distance, point, normal) every step; (2) the whole pipeline steps beside MuJoCo, on MuJoCo's compiled
 * model and on sim-core's own loader, with equal contact counts every step.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { setConst } from '../../src/physics/setconst.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { narrowAlongMujoco } from './narrow.js';
import { BUMP, hfieldFields, hfieldScene, SLOPE } from './hfield-models.js';
import { run, twin } from './trajectory.js';

/** A 4 x 4 field flat but for one raised corner, so that a box can slide on flat cells across prism edges. */
const CORNER = '<hfield name="corner" nrow="4" ncol="4" size="0.4 0.4 0.05 0.05" elevation="0 0 0 1  0 0 0 0  0 0 0 0  0 0 0 0"/>';
const TET = '<mesh name="tet" vertex="0 0 0  .08 0 0  0 .07 0  0.02 0.02 .06"/>';

interface Case {
  xml: string; qvel: number[]; steps: number;
  /** bound on the state error over `steps` (relative to max(1, |value|), fails on NaN); null: narrow phase only */
  bound: number | null;
  /** contacts the scene has at its fullest, at least */
  contacts: number;
}

// Where a polytope's corner or edge, or a cylinder's rim, digs into a prism, MuJoCo's own result is ill-conditioned:
// EPA stops at the first repeated support vertex, and a prism's vertices carry no index (MuJoCo's prism support
// leaves it at -1), so the other shape's vertex alone decides; a 1e-15 change of the state changes the contact
// found. Measured, MuJoCo against itself with qpos[0] moved by 1e-15, 300 steps: 10.7 apart for the box dropped
// on the bump, 2.8e-3 for the cylinder, 26.6 for the tetrahedron. Those scenes check the narrow phase on
// MuJoCo's poses only (where it equals MuJoCo's to 1.1e-16).
const CASES: Record<string, Case> = {
  'a sphere rolling down a slope': {
    // measured 2.2e-15 over 300 steps, on both models; 1e-9 (the bound) leaves a margin over 1e4 in all
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0, 0.1, 0, 0, 0, 0],
    xml: hfieldScene(SLOPE, 'slope', '<body pos="0.1 0 0.1"><freejoint/><geom type="sphere" size="0.04" mass="1"/></body>'),
  },
  'a sphere rolling over a bump': {
    // measured 1.7e-14
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0.4, 0.05, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="-0.3 -0.02 0.1"><freejoint/><geom type="sphere" size="0.04" mass="1"/></body>'),
  },
  'a sphere with a contact margin rolling over a bump (prism tops raised by the margin)': {
    // measured 1.9e-14
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0.4, 0.05, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="-0.3 -0.02 0.1"><freejoint/><geom type="sphere" size="0.04" mass="1" margin="0.01"/></body>'),
  },
  'a box with a contact margin sliding on flat cells': {
    // measured 8.0e-15
    steps: 300, bound: 1e-9, contacts: 4, qvel: [0.3, 0.1, 0, 0, 0, 0],
    xml: hfieldScene(CORNER, 'corner', '<body pos="-0.1 -0.1 0.035"><freejoint/><geom type="box" size="0.05 0.04 0.03" mass="1" margin="0.005"/></body>'),
  },
  'an hfield on a free body landing on two capsules (MuJoCo has no static-body rule for hfields)': {
    // measured 5.4e-16
    steps: 300, bound: 1e-9, contacts: 2, qvel: [0, 0, 0, 0, 0, 0],
    xml: `<mujoco><option timestep="0.002"/><asset>${SLOPE}</asset><worldbody>
  <geom type="capsule" size="0.03 0.3" pos="0.15 0 0" euler="90 0 0"/><geom type="capsule" size="0.03 0.3" pos="-0.15 0 0" euler="90 0 0"/>
  <body pos="0 0 0.1" euler="2 3 0"><freejoint/><geom type="hfield" hfield="slope" density="100"/></body></worldbody></mujoco>`,
  },
  'a box sliding flat down a slope, across prism edges': {
    // measured 3.6e-15
    steps: 300, bound: 1e-9, contacts: 3, qvel: [-0.3, 0.1, 0, 0, 0, 0],
    xml: hfieldScene(SLOPE, 'slope', '<body pos="0 0 0.085" euler="0 -5.71 0"><freejoint/><geom type="box" size="0.05 0.04 0.03" mass="1"/></body>'),
  },
  'a box sliding on flat cells': {
    // measured 7.7e-15
    steps: 300, bound: 1e-9, contacts: 6, qvel: [0.3, 0.1, 0, 0, 0, 0],
    xml: hfieldScene(CORNER, 'corner', '<body pos="-0.1 -0.1 0.035"><freejoint/><geom type="box" size="0.05 0.04 0.03" mass="1"/></body>'),
  },
  'a box dropped tilted on the bump': {
    steps: 300, bound: null, contacts: 2, qvel: [0, 0, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="0.05 0.02 0.2" euler="10 20 5"><freejoint/><geom type="box" size="0.05 0.04 0.03" mass="1"/></body>'),
  },
  'a capsule rolling down a slope': {
    // measured 9.4e-15
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0, 0, 0, 0, 0, 0],
    xml: hfieldScene(SLOPE, 'slope', '<body pos="0.1 0 0.12" euler="90 0 0"><freejoint/><geom type="capsule" size="0.03 0.08" mass="1"/></body>'),
  },
  'a capsule dropped across the bump': {
    // measured 4.7e-14
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0.1, 0, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="0 0 0.2" euler="80 10 30"><freejoint/><geom type="capsule" size="0.03 0.1" mass="1"/></body>'),
  },
  'an ellipsoid rolling over the bump': {
    // measured 6.7e-14
    steps: 300, bound: 1e-9, contacts: 1, qvel: [0.3, 0, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="-0.25 0.02 0.1" euler="0 20 0"><freejoint/><geom type="ellipsoid" size="0.05 0.04 0.03" mass="1"/></body>'),
  },
  'a cylinder dropped on the bump': {
    steps: 300, bound: null, contacts: 1, qvel: [0, 0, 0, 0, 0, 0],
    xml: hfieldScene(BUMP, 'bump', '<body pos="-0.2 0.1 0.15" euler="30 10 0"><freejoint/><geom type="cylinder" size="0.04 0.03" mass="1"/></body>'),
  },
  'a tetrahedron mesh dropped on the slope': {
    steps: 300, bound: null, contacts: 1, qvel: [0, 0, 0, 0, 0, 0],
    xml: hfieldScene(SLOPE + TET, 'slope', '<body pos="0 0 0.12" euler="5 10 0"><freejoint/><geom type="mesh" mesh="tet" mass="1"/></body>'),
  },
};

/** sim-core's own loader on the same XML, as a patch over the Model copied from MuJoCo. */
function ownModel(xml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-hfield-'));
  writeFileSync(join(dir, 'scene.xml'), xml);
  return setConst(loadMJCF(join(dir, 'scene.xml')).model);
}

describe('height fields against MuJoCo, f64 CPU (issue 13)', () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(name, async () => {
      // (1) the narrow phase on MuJoCo's own trajectory
      const { worst: narrow, most } = await narrowAlongMujoco(c.xml, c.qvel, c.steps, hfieldFields);
      expect(most).toBeGreaterThanOrEqual(c.contacts);
      // the same arithmetic as MuJoCo's: measured at most 1.1e-16 (one rounding in the frame), 10x margin
      expect(narrow).toBeLessThan(1e-15);
      // (2) the whole pipeline beside MuJoCo, on MuJoCo's model and on sim-core's loader
      if (c.bound === null) return;
      for (const own of [false, true]) {
        const loaded = await loadMujocoXml(c.xml);
        try {
          loaded.d.qvel.set(c.qvel);
          const patch = own ? (model: object) => Object.assign(model, ownModel(c.xml)) : (model: object) => Object.assign(model, hfieldFields(loaded.m));
          const p = twin(loaded.mj, loaded.m, loaded.d, 1, patch, '64', 64);
          let mismatch = -1;
          const worst = run(p, c.steps, (s) => {
            if (mismatch < 0 && p.d.ncon[0] !== (loaded.d.ncon as number)) mismatch = s;
          });
          expect(mismatch, 'first step whose contact count differs').toBe(-1);
          expect(worst).toBeLessThan(c.bound);
        } finally {
          disposeMujoco(loaded);
        }
      }
    });
  }
});
