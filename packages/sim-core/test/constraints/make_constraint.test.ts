import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { lcg as rng } from '../../../../test/support/random.js';
import type { Data } from '../../src/data/data.js';
import type { Model } from '../../src/model/model.js';
import { collision } from '../../src/stages/collision/cpu.js';
import { makeConstraint } from '../../src/stages/make_constraint/cpu.js';
import { loadMujoco, loadMujocoXml, modelFromMujoco, type Mj } from '../helpers/mujoco.js';
import { allocData, copyFromMujoco, envsFromMujoco } from './mujoco-data.js';

function close(actual: number, expected: number, rel: number, what: string): void {
  const tol = rel * Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what}: ${actual} vs MuJoCo ${expected} (diff ${actual - expected})`);
  }
}

/** Compares env e's rows with MuJoCo's efc_* arrays of `md`. */
export function expectRowsLikeMujoco(m: Model, d: Data, e: number, md: Mj, rel = 1e-9): void {
  const n = d.nEnvs, nv = m.nv, nefc = md.nefc;
  expect(d.nefc[e], `env ${e} nefc`).toBe(nefc);
  const J = md.efc_J as Float64Array;
  for (let r = 0; r < nefc; r++) {
    const at = `env ${e} row ${r}`;
    expect(d.efcType[r * n + e], `${at} type`).toBe(md.efc_type[r]);
    expect(d.efcId[r * n + e], `${at} id`).toBe(md.efc_id[r]);
    for (let j = 0; j < nv; j++) close(d.efcJ[(r * nv + j) * n + e]!, J[r * nv + j]!, rel, `${at} J[${j}]`);
    close(d.efcPos[r * n + e]!, md.efc_pos[r], rel, `${at} pos`);
    close(d.efcMargin[r * n + e]!, md.efc_margin[r], rel, `${at} margin`);
    close(d.efcFrictionloss[r * n + e]!, md.efc_frictionloss[r], rel, `${at} frictionloss`);
    close(d.efcR[r * n + e]!, md.efc_R[r], rel, `${at} R`);
    close(d.efcD[r * n + e]!, md.efc_D[r], rel, `${at} D`);
    close(d.efcAref[r * n + e]!, md.efc_aref[r], rel, `${at} aref`);
  }
}

/** Builds envs with MuJoCo, runs collision + make_constraint on them, compares every row. */
export async function rowsAgainstMujoco(
  load: Promise<{ mj: Mj; m: Mj }>, count: number, configure: (md: Mj, i: number, mj: Mj, mjm: Mj) => void,
): Promise<{ model: Model; d: Data; envs: Mj[]; mj: Mj; mjm: Mj }> {
  const { mj, mjm, model, d, envs } = await envsFromMujoco(load, count, configure);
  collision(model, d, 0, count);
  makeConstraint(model, d, 0, count);
  envs.forEach((md, e) => { expectRowsLikeMujoco(model, d, e, md); });
  return { model, d, envs, mj, mjm };
}

const plane = (body: string, option = '') => `<mujoco><option ${option}/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" solref="0.015 0.9" solimp="0.85 0.95 0.002 0.4 3"/>
  <body pos="0 0 0.5"><freejoint/>${body}</body></worldbody></mujoco>`;

describe('make_constraint matches MuJoCo rows (J, pos, margin, R, D, aref)', () => {
  const shapes: Record<string, string> = {
    'sphere condim 3': '<geom type="sphere" size="0.1" friction="0.9 0.02 0.01"/>',
    'capsule condim 4, margin and gap': '<geom type="capsule" size="0.05 0.2" condim="4" margin="0.02" gap="0.005"/>',
    'box condim 1': '<geom type="box" size="0.1 0.2 0.05" condim="1"/>',
    'cylinder condim 6, priority': '<geom type="cylinder" size="0.1 0.15" condim="6" priority="2" solref="-2000 -30"/>',
    'box with two geoms on one body': '<geom type="box" size="0.1 0.1 0.05"/><geom type="sphere" size="0.07" pos="0.2 0 0"/>',
  };
  for (const [name, body] of Object.entries(shapes)) {
    test(`${name}, impratio 10, moving`, async () => {
      const r = rng(name.length * 31);
      const { d } = await rowsAgainstMujoco(loadMujocoXml(plane(body, 'impratio="10" timestep="0.004"')), 6, (md, i) => {
        md.qpos[2] = 0.02 + 0.01 * i;
        const q = [1, 0.3 * (r() - 0.5), 0.3 * (r() - 0.5), 0.3 * (r() - 0.5)];
        const qn = Math.hypot(...q);
        for (let k = 0; k < 4; k++) md.qpos[3 + k] = q[k]! / qn;
        for (let k = 0; k < 6; k++) md.qvel[k] = r() - 0.5;
      });
      expect(d.nefc.reduce((m, x) => Math.max(m, x), -Infinity)).toBeGreaterThan(0);
    });
  }

  test('capsule-capsule between two free bodies', async () => {
    const xml = `<mujoco><option gravity="0 0 0"/><worldbody>
      <body><freejoint/><geom type="capsule" size="0.05 0.2" euler="0 1.2 0"/></body>
      <body pos="0 0.05 0.08"><freejoint/><geom type="capsule" size="0.05 0.2" euler="1.5 0 0" friction="0.3 0.01 0.01"/></body>
    </worldbody></mujoco>`;
    const r = rng(5);
    const { d } = await rowsAgainstMujoco(loadMujocoXml(xml), 3, (md) => {
      for (let k = 0; k < 12; k++) md.qvel[k] = r() - 0.5;
    });
    expect(d.nefc[0]).toBe(4);
  });

  test('joint limits (hinge and slide, lower and upper, margin) and dof friction loss', async () => {
    const xml = `<mujoco><worldbody><body>
      <joint name="h" type="hinge" axis="0 1 0" range="-0.5 0.5" margin="0.05" frictionloss="0.3" solreflimit="0.03 1.2"/>
      <geom type="capsule" size="0.05 0.2" pos="0 0 -0.2" contype="0" conaffinity="0"/>
      <body pos="0 0 -0.4"><joint name="s" type="slide" axis="1 0 0" range="-0.1 0.2" solimplimit="0.8 0.95 0.01 0.5 1"/>
        <geom type="box" size="0.05 0.05 0.05" contype="0" conaffinity="0"/></body>
    </body></worldbody></mujoco>`;
    const { d } = await rowsAgainstMujoco(loadMujocoXml(xml), 4, (md, i) => {
      md.qpos[0] = [-0.6, 0.47, 0.1, 0.52][i]!;
      md.qpos[1] = [-0.15, 0.25, 0.0, 0.19][i]!;
      md.qvel[0] = 0.3 * i - 0.5;
      md.qvel[1] = -0.2 * i;
    });
    expect(d.nefc[0]).toBe(3); // friction loss, hinge lower limit, slide lower limit
  });

  test('joint equality with a polynomial coupling', async () => {
    const xml = `<mujoco><worldbody>
      <body><joint name="a" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05" pos="0 0 -0.2" contype="0"/></body>
      <body pos="0.5 0 0"><joint name="b" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05" pos="0 0 -0.2" contype="0"/></body>
    </worldbody><equality><joint joint1="a" joint2="b" polycoef="0.1 0.5 0.2 0.05 0.01" solref="0.01 0.7"/></equality></mujoco>`;
    const { d } = await rowsAgainstMujoco(loadMujocoXml(xml), 3, (md, i) => {
      md.qpos[0] = 0.3 * i;
      md.qpos[1] = 0.2 - 0.25 * i;
      md.qvel[0] = 0.4;
      md.qvel[1] = -0.1 * i;
    });
    expect(Array.from(d.nefc)).toEqual([1, 1, 1]);
  });
});

describe.skipIf(!hasShared())('make_constraint on the Menagerie models', () => {
  test('Franka from zeros: joint limits and the finger equality', async () => {
    const { d } = await rowsAgainstMujoco(loadMujoco(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml')), 2,
      (md, i) => { if (i === 1) { md.qpos[5] = 3.8; md.qpos[7] = 0.045; md.qvel[3] = 0.5; } });
    expect(d.nefc[0]).toBeGreaterThan(1);
  });

  test('ANYmal standing: four foot contacts with impratio 100', async () => {
    const { d } = await rowsAgainstMujoco(loadMujoco(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml')), 2,
      (md, i, mj, mjm) => {
        mj.mj_resetDataKeyframe(mjm, md, 0);
        md.qpos[2] = 0.54 - 0.01 * i;
        md.qvel[0] = 0.1 * i;
        md.qvel[5] = -0.2 * i;
      });
    expect(d.nefc[0]).toBeGreaterThan(0);
  });
});

describe('make_constraint switches and capacity', () => {
  const xml = `<mujoco><worldbody><geom type="plane" size="0 0 0.05"/>
    <body pos="0 0 0.09"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body pos="1 0 1"><joint type="hinge" range="-0.1 0.1"/><geom type="sphere" size="0.1" pos="0 0 -0.2"/></body>
  </worldbody></mujoco>`;

  test('enableJointLimit off drops limit rows only; rows beyond maxEfc are dropped and flag the env', async () => {
    const { mj, m: mjm, d: md } = await loadMujocoXml(xml);
    md.qpos[7] = 0.3;
    mj.mj_forward(mjm, md);
    const model = modelFromMujoco(mj, mjm);
    const d = allocData(model, 1);
    copyFromMujoco(mj, mjm, model, d, [md]);
    collision(model, d, 0, 1);
    makeConstraint(model, d, 0, 1);
    expect(d.nefc[0]).toBe(17); // one limit row, 4 box corners x 4 pyramid rows
    expect(d.efcType[0]).toBe(3);

    model.opt.enableJointLimit = false;
    makeConstraint(model, d, 0, 1);
    expect(d.nefc[0]).toBe(16);
    expect(Array.from(d.efcType.slice(0, 16)).every((t) => t === 6)).toBe(true);
    expect(d.errFlags[0]).toBe(0);

    const small = allocData(model, 1, { maxContacts: 8, maxEfc: 10 });
    copyFromMujoco(mj, mjm, model, small, [md]);
    collision(model, small, 0, 1);
    makeConstraint(model, small, 0, 1);
    expect(small.nefc[0]).toBe(8); // two whole pyramids (limits are off): a third would not fit
    expect(small.errFlags[0]! & 4).toBe(4);
  });
});
