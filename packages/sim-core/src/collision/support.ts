/**
 * Support functions of the primitive geoms for the general convex narrow phase (convex.ts), as MuJoCo's native
 * ccd computes them (engine_collision_convex.c, mjc_*Support): the point of the geom farthest along a unit
 * direction, in the world frame. The arithmetic follows MuJoCo's order (rotate the direction into the geom
 * frame, pick the local point, rotate back, then add the position) so that results agree to the last bit.
 */
import { MINVAL, type GeomPose } from './contact.js';
import { GeomType } from '../model/model.js';

/**
 * Writes the support point of geom `g` along the world direction (dx, dy, dz) into out[o..o+2]. Returns the
 * index of the vertex chosen when the geom is a polytope (box corner, mesh vertex), -1 otherwise: EPA stops
 * when a support vertex repeats, which is how it terminates on discrete shapes.
 */
export type Support = (g: GeomPose, dx: number, dy: number, dz: number, out: Float64Array, o: number) => number;

const MINVAL2 = MINVAL * MINVAL;

/** out = mat * (lx, ly, lz) + pos, with MuJoCo's localToGlobal rounding order. */
function toGlobal(g: GeomPose, lx: number, ly: number, lz: number, out: Float64Array, o: number): void {
  const m = g.mat, p = g.pos;
  out[o] = m[0]! * lx + m[1]! * ly + m[2]! * lz + p[0]!;
  out[o + 1] = m[3]! * lx + m[4]! * ly + m[5]! * lz + p[1]!;
  out[o + 2] = m[6]! * lx + m[7]! * ly + m[8]! * lz + p[2]!;
}

const loc = new Float64Array(3);

/** loc = mat' * (dx, dy, dz): a world direction in the geom frame (MuJoCo's mulMatTVec3). */
function toLocal(m: Float64Array, dx: number, dy: number, dz: number): void {
  loc[0] = m[0]! * dx + m[3]! * dy + m[6]! * dz;
  loc[1] = m[1]! * dx + m[4]! * dy + m[7]! * dz;
  loc[2] = m[2]! * dx + m[5]! * dy + m[8]! * dz;
}

/** The geom's centre: a sphere shrunk to its core, as MuJoCo's ccd treats spheres (the radius is a margin). */
export const pointSupport: Support = (g, _dx, _dy, _dz, out, o) => {
  out[o] = g.pos[0]!; out[o + 1] = g.pos[1]!; out[o + 2] = g.pos[2]!;
  return -1;
};

/** A capsule's core segment (mjc_lineSupport). */
export const lineSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, p = g.pos, len = g.size[1]!;
  const dot = m[2]! * dx + m[5]! * dy + m[8]! * dz;
  const scl = dot >= 0 ? len : -len;
  out[o] = m[2]! * scl + p[0]!;
  out[o + 1] = m[5]! * scl + p[1]!;
  out[o + 2] = m[8]! * scl + p[2]!;
  return -1;
};

export const sphereSupport: Support = (g, dx, dy, dz, out, o) => {
  const r = g.size[0]!, p = g.pos;
  out[o] = r * dx + p[0]!; out[o + 1] = r * dy + p[1]!; out[o + 2] = r * dz + p[2]!;
  return -1;
};

export const capsuleSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, r = g.size[0]!, len = g.size[1]!;
  toLocal(m, dx, dy, dz);
  const lx = loc[0]!, ly = loc[1]!, lz = loc[2]!;
  toGlobal(g, lx * r, ly * r, lz * r + (lz >= 0 ? len : -len), out, o);
  return -1;
};

export const ellipsoidSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, s = g.size;
  toLocal(m, dx, dy, dz);
  const lx = loc[0]!, ly = loc[1]!, lz = loc[2]!;
  // the support is where the normal, scaled by the radii, points along dir
  const sx = lx * s[0]!, sy = ly * s[1]!, sz = lz * s[2]!;
  const norm2 = sx * sx + sy * sy + sz * sz;
  if (norm2 < MINVAL2) {
    const p = g.pos;
    out[o] = m[0]! * s[0]! + p[0]!; out[o + 1] = m[3]! * s[0]! + p[1]!; out[o + 2] = m[6]! * s[0]! + p[2]!;
    return -1;
  }
  const inv = 1 / Math.sqrt(norm2);
  toGlobal(g, sx * (inv * s[0]!), sy * (inv * s[1]!), sz * (inv * s[2]!), out, o);
  return -1;
};

export const cylinderSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, s = g.size;
  toLocal(m, dx, dy, dz);
  const lx = loc[0]!, ly = loc[1]!, lz = loc[2]!;
  const n2 = lx * lx + ly * ly;
  const scl = n2 >= MINVAL2 ? s[0]! / Math.sqrt(n2) : 0;
  toGlobal(g, scl * lx, scl * ly, lz >= 0 ? s[1]! : -s[1]!, out, o);
  return -1;
};

/** A box's corner; the corner index (bit 0: +x, bit 1: +y, bit 2: +z) identifies repeated support points. */
export const boxSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, s = g.size;
  toLocal(m, dx, dy, dz);
  const lx = loc[0]!, ly = loc[1]!, lz = loc[2]!;
  const sx = lx >= 0 ? s[0]! : -s[0]!, sy = ly >= 0 ? s[1]! : -s[1]!, sz = lz >= 0 ? s[2]! : -s[2]!;
  toGlobal(g, sx, sy, sz, out, o);
  return (sx > 0 ? 1 : 0) | (sy > 0 ? 2 : 0) | (sz > 0 ? 4 : 0);
};

/**
 * The ellipsoid's support as MuJoCo's libccd-era mjccd_support rounds it (normalise, then scale), which
 * mjc_PlaneConvex uses; it differs from ellipsoidSupport in the last bits.
 */
export const ellipsoidPlaneSupport: Support = (g, dx, dy, dz, out, o) => {
  const m = g.mat, s = g.size;
  toLocal(m, dx, dy, dz);
  const lx = loc[0]!, ly = loc[1]!, lz = loc[2]!;
  let sx = lx * s[0]!, sy = ly * s[1]!, sz = lz * s[2]!;
  const norm = Math.sqrt(sx * sx + sy * sy + sz * sz);
  if (norm < MINVAL) {
    sx = 1; sy = 0; sz = 0;
  } else {
    const inv = 1 / norm;
    sx *= inv; sy *= inv; sz *= inv;
  }
  toGlobal(g, sx * s[0]!, sy * s[1]!, sz * s[2]!, out, o);
  return -1;
};

/** The support function of a primitive geom type, or null (plane, height field and mesh have none here). */
export function primitiveSupport(type: number): Support | null {
  switch (type) {
    case GeomType.Sphere: return sphereSupport;
    case GeomType.Capsule: return capsuleSupport;
    case GeomType.Ellipsoid: return ellipsoidSupport;
    case GeomType.Cylinder: return cylinderSupport;
    case GeomType.Box: return boxSupport;
  }
  return null;
}
