import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { lcg as rng } from '../../../../test/support/random.js';
import type { Data } from '../../src/data/data.js';
import type { Model } from '../../src/model/model.js';
import { collision } from '../../src/stages/collision/cpu.js';
import { makeConstraint } from '../../src/stages/make_constraint/cpu.js';
import { solve } from '../../src/stages/solve/cpu.js';
import { TIMER_LABELS } from '../../src/solver/timers.js';
import { loadMujoco, loadMujocoXml, modelFromMujoco, type Mj } from '../helpers/mujoco.js';
import { allocData, copyFromMujoco, envsFromMujoco } from './mujoco-data.js';

/** max |a - b| / max(1, max |b|) over a vector */
function relErr(a: number[], b: number[]): number {
  const scale = Math.max(1, ...b.map(Math.abs));
  return Math.max(0, ...a.map((v, i) => Math.abs(v - b[i]!))) / scale;
}

const envVec = (a: ArrayLike<number>, len: number, n: number, e: number): number[] =>
  Array.from({ length: len }, (_, k) => a[k * n + e]!);

/**
 * Prepares each env with MuJoCo (envsFromMujoco, with `warmSteps` mj_step calls), runs collision,
 * make_constraint and solve, and compares qacc, qfrc_constraint, efc_force and the iteration count with MuJoCo's.
 */
async function solveAgainstMujoco(
  load: Promise<{ mj: Mj; m: Mj }>, count: number, warmSteps: number,
  configure: (md: Mj, i: number, mj: Mj, mjm: Mj) => void, tol = 1e-6,
): Promise<{ model: Model; d: Data; envs: Mj[] }> {
  const { model, d, envs } = await envsFromMujoco(load, count, configure, warmSteps);
  collision(model, d, 0, count);
  makeConstraint(model, d, 0, count);
  solve(model, d, 0, count);
  const nv = model.nv;
  envs.forEach((md, e) => {
    const at = `env ${e}`;
    expect(d.nefc[e], at).toBe(md.nefc);
    expect(relErr(envVec(d.qacc, nv, count, e), Array.from(md.qacc as ArrayLike<number>)), `${at} qacc`).toBeLessThan(tol);
    expect(relErr(envVec(d.qfrcConstraint, nv, count, e), Array.from(md.qfrc_constraint as ArrayLike<number>)),
      `${at} qfrc_constraint`).toBeLessThan(tol);
    expect(relErr(envVec(d.efcForce, md.nefc, count, e), Array.from(md.efc_force as ArrayLike<number>)),
      `${at} efc_force`).toBeLessThan(tol);
    expect(d.timers[1 * count + e], `${at} iterations`).toBe(md.solver_niter[0]);
    expect(d.timers[3 * count + e]).toBe(md.ncon);
    expect(d.timers[5 * count + e]).toBe(md.nefc);
  });
  return { model, d, envs };
}

const plane = (body: string, option: string) => `<mujoco><option ${option}/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body pos="0 0 0.5"><freejoint/>${body}</body></worldbody></mujoco>`;

describe('solve matches MuJoCo (qacc, qfrc_constraint, efc_force, iterations)', () => {
  for (const solver of ['Newton', 'CG']) {
    for (const [name, body] of Object.entries({
      box: '<geom type="box" size="0.1 0.2 0.05"/>',
      'capsule condim 4': '<geom type="capsule" size="0.05 0.2" condim="4" euler="0 1.2 0"/>',
      'cylinder condim 6': '<geom type="cylinder" size="0.1 0.1" condim="6"/>',
    })) {
      test(`${solver}: ${name} dropped on the plane`, async () => {
        const r = rng(name.length + solver.length);
        await solveAgainstMujoco(loadMujocoXml(plane(body, `solver="${solver}" impratio="3" iterations="30"`)), 4, 0,
          (md, i) => {
            md.qpos[2] = 0.03 + 0.01 * i;
            const q = [1, 0.2 * (r() - 0.5), 0.2 * (r() - 0.5), 0.2 * (r() - 0.5)];
            const qn = Math.hypot(...q);
            for (let k = 0; k < 4; k++) md.qpos[3 + k] = q[k]! / qn;
            for (let k = 0; k < 6; k++) md.qvel[k] = 2 * (r() - 0.5);
          }, solver === 'CG' ? 1e-5 : 1e-6);
      });
    }
  }

  test('Newton with a warm start: box resting after 50 steps', async () => {
    await solveAgainstMujoco(loadMujocoXml(plane('<geom type="box" size="0.1 0.2 0.05"/>', '')), 2, 50,
      (md, i) => { md.qpos[2] = 0.06 + 0.02 * i; });
  });

  test('joint limits, friction loss and a joint equality', async () => {
    const xml = `<mujoco><worldbody>
      <body><joint name="a" type="hinge" axis="0 1 0" range="-0.5 0.5" frictionloss="0.05"/>
        <geom type="capsule" size="0.05 0.2" pos="0 0 -0.2" contype="0" conaffinity="0"/></body>
      <body pos="0.5 0 0"><joint name="b" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="sphere" size="0.05" pos="0 0 -0.2" contype="0" conaffinity="0"/></body>
    </worldbody><equality><joint joint1="b" joint2="a" polycoef="0 0.5 0 0 0"/></equality></mujoco>`;
    await solveAgainstMujoco(loadMujocoXml(xml), 3, 20, (md, i) => {
      md.qpos[0] = 0.45 + 0.05 * i;
      md.qvel[0] = 1 - i;
    });
  });
});

describe.skipIf(!hasShared())('solve on the Menagerie models', () => {
  test('Franka at its joint limits (from zeros, after 20 steps)', async () => {
    const { d } = await solveAgainstMujoco(loadMujoco(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml')), 2, 20,
      (md, i) => { if (i === 1) for (let k = 0; k < 7; k++) md.ctrl[k] = 0.5; });
    expect(d.nefc[0]).toBeGreaterThan(1);
  });

  test('ANYmal standing on its feet (1 iteration, impratio 100)', async () => {
    const { d } = await solveAgainstMujoco(loadMujoco(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml')), 2, 30,
      (md, i, mj, mjm) => {
        mj.mj_resetDataKeyframe(mjm, md, 0);
        for (let k = 0; k < 12; k++) md.ctrl[k] = md.qpos[7 + k];
        md.qvel[0] = 0.2 * i;
      });
    expect(d.ncon[0]).toBeGreaterThan(0);
  });
});

test('timers: labels, per-env slots and an env without rows', async () => {
  expect(TIMER_LABELS).toHaveLength(10);
  expect(TIMER_LABELS.slice(0, 6)).toEqual(['solve_ns', 'iterations', 'active_constraints', 'contacts', 'ls_iterations', 'nefc']);
  const { mj, m: mjm } = await loadMujocoXml(plane('<geom type="sphere" size="0.1"/>', ''));
  const model = modelFromMujoco(mj, mjm);
  const touching = new mj.MjData(mjm);
  touching.qpos[2] = 0.09;
  mj.mj_forward(mjm, touching);
  const flying = new mj.MjData(mjm);
  flying.qpos[2] = 1;
  mj.mj_forward(mjm, flying);
  const d = allocData(model, 2);
  copyFromMujoco(mj, mjm, model, d, [touching, flying]);
  collision(model, d, 0, 2);
  makeConstraint(model, d, 0, 2);
  solve(model, d, 0, 2);
  const slot = (k: number, e: number) => d.timers[k * 2 + e]!;
  expect(slot(0, 0)).toBeGreaterThan(0);
  expect(slot(1, 0)).toBeGreaterThan(0);
  expect(slot(2, 0)).toBeGreaterThan(0);
  expect([slot(3, 0), slot(5, 0)]).toEqual([1, 4]);
  expect([slot(1, 1), slot(2, 1), slot(3, 1), slot(5, 1)]).toEqual([0, 0, 0, 0]);
  expect(Array.from(d.qacc.filter((_, k) => k % 2 === 1))).toEqual(Array.from(flying.qacc as ArrayLike<number>));
});

test('two islands (two boxes on the floor, 2 iterations) are solved separately, as MuJoCo', async () => {
  const xml = `<mujoco><option iterations="2"/><worldbody><geom type="plane" size="0 0 0.05"/>
    <body name="a" pos="0 0 0.04"><freejoint/><geom type="box" size="0.1 0.1 0.05"/></body>
    <body name="b" pos="1 0 0.06" euler="0.2 0.1 0"><freejoint/><geom type="box" size="0.05 0.1 0.08" mass="3"/></body>
  </worldbody><contact><exclude body1="a" body2="b"/></contact></mujoco>`; // box-box has no collision code; they never touch
  const { mj, m: mjm } = await loadMujocoXml(xml);
  const model = modelFromMujoco(mj, mjm);
  const md = new mj.MjData(mjm);
  for (let k = 0; k < 12; k++) md.qvel[k] = 0.3 * Math.sin(k + 1);
  mj.mj_forward(mjm, md);
  expect(md.nisland).toBe(2);
  const d = allocData(model, 1);
  copyFromMujoco(mj, mjm, model, d, [md]);
  collision(model, d, 0, 1);
  makeConstraint(model, d, 0, 1);
  solve(model, d, 0, 1);
  const iters = (md.solver_niter as Int32Array)[0]! + (md.solver_niter as Int32Array)[1]!;
  expect(d.timers[1]).toBe(iters);
  expect(relErr(envVec(d.qacc, 12, 1, 0), Array.from(md.qacc as ArrayLike<number>))).toBeLessThan(1e-9);
  expect(relErr(envVec(d.efcForce, md.nefc, 1, 0), Array.from(md.efc_force as ArrayLike<number>))).toBeLessThan(1e-9);
});
