/**
 * The convex hull of a mesh's vertices (quickhull), in the form MuJoCo's compiler stores it for collision:
 * mesh_graph = [numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert], edge_localid[numvert +
 * 3 numface], face_globalid[3 numface]]. MuJoCo builds it with qhull ("Qt": coplanar facets merged, then
 * triangulated); here points within a round-off tolerance of a face count as on it, so the hull's vertex set
 * is the same up to points lying on a flat face or edge (which never change a support point, only break its
 * ties). The order of vertices and of each vertex's neighbours is this module's own (qhull's is not
 * reproduced).
 */

export class HullError extends Error {}

export interface Hull {
  /** Indices of the hull's vertices, ascending. */
  vertices: number[];
  /** Outward (counter-clockwise seen from outside) triangles, three vertex indices each. */
  faces: number[];
}

interface Face {
  a: number; b: number; c: number;
  nx: number; ny: number; nz: number; d: number;
  outside: number[];
  alive: boolean;
}

/**
 * Quickhull over points p (x, y, z per point). Throws HullError when the points span no volume. Points on a
 * flat face or along an edge of the hull are not its vertices (as qhull merges coplanar facets): the first pass
 * may keep some, so the hull is built again from the true corners.
 */
export function convexHull(p: ArrayLike<number>): Hull {
  const n = p.length / 3;
  if (n < 4) throw new HullError(`a convex hull needs at least 4 vertices, got ${n}`);
  let scale = 0;
  for (let k = 0; k < 3; k++) {
    let m = 0;
    for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(p[3 * i + k]!));
    scale += m;
  }
  // points this close to a face's plane are on it (round-off of the plane through three float32 vertices)
  const eps = 1e-13 * scale;
  const all = Array.from({ length: n }, (_, i) => i);
  const first = quickhull(p, all, eps);
  const corners = cornersOf(p, first, eps);
  const faces = corners.length < first.vertices.length ? quickhull(p, corners, eps).faces : first.faces;
  const used = new Set(faces);
  return { vertices: [...used].sort((u, v) => u - v), faces };
}

/**
 * The hull vertices whose incident faces lie in at least three distinct planes: the polytope's corners. A
 * vertex inside a flat face has one plane around it, one along an edge two.
 */
function cornersOf(p: ArrayLike<number>, hull: Hull, eps: number): number[] {
  const incident = new Map<number, number[]>();
  for (let f = 0; f < hull.faces.length / 3; f++) {
    for (let k = 0; k < 3; k++) {
      const v = hull.faces[3 * f + k]!;
      const list = incident.get(v);
      if (list) list.push(f);
      else incident.set(v, [f]);
    }
  }
  const inPlane = (plane: number, f: number): boolean => {
    const q = faceOf(p, hull.faces[3 * plane]!, hull.faces[3 * plane + 1]!, hull.faces[3 * plane + 2]!);
    for (let k = 0; k < 3; k++) {
      const i = hull.faces[3 * f + k]!;
      if (Math.abs(q.nx * p[3 * i]! + q.ny * p[3 * i + 1]! + q.nz * p[3 * i + 2]! - q.d) > eps) return false;
    }
    return true;
  };
  return hull.vertices.filter((v) => {
    const planes: number[] = [];
    for (const f of incident.get(v)!) {
      if (!planes.some((pl) => inPlane(pl, f) && inPlane(f, pl))) planes.push(f);
      if (planes.length >= 3) return true;
    }
    return false;
  });
}

/** The hull of the points `ids` of p, as triangles over their global indices. */
function quickhull(p: ArrayLike<number>, ids: number[], eps: number): Hull {
  const n = p.length / 3;
  const x = (i: number) => p[3 * i]!, y = (i: number) => p[3 * i + 1]!, z = (i: number) => p[3 * i + 2]!;

  const simplex = initialSimplex(p, ids, eps);
  const faces: Face[] = [];
  const edges = new Map<number, number>();
  const key = (a: number, b: number) => a * n + b;

  const makeFace = (a: number, b: number, c: number): number => {
    const ux = x(b) - x(a), uy = y(b) - y(a), uz = z(b) - z(a);
    const vx = x(c) - x(a), vy = y(c) - y(a), vz = z(c) - z(a);
    let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (len > 0) { nx /= len; ny /= len; nz /= len; }
    const d = (nx * (x(a) + x(b) + x(c)) + ny * (y(a) + y(b) + y(c)) + nz * (z(a) + z(b) + z(c))) / 3;
    const id = faces.length;
    faces.push({ a, b, c, nx, ny, nz, d, outside: [], alive: true });
    for (const [s, t] of [[a, b], [b, c], [c, a]] as const) {
      if (edges.has(key(s, t))) throw new HullError('convex hull construction failed (inconsistent topology; are vertices repeated or nearly coplanar?)');
      edges.set(key(s, t), id);
    }
    return id;
  };
  const dist = (f: Face, i: number) => f.nx * x(i) + f.ny * y(i) + f.nz * z(i) - f.d;

  const [s0, s1, s2, s3] = simplex;
  const tet: [number, number, number][] = [[s0, s1, s2], [s0, s3, s1], [s1, s3, s2], [s2, s3, s0]];
  // orient so that s3 is behind the first face: then every face of the tetrahedron points outward
  const probe = faceOf(p, s0, s1, s2);
  if (probe.nx * x(s3) + probe.ny * y(s3) + probe.nz * z(s3) - probe.d > 0) for (const t of tet) t.reverse();
  const first = tet.map(([a, b, c]) => makeFace(a, b, c));

  const assign = (candidates: number[], pts: Iterable<number>) => {
    for (const i of pts) {
      let best = -1, bestDist = eps;
      for (const f of candidates) {
        const dd = dist(faces[f]!, i);
        if (dd > bestDist) { bestDist = dd; best = f; }
      }
      if (best >= 0) faces[best]!.outside.push(i);
    }
  };
  const inSimplex = new Set(simplex);
  const rest = ids.filter((i) => !inSimplex.has(i));
  assign(first, rest);

  const pending = [...first];
  while (pending.length > 0) {
    const fid = pending.pop()!;
    const f = faces[fid]!;
    if (!f.alive || f.outside.length === 0) continue;
    let eye = f.outside[0]!, eyeDist = -Infinity;
    for (const i of f.outside) {
      const dd = dist(f, i);
      if (dd > eyeDist) { eyeDist = dd; eye = i; }
    }
    // faces the eye sees, grown from f across edges; the edges to unseen faces form the horizon
    const visible = [fid];
    const seen = new Set([fid]);
    const horizon: [number, number][] = [];
    for (let q = 0; q < visible.length; q++) {
      const v = faces[visible[q]!]!;
      for (const [s, t] of [[v.a, v.b], [v.b, v.c], [v.c, v.a]] as const) {
        const nb = edges.get(key(t, s));
        if (nb === undefined) throw new HullError('convex hull construction failed (open surface)');
        if (seen.has(nb)) continue;
        if (dist(faces[nb]!, eye) > eps) {
          seen.add(nb);
          visible.push(nb);
        } else {
          horizon.push([s, t]);
        }
      }
    }
    const orphans: number[] = [];
    for (const id of visible) {
      const v = faces[id]!;
      v.alive = false;
      for (const i of v.outside) if (i !== eye) orphans.push(i);
      v.outside = [];
    }
    for (const id of visible) {
      const v = faces[id]!;
      for (const [s, t] of [[v.a, v.b], [v.b, v.c], [v.c, v.a]] as const) {
        if (edges.get(key(s, t)) === id) edges.delete(key(s, t));
      }
    }
    const made = horizon.map(([s, t]) => makeFace(s, t, eye));
    assign(made, orphans);
    for (const id of made) if (faces[id]!.outside.length > 0) pending.push(id);
  }

  const out: number[] = [];
  const used = new Set<number>();
  for (const f of faces) {
    if (!f.alive) continue;
    out.push(f.a, f.b, f.c);
    used.add(f.a); used.add(f.b); used.add(f.c);
  }
  return { vertices: [...used].sort((u, v) => u - v), faces: out };
}

function faceOf(p: ArrayLike<number>, a: number, b: number, c: number): { nx: number; ny: number; nz: number; d: number } {
  const ux = p[3 * b]! - p[3 * a]!, uy = p[3 * b + 1]! - p[3 * a + 1]!, uz = p[3 * b + 2]! - p[3 * a + 2]!;
  const vx = p[3 * c]! - p[3 * a]!, vy = p[3 * c + 1]! - p[3 * a + 1]!, vz = p[3 * c + 2]! - p[3 * a + 2]!;
  let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len > 0) { nx /= len; ny /= len; nz /= len; }
  return { nx, ny, nz, d: nx * p[3 * a]! + ny * p[3 * a + 1]! + nz * p[3 * a + 2]! };
}

/** Four of the points `ids` spanning the largest volume found from the extreme points; throws when they are flat. */
function initialSimplex(p: ArrayLike<number>, ids: number[], eps: number): [number, number, number, number] {
  const ext: number[] = [];
  for (let k = 0; k < 3; k++) {
    let lo = ids[0]!, hi = ids[0]!;
    for (const i of ids) {
      if (p[3 * i + k]! < p[3 * lo + k]!) lo = i;
      if (p[3 * i + k]! > p[3 * hi + k]!) hi = i;
    }
    ext.push(lo, hi);
  }
  const d2 = (i: number, j: number) => {
    const dx = p[3 * i]! - p[3 * j]!, dy = p[3 * i + 1]! - p[3 * j + 1]!, dz = p[3 * i + 2]! - p[3 * j + 2]!;
    return dx * dx + dy * dy + dz * dz;
  };
  let i0 = ext[0]!, i1 = ext[1]!, best = -1;
  for (const a of ext) for (const b of ext) if (d2(a, b) > best) { best = d2(a, b); i0 = a; i1 = b; }
  if (Math.sqrt(best) <= eps) throw new HullError('all mesh vertices coincide');
  // farthest from the line i0-i1
  const ux = p[3 * i1]! - p[3 * i0]!, uy = p[3 * i1 + 1]! - p[3 * i0 + 1]!, uz = p[3 * i1 + 2]! - p[3 * i0 + 2]!;
  const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
  let i2 = -1, far = eps;
  for (const i of ids) {
    const wx = p[3 * i]! - p[3 * i0]!, wy = p[3 * i + 1]! - p[3 * i0 + 1]!, wz = p[3 * i + 2]! - p[3 * i0 + 2]!;
    const cx = uy * wz - uz * wy, cy = uz * wx - ux * wz, cz = ux * wy - uy * wx;
    const dd = Math.sqrt(cx * cx + cy * cy + cz * cz) / ul;
    if (dd > far) { far = dd; i2 = i; }
  }
  if (i2 < 0) throw new HullError('all mesh vertices lie on one line');
  const plane = faceOf(p, i0, i1, i2);
  let i3 = -1;
  far = eps;
  for (const i of ids) {
    const dd = Math.abs(plane.nx * p[3 * i]! + plane.ny * p[3 * i + 1]! + plane.nz * p[3 * i + 2]! - plane.d);
    if (dd > far) { far = dd; i3 = i; }
  }
  if (i3 < 0) throw new HullError('all mesh vertices lie in one plane (the mesh has no volume)');
  return [i0, i1, i2, i3];
}

/** MuJoCo's mesh_graph for a hull: vertices in hull.vertices order, each one's neighbours as its faces list them. */
export function hullGraph(hull: Hull): Int32Array {
  const numvert = hull.vertices.length;
  const numface = hull.faces.length / 3;
  const g = new Int32Array(2 + 3 * numvert + 6 * numface);
  g[0] = numvert;
  g[1] = numface;
  const local = new Map(hull.vertices.map((v, i) => [v, i]));
  const incident: number[][] = hull.vertices.map(() => []);
  for (let f = 0; f < numface; f++) for (let k = 0; k < 3; k++) incident[local.get(hull.faces[3 * f + k]!)!]!.push(f);
  const edgeadr = 2, globalid = 2 + numvert, edgeLocal = 2 + 2 * numvert, faceGlobal = 2 + 3 * numvert + 3 * numface;
  let adr = 0;
  for (let i = 0; i < numvert; i++) {
    g[edgeadr + i] = adr;
    g[globalid + i] = hull.vertices[i]!;
    const start = adr;
    for (const f of incident[i]!) {
      for (let k = 0; k < 3; k++) {
        const other = local.get(hull.faces[3 * f + k]!)!;
        if (other === i) continue;
        let dup = false;
        for (let j = start; j < adr; j++) if (g[edgeLocal + j] === other) { dup = true; break; }
        if (!dup) g[edgeLocal + adr++] = other;
      }
    }
    g[edgeLocal + adr++] = -1;
  }
  if (adr !== numvert + 3 * numface) throw new HullError('convex hull is not a closed triangulated surface');
  for (let k = 0; k < 3 * numface; k++) g[faceGlobal + k] = hull.faces[k]!;
  return g;
}
