/**
 * The URDF loader: the bundled ANYmal C against the Menagerie figures it was written from, fixed-link merging
 * (mass and centre of mass conserved, geometry and child joints carried along), base options and errors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMJCF, loadURDF, resolveAsset } from '../../src/loaders/index.js';
import { GeomType, JointType, type Model } from '../../src/model/model.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { mujocoModel } from './compare.js';
import { addSym, pointInertia, quatToMat, rotateSym, rotatedInertia, type Quat, type Sym3, type Vec3 } from '../../src/model/frame-math.js';

const ANYMAL = 'urdf/anymal_c/urdf/anymal_c.urdf';
const dir = mkdtempSync(join(tmpdir(), 'gsprof-urdf-'));

const v3 = (a: Float64Array, i: number): Vec3 => [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
const q4 = (a: Float64Array, i: number): Quat => [a[4 * i]!, a[4 * i + 1]!, a[4 * i + 2]!, a[4 * i + 3]!];
const tensor = (m: Model, b: number) => rotatedInertia(v3(m.bodyInertia, b), q4(m.bodyIquat, b));

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, tol: number, what: string): void {
  expect(a.length, what).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!), `${what}[${i}]: ${a[i]} vs ${b[i]}`).toBeLessThanOrEqual(tol);
}

describe('loadURDF on the bundled ANYmal C', () => {
  const loaded = loadURDF(resolveAsset(ANYMAL), { pos: [0, 0, 0.8] });
  const m = loaded.model;

  it('has a free base, 12 leg joints and the fixed links merged away', () => {
    expect(m.nbody).toBe(14);
    expect(m.njnt).toBe(13);
    expect(m.nq).toBe(19);
    expect(m.nv).toBe(18);
    expect(m.jntType[0]).toBe(JointType.Free);
    expect(m.bodyName).not.toContain('base_inertia');
    expect(m.bodyName.some((n) => n.endsWith('_FOOT'))).toBe(false);
    expect(Array.from(m.qpos0.subarray(0, 7))).toEqual([0, 0, 0.8, 1, 0, 0, 0]);
    expect(loaded.log.join('\n')).toContain('merged 5 links');
    // effort limits become joint actuator-force ranges
    for (let j = 1; j < 13; j++) expect(Array.from(m.jntActfrcrange!.subarray(2 * j, 2 * j + 2))).toEqual([-80, 80]);
    expect(m.jntActfrclimited![0]).toBe(0);
  });

  it('keeps a foot sphere of radius 3 cm on each shank', () => {
    const feet = Array.from(m.geomType).flatMap((t, g) => (t === GeomType.Sphere ? [g] : []));
    expect(feet).toHaveLength(4);
    for (const g of feet) {
      expect(m.geomSize[3 * g]).toBe(0.03);
      expect(m.bodyName[m.geomBodyid[g]!]).toMatch(/_SHANK$/);
    }
  });

  it('can be welded to the world at a given pose', () => {
    const fixed = loadURDF(resolveAsset(ANYMAL), { fixed: true, pos: [1, 2, 3], quat: [0, 0, 0, 1] }).model;
    expect(fixed.njnt).toBe(12);
    expect(fixed.nq).toBe(12);
    expect(Array.from(fixed.bodyPos.subarray(3, 6))).toEqual([1, 2, 3]);
    expect(Array.from(fixed.bodyQuat.subarray(4, 8))).toEqual([0, 0, 0, 1]);
  });
});

describe.skipIf(!hasShared())('bundled ANYmal C URDF against the Menagerie figures', () => {
  it('has the same masses, inertias, frames, axes and ranges as anymal_c_mjx.xml', () => {
    const ours = loadURDF(resolveAsset(ANYMAL)).model;
    const ref = loadMJCF(sharedPath('models', 'anybotics_anymal_c_nomesh', 'anymal_c_mjx.xml')).model;
    expect(ours.bodyName).toEqual(ref.bodyName);
    for (let b = 1; b < ref.nbody; b++) {
      const name = ref.bodyName[b];
      expect(ours.bodyMass[b], name).toBe(ref.bodyMass[b]);
      expect(ours.bodyParentid[b], name).toBe(ref.bodyParentid[b]);
      expectClose(v3(ours.bodyIpos, b), v3(ref.bodyIpos, b), 1e-12, `${name} ipos`);
      // the figures' quaternions have 6 digits; MuJoCo's principal-axes solver stops at 1e-6 rotations
      const t = tensor(ref, b);
      expectClose(tensor(ours, b), t, 2e-6 * t.reduce((m, x) => Math.max(m, x), -Infinity), `${name} inertia`);
      if (b === 1) continue; // the base pose is the URDF options', not the file's
      expectClose(v3(ours.bodyPos, b), v3(ref.bodyPos, b), 1e-12, `${name} pos`);
      expectClose(quatToMat(q4(ours.bodyQuat, b)), quatToMat(q4(ref.bodyQuat, b)), 1e-9, `${name} rotation`);
    }
    expect(ours.jntName.slice(1)).toEqual(ref.jntName.slice(1));
    for (let j = 1; j < ref.njnt; j++) {
      expect(ours.jntType[j]).toBe(JointType.Hinge);
      expectClose(v3(ours.jntAxis, j), v3(ref.jntAxis, j), 0, `${ref.jntName[j]} axis`);
      expectClose(ours.jntRange.subarray(2 * j, 2 * j + 2), ref.jntRange.subarray(2 * j, 2 * j + 2), 0, `${ref.jntName[j]} range`);
      expect(ours.jntLimited[j]).toBe(1);
      expect(ours.dofDamping[ours.jntDofadr[j]!]).toBe(ref.dofDamping[ref.jntDofadr[j]!]);
    }
    // feet: same place in the shank frames, same radius
    const feet = (m: Model) => Array.from(m.geomType).flatMap((t, g) => (t === GeomType.Sphere ? [g] : []));
    const [of, rf] = [feet(ours), feet(ref)];
    expect(of.length).toBe(rf.length);
    of.forEach((g, k) => {
      expect(ours.bodyName[ours.geomBodyid[g]!]).toBe(ref.bodyName[ref.geomBodyid[rf[k]!]!]);
      expectClose(v3(ours.geomPos, g), v3(ref.geomPos, rf[k]!), 1e-12, 'foot pos');
      expect(ours.geomSize[3 * g]).toBe(ref.geomSize[3 * rf[k]!]);
    });
  });
});

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('loadURDF fixed-link merging', () => {
  const robot = (fixedType: string) => `<robot name="r">
  <link name="base">
    <inertial><origin xyz="0.1 0 0.05" rpy="0 0 0"/><mass value="2"/><inertia ixx="0.02" iyy="0.03" izz="0.04" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.1 0.1"/></geometry></collision>
  </link>
  <joint name="mount" type="${fixedType}">
    <parent link="base"/><child link="payload"/>
    <origin xyz="0.3 0.1 0" rpy="0 0 1.5707963267948966"/>
    ${fixedType === 'fixed' ? '' : '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="1"/>'}
  </joint>
  <link name="payload">
    <inertial><origin xyz="0.05 0 0" rpy="0.3 0 0"/><mass value="1.5"/><inertia ixx="0.01" iyy="0.005" izz="0.008" ixy="0.001" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.1"/><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision>
  </link>
  <joint name="wrist" type="continuous">
    <parent link="payload"/><child link="tool"/>
    <origin xyz="0.2 0 0"/><axis xyz="1 0 0"/><dynamics damping="0.3" friction="0.1"/>
  </joint>
  <link name="tool">
    <inertial><mass value="0.5"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.04"/></geometry></collision>
  </link>
</robot>`;

  it('conserves total mass, centre of mass and inertia, and carries geoms and child joints', () => {
    const merged = loadURDF(write('fixed.urdf', robot('fixed')), { fixed: true }).model;
    const hinged = loadURDF(write('hinged.urdf', robot('revolute')), { fixed: true }).model;
    expect(merged.nbody).toBe(3);
    expect(merged.bodyName).toEqual(['world', 'base', 'tool']);
    expect(merged.bodySubtreemass[0]).toBeCloseTo(hinged.bodySubtreemass[0]!, 14);
    expect(merged.bodyMass[1]).toBe(3.5);

    // expected base+payload inertial, from the unmerged model (payload at its joint's zero position)
    const payloadQuat = q4(hinged.bodyQuat, 2);
    const payloadCom = (() => {
      const r = quatToMat(payloadQuat), c = v3(hinged.bodyIpos, 2), p = v3(hinged.bodyPos, 2);
      return [0, 1, 2].map((i) => p[i]! + r[3 * i]! * c[0] + r[3 * i + 1]! * c[1] + r[3 * i + 2]! * c[2]) as Vec3;
    })();
    const com = [0, 1, 2].map((i) => (2 * hinged.bodyIpos[3 + i]! + 1.5 * payloadCom[i]!) / 3.5);
    expectClose(v3(merged.bodyIpos, 1), com, 1e-12, 'merged com');
    // inertia about the merged centre of mass: both parts' tensors in the base frame plus parallel-axis terms
    const about = (t: Sym3, mass: number, c: Vec3) => addSym(t, pointInertia(mass, [c[0] - com[0]!, c[1] - com[1]!, c[2] - com[2]!]));
    const expected = addSym(
      about(tensor(hinged, 1), 2, v3(hinged.bodyIpos, 1)),
      about(rotateSym(tensor(hinged, 2), payloadQuat), 1.5, payloadCom),
    );
    expectClose(tensor(merged, 1), expected, 1e-6 * expected.reduce((m, x) => Math.max(m, x), -Infinity), 'merged inertia');

    // the tool's joint now hangs from the base, its frame composed through the fixed joint
    expectClose(v3(merged.bodyPos, 2), [0.3, 0.3, 0], 1e-12, 'tool pos');
    expect(merged.jntType[0]).toBe(JointType.Hinge);
    expect(merged.jntLimited[0]).toBe(0);
    expect(merged.dofDamping[0]).toBe(0.3);
    expect(merged.dofFrictionloss[0]).toBe(0.1);
    // the payload's cylinder moved onto the base, its pose composed
    expect(merged.bodyGeomnum[1]).toBe(2);
    expect(merged.geomType[1]).toBe(GeomType.Cylinder);
    expectClose(v3(merged.geomPos, 1), [0.3, 0.1, 0.1], 1e-12, 'cylinder pos');
    expectClose(Array.from(merged.geomSize.subarray(3, 5)), [0.05, 0.1], 0, 'cylinder size');
  });

  it('rejects unsupported joints and geometry with file and line', () => {
    const planar = write('planar.urdf', '<robot name="r">\n<link name="a"/>\n<link name="b"/>\n<joint name="j" type="planar"><parent link="a"/><child link="b"/></joint>\n</robot>');
    expect(() => loadURDF(planar)).toThrow(`${planar}:4: <joint>: unsupported joint type "planar"`);
    const mesh = write('mesh.urdf', '<robot name="r">\n<link name="a">\n<collision>\n<geometry>\n<mesh filename="a.stl"/>\n</geometry></collision></link>\n</robot>');
    expect(() => loadURDF(mesh)).toThrow(`${mesh}:5: <mesh>: mesh file "a.stl" not found`);
    const cone = write('cone.urdf', '<robot name="r">\n<link name="a">\n<collision>\n<geometry>\n<cone radius="1"/>\n</geometry></collision></link>\n</robot>');
    expect(() => loadURDF(cone)).toThrow(`${cone}:5: <cone>: unsupported collision geometry (supported: box, cylinder, sphere, capsule, mesh)`);
    const massless = write('massless.urdf', '<robot name="r">\n<link name="a"/>\n<link name="b"/>\n<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>\n</robot>');
    expect(() => loadURDF(massless, { fixed: true })).toThrow(`${massless}:3: <link>: link "b" moves but has no mass or inertia`);
    const orphan = write('orphan.urdf', '<robot name="r"><link name="a"/><link name="b"/></robot>');
    expect(() => loadURDF(orphan)).toThrow(/expected exactly one root link, found 2/);
  });
});

describe("loadURDF against MuJoCo's own URDF import", () => {
  it('places links, joints and collision geometry where MuJoCo does', async () => {
    const file = resolveAsset(ANYMAL);
    const ours = loadURDF(file, { fixed: true }).model;
    const { mj, m, d } = await loadMujoco(file);
    const ref = mujocoModel(mj, m);
    d.delete();
    m.delete();
    // MuJoCo fuses the welded base into the world body; the legs keep their order, one body earlier
    expect(ours.bodyName.slice(2)).toEqual(ref.bodyName.slice(1));
    for (let b = 1; b < ref.nbody; b++) {
      expectClose(v3(ours.bodyPos, b + 1), v3(ref.bodyPos, b), 1e-12, `${ref.bodyName[b]} pos`);
      expectClose(quatToMat(q4(ours.bodyQuat, b + 1)), quatToMat(q4(ref.bodyQuat, b)), 1e-12, `${ref.bodyName[b]} rotation`);
    }
    expect(ours.jntName).toEqual(ref.jntName);
    for (const key of ['jntAxis', 'jntRange', 'jntLimited', 'jntActfrcrange', 'jntActfrclimited', 'dofDamping', 'dofFrictionloss', 'dofArmature'] as const) {
      expectClose(ours[key]!, ref[key]!, 1e-12, key);
    }
    // foot spheres (fused into the shanks by both) and the trunk box
    expect(Array.from(ours.geomType)).toEqual(Array.from(ref.geomType));
    expectClose(ours.geomSize, ref.geomSize, 1e-12, 'geomSize');
    expectClose(ours.geomPos, ref.geomPos, 1e-12, 'geomPos');
  });
});

describe('a URDF link without <inertial> (issue 13)', () => {
  it('takes mass, centre of mass and inertia from its collision geometry, as MuJoCo computes them', async () => {
    // the arm has a rotated, offset box and a cylinder and no <inertial>; before, it was massless
    const file = write('noinertial.urdf', `<robot name="r">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm">
    <collision><origin xyz="0.2 0 0.05" rpy="0.3 0 0.2"/><geometry><box size="0.4 0.06 0.08"/></geometry></collision>
    <collision><origin xyz="0.4 0 0"/><geometry><cylinder radius="0.04" length="0.1"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>`);
    const ours = loadURDF(file, { fixed: true }).model;
    const { mj, m, d } = await loadMujoco(file);
    const ref = mujocoModel(mj, m);
    d.delete();
    m.delete();
    const arm = (x: Model): number => x.bodyName.indexOf('arm');
    const a = arm(ours), r = arm(ref);
    // 1000 kg/m^3 x (0.4 x 0.06 x 0.08 + pi 0.04^2 0.1) = 1.9200 + 0.5027 kg
    expect(Math.abs(ours.bodyMass[a]! - ref.bodyMass[r]!)).toBeLessThanOrEqual(1e-12);
    expect(ours.bodyMass[a]!).toBeGreaterThan(2.4);
    // the same solid, up to rounding (measured 1e-17 here; 1e-12 leaves a wide margin and fails on NaN)
    expectClose(v3(ours.bodyIpos, a), v3(ref.bodyIpos, r), 1e-12, 'arm ipos');
    expectClose(tensor(ours, a), tensor(ref, r), 1e-12, 'arm inertia');
  });
});

describe('URDF rotor inertia (Genesis default_armature)', () => {
  it('armature goes on every joint dof but the free base; none unless asked; negative refused', () => {
    const file = resolveAsset('urdf/anymal_c/urdf/anymal_c.urdf');
    const plain = loadURDF(file).model;
    expect(Array.from(plain.dofArmature).every((a) => a === 0)).toBe(true);
    const m = loadURDF(file, { armature: 0.1 }).model;
    expect(m.nv).toBe(18);
    expect(Array.from(m.dofArmature.subarray(0, 6))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Array.from(m.dofArmature.subarray(6))).toEqual(new Array(12).fill(0.1));
    expect(() => loadURDF(file, { armature: -1 })).toThrow(/armature must be a finite number >= 0/);
  });
});
