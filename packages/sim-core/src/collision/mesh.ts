/**
 * Mesh geoms in the narrow phase: the support point of a mesh (its convex hull's farthest vertex along a
 * direction, found by hill-climbing the hull graph as MuJoCo's native support does, or by visiting every
 * vertex when the mesh has no graph) and plane-mesh contacts as MuJoCo 3.3's mjc_PlaneConvex makes them:
 * the lowest vertex, then up to two of its hull neighbours that are also within the margin, each at least
 * 0.3 geom_rbound away from the first. Against other geoms a mesh goes through the general convex routine
 * (convex.ts) with meshSupport.
 */
import { type GeomPose, type MeshHull, type NarrowPhase, setContact } from './contact.js';
import type { Support } from './support.js';
import { GeomType, type Model } from '../model/model.js';

/** mjc_PlaneConvex's limits on plane-mesh contacts. */
const MAX_PLANE_MESH = 3;
const TOL_PLANE_MESH = 0.3;
/** mjMESH_HILLCLIMB_MIN: below this many vertices the convex routine's support visits them all. */
const HILLCLIMB_MIN = 10;

/** Each geom's mesh (vertices, hull graph, rbound), null for other geoms; made once per model. */
const hullsOf = new WeakMap<Model, (MeshHull | null)[] | null>();

export function meshHulls(m: Model): (MeshHull | null)[] | null {
  let hulls = hullsOf.get(m);
  if (hulls === undefined) {
    hulls = null;
    if (m.nmesh && m.geomDataid) {
      hulls = [];
      for (let g = 0; g < m.ngeom; g++) {
        const id = m.geomDataid[g]!;
        if (m.geomType[g] !== GeomType.Mesh || id < 0) { hulls.push(null); continue; }
        const vadr = m.meshVertadr![id]!, gadr = m.meshGraphadr![id]!;
        const graph = gadr < 0 ? null : m.meshGraph!.subarray(gadr, gadr + 2 + 3 * m.meshGraph![gadr]! + 6 * m.meshGraph![gadr + 1]!);
        hulls.push({
          vert: m.meshVert!.subarray(3 * vadr, 3 * (vadr + m.meshVertnum![id]!)), graph, rbound: m.geomRbound[g]!, vertindex: -1, meshindex: -1,
        });
      }
    }
    hullsOf.set(m, hulls);
  }
  return hulls;
}

/**
 * The vertex of `mesh` farthest along the geom-frame direction (lx, ly, lz): an index into mesh.vert. With a
 * graph, hill-climbs from hull vertex `start` (a local id; MuJoCo starts at 0 or the last answer) and also
 * returns the local id reached in `local[0]`; ties keep the first vertex found, as MuJoCo's strict '>'.
 */
export function meshSupportVertex(mesh: MeshHull, lx: number, ly: number, lz: number, start: number, local: Int32Array): number {
  const v = mesh.vert, g = mesh.graph;
  if (!g) {
    let best = -1, max = -1e10;
    for (let i = 0; i < v.length / 3; i++) {
      const dot = lx * v[3 * i]! + ly * v[3 * i + 1]! + lz * v[3 * i + 2]!;
      if (dot > max) { max = dot; best = i; }
    }
    local[0] = best;
    return best;
  }
  const numvert = g[0]!;
  const edgeadr = 2, globalid = 2 + numvert, edges = 2 + 2 * numvert;
  let ibest = Math.max(start, 0);
  let gi = 3 * g[globalid + ibest]!;
  let max = lx * v[gi]! + ly * v[gi + 1]! + lz * v[gi + 2]!;
  for (let change = true; change;) {
    change = false;
    for (let i = g[edgeadr + ibest]!; g[edges + i]! >= 0; i++) {
      const loc = g[edges + i]!;
      gi = 3 * g[globalid + loc]!;
      const dot = lx * v[gi]! + ly * v[gi + 1]! + lz * v[gi + 2]!;
      if (dot > max) { max = dot; ibest = loc; change = true; }
    }
  }
  local[0] = ibest;
  return g[globalid + ibest]!;
}

const localId = new Int32Array(1);

/** Plane (g1) against mesh (g2): MuJoCo's mjc_PlaneConvex with its extra vertices. */
export function planeMesh(out: Float64Array, plane: GeomPose, mp: GeomPose, margin: number): number {
  const mesh = mp.mesh;
  if (!mesh) throw new Error('plane-mesh collision on a geom without mesh data');
  const p1 = plane.pos, m1 = plane.mat, p2 = mp.pos, m2 = mp.mat, v = mesh.vert;
  const nx = m1[2]!, ny = m1[5]!, nz = m1[8]!;
  // the support direction -normal, in the mesh frame
  const lx = -(m2[0]! * nx + m2[3]! * ny + m2[6]! * nz);
  const ly = -(m2[1]! * nx + m2[4]! * ny + m2[7]! * nz);
  const lz = -(m2[2]! * nx + m2[5]! * ny + m2[8]! * nz);
  const best = meshSupportVertex(mesh, lx, ly, lz, -1, localId);
  const bestLocal = localId[0]!;
  const vx = v[3 * best]!, vy = v[3 * best + 1]!, vz = v[3 * best + 2]!;
  const sx = m2[0]! * vx + m2[1]! * vy + m2[2]! * vz + p2[0]!;
  const sy = m2[3]! * vx + m2[4]! * vy + m2[5]! * vz + p2[1]!;
  const sz = m2[6]! * vx + m2[7]! * vy + m2[8]! * vz + p2[2]!;
  const dist = nx * (sx - p1[0]!) + ny * (sy - p1[1]!) + nz * (sz - p1[2]!);
  if (dist > margin) return 0;
  const fx = sx - 0.5 * dist * nx, fy = sy - 0.5 * dist * ny, fz = sz - 0.5 * dist * nz;
  setContact(out, 0, dist, fx, fy, fz, nx, ny, nz);

  // hull vertices (or, without a graph, any vertices) within the margin of the plane
  const threshold = nx * (p2[0]! - p1[0]!) + ny * (p2[1]! - p1[1]!) + nz * (p2[2]! - p1[2]!) - margin;
  const minSep = TOL_PLANE_MESH * mesh.rbound;
  let count = 1;
  const add = (i: number): void => {
    const x = v[3 * i]!, y = v[3 * i + 1]!, z = v[3 * i + 2]!;
    const px = m2[0]! * x + m2[1]! * y + m2[2]! * z + p2[0]!;
    const py = m2[3]! * x + m2[4]! * y + m2[5]! * z + p2[1]!;
    const pz = m2[6]! * x + m2[7]! * y + m2[8]! * z + p2[2]!;
    const ex = px - fx, ey = py - fy, ez = pz - fz;
    if (Math.sqrt(ex * ex + ey * ey + ez * ez) < minSep) return;
    const d = nx * (px - p1[0]!) + ny * (py - p1[1]!) + nz * (pz - p1[2]!);
    setContact(out, count++, d, px - 0.5 * d * nx, py - 0.5 * d * ny, pz - 0.5 * d * nz, nx, ny, nz);
  };
  const g = mesh.graph;
  if (!g) {
    for (let i = 0; i < v.length / 3 && count < MAX_PLANE_MESH; i++) {
      const dot = lx * v[3 * i]! + ly * v[3 * i + 1]! + lz * v[3 * i + 2]!;
      if (dot > threshold && i !== bestLocal) add(i);
    }
    return count;
  }
  const numvert = g[0]!;
  const globalid = 2 + numvert, edges = 2 + 2 * numvert;
  for (let i = g[2 + bestLocal]!; g[edges + i]! >= 0 && count < MAX_PLANE_MESH; i++) {
    const gi = g[globalid + g[edges + i]!]!;
    const dot = lx * v[3 * gi]! + ly * v[3 * gi + 1]! + lz * v[3 * gi + 2]!;
    if (dot > threshold) add(gi);
  }
  return count;
}

/**
 * The mesh's support point along the world direction (dx, dy, dz) for the convex routine, as MuJoCo's
 * mjc_meshSupport (every vertex, when the mesh has no hull graph or fewer than 10 vertices) or
 * mjc_hillclimbSupport: both start from the pair's previous answer and keep the first of equal vertices, so
 * ties resolve as there. Returns the vertex index (EPA stops when a support vertex repeats).
 */
export const meshSupport: Support = (g, dx, dy, dz, out, o) => {
  const mesh = g.mesh!, m = g.mat, v = mesh.vert, graph = mesh.graph;
  const lx = m[0]! * dx + m[3]! * dy + m[6]! * dz;
  const ly = m[1]! * dx + m[4]! * dy + m[7]! * dz;
  const lz = m[2]! * dx + m[5]! * dy + m[8]! * dz;
  let imax: number;
  if (!graph || v.length / 3 < HILLCLIMB_MIN) {
    let max = -FLT_MAX;
    imax = 0;
    if (mesh.vertindex >= 0) {
      imax = mesh.vertindex;
      max = lx * v[3 * imax]! + ly * v[3 * imax + 1]! + lz * v[3 * imax + 2]!;
    }
    for (let i = 0; i < v.length / 3; i++) {
      const dot = lx * v[3 * i]! + ly * v[3 * i + 1]! + lz * v[3 * i + 2]!;
      if (dot > max) { max = dot; imax = i; }
    }
  } else {
    // each pass scans the neighbours of the vertex it started from (not the vertex itself), as MuJoCo's loop
    const numvert = graph[0]!, globalid = 2 + numvert, edges = 2 + 2 * numvert;
    let max = -FLT_MAX, loc = Math.max(mesh.meshindex, 0), prev: number;
    do {
      prev = loc;
      for (let i = graph[2 + prev]!; graph[edges + i]! >= 0; i++) {
        const n = graph[edges + i]!, gi = 3 * graph[globalid + n]!;
        const dot = lx * v[gi]! + ly * v[gi + 1]! + lz * v[gi + 2]!;
        if (dot > max) { max = dot; loc = n; }
      }
    } while (loc !== prev);
    mesh.meshindex = loc;
    imax = graph[globalid + loc]!;
  }
  mesh.vertindex = imax;
  const x = v[3 * imax]!, y = v[3 * imax + 1]!, z = v[3 * imax + 2]!, p = g.pos;
  out[o] = m[0]! * x + m[1]! * y + m[2]! * z + p[0]!;
  out[o + 1] = m[3]! * x + m[4]! * y + m[5]! * z + p[1]!;
  out[o + 2] = m[6]! * x + m[7]! * y + m[8]! * z + p[2]!;
  return imax;
};

/** FLT_MAX, MuJoCo's starting maximum in its mesh support searches. */
const FLT_MAX = 3.4028234663852886e38;

/** A convex-routine narrow phase whose mesh supports start afresh for each pair, as MuJoCo's ccd objects do. */
export function freshMeshSearch(np: NarrowPhase): NarrowPhase {
  return (out, g1, g2, margin) => {
    if (g1.mesh) { g1.mesh.vertindex = -1; g1.mesh.meshindex = -1; }
    if (g2.mesh) { g2.mesh.vertindex = -1; g2.mesh.meshindex = -1; }
    return np(out, g1, g2, margin);
  };
}
