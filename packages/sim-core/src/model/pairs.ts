/**
 * Explicit contact pairs (<contact><pair>) into and out of the Model's pair_* fields, in MuJoCo's layout: each
 * pair's geoms ordered so geom 1 is on the body with the lower id, then every pair stably sorted by its body
 * signature, the order mj_collision merges them with the broad phase's body pairs.
 */
import type { Model } from './model.js';

export interface PairSpec {
  name: string;
  geom1: number; geom2: number;
  condim: number;
  friction: number[];        // 5
  solref: number[];          // 2
  solreffriction: number[];  // 2, zero: the contact's solref
  solimp: number[];          // 5
  margin: number; gap: number;
}

/** Fills m.npair and the pair_* arrays; a model without pairs gets none of them. */
export function layoutPairs(m: Model, pairs: readonly PairSpec[]): void {
  if (pairs.length === 0) return;
  const body = (g: number) => m.geomBodyid[g]!;
  const ordered = pairs.map((p) => (body(p.geom1) > body(p.geom2) ? { ...p, geom1: p.geom2, geom2: p.geom1 } : p));
  const signature = (p: PairSpec) => (body(p.geom1) << 16) + body(p.geom2);
  // Array.prototype.sort is stable, as MuJoCo's std::stable_sort: pairs of one body pair keep their file order
  ordered.sort((a, b) => signature(a) - signature(b));
  const n = ordered.length;
  m.npair = n;
  m.pairGeom1 = new Int32Array(n); m.pairGeom2 = new Int32Array(n);
  m.pairSignature = new Int32Array(n); m.pairDim = new Int32Array(n);
  m.pairFriction = new Float64Array(5 * n); m.pairSolref = new Float64Array(2 * n);
  m.pairSolreffriction = new Float64Array(2 * n); m.pairSolimp = new Float64Array(5 * n);
  m.pairMargin = new Float64Array(n); m.pairGap = new Float64Array(n);
  m.pairName = [];
  ordered.forEach((p, k) => {
    m.pairGeom1![k] = p.geom1;
    m.pairGeom2![k] = p.geom2;
    m.pairSignature![k] = signature(p);
    m.pairDim![k] = p.condim;
    m.pairFriction!.set(p.friction.slice(0, 5), 5 * k);
    m.pairSolref!.set(p.solref.slice(0, 2), 2 * k);
    m.pairSolreffriction!.set(p.solreffriction.slice(0, 2), 2 * k);
    m.pairSolimp!.set(p.solimp.slice(0, 5), 5 * k);
    m.pairMargin![k] = p.margin;
    m.pairGap![k] = p.gap;
    m.pairName!.push(p.name);
  });
}

/** The model's pairs as specs (for combining models), geom indices as the model numbers them. */
export function pairSpecs(m: Model): PairSpec[] {
  const out: PairSpec[] = [];
  for (let k = 0; k < (m.npair ?? 0); k++) {
    out.push({
      name: m.pairName?.[k] ?? '', geom1: m.pairGeom1![k]!, geom2: m.pairGeom2![k]!, condim: m.pairDim![k]!,
      friction: Array.from(m.pairFriction!.subarray(5 * k, 5 * k + 5)),
      solref: Array.from(m.pairSolref!.subarray(2 * k, 2 * k + 2)),
      solreffriction: Array.from(m.pairSolreffriction!.subarray(2 * k, 2 * k + 2)),
      solimp: Array.from(m.pairSolimp!.subarray(5 * k, 5 * k + 5)),
      margin: m.pairMargin![k]!, gap: m.pairGap![k]!,
    });
  }
  return out;
}
