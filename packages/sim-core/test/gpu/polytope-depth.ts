/**
 * The exact penetration depth of two convex polytopes, in f64 and without GJK/EPA, as ground truth for the convex
 * routine's depth. The origin lies inside A - B when they overlap, and its distance to the boundary is the least
 * support value h_A(n) + h_B(-n) over the face normals of A - B; those are face normals of A or of B, or cross
 * products of an edge of A and an edge of B. Vertex pairs and triples stand in for edges and faces: the extra
 * directions only give larger support values, so the minimum is the same.
 */
import type { Data } from '../../src/data/data.js';
import type { Model } from '../../src/model/model.js';

type Vec = [number, number, number];

/** The vertices of mesh geom g in world coordinates, for env e of an n-env Data after kinematics. */
export function meshWorldVertices(model: Model, d: Data, g: number, e: number, n: number): Vec[] {
  const id = model.geomDataid![g]!;
  const adr = model.meshVertadr!, num = model.meshVertnum!, vert = model.meshVert!;
  const out: Vec[] = [];
  for (let i = adr[id]!; i < adr[id]! + num[id]!; i++) {
    const v = [0, 0, 0] as Vec;
    for (let r = 0; r < 3; r++) {
      let x = d.geomXpos[(3 * g + r) * n + e]!;
      for (let k = 0; k < 3; k++) x += d.geomXmat[(9 * g + 3 * r + k) * n + e]! * vert[3 * i + k]!;
      v[r] = x;
    }
    out.push(v);
  }
  return out;
}

/** Every difference of two points (edges and diagonals), flat. */
function pairs(pts: Vec[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < pts.length; i++) {
    for (let j = i + 1; j < pts.length; j++) for (let k = 0; k < 3; k++) out.push(pts[j]![k]! - pts[i]![k]!);
  }
  return out;
}

/** The penetration depth of convex hulls a and b (positive when they overlap, else 0 or less). */
export function polytopeDepth(a: Vec[], b: Vec[]): number {
  const fa = a.flat(), fb = b.flat();
  let best = Infinity;
  const axis = (x: number[], i: number, y: number[], j: number): void => {
    const nx = x[i + 1]! * y[j + 2]! - x[i + 2]! * y[j + 1]!;
    const ny = x[i + 2]! * y[j]! - x[i]! * y[j + 2]!;
    const nz = x[i]! * y[j + 1]! - x[i + 1]! * y[j]!;
    const len = Math.hypot(nx, ny, nz);
    if (len < 1e-12) return;
    // h_A(n) + h_B(-n) for n and for -n
    let amax = -Infinity, amin = Infinity, bmax = -Infinity, bmin = Infinity;
    for (let k = 0; k < fa.length; k += 3) {
      const t = fa[k]! * nx + fa[k + 1]! * ny + fa[k + 2]! * nz;
      if (t > amax) amax = t;
      if (t < amin) amin = t;
    }
    for (let k = 0; k < fb.length; k += 3) {
      const t = fb[k]! * nx + fb[k + 1]! * ny + fb[k + 2]! * nz;
      if (t > bmax) bmax = t;
      if (t < bmin) bmin = t;
    }
    best = Math.min(best, (amax - bmin) / len, (bmax - amin) / len);
  };
  const ea = pairs(a), eb = pairs(b);
  for (const e of [ea, eb]) for (let i = 0; i < e.length; i += 3) for (let j = i + 3; j < e.length; j += 3) axis(e, i, e, j);
  for (let i = 0; i < ea.length; i += 3) for (let j = 0; j < eb.length; j += 3) axis(ea, i, eb, j);
  return best;
}
