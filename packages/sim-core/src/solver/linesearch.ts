/**
 * Exact line search along p.search (MuJoCo's CGsearch): the cost restricted to qacc + alpha*search is a
 * piecewise quadratic in alpha, so each evaluation returns cost, slope and curvature in one pass over the rows.
 * Newton steps on alpha from 0, then a bracketed search once the slope changes sign, until
 * |slope| < tolerance * |search| / scale or `maxEvals` evaluations.
 */
import { evalCone, prepareCone } from './cone.js';
import { type Problem, mulJ, mulM } from './problem.js';
import { ConstraintType, MINVAL } from './types.js';

/** A point of the search: alpha, cost, slope, curvature. */
type Pnt = Float64Array;
const ALPHA = 0, COST = 1, D0 = 2, D1 = 3;

const p0: Pnt = new Float64Array(4), p1: Pnt = new Float64Array(4), p2: Pnt = new Float64Array(4);
const pmid: Pnt = new Float64Array(4), p1next: Pnt = new Float64Array(4), p2next: Pnt = new Float64Array(4);
const cand: Pnt[] = [new Float64Array(4), new Float64Array(4), new Float64Array(4)];

/** Quadratic coefficients per row along the search direction, and the Gauss term's. */
function prepare(p: Problem): void {
  const { nv, nefc, search, Jaref, Jv, D, quad, quadGauss } = p;
  let a = 0, b = 0, c = 0;
  for (let i = 0; i < nv; i++) {
    a += search[i]! * p.Ma[i]!;
    b += p.qfrcSmooth[i]! * search[i]!;
    c += search[i]! * p.Mv[i]!;
  }
  quadGauss[1] = a - b;
  quadGauss[2] = 0.5 * c;
  for (let i = 0; i < nefc; i++) {
    if (p.type[i] === ConstraintType.ContactElliptic) {
      i += prepareCone(p, i) - 1;
      continue;
    }
    const dj = D[i]! * Jaref[i]!;
    quad[3 * i] = 0.5 * Jaref[i]! * dj;
    quad[3 * i + 1] = Jv[i]! * dj;
    quad[3 * i + 2] = 0.5 * Jv[i]! * D[i]! * Jv[i]!;
  }
}

/** Cone-surface cost, slope and curvature of the elliptic contacts (scratch of evaluate). */
const cone = new Float64Array(3);

/** Cost and its first two derivatives at pnt[ALPHA]. */
function evaluate(p: Problem, pnt: Pnt): void {
  const { nefc, Jaref, Jv, quad, type, floss, R } = p;
  const alpha = pnt[ALPHA]!;
  let q0 = p.quadGauss[0]!, q1 = p.quadGauss[1]!, q2 = p.quadGauss[2]!;
  cone[0] = 0; cone[1] = 0; cone[2] = 0;
  for (let i = 0; i < nefc; i++) {
    const t = type[i]!;
    if (t === ConstraintType.ContactElliptic) {
      if (evalCone(p, i, alpha, cone)) { q0 += quad[3 * i]!; q1 += quad[3 * i + 1]!; q2 += quad[3 * i + 2]!; }
      i += p.coneDim[i]! - 1;
      continue;
    }
    if (t === ConstraintType.Equality) {
      q0 += quad[3 * i]!; q1 += quad[3 * i + 1]!; q2 += quad[3 * i + 2]!;
      continue;
    }
    const start = Jaref[i]!, dir = Jv[i]!;
    const x = start + alpha * dir;
    if (t === ConstraintType.FrictionDof || t === ConstraintType.FrictionTendon) {
      const f = floss[i]!, Rf = R[i]! * f;
      if (-Rf < x && x < Rf) {
        q0 += quad[3 * i]!; q1 += quad[3 * i + 1]!; q2 += quad[3 * i + 2]!;
      } else if (x <= -Rf) {
        q0 += f * (-0.5 * Rf - start); q1 += -f * dir;
      } else {
        q0 += f * (-0.5 * Rf + start); q1 += f * dir;
      }
      continue;
    }
    if (x < 0) { q0 += quad[3 * i]!; q1 += quad[3 * i + 1]!; q2 += quad[3 * i + 2]!; }
  }
  // the cone terms are zero without elliptic contacts, and x + 0 is x: the pyramidal sums are unchanged
  pnt[COST] = cone[0]! + (alpha * alpha * q2 + alpha * q1 + q0);
  pnt[D0] = cone[1]! + (2 * alpha * q2 + q1);
  const d1 = cone[2]! + 2 * q2;
  pnt[D1] = d1 > 0 ? d1 : MINVAL;
  p.lsIterations++;
}

function newtonFrom(p: Problem, from: Pnt, to: Pnt): void {
  to[ALPHA] = from[ALPHA]! - from[D0]! / from[D1]!;
  evaluate(p, to);
}

/** Moves bracket end `b` to a candidate with a smaller slope of the same sign; then Newton-steps `next`. */
function updateBracket(p: Problem, b: Pnt, next: Pnt): boolean {
  let moved = false;
  for (let i = 0; i < 3; i++) {
    const c = cand[i]!;
    if ((b[D0]! < 0 && c[D0]! < 0 && b[D0]! < c[D0]!) || (b[D0]! > 0 && c[D0]! > 0 && b[D0]! > c[D0]!)) {
      b.set(c);
      moved = true;
    }
  }
  if (moved) newtonFrom(p, b, next);
  return moved;
}

/** Returns the step length (0 when no improvement was found). Uses p.Mv and p.Jv as work. */
export function lineSearch(p: Problem, tolerance: number, maxEvals: number): number {
  const { nv, search } = p;
  p.lsIterations = 0;
  let snorm = 0;
  for (let i = 0; i < nv; i++) snorm += search[i]! * search[i]!;
  snorm = Math.sqrt(snorm);
  if (snorm < MINVAL) return 0;
  const gtol = (tolerance * snorm) / p.scale;

  mulM(p, p.Mv, search);
  mulJ(p, p.Jv, search);
  prepare(p);

  p0[ALPHA] = 0;
  evaluate(p, p0);
  newtonFrom(p, p0, p1);
  if (p0[COST]! < p1[COST]!) p1.set(p0);
  if (Math.abs(p1[D0]!) < gtol) return p1[ALPHA]!;

  // one-sided Newton steps until the slope changes sign
  const dir = p1[D0]! < 0 ? 1 : -1;
  let bracketed = false;
  while (p1[D0]! * dir <= -gtol && p.lsIterations < maxEvals) {
    p2.set(p1);
    bracketed = true;
    newtonFrom(p, p1, p1);
    if (Math.abs(p1[D0]!) < gtol) return p1[ALPHA]!;
  }
  if (p.lsIterations >= maxEvals || !bracketed) return p1[ALPHA]!;

  // bracketed search between p1 and p2
  p2next.set(p1);
  newtonFrom(p, p1, p1next);
  while (p.lsIterations < maxEvals) {
    pmid[ALPHA] = 0.5 * (p1[ALPHA]! + p2[ALPHA]!);
    evaluate(p, pmid);
    cand[0]!.set(p1next);
    cand[1]!.set(p2next);
    cand[2]!.set(pmid);
    let best = -1;
    for (let i = 0; i < 3; i++) {
      const c = cand[i]!;
      if (Math.abs(c[D0]!) < gtol && (best === -1 || c[COST]! < cand[best]![COST]!)) best = i;
    }
    if (best >= 0) return cand[best]![ALPHA]!;
    const b1 = updateBracket(p, p1, p1next);
    const b2 = updateBracket(p, p2, p2next);
    if (!b1 && !b2) return pmid[ALPHA]!;
  }
  if (p1[COST]! <= p2[COST]! && p1[COST]! < p0[COST]!) return p1[ALPHA]!;
  if (p2[COST]! <= p1[COST]! && p2[COST]! < p0[COST]!) return p2[ALPHA]!;
  return 0;
}
