/**
 * Contact parameters of a geom pair (MuJoCo's mj_contactParam): the geom with the higher priority gives
 * condim, friction, solref and solimp; at equal priority condim and friction take the maximum, solimp (and
 * solref when both are in the standard positive format) mix by solmix weights, direct-format solref take the
 * element-wise minimum. Gap is the maximum. Friction unpacks to 5 numbers: slide, slide, spin, roll, roll.
 * An explicit <pair> instead brings its own parameters (explicitParams).
 */
import type { Model } from '../model/model.js';
import { MINVAL } from './contact.js';

export interface PairParams {
  condim: number;
  gap: number;
  friction: Float64Array;  // 5
  solref: Float64Array;    // 2
  solimp: Float64Array;    // 5
}

function mixCondim(m: Model, g1: number, g2: number): number {
  const p1 = m.geomPriority[g1]!, p2 = m.geomPriority[g2]!;
  if (p1 > p2) return m.geomCondim[g1]!;
  if (p1 < p2) return m.geomCondim[g2]!;
  return Math.max(m.geomCondim[g1]!, m.geomCondim[g2]!);
}

export function mixParams(m: Model, g1: number, g2: number, out: PairParams): void {
  out.gap = Math.max(m.geomGap[g1]!, m.geomGap[g2]!);
  out.condim = mixCondim(m, g1, g2);
  const p1 = m.geomPriority[g1]!, p2 = m.geomPriority[g2]!;
  const fri = [0, 0, 0];
  if (p1 !== p2) {
    const g = p1 > p2 ? g1 : g2;
    for (let i = 0; i < 2; i++) out.solref[i] = m.geomSolref[2 * g + i]!;
    for (let i = 0; i < 5; i++) out.solimp[i] = m.geomSolimp[5 * g + i]!;
    for (let i = 0; i < 3; i++) fri[i] = m.geomFriction[3 * g + i]!;
  } else {
    const s1 = m.geomSolmix[g1]!, s2 = m.geomSolmix[g2]!;
    let mix: number;
    if (s1 >= MINVAL && s2 >= MINVAL) mix = s1 / (s1 + s2);
    else if (s1 < MINVAL && s2 < MINVAL) mix = 0.5;
    else if (s1 < MINVAL) mix = 0;
    else mix = 1;
    const r1 = 2 * g1, r2 = 2 * g2;
    if (m.geomSolref[r1]! > 0 && m.geomSolref[r2]! > 0) {
      for (let i = 0; i < 2; i++) out.solref[i] = mix * m.geomSolref[r1 + i]! + (1 - mix) * m.geomSolref[r2 + i]!;
    } else {
      for (let i = 0; i < 2; i++) out.solref[i] = Math.min(m.geomSolref[r1 + i]!, m.geomSolref[r2 + i]!);
    }
    for (let i = 0; i < 5; i++) {
      out.solimp[i] = mix * m.geomSolimp[5 * g1 + i]! + (1 - mix) * m.geomSolimp[5 * g2 + i]!;
    }
    for (let i = 0; i < 3; i++) fri[i] = Math.max(m.geomFriction[3 * g1 + i]!, m.geomFriction[3 * g2 + i]!);
  }
  out.friction[0] = fri[0]!; out.friction[1] = fri[0]!;
  out.friction[2] = fri[1]!;
  out.friction[3] = fri[2]!; out.friction[4] = fri[2]!;
  floorFriction(out.friction);
}

/** An explicit pair's own parameters (mj_collideGeoms with a pair index): nothing is mixed from the geoms. */
export function explicitParams(m: Model, k: number, out: PairParams): void {
  out.condim = m.pairDim![k]!;
  out.gap = m.pairGap![k]!;
  for (let i = 0; i < 2; i++) out.solref[i] = m.pairSolref![2 * k + i]!;
  for (let i = 0; i < 5; i++) out.solimp[i] = m.pairSolimp![5 * k + i]!;
  for (let i = 0; i < 5; i++) out.friction[i] = m.pairFriction![5 * k + i]!;
  floorFriction(out.friction);
}

/** MuJoCo floors every friction coefficient at mjMINMU (mj_assignFriction): a zero one makes the pyramid rows degenerate (NaN). */
function floorFriction(friction: Float64Array): void {
  for (let i = 0; i < 5; i++) friction[i] = Math.max(MINMU, friction[i]!);
}

/** mjMINMU: the smallest friction coefficient MuJoCo uses in a contact. */
const MINMU = 1e-5;
