/**
 * Shared pieces of the stage tests: one XML loaded into MuJoCo and into a sim-core Model, random valid
 * states, per-env reads of SoA fields, and a tolerance check that names the worst element.
 */
import { expect } from 'vitest';
import type { Data } from '../../src/data/data.js';
import { JointType, type Model } from '../../src/model/model.js';
import { loadMujoco, loadMujocoXml, modelFromMujoco, type Mj } from '../helpers/mujoco.js';

export interface Pair { mj: Mj; mm: Mj; md: Mj; model: Model }

export async function pairFromXml(xml: string): Promise<Pair> {
  const { mj, m, d } = await loadMujocoXml(xml);
  return { mj, mm: m, md: d, model: modelFromMujoco(mj, m) };
}

export async function pairFromFile(file: string): Promise<Pair> {
  const { mj, m, d } = await loadMujoco(file);
  return { mj, mm: m, md: d, model: modelFromMujoco(mj, m) };
}

/** Deterministic PRNG (mulberry32) in [0, 1). */
export { mulberry32 as rng } from '../../../../test/support/random.js';

export interface State { qpos: number[]; qvel: number[]; ctrl: number[] }

/** A random valid state: angles in [-1.5, 1.5], slides in [-0.3, 0.3], unit quaternions, free positions near qpos0. */
export function randomState(model: Model, r: () => number): State {
  const u = (a: number, b: number): number => a + (b - a) * r();
  const qpos = Array.from(model.qpos0);
  for (let j = 0; j < model.njnt; j++) {
    const a = model.jntQposadr[j]!;
    const type = model.jntType[j]!;
    if (type === JointType.Hinge) qpos[a] = u(-1.5, 1.5);
    else if (type === JointType.Slide) qpos[a] = u(-0.3, 0.3);
    else {
      let p = a;
      if (type === JointType.Free) { for (let k = 0; k < 3; k++) qpos[a + k] = model.qpos0[a + k]! + u(-0.5, 0.5); p += 3; }
      const q = [u(-1, 1), u(-1, 1), u(-1, 1), u(-1, 1)];
      const nrm = Math.hypot(...q);
      for (let k = 0; k < 4; k++) qpos[p + k] = q[k]! / nrm;
    }
  }
  const qvel = Array.from({ length: model.nv }, () => u(-2, 2));
  const ctrl = Array.from({ length: model.nu }, () => u(-8, 8));
  return { qpos, qvel, ctrl };
}

export function setMujocoState(p: Pair, s: State): void {
  const { md } = p;
  md.qpos.set(s.qpos);
  md.qvel.set(s.qvel);
  if (s.ctrl.length) md.ctrl.set(s.ctrl);
}

export function setEnvState(d: Data, e: number, s: State): void {
  const n = d.nEnvs;
  s.qpos.forEach((v, k) => { d.qpos[k * n + e] = v; });
  s.qvel.forEach((v, k) => { d.qvel[k * n + e] = v; });
  s.ctrl.forEach((v, k) => { d.ctrl[k * n + e] = v; });
}

/** Env e's copy of a SoA field (per-env size inferred from the field's length). */
export function envOf(d: Data, field: ArrayLike<number>, e: number): number[] {
  const n = d.nEnvs;
  const size = field.length / n;
  const out: number[] = [];
  for (let k = 0; k < size; k++) out.push(field[k * n + e]!);
  return out;
}

/** Asserts |a - b| <= tol * max(1, |b|) elementwise; the message names the worst element. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, label: string): void {
  expect(actual.length, `${label}: length`).toBe(expected.length);
  let worst = -1, worstErr = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!, b = expected[i]!;
    const err = Math.abs(a - b) / Math.max(1, Math.abs(b));
    if (Number.isNaN(err)) expect.fail(`${label}[${i}]: ${a} vs MuJoCo ${b}`);
    if (err > worstErr) { worst = i; worstErr = err; }
  }
  if (worst >= 0 && worstErr > tol) {
    expect.fail(`${label}[${worst}]: ${actual[worst]} vs MuJoCo ${expected[worst]} (scaled error ${worstErr.toExponential(2)} > ${tol})`);
  }
}

/** Writes env e's copy of a SoA field. */
export function putEnv(d: Data, field: { length: number; [i: number]: number }, e: number, values: ArrayLike<number>): void {
  const n = d.nEnvs;
  for (let k = 0; k < values.length; k++) field[k * n + e] = values[k]!;
}
