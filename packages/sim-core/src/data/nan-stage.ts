/**
 * Which stage first shows a non-finite value in one env, as a step left the Data: the stages' outputs are
 * checked in pipeline order and the first stage with a NaN or Inf in its outputs for that env is named.
 * (After a step, kinematics through solve hold the values computed from the step's starting state, and
 * integrate's qpos and qvel the new state: so an env whose solve produced NaN names 'solve', one whose state
 * was already NaN when the step began names 'kinematics'.)
 */
import type { Data, Real } from './data.js';

/** Which rows of a field count: all of them, or the env's live contacts (ncon) or constraint rows (nefc). */
export type Rows = 'all' | 'contacts' | 'constraints';

/** Each stage's outputs (Data fields), in pipeline order. The GPU's twin of this check (gpu/kernels/step-stats.ts)
 *  reads the same table. */
export const STAGE_OUTPUTS: readonly { stage: string; fields: readonly (keyof Data)[]; rows: Rows }[] = [
  { stage: 'kinematics', fields: ['xpos', 'xquat', 'xmat', 'geomXpos', 'geomXmat'], rows: 'all' },
  { stage: 'com', fields: ['subtreeCom', 'cdof', 'cinert'], rows: 'all' },
  { stage: 'crb', fields: ['crb'], rows: 'all' },
  { stage: 'factor_m', fields: ['qM', 'qLD'], rows: 'all' },
  { stage: 'collision', fields: ['contactPos', 'contactDist', 'contactFrame'], rows: 'contacts' },
  { stage: 'make_constraint', fields: ['efcPos', 'efcD', 'efcAref'], rows: 'constraints' },
  { stage: 'passive', fields: ['qfrcPassive'], rows: 'all' },
  { stage: 'rne', fields: ['cvel', 'qfrcBias'], rows: 'all' },
  { stage: 'actuation', fields: ['actuatorForce', 'qfrcActuator'], rows: 'all' },
  { stage: 'smooth_acc', fields: ['qfrcSmooth', 'qaccSmooth'], rows: 'all' },
  { stage: 'solve', fields: ['qacc', 'qfrcConstraint'], rows: 'all' },
  { stage: 'integrate', fields: ['qpos', 'qvel'], rows: 'all' },
];

/** The first stage whose outputs hold a non-finite value in env `e`, or null when every output is finite. */
export function firstNonFiniteStage(d: Data, e: number): string | null {
  const n = d.nEnvs;
  for (const { stage, fields, rows } of STAGE_OUTPUTS) {
    for (const name of fields) {
      const a = d[name] as Real;
      const perEnv = a.length / n;
      // Contact and constraint fields hold capacity rows; only the env's live ones count.
      let k1 = perEnv;
      if (rows === 'contacts') k1 = (perEnv / d.maxContacts) * d.ncon[e]!;
      else if (rows === 'constraints') k1 = (perEnv / d.maxEfc) * d.nefc[e]!;
      for (let k = 0; k < k1; k++) {
        const v = a[k * n + e]!;
        if (v - v !== 0) return stage;
      }
    }
  }
  return null;
}
