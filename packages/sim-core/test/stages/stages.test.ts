/**
 * Each smooth stage on its own against MuJoCo: a batch of 3 envs in different random states; each stage
 * gets MuJoCo's own inputs (copied from mjData after mj_forward) and its outputs are compared to MuJoCo's.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { Data } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import { kinematics } from '../../src/stages/kinematics/cpu.js';
import { com } from '../../src/stages/com/cpu.js';
import { crb } from '../../src/stages/crb/cpu.js';
import { factorM, solveMEnv } from '../../src/stages/factor_m/cpu.js';
import { passive } from '../../src/stages/passive/cpu.js';
import { actuation } from '../../src/stages/actuation/cpu.js';
import { rne } from '../../src/stages/rne/cpu.js';
import { smoothAcc } from '../../src/stages/smooth_acc/cpu.js';
import { fullM } from '../helpers/mujoco.js';
import { ZOO_XML } from './models.js';
import {
  envOf, expectClose, pairFromXml, putEnv, randomState, rng, setEnvState, setMujocoState, type Pair, type State,
} from './oracle.js';

const N = 3;
const TOL = 1e-9;

/** MuJoCo's mjData fields after mj_forward, per env (copied: heap views go stale). */
type Snap = Record<string, number[]>;

const FIELDS = [
  'xpos', 'xquat', 'xmat', 'xipos', 'ximat', 'xanchor', 'xaxis', 'geom_xpos', 'geom_xmat', 'site_xpos', 'site_xmat',
  'subtree_com', 'cdof', 'cinert', 'crb', 'qLDiagInv', 'cvel', 'cdof_dot', 'qfrc_bias', 'qfrc_passive',
  'actuator_length', 'actuator_velocity', 'actuator_force', 'qfrc_actuator', 'qfrc_smooth', 'qacc_smooth',
] as const;

let p: Pair;
let d: Data;
const states: State[] = [];
const snaps: Snap[] = [];
/** Right-hand sides for the factor test and MuJoCo's mj_solveM of them. */
const rhs: number[][] = [];
const solved: number[][] = [];

beforeAll(async () => {
  p = await pairFromXml(ZOO_XML);
  d = makeData(p.model, N, '64');
  const r = rng(7);
  for (let e = 0; e < N; e++) {
    const s = randomState(p.model, r);
    states.push(s);
    setMujocoState(p, s);
    p.mj.mj_forward(p.mm, p.md);
    const snap: Snap = {};
    for (const f of FIELDS) snap[f] = Array.from(p.md[f] as ArrayLike<number>);
    snap.M = Array.from(fullM(p.mj, p.mm, p.md));
    snaps.push(snap);
    const y = Array.from({ length: p.model.nv }, () => r() * 2 - 1);
    const out = new p.mj.DoubleBuffer(p.model.nv);
    p.mj.mj_solveM(p.mm, p.md, out, y);
    rhs.push(y);
    solved.push(Array.from(out.GetView() as ArrayLike<number>));
    out.delete();
  }
});

function eachEnv(fn: (e: number, s: Snap) => void): void {
  for (let e = 0; e < N; e++) fn(e, snaps[e]!);
}

describe('smooth stages against MuJoCo 3.3, 3 envs in one batch', () => {
  test('the random states differ between envs', () => {
    expect(snaps[0]!.xpos).not.toEqual(snaps[1]!.xpos);
    expect(snaps[1]!.qfrc_bias).not.toEqual(snaps[2]!.qfrc_bias);
  });

  test('kinematics: body, inertial, joint, geom and site poses', () => {
    eachEnv((e) => setEnvState(d, e, states[e]!));
    kinematics(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.xpos, e), s.xpos!, TOL, `env ${e} xpos`);
      expectClose(envOf(d, d.xquat, e), s.xquat!, TOL, `env ${e} xquat`);
      expectClose(envOf(d, d.xmat, e), s.xmat!, TOL, `env ${e} xmat`);
      expectClose(envOf(d, d.xipos, e), s.xipos!, TOL, `env ${e} xipos`);
      expectClose(envOf(d, d.ximat, e), s.ximat!, TOL, `env ${e} ximat`);
      expectClose(envOf(d, d.xanchor, e), s.xanchor!, TOL, `env ${e} xanchor`);
      expectClose(envOf(d, d.xaxis, e), s.xaxis!, TOL, `env ${e} xaxis`);
      expectClose(envOf(d, d.geomXpos, e), s.geom_xpos!, TOL, `env ${e} geom_xpos`);
      expectClose(envOf(d, d.geomXmat, e), s.geom_xmat!, TOL, `env ${e} geom_xmat`);
      expectClose(envOf(d, d.siteXpos, e), s.site_xpos!, TOL, `env ${e} site_xpos`);
      expectClose(envOf(d, d.siteXmat, e), s.site_xmat!, TOL, `env ${e} site_xmat`);
    });
  });

  test('com: subtree com, com-frame inertias and motion dofs', () => {
    eachEnv((e, s) => {
      putEnv(d, d.xipos, e, s.xipos!); putEnv(d, d.ximat, e, s.ximat!); putEnv(d, d.xmat, e, s.xmat!);
      putEnv(d, d.xanchor, e, s.xanchor!); putEnv(d, d.xaxis, e, s.xaxis!);
    });
    com(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.subtreeCom, e), s.subtree_com!, TOL, `env ${e} subtree_com`);
      expectClose(envOf(d, d.cinert, e), s.cinert!, TOL, `env ${e} cinert`);
      expectClose(envOf(d, d.cdof, e), s.cdof!, TOL, `env ${e} cdof`);
    });
  });

  test('crb: composite inertias and the mass matrix (with armature)', () => {
    eachEnv((e, s) => { putEnv(d, d.cinert, e, s.cinert!); putEnv(d, d.cdof, e, s.cdof!); });
    crb(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.crb, e), s.crb!, TOL, `env ${e} crb`);
      expectClose(envOf(d, d.qM, e), s.M!, TOL, `env ${e} qM`);
    });
  });

  test('factor_m: L\'DL of M gives MuJoCo\'s D and solves M x = y as mj_solveM', () => {
    eachEnv((e, s) => putEnv(d, d.qM, e, s.M!));
    factorM(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.qLDiagInv, e), s.qLDiagInv!, TOL, `env ${e} qLDiagInv`);
      const x = Float64Array.from(rhs[e]!);
      solveMEnv(p.model, d, e, x);
      expectClose(x, solved[e]!, TOL, `env ${e} M^-1 y`);
    });
  });

  test('passive: joint springs (hinge, slide, ball, free) and dof damping', () => {
    eachEnv((e) => setEnvState(d, e, states[e]!));
    passive(p.model, d, 0, N);
    eachEnv((e, s) => expectClose(envOf(d, d.qfrcPassive, e), s.qfrc_passive!, TOL, `env ${e} qfrc_passive`));
    // the state has springs and dampers that act: the force is not trivially zero
    expect(snaps[0]!.qfrc_passive!.map(Math.abs).reduce((m, x) => Math.max(m, x), -Infinity)).toBeGreaterThan(0.01);
  });

  test('actuation: position, clamped motor, affine general; ctrl and force clamping', () => {
    eachEnv((e) => setEnvState(d, e, states[e]!));
    actuation(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.actuatorLength, e), s.actuator_length!, TOL, `env ${e} actuator_length`);
      expectClose(envOf(d, d.actuatorVelocity, e), s.actuator_velocity!, TOL, `env ${e} actuator_velocity`);
      expectClose(envOf(d, d.actuatorForce, e), s.actuator_force!, TOL, `env ${e} actuator_force`);
      expectClose(envOf(d, d.qfrcActuator, e), s.qfrc_actuator!, TOL, `env ${e} qfrc_actuator`);
    });
    // ctrl in [-8, 8] hits the motor's force range [-3, 3] in some env
    const motorForces = snaps.map((s) => Math.abs(s.actuator_force![1]!));
    expect(motorForces).toContain(3);
  });

  test('rne: cvel, cdofDot and bias forces (gravity, Coriolis, centrifugal)', () => {
    eachEnv((e, s) => {
      setEnvState(d, e, states[e]!);
      putEnv(d, d.cinert, e, s.cinert!); putEnv(d, d.cdof, e, s.cdof!);
    });
    rne(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.cvel, e), s.cvel!, TOL, `env ${e} cvel`);
      expectClose(envOf(d, d.cdofDot, e), s.cdof_dot!, TOL, `env ${e} cdof_dot`);
      expectClose(envOf(d, d.qfrcBias, e), s.qfrc_bias!, TOL, `env ${e} qfrc_bias`);
    });
  });

  test('smooth_acc: total smooth force and qacc_smooth = M^-1 qfrc_smooth', () => {
    eachEnv((e, s) => {
      putEnv(d, d.qM, e, s.M!);
      putEnv(d, d.qfrcPassive, e, s.qfrc_passive!);
      putEnv(d, d.qfrcBias, e, s.qfrc_bias!);
      putEnv(d, d.qfrcActuator, e, s.qfrc_actuator!);
    });
    d.qfrcApplied.fill(0);
    factorM(p.model, d, 0, N);
    smoothAcc(p.model, d, 0, N);
    eachEnv((e, s) => {
      expectClose(envOf(d, d.qfrcSmooth, e), s.qfrc_smooth!, TOL, `env ${e} qfrc_smooth`);
      expectClose(envOf(d, d.qaccSmooth, e), s.qacc_smooth!, TOL, `env ${e} qacc_smooth`);
    });
  });
});
