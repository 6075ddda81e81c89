/**
 * What MuJoCo 3.3's compiler does with a mesh asset (user_mesh.cc, mjCMesh::Process), redone in double:
 * the convex hull graph collision uses, the user transform (refpos, refquat, scale), the volume (or area),
 * centre of mass and inertia in the mesh's `inertia` mode (legacy, the default in 3.3: each face's pyramid
 * volume taken positive; convex: the hull's faces; exact: signed faces; shell: the surface), and the move of
 * the vertices into the inertial frame (centre of mass at the origin, principal axes along x, y, z; moments
 * in decreasing order). A geom using the mesh then sits at that frame (meshFrame), its size and bounding
 * radius come from the moved vertices' box, and its mass and inertia from the volume and the equivalent
 * inertia box, as MuJoCo's mjCGeom computes them.
 */
import { eigSym3, quatToMat, type Quat, type Vec3 } from '../model/frame-math.js';
import { GeomType } from '../model/model.js';
import { HullError, convexHull, hullGraph } from './mesh-hull.js';

export type MeshInertia = 'legacy' | 'convex' | 'exact' | 'shell';

export interface MeshInput {
  name: string;
  /** float32-rounded, as read. */
  vert: number[];
  face: number[];
  scale: Vec3; refpos: Vec3; refquat: Quat;
  inertia: MeshInertia;
  /** A colliding geom uses it: build the hull graph. */
  needHull: boolean;
}

export interface CompiledMesh {
  name: string;
  /** Vertices in the mesh's inertial frame, float32-rounded as MuJoCo's mesh_vert. */
  vert: Float64Array;
  /** MuJoCo's mesh_graph layout (see mesh-hull.ts), or null when no colliding geom needs it. */
  graph: Int32Array | null;
  /** Where the inertial frame sits in the frame the vertices were given in (after refpos/refquat/scale). */
  pos: Vec3; quat: Quat;
  /** Volume, or surface area for the shell mode (what a geom's density multiplies). */
  volume: number;
  /** Half-sizes of the box of uniform density with the same inertia. */
  boxsz: Vec3;
  /** Axis-aligned min (0-2) and max (3-5) of the moved vertices. */
  aamm: [number, number, number, number, number, number];
}

export class MeshError extends Error {}

const MINVAL = 1e-15;

/** Area of triangle (v1, v2, v3); fills its unit normal and centre when asked (MuJoCo's triangle()). */
function triangle(v: ArrayLike<number>, i1: number, i2: number, i3: number, normal: number[] | null, center: number[] | null): number {
  const ax = v[3 * i1]!, ay = v[3 * i1 + 1]!, az = v[3 * i1 + 2]!;
  const bx = v[3 * i2]!, by = v[3 * i2 + 1]!, bz = v[3 * i2 + 2]!;
  const cx = v[3 * i3]!, cy = v[3 * i3 + 1]!, cz = v[3 * i3 + 2]!;
  if (center) {
    center[0] = (ax + bx + cx) / 3;
    center[1] = (ay + by + cy) / 3;
    center[2] = (az + bz + cz) / 3;
  }
  const ux = bx - ax, uy = by - ay, uz = bz - az;
  const wx = cx - ax, wy = cy - ay, wz = cz - az;
  const nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len < MINVAL) return 0;
  if (normal) {
    normal[0] = nx / len;
    normal[1] = ny / len;
    normal[2] = nz / len;
  }
  return 0.5 * len;
}

export function compileMesh(input: MeshInput): CompiledMesh {
  const nvert = input.vert.length / 3;
  if (input.vert.length % 3) throw new MeshError('vertex data must be a multiple of 3');
  if (nvert < 4) throw new MeshError(`at least 4 vertices required, got ${nvert}`);
  if (input.face.length % 3) throw new MeshError('face data must be a multiple of 3');
  input.vert.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new MeshError(`vertex coordinate ${Math.floor(i / 3)} is not finite`);
  });
  input.face.forEach((f, i) => {
    if (!Number.isInteger(f) || f < 0 || f >= nvert) throw new MeshError(`in face ${Math.floor(i / 3)}, vertex index ${f} does not exist`);
  });
  const v = Float64Array.from(input.vert);
  let face = input.face;
  if (input.inertia === 'exact') checkOrientation(v, face);

  let graph: Int32Array | null = null;
  let hullFaces: number[] | null = null;
  if (input.needHull || face.length === 0 || input.inertia === 'convex') {
    try {
      const hull = convexHull(v);
      hullFaces = hull.faces;
      graph = hullGraph(hull);
    } catch (e) {
      if (e instanceof HullError) throw new MeshError(`convex hull: ${e.message}`);
      throw e;
    }
  }
  if (face.length === 0) face = hullFaces!;
  const graphUsed = input.needHull ? graph : null;

  applyTransform(v, input);

  const facecen = [0, 0, 0];
  if (faceCentroid(v, face, facecen) < MINVAL) throw new MeshError('mesh surface area is too small');
  const volFaces = input.inertia === 'convex' ? hullFaces! : face;
  const com = [0, 0, 0];
  if (input.inertia === 'shell') {
    if (surfaceCom(v, face, facecen, com) < MINVAL) throw new MeshError('mesh surface area is too small');
  } else {
    const vol = volumeCom(v, volFaces, facecen, com, input.inertia === 'legacy');
    if (vol < MINVAL) {
      throw new MeshError(vol < 0 ? 'mesh volume is negative (misoriented triangles)' : "mesh volume is too small (try inertia=\"shell\")");
    }
  }
  const { inert, total } = inertiaAbout(v, volFaces, com, input.inertia);
  const full = [inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2]] as const;
  const { values: eig, quat } = eigSym3([...full] as [number, number, number, number, number, number, number, number, number]);
  if (eig[2] <= 0) throw new MeshError('eigenvalue of mesh inertia must be positive');
  const rtol = 1e-6, atol = 1e-9;
  if (eig[0] + eig[1] < eig[2] * (1 - rtol) - atol || eig[0] + eig[2] < eig[1] * (1 - rtol) - atol || eig[1] + eig[2] < eig[0] * (1 - rtol) - atol) {
    throw new MeshError('eigenvalues of mesh inertia violate A + B >= C');
  }
  const boxsz: Vec3 = [
    0.5 * Math.sqrt((6 * (eig[1] + eig[2] - eig[0])) / total),
    0.5 * Math.sqrt((6 * (eig[0] + eig[2] - eig[1])) / total),
    0.5 * Math.sqrt((6 * (eig[0] + eig[1] - eig[2])) / total),
  ];

  // move to the inertial frame: subtract the centre of mass, rotate by the inverse of the principal frame
  const r = quatToMat(quat);
  const aamm: CompiledMesh['aamm'] = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  const out = new Float64Array(3 * nvert);
  for (let i = 0; i < nvert; i++) {
    const x = v[3 * i]! - com[0]!, y = v[3 * i + 1]! - com[1]!, z = v[3 * i + 2]! - com[2]!;
    const moved = [r[0] * x + r[3] * y + r[6] * z, r[1] * x + r[4] * y + r[7] * z, r[2] * x + r[5] * y + r[8] * z];
    for (let k = 0; k < 3; k++) {
      aamm[k] = Math.min(aamm[k]!, moved[k]!);
      aamm[k + 3] = Math.max(aamm[k + 3]!, moved[k]!);
      out[3 * i + k] = Math.fround(moved[k]!);
    }
  }
  return {
    name: input.name, vert: out, graph: graphUsed, pos: [com[0]!, com[1]!, com[2]!], quat, volume: total, boxsz, aamm,
  };
}

/** MuJoCo refuses exact inertia when two faces share a directed edge (inconsistent orientation). */
function checkOrientation(v: Float64Array, face: number[]): void {
  const seen = new Set<string>();
  for (let f = 0; f < face.length; f += 3) {
    const [a, b, c] = [face[f]!, face[f + 1]!, face[f + 2]!];
    if (triangle(v, a, b, c, null, null) <= Math.sqrt(MINVAL)) continue;
    for (const [s, t] of [[a, b], [b, c], [c, a]] as const) {
      const k = `${s},${t}`;
      if (seen.has(k)) throw new MeshError(`faces have inconsistent orientation (see the faces containing vertices ${s + 1} and ${t + 1})`);
      seen.add(k);
    }
  }
}

/** refpos, then refquat (the inverse rotation), then scale, as MuJoCo applies them. */
function applyTransform(v: Float64Array, input: MeshInput): void {
  const n = v.length / 3;
  const [px, py, pz] = input.refpos;
  if (px !== 0 || py !== 0 || pz !== 0) {
    for (let i = 0; i < n; i++) { v[3 * i]! -= px; v[3 * i + 1]! -= py; v[3 * i + 2]! -= pz; }
  }
  const q = input.refquat;
  if (q[0] !== 1 || q[1] !== 0 || q[2] !== 0 || q[3] !== 0) {
    const norm = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(norm > 0)) throw new MeshError('refquat is zero');
    const m = quatToMat([q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm]);
    for (let i = 0; i < n; i++) {
      const x = v[3 * i]!, y = v[3 * i + 1]!, z = v[3 * i + 2]!;
      v[3 * i] = m[0] * x + m[3] * y + m[6] * z;
      v[3 * i + 1] = m[1] * x + m[4] * y + m[7] * z;
      v[3 * i + 2] = m[2] * x + m[5] * y + m[8] * z;
    }
  }
  const [sx, sy, sz] = input.scale;
  if (sx !== 1 || sy !== 1 || sz !== 1) {
    for (let i = 0; i < n; i++) { v[3 * i]! *= sx; v[3 * i + 1]! *= sy; v[3 * i + 2]! *= sz; }
  }
}

/** Area-weighted centre of the faces; returns the total area. */
function faceCentroid(v: Float64Array, face: number[], cen: number[]): number {
  let total = 0;
  const c = [0, 0, 0];
  for (let f = 0; f < face.length; f += 3) {
    const area = triangle(v, face[f]!, face[f + 1]!, face[f + 2]!, null, c);
    for (let k = 0; k < 3; k++) cen[k]! += area * c[k]!;
    total += area;
  }
  if (total >= MINVAL) for (let k = 0; k < 3; k++) cen[k]! /= total;
  return total;
}

/** Volume and centre of mass from the pyramids on each face with apex at facecen. */
function volumeCom(v: Float64Array, face: number[], facecen: number[], com: number[], legacy: boolean): number {
  let total = 0;
  const n = [0, 0, 0], c = [0, 0, 0];
  for (let f = 0; f < face.length; f += 3) {
    const area = triangle(v, face[f]!, face[f + 1]!, face[f + 2]!, n, c);
    let vol = (((c[0]! - facecen[0]!) * n[0]! + (c[1]! - facecen[1]!) * n[1]! + (c[2]! - facecen[2]!) * n[2]!) * area) / 3;
    if (legacy) vol = Math.abs(vol);
    total += vol;
    for (let k = 0; k < 3; k++) com[k]! += vol * ((c[k]! * 3) / 4 + facecen[k]! / 4);
  }
  if (total >= MINVAL) for (let k = 0; k < 3; k++) com[k]! /= total;
  return total;
}

function surfaceCom(v: Float64Array, face: number[], facecen: number[], com: number[]): number {
  let total = 0;
  const c = [0, 0, 0];
  for (let f = 0; f < face.length; f += 3) {
    const area = triangle(v, face[f]!, face[f + 1]!, face[f + 2]!, null, c);
    total += area;
    for (let k = 0; k < 3; k++) com[k]! += area * ((c[k]! * 3) / 4 + facecen[k]! / 4);
  }
  if (total >= MINVAL) for (let k = 0; k < 3; k++) com[k]! /= total;
  return total;
}

/** Inertia (xx, yy, zz, xy, xz, yz) per unit density about com, and the volume (or area) it recomputes. */
function inertiaAbout(v0: Float64Array, face: number[], com: number[], mode: MeshInertia): { inert: number[]; total: number } {
  const v = new Float64Array(v0.length);
  for (let i = 0; i < v0.length; i++) v[i] = v0[i]! - com[i % 3]!;
  const pairs = [[0, 0], [1, 1], [2, 2], [0, 1], [0, 2], [1, 2]] as const;
  const P = [0, 0, 0, 0, 0, 0];
  const n = [0, 0, 0], c = [0, 0, 0];
  const C = mode === 'shell' ? 12 : 20;
  let total = 0;
  for (let f = 0; f < face.length; f += 3) {
    const d = 3 * face[f]!, e = 3 * face[f + 1]!, g = 3 * face[f + 2]!;
    const area = triangle(v, face[f]!, face[f + 1]!, face[f + 2]!, n, c);
    let vol = mode === 'shell' ? area : ((c[0]! * n[0]! + c[1]! * n[1]! + c[2]! * n[2]!) * area) / 3;
    if (mode === 'legacy') vol = Math.abs(vol);
    total += vol;
    for (let j = 0; j < 6; j++) {
      const [a, b] = pairs[j]!;
      P[j]! += (vol / C) * (
        2 * (v[d + a]! * v[d + b]! + v[e + a]! * v[e + b]! + v[g + a]! * v[g + b]!) +
        v[d + a]! * v[e + b]! + v[d + b]! * v[e + a]! +
        v[d + a]! * v[g + b]! + v[d + b]! * v[g + a]! +
        v[e + a]! * v[g + b]! + v[e + b]! * v[g + a]!);
    }
  }
  return { inert: [P[1]! + P[2]!, P[0]! + P[2]!, P[0]! + P[1]!, -P[3]!, -P[4]!, -P[5]!], total };
}

/** A mesh geom's size: the largest |coordinate| of the moved vertices per axis (MuJoCo's geom_size for meshes). */
export function meshGeomSize(mesh: CompiledMesh): Vec3 {
  const a = mesh.aamm;
  return [Math.max(Math.abs(a[0]), Math.abs(a[3])), Math.max(Math.abs(a[1]), Math.abs(a[4])), Math.max(Math.abs(a[2]), Math.abs(a[5]))];
}

/** Principal moments of a mesh geom of the given mass: those of its inertia box. */
export function meshGeomInertia(mesh: CompiledMesh, mass: number): Vec3 {
  const [a, b, c] = mesh.boxsz;
  return [(mass * (b * b + c * c)) / 3, (mass * (a * a + c * c)) / 3, (mass * (a * a + b * b)) / 3];
}

/**
 * A primitive geom fitted to a mesh (mesh= on a non-mesh geom), as MuJoCo's mjCMesh::FitGeom: sized to the
 * mesh's inertia box, or with compiler fitaabb to its bounding box, times fitscale; returns the size and the
 * fitted shape's centre in the mesh's inertial frame (zero for the inertia box).
 */
export function fitGeom(mesh: CompiledMesh, type: GeomType, fitaabb: boolean, fitscale: number): { size: Vec3; center: Vec3 } {
  let size: Vec3, center: Vec3 = [0, 0, 0];
  if (!fitaabb) {
    const b = mesh.boxsz;
    switch (type) {
      case GeomType.Sphere: size = [(b[0] + b[1] + b[2]) / 3, 0, 0]; break;
      case GeomType.Capsule: { const r = (b[0] + b[1]) / 2; size = [r, Math.max(0, b[2] - r / 2), 0]; break; }
      case GeomType.Cylinder: size = [(b[0] + b[1]) / 2, b[2], 0]; break;
      case GeomType.Box: case GeomType.Ellipsoid: size = [b[0], b[1], b[2]]; break;
      default: throw new MeshError('only sphere, capsule, cylinder, ellipsoid and box geoms can be fitted to a mesh');
    }
  } else {
    const a = mesh.aamm;
    center = [(a[0] + a[3]) / 2, (a[1] + a[4]) / 2, (a[2] + a[5]) / 2];
    const h: Vec3 = [a[3] - center[0], a[4] - center[1], a[5] - center[2]];
    switch (type) {
      case GeomType.Sphere: size = [Math.max(h[0], h[1], h[2]), 0, 0]; break;
      case GeomType.Capsule: { const r = Math.max(h[0], h[1]); size = [r, h[2] - r, 0]; break; }
      case GeomType.Cylinder: size = [Math.max(h[0], h[1]), h[2], 0]; break;
      case GeomType.Box: case GeomType.Ellipsoid: size = [...h]; break;
      default: throw new MeshError('only sphere, capsule, cylinder, ellipsoid and box geoms can be fitted to a mesh');
    }
  }
  return { size: [size[0] * fitscale, size[1] * fitscale, size[2] * fitscale], center };
}
