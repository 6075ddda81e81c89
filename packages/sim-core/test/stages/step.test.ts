/**
 * The whole smooth pipeline stepped against MuJoCo's mj_step: trajectories, conservation laws, batching.
 */
import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import type { Data } from '../../src/data/data.js';
import { makeData, resetData } from '../../src/data/make-data.js';
import type { Model } from '../../src/model/model.js';
import { stepCpu } from '../../src/cpu/step.js';
import { forwardCpu } from '../../src/cpu/forward.js';
import { fullM } from '../helpers/mujoco.js';
import { doublePendulumXml, ZOO_XML } from './models.js';
import {
  envOf, expectClose, pairFromFile, pairFromXml, randomState, rng, setEnvState, setMujocoState, type Pair,
} from './oracle.js';

/** Steps MuJoCo and sim-core (one env, f64) side by side; returns the worst relative gap in qpos and qvel. */
function compareTrajectories(p: Pair, steps: number, qpos0: number[], qvel0: number[], ctrl: number[] = []): number {
  const d = makeData(p.model, 1, '64');
  setEnvState(d, 0, { qpos: qpos0, qvel: qvel0, ctrl });
  setMujocoState(p, { qpos: qpos0, qvel: qvel0, ctrl });
  let worst = 0;
  for (let s = 0; s < steps; s++) {
    p.mj.mj_step(p.mm, p.md);
    stepCpu(p.model, d, 0, 1);
    const pairs: [ArrayLike<number>, ArrayLike<number>][] = [[d.qpos, p.md.qpos], [d.qvel, p.md.qvel]];
    for (const [ours, theirs] of pairs) {
      for (let k = 0; k < theirs.length; k++) {
        const err = Math.abs(ours[k]! - theirs[k]!) / Math.max(1, Math.abs(theirs[k]!));
        if (!(err <= worst)) worst = err;
      }
    }
  }
  expect(d.time[0]).toBeCloseTo(p.md.time, 12);
  return worst;
}

/** Total mechanical energy of env e after forward: 0.5 qvel' M qvel - sum m g . xipos. */
function energy(m: Model, d: Data, e: number): number {
  const n = d.nEnvs, nv = m.nv;
  let kin = 0;
  for (let i = 0; i < nv; i++) {
    for (let j = 0; j < nv; j++) kin += d.qvel[i * n + e]! * d.qM[(i * nv + j) * n + e]! * d.qvel[j * n + e]!;
  }
  let pot = 0;
  for (let b = 1; b < m.nbody; b++) {
    for (let k = 0; k < 3; k++) pot -= m.bodyMass[b]! * m.opt.gravity[k]! * d.xipos[(3 * b + k) * n + e]!;
  }
  return 0.5 * kin + pot;
}

describe('stepCpu against mj_step', () => {
  test('double pendulum, Euler with implicit damping (eulerdamp), 500 steps: same trajectory to 1e-6', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0.5 }));
    expect(compareTrajectories(p, 500, [0.7, -0.4], [0, 0.5])).toBeLessThan(1e-6);
  });

  test('double pendulum, implicitfast with damping, 500 steps: same trajectory to 1e-6', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'implicitfast', damping: 0.5 }));
    expect(compareTrajectories(p, 500, [0.7, -0.4], [0, 0.5])).toBeLessThan(1e-6);
  });

  test('the damping matters: Euler without eulerdamp leaves a different trajectory', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0.5 }));
    const noDamp: Model = { ...p.model, opt: { ...p.model.opt, disableEulerdamp: true } };
    const a = makeData(p.model, 1, '64'), b = makeData(noDamp, 1, '64');
    for (const d of [a, b]) { d.qpos[0] = 0.7; d.qpos[1] = -0.4; }
    for (let s = 0; s < 500; s++) { stepCpu(p.model, a, 0, 1); stepCpu(noDamp, b, 0, 1); }
    expect(Math.abs(a.qpos[1]! - b.qpos[1]!)).toBeGreaterThan(1e-6);
  });

  test('every joint type with springs, dampers and actuators, Euler and implicitfast, 300 steps', async () => {
    const noContact = ZOO_XML.replace('<option ', '<option integrator="INTEGRATOR" ').replace('timestep="0.002"/>',
      'timestep="0.002"><flag contact="disable"/></option>');
    for (const integrator of ['Euler', 'implicitfast']) {
      const p = await pairFromXml(noContact.replace('INTEGRATOR', integrator));
      p.model.opt.enableCollision = false;
      const s = randomState(p.model, rng(11));
      s.qvel = s.qvel.map((v) => v * 0.25);
      expect(compareTrajectories(p, 300, s.qpos, s.qvel, s.ctrl), integrator).toBeLessThan(1e-6);
    }
  });

  test('undamped double pendulum: energy drift no worse than MuJoCo\'s with the same integrator', async () => {
    for (const integrator of ['Euler', 'implicitfast'] as const) {
      const p = await pairFromXml(doublePendulumXml({ integrator, damping: 0, extra: '' }).replace('<option ', '<option ').replace('/>\n  <worldbody>', '><flag energy="enable"/></option>\n  <worldbody>'));
      const d = makeData(p.model, 1, '64');
      d.qpos[0] = 1.2; d.qpos[1] = -0.8;
      setMujocoState(p, { qpos: [1.2, -0.8], qvel: [0, 0], ctrl: [] });
      forwardCpu(p.model, d, 0, 1);
      p.mj.mj_forward(p.mm, p.md);
      const e0 = energy(p.model, d, 0);
      const mj0 = p.md.energy[0] + p.md.energy[1];
      expect(e0).toBeCloseTo(mj0, 9);
      for (let s = 0; s < 2000; s++) { stepCpu(p.model, d, 0, 1); p.mj.mj_step(p.mm, p.md); }
      forwardCpu(p.model, d, 0, 1);
      p.mj.mj_forward(p.mm, p.md);
      const ours = Math.abs(energy(p.model, d, 0) - e0);
      const theirs = Math.abs(p.md.energy[0] + p.md.energy[1] - mj0);
      expect(theirs, integrator).toBeGreaterThan(0);
      expect(ours, integrator).toBeLessThanOrEqual(theirs * 1.001 + 1e-12);
    }
  });

  test('free body with gravity off keeps its linear and angular momentum', async () => {
    const xml = `<mujoco><option gravity="0 0 0" timestep="0.002"/><worldbody><body pos="0 0 1">
      <freejoint/><geom type="box" size="0.1 0.2 0.3" mass="2"/></body></worldbody></mujoco>`;
    const p = await pairFromXml(xml);
    const d = makeData(p.model, 1, '64');
    const qvel = [0.3, -0.2, 0.1, 1.5, -2.0, 0.7];
    qvel.forEach((v, k) => { d.qvel[k] = v; });
    setMujocoState(p, { qpos: Array.from(p.model.qpos0), qvel, ctrl: [] });
    // spatial momentum about the com, [angular, linear] = cinert * cvel
    const momentum = (): number[] => {
      forwardCpu(p.model, d, 0, 1);
      const c = envOf(d, d.cinert, 0).slice(10, 20), v = envOf(d, d.cvel, 0).slice(6, 12);
      const [i0, i1, i2, i3, i4, i5, i6, i7, i8, i9] = c as [number, number, number, number, number, number, number, number, number, number];
      const [v0, v1, v2, v3, v4, v5] = v as [number, number, number, number, number, number];
      return [
        i0 * v0 + i3 * v1 + i4 * v2 - i8 * v4 + i7 * v5, i3 * v0 + i1 * v1 + i5 * v2 + i8 * v3 - i6 * v5,
        i4 * v0 + i5 * v1 + i2 * v2 - i7 * v3 + i6 * v4, i8 * v1 - i7 * v2 + i9 * v3, i6 * v2 - i8 * v0 + i9 * v4,
        i7 * v0 - i6 * v1 + i9 * v5,
      ];
    };
    const h0 = momentum();
    let mjWorstAngle = 0;
    const L0 = Math.hypot(h0[0]!, h0[1]!, h0[2]!);
    for (let s = 0; s < 1000; s++) {
      stepCpu(p.model, d, 0, 1);
      p.mj.mj_step(p.mm, p.md);
    }
    const h1 = momentum();
    expectClose(h1.slice(3), h0.slice(3), 1e-12, 'linear momentum');
    // semi-implicit Euler rotates the angular momentum slowly; it must stay as close as MuJoCo's does
    const L1 = Math.hypot(h1[0]!, h1[1]!, h1[2]!);
    expect(Math.abs(L1 - L0) / L0).toBeLessThan(1e-2);
    const mjVel = Array.from(p.md.qvel as ArrayLike<number>);
    mjWorstAngle = mjVel.map((v, k) => Math.abs(v - d.qvel[k]!)).reduce((m, x) => Math.max(m, x), -Infinity);
    expect(mjWorstAngle).toBeLessThan(1e-6);
  });
});

describe('batching', () => {
  test('4 envs in one batch, and split in two ranges, step exactly as 4 single-env runs', async () => {
    const xml = ZOO_XML.replace('timestep="0.002"/>', 'timestep="0.002"><flag contact="disable"/></option>');
    const p = await pairFromXml(xml);
    p.model.opt.enableCollision = false;
    const r = rng(3);
    const states = [0, 1, 2, 3].map(() => randomState(p.model, r));
    const batch = makeData(p.model, 4, '64');
    const split = makeData(p.model, 4, '64');
    const singles = states.map(() => makeData(p.model, 1, '64'));
    states.forEach((s, e) => { setEnvState(batch, e, s); setEnvState(split, e, s); setEnvState(singles[e]!, 0, s); });
    for (let t = 0; t < 50; t++) {
      stepCpu(p.model, batch, 0, 4);
      stepCpu(p.model, split, 0, 1);
      stepCpu(p.model, split, 1, 4);
      singles.forEach((d) => { stepCpu(p.model, d, 0, 1); });
    }
    for (let e = 0; e < 4; e++) {
      const single = singles[e]!;
      for (const f of ['qpos', 'qvel', 'qacc', 'xpos', 'qM', 'qfrcBias', 'actuatorForce'] as const) {
        expect(envOf(batch, batch[f], e), `env ${e} ${f}`).toEqual(envOf(single, single[f], 0));
        expect(envOf(split, split[f], e), `env ${e} ${f} (split)`).toEqual(envOf(single, single[f], 0));
      }
    }
    // envs really differ
    expect(envOf(batch, batch.qpos, 0)).not.toEqual(envOf(batch, batch.qpos, 1));
  });

  test('resetData restores chosen envs to qpos0 and zero velocity, leaving the others', async () => {
    const p = await pairFromXml(ZOO_XML);
    const d = makeData(p.model, 3, '32');
    expect(d.qpos).toBeInstanceOf(Float32Array);
    expect(d.qpos.buffer).toBeInstanceOf(SharedArrayBuffer);
    const r = rng(5);
    for (let e = 0; e < 3; e++) setEnvState(d, e, randomState(p.model, r));
    const before = envOf(d, d.qpos, 1);
    resetData(p.model, d, [0, 2]);
    expect(envOf(d, d.qpos, 0)).toEqual(Array.from(Float32Array.from(p.model.qpos0)));
    expect(envOf(d, d.qvel, 2).every((v) => v === 0)).toBe(true);
    expect(envOf(d, d.qpos, 1)).toEqual(before);
    expect(() => resetData(p.model, d, [3])).toThrow(/out of range/);
  });
});

/** Menagerie's "home" keyframe of the Panda (panda.xml); the mesh-free mjx files carry no keyframe. */
const FRANKA_HOME = [0, 0, 0, -1.57079, 0, 1.57079, -0.7853, 0.04, 0.04];

describe.skipIf(!hasShared())('Menagerie Franka at the home pose', () => {
  test('mass matrix and bias forces agree with MuJoCo to 1e-9 (at rest and moving)', async () => {
    const p = await pairFromFile(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const moving = [0.3, -0.2, 0.5, 0.4, -0.6, 0.2, 0.9, 0.01, -0.02];
    const d = makeData(p.model, 3, '64');
    // env 0 at rest, env 1 moving, env 2 elsewhere, to show envs do not leak into each other
    setEnvState(d, 0, { qpos: FRANKA_HOME, qvel: [], ctrl: [] });
    setEnvState(d, 1, { qpos: FRANKA_HOME, qvel: moving, ctrl: [] });
    setEnvState(d, 2, { qpos: FRANKA_HOME.map((q) => q + 0.1), qvel: [], ctrl: [] });
    forwardCpu(p.model, d, 0, 3);
    for (const [e, qvel] of [[0, FRANKA_HOME.map(() => 0)], [1, moving]] as const) {
      setMujocoState(p, { qpos: FRANKA_HOME, qvel: [...qvel], ctrl: [] });
      p.mj.mj_forward(p.mm, p.md);
      expectClose(envOf(d, d.qM, e), fullM(p.mj, p.mm, p.md), 1e-9, `env ${e} qM`);
      expectClose(envOf(d, d.qfrcBias, e), p.md.qfrc_bias, 1e-9, `env ${e} qfrc_bias`);
      expectClose(envOf(d, d.xpos, e), p.md.xpos, 1e-9, `env ${e} xpos`);
    }
    expect(envOf(d, d.qfrcBias, 0)).not.toEqual(envOf(d, d.qfrcBias, 1));
    expect(envOf(d, d.qfrcBias, 0)).not.toEqual(envOf(d, d.qfrcBias, 2));
  });

  test('M is symmetric positive definite at random poses', async () => {
    const p = await pairFromFile(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const n = 8, nv = p.model.nv;
    const d = makeData(p.model, n, '64');
    const r = rng(9);
    for (let e = 0; e < n; e++) setEnvState(d, e, randomState(p.model, r));
    forwardCpu(p.model, d, 0, n);
    for (let e = 0; e < n; e++) {
      const M = envOf(d, d.qM, e);
      for (let i = 0; i < nv; i++) for (let j = 0; j < nv; j++) expect(M[i * nv + j]).toBe(M[j * nv + i]);
      // positive definite: every pivot of the L'DL factor is positive, and x'Mx > 0 for random x
      for (let i = 0; i < nv; i++) expect(d.qLDiagInv[i * n + e]).toBeGreaterThan(0);
      const x = Array.from({ length: nv }, () => r() * 2 - 1);
      let q = 0;
      for (let i = 0; i < nv; i++) for (let j = 0; j < nv; j++) q += x[i]! * M[i * nv + j]! * x[j]!;
      expect(q).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!hasShared())('Menagerie ANYmal C (free base)', () => {
  test('at its standing keyframe and moving: M, bias and passive forces agree with MuJoCo to 1e-9', async () => {
    const p = await pairFromFile(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml'));
    expect(p.model.nkey).toBeGreaterThan(0);
    const stand = Array.from(p.model.keyQpos.subarray(0, p.model.nq));
    const r = rng(21);
    const moving = Array.from({ length: p.model.nv }, () => r() * 2 - 1);
    const d = makeData(p.model, 2, '64');
    setEnvState(d, 0, { qpos: stand, qvel: [], ctrl: [] });
    setEnvState(d, 1, { qpos: stand, qvel: moving, ctrl: [] });
    forwardCpu(p.model, d, 0, 2);
    for (const [e, qvel] of [[0, moving.map(() => 0)], [1, moving]] as const) {
      setMujocoState(p, { qpos: stand, qvel: [...qvel], ctrl: [] });
      p.mj.mj_forward(p.mm, p.md);
      expectClose(envOf(d, d.qM, e), fullM(p.mj, p.mm, p.md), 1e-9, `env ${e} qM`);
      expectClose(envOf(d, d.qfrcBias, e), p.md.qfrc_bias, 1e-9, `env ${e} qfrc_bias`);
      expectClose(envOf(d, d.qfrcPassive, e), p.md.qfrc_passive, 1e-9, `env ${e} qfrc_passive`);
      expectClose(envOf(d, d.qaccSmooth, e), p.md.qacc_smooth, 1e-9, `env ${e} qacc_smooth`);
    }
  });
});
