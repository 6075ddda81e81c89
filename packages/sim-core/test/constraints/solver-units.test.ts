/** Unit tests of the constraint solver's parts, on hand-made problems (no MuJoCo). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { makeFrame } from '../../src/collision/contact.js';
import { cholFactor, cholSolve } from '../../src/solver/cholesky.js';
import { lcg } from '../../../../test/support/random.js';
import { impedance } from '../../src/solver/impedance.js';
import { lineSearch } from '../../src/solver/linesearch.js';
import { newSolveStats, solvePrimal } from '../../src/solver/primal.js';
import {
  type Problem, constraintCost, gaussCost, indexRows, jacMinusAref, makeProblem, mulM, updateConstraint,
} from '../../src/solver/problem.js';

/** Uniform in [-0.5, 0.5). */
function rng(seed: number): () => number {
  const u = lcg(seed);
  return () => u() - 0.5;
}

/** A random problem: SPD M (nv x nv), nefc inequality rows (type 6), positive D. */
function randomProblem(seed: number, nv: number, nefc: number): Problem {
  const r = rng(seed);
  const p = makeProblem(nv, nefc);
  p.nefc = nefc;
  const A = Array.from({ length: nv * nv }, r);
  for (let i = 0; i < nv; i++) {
    for (let j = 0; j < nv; j++) {
      let s = i === j ? 0.5 : 0;
      for (let k = 0; k < nv; k++) s += A[i * nv + k]! * A[j * nv + k]!;
      p.M[i * nv + j] = s;
    }
  }
  for (let k = 0; k < nefc * nv; k++) p.J[k] = r();
  for (let i = 0; i < nefc; i++) {
    p.D[i] = 10 + 100 * (r() + 0.5);
    p.R[i] = 1 / p.D[i]!;
    p.aref[i] = 5 * r();
    p.type[i] = 6;
  }
  for (let i = 0; i < nv; i++) p.qfrcSmooth[i] = 3 * r();
  // qacc_smooth = M^-1 qfrc_smooth
  const L = new Float64Array(p.M);
  cholFactor(L, nv, 1e-15);
  cholSolve(p.qaccSmooth, L, p.qfrcSmooth, nv);
  p.qacc.set(p.qaccSmooth);
  p.scale = 1 / nv;
  indexRows(p);
  return p;
}

function totalCost(p: Problem, qacc: Float64Array): number {
  const jar = new Float64Array(p.nefc);
  const Ma = new Float64Array(p.nv);
  jacMinusAref(p, jar, qacc);
  mulM(p, Ma, qacc);
  return constraintCost(p, jar) + gaussCost(p, Ma, qacc);
}

describe('dense Cholesky', () => {
  test('solves random SPD systems to round-off', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 18 }), fc.integer(), (n, seed) => {
      const p = randomProblem(seed, n, 0);
      const L = new Float64Array(p.M);
      cholFactor(L, n, 1e-15);
      const x = new Float64Array(n);
      cholSolve(x, L, p.qfrcSmooth, n);
      const Mx = new Float64Array(n);
      mulM(p, Mx, x);
      for (let i = 0; i < n; i++) expect(Mx[i]).toBeCloseTo(p.qfrcSmooth[i]!, 9);
    }), { numRuns: 50 });
  });
});

describe('impedance', () => {
  const solimp = Float64Array.of(0.9, 0.95, 0.001, 0.5, 2);
  test('dmin at the margin, dmax beyond the width, monotone in between', () => {
    expect(impedance(solimp, 0.01, 0.01)).toBeCloseTo(0.9, 12);
    expect(impedance(solimp, -0.5, 0)).toBeCloseTo(0.95, 12);
    let last = 0.9;
    for (let k = 1; k <= 20; k++) {
      const v = impedance(solimp, -k * 0.00005, 0);
      expect(v).toBeGreaterThanOrEqual(last);
      last = v;
    }
    // both halves of the sigmoid meet at the midpoint
    expect(impedance(solimp, -0.0005 + 1e-12, 0)).toBeCloseTo(impedance(solimp, -0.0005 - 1e-12, 0), 8);
  });
});

describe('contact frame', () => {
  test('makeFrame gives a right-handed orthonormal frame whose first row is the normal', () => {
    fc.assert(fc.property(fc.tuple(fc.double({ min: -1, max: 1 }), fc.double({ min: -1, max: 1 }), fc.double({ min: -1, max: 1 })),
      ([x, y, z]) => {
        fc.pre(Math.hypot(x, y, z) > 0.6);
        const f = new Float64Array([x, y, z, 0, 0, 0, 0, 0, 0]);
        makeFrame(f, 0);
        const row = (i: number) => [f[3 * i]!, f[3 * i + 1]!, f[3 * i + 2]!];
        const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
        for (let i = 0; i < 3; i++) {
          expect(dot(row(i), row(i))).toBeCloseTo(1, 12);
          for (let j = i + 1; j < 3; j++) expect(dot(row(i), row(j))).toBeCloseTo(0, 12);
        }
        const n = Math.hypot(x, y, z);
        expect(row(0)[0]).toBeCloseTo(x / n, 12);
        const [a, b, c] = [row(0), row(1), row(2)];
        expect(c[0]).toBeCloseTo(a[1]! * b[2]! - a[2]! * b[1]!, 12);
      }), { numRuns: 100 });
  });
});

describe('line search and primal solvers', () => {
  test('the line search lands on the minimum of the cost along the search direction', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const p = randomProblem(seed, 6, 8);
      mulM(p, p.Ma, p.qacc);
      jacMinusAref(p, p.Jaref, p.qacc);
      updateConstraint(p);
      const r = rng(seed * 7);
      for (let i = 0; i < p.nv; i++) p.search[i] = r();
      const alpha = lineSearch(p, 1e-10, 50);
      const at = (a: number) => {
        const q = Float64Array.from(p.qacc, (v, i) => v + a * p.search[i]!);
        return totalCost(p, q);
      };
      const best = at(alpha);
      for (const da of [-1e-3, 1e-3, -0.1, 0.1, -1, 1]) expect(best).toBeLessThanOrEqual(at(alpha + da) + 1e-9);
    }
  });

  for (const newton of [true, false]) {
    test(`${newton ? 'Newton' : 'CG'} reaches the constrained optimum: zero gradient, non-negative forces`, () => {
      for (let seed = 1; seed <= 10; seed++) {
        const p = randomProblem(seed, 8, 10);
        const stats = newSolveStats();
        solvePrimal(p, newton, newton ? 50 : 500, 1e-12, 0.01, 50, stats);
        expect(stats.iterations).toBeGreaterThan(0);
        // M qacc - qfrc_smooth = J' force, and inequality forces push only
        const Ma = new Float64Array(p.nv);
        mulM(p, Ma, p.qacc);
        for (let i = 0; i < p.nv; i++) expect(Ma[i]! - p.qfrcSmooth[i]!).toBeCloseTo(p.qfrcConstraint[i]!, newton ? 6 : 3);
        for (let r = 0; r < p.nefc; r++) expect(p.force[r]).toBeGreaterThanOrEqual(0);
        // and no small step lowers the cost
        const c0 = totalCost(p, p.qacc);
        const r = rng(seed + 100);
        for (let k = 0; k < 5; k++) {
          const q = Float64Array.from(p.qacc, (v) => v + 1e-4 * r());
          expect(totalCost(p, q)).toBeGreaterThanOrEqual(c0 - 1e-10);
        }
      }
    });
  }
});
