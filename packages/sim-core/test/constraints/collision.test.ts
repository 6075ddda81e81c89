import { describe, expect, test } from 'vitest';
import { collision } from '../../src/stages/collision/cpu.js';
import { lcg as rng } from '../../../../test/support/random.js';
import { loadMujocoXml, modelFromMujoco, type Mj } from '../helpers/mujoco.js';
import { allocData, copyFromMujoco, envSlice, mujocoContacts } from './mujoco-data.js';


function randomQuat(r: () => number): number[] {
  const q = [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5];
  const n = Math.hypot(...q);
  return q.map((v) => v / n);
}

/** Runs collision on one env per configuration and compares every contact with MuJoCo's, in order. */
async function compareWithMujoco(xml: string, configure: (qpos: Float64Array, i: number) => void, count: number) {
  const { mj, m: mjm } = await loadMujocoXml(xml);
  const model = modelFromMujoco(mj, mjm);
  const envs: Mj[] = [];
  for (let i = 0; i < count; i++) {
    const md = new mj.MjData(mjm);
    const q = new Float64Array(model.nq);
    q.set(model.qpos0);
    configure(q, i);
    md.qpos.set(q);
    mj.mj_forward(mjm, md);
    envs.push(md);
  }
  const d = allocData(model, count, { maxContacts: 64 });
  copyFromMujoco(mj, mjm, model, d, envs);
  collision(model, d, 0, count);
  let total = 0;
  envs.forEach((md, e) => {
    const ref = mujocoContacts(md);
    expect(d.ncon[e], `env ${e} contact count`).toBe(ref.length);
    ref.forEach((c, k) => {
      const at = `env ${e} contact ${k}`;
      expect(envSlice(d.contactGeom, 2, count, e, 2 * k), at).toEqual(c.geom);
      expect(d.contactDist[k * count + e], at).toBeCloseTo(c.dist, 10);
      envSlice(d.contactPos, 3, count, e, 3 * k).forEach((v, i) => { expect(v, `${at} pos`).toBeCloseTo(c.pos[i]!, 10); });
      envSlice(d.contactFrame, 9, count, e, 9 * k).forEach((v, i) => { expect(v, `${at} frame`).toBeCloseTo(c.frame[i]!, 9); });
      expect(d.contactIncludemargin[k * count + e]).toBeCloseTo(c.includemargin, 12);
      envSlice(d.contactFriction, 5, count, e, 5 * k).forEach((v, i) => { expect(v).toBeCloseTo(c.friction[i]!, 12); });
      envSlice(d.contactSolref, 2, count, e, 2 * k).forEach((v, i) => { expect(v).toBeCloseTo(c.solref[i]!, 12); });
      envSlice(d.contactSolimp, 5, count, e, 5 * k).forEach((v, i) => { expect(v).toBeCloseTo(c.solimp[i]!, 12); });
    });
    total += ref.length;
    md.delete?.();
  });
  return { total, model, d };
}

const onPlane = (geom: string) => `<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" friction="0.7 0.01 0.001" solref="0.01 1"/>
  <body pos="0 0 0.5"><freejoint/>${geom}</body></worldbody></mujoco>`;

describe('collision against the plane matches mjc_Plane*', () => {
  const shapes: Record<string, string> = {
    sphere: '<geom type="sphere" size="0.1" priority="1" friction="0.9 0.02 0.01" solimp="0.8 0.9 0.01 0.5 2"/>',
    capsule: '<geom type="capsule" size="0.05 0.2" condim="4" margin="0.01" gap="0.004"/>',
    box: '<geom type="box" size="0.1 0.2 0.05" solmix="3" solref="0.03 0.9"/>',
    cylinder: '<geom type="cylinder" size="0.1 0.15" condim="6"/>',
    ellipsoid: '<geom type="ellipsoid" size="0.1 0.15 0.06" margin="0.01"/>',
  };
  for (const [name, geom] of Object.entries(shapes)) {
    test(`${name}: resting, penetrating, tilted and clear of the plane`, async () => {
      const r = rng(name.length * 7919);
      const { total } = await compareWithMujoco(onPlane(geom), (q, i) => {
        // heights from well above to deep inside, orientations flat (i < 4) then random
        q[2] = 0.3 - 0.04 * i + 0.01 * r();
        const quat = i < 4 ? [1, 0, 0, 0] : randomQuat(r);
        if (i === 2) quat.splice(0, 4, Math.SQRT1_2, Math.SQRT1_2, 0, 0);
        q.set(quat, 3);
      }, 14);
      expect(total).toBeGreaterThan(5);
    });
  }
});

const twoBodies = (g1: string, g2: string) => `<mujoco><option gravity="0 0 0"/><worldbody>
  <body><freejoint/>${g1}</body><body><freejoint/>${g2}</body></worldbody></mujoco>`;

describe('geom-geom collision matches MuJoCo', () => {
  const sphere = '<geom type="sphere" size="0.1"/>';
  const capsule = '<geom type="capsule" size="0.06 0.15" friction="0.5 0.1 0.1"/>';
  const box = '<geom type="box" size="0.12 0.08 0.1" priority="2" condim="1"/>';
  const cylinder = '<geom type="cylinder" size="0.1 0.12"/>';
  const ellipsoid = '<geom type="ellipsoid" size="0.08 0.12 0.05"/>';
  const cases: Array<[string, string, string]> = [
    ['sphere-sphere', sphere, sphere],
    ['sphere-capsule', sphere, capsule],
    ['capsule-capsule', capsule, capsule],
    ['sphere-box', sphere, box],
    ['capsule-box', capsule, box],
    ['box-capsule (types reordered)', box, capsule],
    ['sphere-cylinder', sphere, cylinder],
    ['box-box (issue 13)', box, '<geom type="box" size="0.15 0.05 0.07" margin="0.01"/>'],
    // general convex pairs (GJK/EPA, issue 13)
    ['capsule-cylinder', capsule, cylinder],
    ['cylinder-cylinder', cylinder, '<geom type="cylinder" size="0.05 0.2" margin="0.01"/>'],
    ['cylinder-box', cylinder, box],
    ['box-cylinder with margin (types reordered)', '<geom type="box" size="0.1 0.1 0.1" margin="0.02"/>', cylinder],
    ['sphere-ellipsoid', sphere, ellipsoid],
    ['capsule-ellipsoid', capsule, ellipsoid],
    ['ellipsoid-ellipsoid', ellipsoid, '<geom type="ellipsoid" size="0.05 0.1 0.2" margin="0.005"/>'],
    ['ellipsoid-cylinder', ellipsoid, cylinder],
    ['ellipsoid-box', ellipsoid, box],
  ];
  for (const [name, g1, g2] of cases) {
    test(name, async () => {
      const r = rng(name.length * 104729);
      const { total } = await compareWithMujoco(twoBodies(g1, g2), (q, i) => {
        q.set([0, 0, 0], 0);
        q.set(randomQuat(r), 3);
        // second body: random direction, distance from overlapping to just apart
        const dir = [r() - 0.5, r() - 0.5, r() - 0.5];
        const len = Math.hypot(...dir);
        const dist = 0.05 + 0.25 * (i / 40);
        q.set(dir.map((v) => (v / len) * dist), 7);
        q.set(i % 5 === 0 ? [1, 0, 0, 0] : randomQuat(r), 10);
        if (i % 7 === 0) q.set([0, 0, 0.2], 7); // axis-aligned stacking
      }, 40);
      expect(total).toBeGreaterThan(15);
    });
  }
});

describe('box-box matches mjc_BoxBox in its face and edge cases (issue 13)', () => {
  const box1 = '<geom type="box" size="0.2 0.15 0.05"/>';
  const box2 = '<geom type="box" size="0.1 0.12 0.08" margin="0.005"/>';
  test('stacked and nearly aligned (face contacts), tilted onto an edge or a corner, and crossed edges', async () => {
    const r = rng(4242);
    const tilt = (ax: number, ay: number, az: number): number[] => {
      const q = [1, ax, ay, az];
      const n = Math.hypot(...q);
      return q.map((v) => v / n);
    };
    const { total } = await compareWithMujoco(twoBodies(box1, box2), (q, i) => {
      q.set([0, 0, 0, 1, 0, 0, 0], 0);
      const kind = i % 4;
      if (kind === 0) q.set([0.05 * (r() - 0.5), 0.05 * (r() - 0.5), 0.125 + 0.01 * (r() - 0.5)], 7); // resting on top
      if (kind === 1) q.set([0.1 * (r() - 0.5), 0.1 * (r() - 0.5), 0.14], 7); // tilted onto an edge or a corner
      if (kind === 2) q.set([0.25 * (r() - 0.5), 0, 0.13], 7); // hanging over a side
      if (kind === 3) q.set([0, 0, 0.17], 7); // an edge across an edge
      const q2 = kind === 0 ? tilt(0.02 * r(), 0.02 * r(), r() - 0.5)
        : kind === 1 ? tilt(0.4 * (r() - 0.5), 0.4 * (r() - 0.5), r() - 0.5)
          : kind === 2 ? tilt(0, 0, 0.3 * r())
            : tilt(0.5 + 0.2 * r(), 0, 0.6 + 0.3 * r());
      q.set(q2, 10);
      if (i >= 24) q.set(randomQuat(r), 3); // the lower box turned too
    }, 32);
    expect(total).toBeGreaterThan(60);
  });
});

describe('collision filters', () => {
  const xml = `<mujoco><worldbody>
    <geom name="floor" type="plane" size="0 0 0.05"/>
    <body name="a" pos="0 0 0.05"><freejoint/><geom type="sphere" size="0.1"/>
      <body name="b" pos="0 0 0.08"><joint type="hinge"/><geom type="sphere" size="0.1"/>
        <body name="c" pos="0 0 0.08"><joint type="hinge"/><geom type="sphere" size="0.1"/></body>
      </body>
    </body>
    <body name="d" pos="0.15 0 0.05"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body name="e" pos="0.3 0 0.05"><freejoint/><geom type="sphere" size="0.1" contype="2" conaffinity="2"/></body>
  </worldbody><contact><exclude body1="a" body2="d"/></contact></mujoco>`;

  test('parent-child, exclude and contype/conaffinity follow MuJoCo', async () => {
    const { total } = await compareWithMujoco(xml, () => {}, 1);
    expect(total).toBeGreaterThan(0);
  });

  test('self-collision off drops pairs inside one tree only; collision off drops all', async () => {
    const { mj, m: mjm, d: md } = await loadMujocoXml(xml);
    mj.mj_forward(mjm, md);
    const model = modelFromMujoco(mj, mjm);
    const d = allocData(model, 1);
    copyFromMujoco(mj, mjm, model, d, [md]);
    collision(model, d, 0, 1);
    const all = Array.from({ length: d.ncon[0]! }, (_, k) => [d.contactGeom[2 * k]!, d.contactGeom[2 * k + 1]!]);
    // a-c (grandparent, same tree) collide in MuJoCo
    expect(all).toContainEqual([1, 3]);

    model.opt.enableSelfCollision = false;
    collision(model, d, 0, 1);
    const noSelf = Array.from({ length: d.ncon[0]! }, (_, k) => [d.contactGeom[2 * k]!, d.contactGeom[2 * k + 1]!]);
    expect(noSelf).not.toContainEqual([1, 3]);
    expect(noSelf.length).toBeGreaterThan(0);
    expect(noSelf.every(([g1, g2]) => model.bodyRootid[model.geomBodyid[g1!]!] !== model.bodyRootid[model.geomBodyid[g2!]!]
      || model.geomBodyid[g1!] === 0)).toBe(true);

    model.opt.enableCollision = false;
    collision(model, d, 0, 1);
    expect(d.ncon[0]).toBe(0);
  });

  test('a pair whose contacts do not fit in maxContacts is dropped and flags the env', async () => {
    const { mj, m: mjm, d: md } = await loadMujocoXml(onPlane('<geom type="box" size="0.1 0.1 0.1"/>'));
    md.qpos[2] = 0.09;
    mj.mj_forward(mjm, md);
    const model = modelFromMujoco(mj, mjm);
    const d = allocData(model, 1, { maxContacts: 3 });
    copyFromMujoco(mj, mjm, model, d, [md]);
    collision(model, d, 0, 1);
    expect(d.ncon[0]).toBe(0); // the box's 4 corners do not fit in 3
    expect(d.errFlags[0]! & 4).toBe(4);
  });
});
