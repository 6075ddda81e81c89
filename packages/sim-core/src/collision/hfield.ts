/**
 * Height field against a convex geom, as MuJoCo 3.3's mjc_ConvexHField (engine_collision_convex.c): in the
 * height field's frame, the geom's bounding sphere and then its axis-aligned box (from its support points along
 * the axes) are tested against the field's box; the box picks a sub-grid of cells; each cell is two triangular
 * prisms (three corners at the elevation, raised by the margin, three at -base), and every prism that reaches
 * above the geom's lowest point goes through the general convex routine (GJK/EPA) against the geom inflated by
 * the margin. Contacts come out in cell order, rows outer, up to MuJoCo's 50 per pair, and each normal is then
 * fixed to the round geom's surface normal (mjc_fixNormal).
 *
 * Arithmetic follows MuJoCo's order, as in convex.ts, because contact points and normals feed back into motion.
 */
import { CCD_ITERATIONS, CCD_TOLERANCE, type ConvexShape, convexPenetration } from './convex.js';
import { type GeomPose, MAX_CONTACT_PAIR, makeGeomPose, MINVAL, type NarrowPhase, setContact } from './contact.js';
import { fixNormal } from './fix-normal.js';
import { GeomType } from '../model/model.js';
import type { Support } from './support.js';

/** mjMAXCONPAIR: MuJoCo keeps at most this many contacts of one height field pair. */
export const MAX_HFIELD_CONTACTS = 50;

/** One height field as the Model holds it: size (x and y half-extents, elevation scale, base depth), data row-major in [0, 1]. */
export interface HFieldGrid { nrow: number; ncol: number; size: Float64Array; data: Float64Array }

const rel = makeGeomPose();
const prism = new Float64Array(18);
const centroid = new Float64Array(3);
const witness = new Float64Array(6);
const aabbPoint = new Float64Array(3);
const prismPose = makeGeomPose();

/** mjc_prism_support: the best of the top three corners when dir points up, else of the bottom three; no vertex id. */
const prismSupport: Support = (_g, dx, dy, dz, out, o) => {
  const start = dz < 0 ? 0 : 3;
  let best = start;
  let max = prism[3 * start]! * dx + prism[3 * start + 1]! * dy + prism[3 * start + 2]! * dz;
  for (let i = start + 1; i < start + 3; i++) {
    const v = prism[3 * i]! * dx + prism[3 * i + 1]! * dy + prism[3 * i + 2]! * dz;
    if (v > max) { best = i; max = v; }
  }
  out[o] = prism[3 * best]!; out[o + 1] = prism[3 * best + 1]!; out[o + 2] = prism[3 * best + 2]!;
  return -1;
};

/** MuJoCo's addVert: the prism slides one corner along (drops its oldest) and takes (x, y) at height z on top. */
function addVert(x: number, y: number, z: number): void {
  for (let k = 0; k < 3; k++) {
    prism[k] = prism[3 + k]!; prism[3 + k] = prism[6 + k]!;
    prism[9 + k] = prism[12 + k]!; prism[12 + k] = prism[15 + k]!;
  }
  prism[6] = prism[15] = x;
  prism[7] = prism[16] = y;
  prism[17] = z;
}

/** mjc_prism_center: the mean of the six corners, summed in order and scaled by 1/6. */
function prismCenter(): void {
  let x = 0, y = 0, z = 0;
  for (let i = 0; i < 6; i++) { x += prism[3 * i]!; y += prism[3 * i + 1]!; z += prism[3 * i + 2]!; }
  const s = 1.0 / 6.0;
  centroid[0] = x * s; centroid[1] = y * s; centroid[2] = z * s;
}

const sign = (x: number): number => (x > 0 ? 1 : x < 0 ? -1 : 0);

/**
 * The geom's extreme coordinate along axis `axis` (sign `s`) in the height field frame, from mjccd_support, the
 * libccd-era support MuJoCo uses for this box (it differs from the native supports in rounding and, for a box
 * face exactly along the axis, in picking the face's middle); a mesh's search also leaves its warm start there.
 */
function axisExtreme(type: number, g: GeomPose, axis: number, s: number): number {
  const m = g.mat, size = g.size;
  // the direction in the geom frame is row `axis` of mat' times s, i.e. column entries of mat
  const lx = m[3 * axis]! * s, ly = m[3 * axis + 1]! * s, lz = m[3 * axis + 2]! * s;
  let rx = 0, ry = 0, rz = 0;
  switch (type) {
    case GeomType.Sphere: rx = lx * size[0]!; ry = ly * size[0]!; rz = lz * size[0]!; break;
    case GeomType.Capsule: rx = lx * size[0]!; ry = ly * size[0]!; rz = lz * size[0]! + sign(lz) * size[1]!; break;
    case GeomType.Ellipsoid: {
      rx = lx * size[0]!; ry = ly * size[1]!; rz = lz * size[2]!;
      const n = Math.sqrt(rx * rx + ry * ry + rz * rz);
      if (n < MINVAL) { rx = 1; ry = 0; rz = 0; } else { const inv = 1 / n; rx *= inv; ry *= inv; rz *= inv; }
      rx *= size[0]!; ry *= size[1]!; rz *= size[2]!;
      break;
    }
    case GeomType.Cylinder: {
      const t = Math.sqrt(lx * lx + ly * ly);
      if (t > MINVAL) { rx = lx / t * size[0]!; ry = ly / t * size[0]!; }
      rz = sign(lz) * size[1]!;
      break;
    }
    case GeomType.Box: rx = sign(lx) * size[0]!; ry = sign(ly) * size[1]!; rz = sign(lz) * size[2]!; break;
    case GeomType.Mesh: {
      const i = meshExtreme(g, lx, ly, lz);
      const v = g.mesh!.vert;
      rx = v[3 * i]!; ry = v[3 * i + 1]!; rz = v[3 * i + 2]!;
      break;
    }
  }
  aabbPoint[0] = m[0]! * rx + m[1]! * ry + m[2]! * rz;
  aabbPoint[1] = m[3]! * rx + m[4]! * ry + m[5]! * rz;
  aabbPoint[2] = m[6]! * rx + m[7]! * ry + m[8]! * rz;
  return aabbPoint[axis]! + g.pos[axis]!;
}

/** mjccd_support's mesh search: every vertex without a hull graph, else a hill climb from the last answer. */
function meshExtreme(g: GeomPose, lx: number, ly: number, lz: number): number {
  const mesh = g.mesh!, v = mesh.vert, graph = mesh.graph;
  let best = -1, max = -1e10;
  if (!graph) {
    for (let i = 0; i < v.length / 3; i++) {
      const dot = lx * v[3 * i]! + ly * v[3 * i + 1]! + lz * v[3 * i + 2]!;
      if (dot > max) { max = dot; best = i; }
    }
    mesh.meshindex = best;
    return best;
  }
  const numvert = graph[0]!, globalid = 2 + numvert, edges = 2 + 2 * numvert;
  best = Math.max(mesh.meshindex, 0);
  let gi = 3 * graph[globalid + best]!;
  max = lx * v[gi]! + ly * v[gi + 1]! + lz * v[gi + 2]!;
  for (let change = true; change;) {
    change = false;
    for (let i = graph[2 + best]!; graph[edges + i]! >= 0; i++) {
      const loc = graph[edges + i]!;
      gi = 3 * graph[globalid + loc]!;
      const dot = lx * v[gi]! + ly * v[gi + 1]! + lz * v[gi + 2]!;
      if (dot > max) { max = dot; best = loc; change = true; }
    }
  }
  mesh.meshindex = best;
  return graph[globalid + best]!;
}

/**
 * The narrow phase of height field `grid` (geom 1) against a geom of type `type2` (bounding radius `rbound2`,
 * native support `support2`), with the model's ccd tolerance and iterations.
 */
export function hfieldNarrowPhase(
  grid: HFieldGrid, type2: number, rbound2: number, support2: Support,
  tol = CCD_TOLERANCE, iterations = CCD_ITERATIONS,
): NarrowPhase {
  if (MAX_HFIELD_CONTACTS > MAX_CONTACT_PAIR) throw new Error('the contact buffer is smaller than a height field pair can fill');
  const s1: ConvexShape = { pose: prismPose, type: GeomType.HField, support: prismSupport, center: centroid };
  const s2: ConvexShape = { pose: rel, type: type2, support: support2 };
  return (out, hf, g2, margin) => {
    if (g2.mesh) { g2.mesh.vertindex = -1; g2.mesh.meshindex = -1; }
    const n = hfieldCollide(out, grid, hf, g2, rbound2, s1, s2, margin, tol, iterations);
    for (let k = 0; k < n; k++) fixNormal(out, k, type2, g2);
    return n;
  };
}

function hfieldCollide(
  out: Float64Array, grid: HFieldGrid, hf: GeomPose, g2: GeomPose, r2: number,
  s1: ConvexShape, s2: ConvexShape, margin: number, tol: number, iterations: number,
): number {
  const { nrow, ncol, size, data } = grid;
  const m1 = hf.mat, p1 = hf.pos, m2 = g2.mat;
  const size0 = size[0]!, size1 = size[1]!, size2 = size[2]!, size3 = size[3]!;

  // geom 2's position in the height field frame (mju_mulMatTVec), then the bounding sphere against the field's box
  const vx = g2.pos[0]! - p1[0]!, vy = g2.pos[1]! - p1[1]!, vz = g2.pos[2]! - p1[2]!;
  const px = m1[0]! * vx + m1[3]! * vy + m1[6]! * vz;
  const py = m1[1]! * vx + m1[4]! * vy + m1[7]! * vz;
  const pz = m1[2]! * vx + m1[5]! * vy + m1[8]! * vz;
  if (size0 < px - r2 - margin || -size0 > px + r2 + margin) return 0;
  if (size1 < py - r2 - margin || -size1 > py + r2 + margin) return 0;
  if (size2 < pz - r2 - margin) return 0;
  if (-size3 > pz + r2 + margin) return 0;

  // geom 2's pose in the height field frame (mju_mulMatTMat3)
  rel.pos[0] = px; rel.pos[1] = py; rel.pos[2] = pz;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) rel.mat[3 * i + j] = m1[i]! * m2[j]! + m1[3 + i]! * m2[3 + j]! + m1[6 + i]! * m2[6 + j]!;
  }
  rel.size.set(g2.size);
  rel.mesh = g2.mesh ?? null;

  // its axis-aligned box there, against the field's box
  const type2 = s2.type;
  const xmax = axisExtreme(type2, rel, 0, 1), xmin = axisExtreme(type2, rel, 0, -1);
  const ymax = axisExtreme(type2, rel, 1, 1), ymin = axisExtreme(type2, rel, 1, -1);
  const zmax = axisExtreme(type2, rel, 2, 1), zmin = axisExtreme(type2, rel, 2, -1);
  if (xmin - margin > size0 || xmax + margin < -size0 || ymin - margin > size1 || ymax + margin < -size1 ||
    zmin - margin > size2 || zmax + margin < -size3) return 0;

  // the sub-grid of cells under the box
  const cmin = Math.max(0, Math.trunc(Math.floor((xmin + size0) / (2 * size0) * (ncol - 1))));
  const cmax = Math.min(ncol - 1, Math.trunc(Math.ceil((xmax + size0) / (2 * size0) * (ncol - 1))));
  const rmin = Math.max(0, Math.trunc(Math.floor((ymin + size1) / (2 * size1) * (nrow - 1))));
  const rmax = Math.min(nrow - 1, Math.trunc(Math.ceil((ymax + size1) / (2 * size1) * (nrow - 1))));

  const dx = (2.0 * size0) / (ncol - 1), dy = (2.0 * size1) / (nrow - 1);
  prism[2] = prism[5] = prism[8] = -size3;
  let cnt = 0;
  for (let r = rmin; r < rmax; r++) {
    let nvert = 0;
    for (let c = cmin; c <= cmax; c++) {
      for (let i = 0; i < 2; i++) {
        const row = r + 1 - i;
        addVert(dx * c - size0, dy * row - size1, data[row * ncol + c]! * size2 + margin);
        if (++nvert <= 2) continue;
        // a prism wholly below the geom's lowest point cannot touch it
        if (prism[11]! < zmin && prism[14]! < zmin && prism[17]! < zmin) continue;
        prismCenter();
        const d = convexPenetration(s1, s2, 0, margin, tol, iterations, witness);
        if (!(d < 0)) continue;
        let nx = witness[0]! - witness[3]!, ny = witness[1]! - witness[4]!, nz = witness[2]! - witness[5]!;
        const norm = Math.sqrt(nx * nx + ny * ny + nz * nz);
        if (norm < MINVAL) { nx = 1; ny = 0; nz = 0; } else { const inv = 1 / norm; nx *= inv; ny *= inv; nz *= inv; }
        const cx = 0.5 * (witness[0]! + witness[3]!), cy = 0.5 * (witness[1]! + witness[4]!), cz = 0.5 * (witness[2]! + witness[5]!);
        setContact(out, cnt, d,
          m1[0]! * cx + m1[1]! * cy + m1[2]! * cz + p1[0]!,
          m1[3]! * cx + m1[4]! * cy + m1[5]! * cz + p1[1]!,
          m1[6]! * cx + m1[7]! * cy + m1[8]! * cz + p1[2]!,
          m1[0]! * nx + m1[1]! * ny + m1[2]! * nz,
          m1[3]! * nx + m1[4]! * ny + m1[5]! * nz,
          m1[6]! * nx + m1[7]! * ny + m1[8]! * nz);
        if (++cnt >= MAX_HFIELD_CONTACTS) return cnt;
      }
    }
  }
  return cnt;
}
