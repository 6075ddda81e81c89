/**
 * Mesh geoms in the narrow phase: the support point of a mesh (its convex hull's farthest vertex along a
 * direction, found by hill-climbing the hull graph as MuJoCo's native support does, or by visiting every
 * vertex when the mesh has no graph) and plane-mesh contacts as MuJoCo 3.3's mjc_PlaneConvex makes them:
 * the lowest vertex, then up to two of its hull neighbours that are also within the margin, each at least
 * 0.3 geom_rbound away from the first.
 */
import { type GeomPose, type MeshHull, setContact } from './contact.js';
import { GeomType, type Model } from '../model/model.js';

/** mjc_PlaneConvex's limits on plane-mesh contacts. */
const MAX_PLANE_MESH = 3;
const TOL_PLANE_MESH = 0.3;

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
        hulls.push({ vert: m.meshVert!.subarray(3 * vadr, 3 * (vadr + m.meshVertnum![id]!)), graph, rbound: m.geomRbound[g]! });
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
