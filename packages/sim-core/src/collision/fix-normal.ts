/**
 * MuJoCo's mjc_fixNormal for a contact whose second geom is round: the normal a polytope routine found (a
 * height field prism's face or edge) is replaced by the round geom's own surface normal at the contact point,
 * so that a ball rolling over prism edges sees a smooth surface. Spheres, capsules, ellipsoids and cylinders (off
 * their flat caps) are fixed; other geoms keep the normal. Only geom 2 is handled: geom 1 is the height field.
 */
import { FRAME, type GeomPose, MINVAL, POS, STRIDE } from './contact.js';
import { GeomType } from '../model/model.js';

const lpos = new Float64Array(3);
const nrm = new Float64Array(3);

/** mju_normalize3 on nrm. */
function normalizeNrm(): void {
  const n = Math.sqrt(nrm[0]! * nrm[0]! + nrm[1]! * nrm[1]! + nrm[2]! * nrm[2]!);
  if (n < MINVAL) { nrm[0] = 1; nrm[1] = 0; nrm[2] = 0; return; }
  const inv = 1 / n;
  nrm[0] = nrm[0]! * inv; nrm[1] = nrm[1]! * inv; nrm[2] = nrm[2]! * inv;
}

/** Fixes the normal of contact k of `out`, whose geom 2 has type `type` and world pose `g`. */
export function fixNormal(out: Float64Array, k: number, type: number, g: GeomPose): void {
  if (type !== GeomType.Sphere && type !== GeomType.Capsule && type !== GeomType.Ellipsoid && type !== GeomType.Cylinder) return;
  const o = k * STRIDE, m = g.mat, size = g.size;
  // geom 2's normal points the other way: -frame, in the geom frame
  const fx = -out[o + FRAME]!, fy = -out[o + FRAME + 1]!, fz = -out[o + FRAME + 2]!;
  const dx = out[o + POS]! - g.pos[0]!, dy = out[o + POS + 1]! - g.pos[1]!, dz = out[o + POS + 2]! - g.pos[2]!;
  lpos[0] = m[0]! * dx + m[3]! * dy + m[6]! * dz;
  lpos[1] = m[1]! * dx + m[4]! * dy + m[7]! * dz;
  lpos[2] = m[2]! * dx + m[5]! * dy + m[8]! * dz;
  nrm[0] = m[0]! * fx + m[3]! * fy + m[6]! * fz;
  nrm[1] = m[1]! * fx + m[4]! * fy + m[7]! * fz;
  nrm[2] = m[2]! * fx + m[5]! * fy + m[8]! * fz;
  let processed = false;
  switch (type) {
    case GeomType.Sphere:
      nrm.set(lpos);
      processed = true;
      break;
    case GeomType.Capsule: {
      const z = lpos[2]!, half = size[1]!;
      nrm[2] = z < -half ? z + half : z > half ? z - half : 0;
      nrm[0] = lpos[0]!; nrm[1] = lpos[1]!;
      processed = true;
      break;
    }
    case GeomType.Ellipsoid: {
      if (size[0]! < MINVAL || size[1]! < MINVAL || size[2]! < MINVAL) break;
      const e = lpos[0]! * lpos[0]! / (size[0]! * size[0]!) + lpos[1]! * lpos[1]! / (size[1]! * size[1]!) +
        lpos[2]! * lpos[2]! / (size[2]! * size[2]!);
      processed = e <= 1 ? ellipsoidInside(size) : ellipsoidOutside(size);
      break;
    }
    case GeomType.Cylinder: {
      if (Math.abs(lpos[2]!) > 0.95 * size[1]!) break;
      const flat = Math.abs(size[1]! - Math.abs(lpos[2]!));
      const round = Math.abs(size[0]! - Math.sqrt(lpos[0]! * lpos[0]! + lpos[1]! * lpos[1]!));
      if (flat < 0.25 * round) break;
      nrm[0] = lpos[0]!; nrm[1] = lpos[1]!; nrm[2] = 0;
      processed = true;
      break;
    }
  }
  if (!processed) return;
  normalizeNrm();
  const nx = nrm[0]!, ny = nrm[1]!, nz = nrm[2]!;
  out[o + FRAME] = -(m[0]! * nx + m[1]! * ny + m[2]! * nz);
  out[o + FRAME + 1] = -(m[3]! * nx + m[4]! * ny + m[5]! * nz);
  out[o + FRAME + 2] = -(m[6]! * nx + m[7]! * ny + m[8]! * nz);
}

const ELLIPSOID_ITERATIONS = 30;
const ELLIPSOID_TOLERANCE = 1e-6;

/**
 * mjc_ellipsoidInside (MuJoCo names it for the point being outside the contact, inside the ellipsoid): follows
 * the ray from lpos along nrm to the surface and takes the surface normal there, until the normal settles.
 */
function ellipsoidInside(size: Float64Array): boolean {
  const s0 = 1 / (size[0]! * size[0]!), s1 = 1 / (size[1]! * size[1]!), s2 = 1 / (size[2]! * size[2]!);
  const px = lpos[0]!, py = lpos[1]!, pz = lpos[2]!;
  const C = px * px * s0 + py * py * s1 + pz * pz * s2 - 1;
  if (C > 0) return false;
  normalizeNrm();
  for (let iter = 0; iter < ELLIPSOID_ITERATIONS; iter++) {
    const a = nrm[0]!, b = nrm[1]!, c = nrm[2]!;
    const A = a * a * s0 + b * b * s1 + c * c * s2;
    const B = px * a * s0 + py * b * s1 + pz * c * s2;
    const det = B * B - A * C;
    if (det < MINVAL || A < MINVAL) return iter > 0;
    const x = (-B + Math.sqrt(det)) / A;
    if (x < 0) return iter > 0;
    // the surface point's normal
    let nx = (px + x * a) * s0, ny = (py + x * b) * s1, nz = (pz + x * c) * s2;
    const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (n < MINVAL) { nx = 1; ny = 0; nz = 0; } else { const inv = 1 / n; nx *= inv; ny *= inv; nz *= inv; }
    const ex = a - nx, ey = b - ny, ez = c - nz;
    const change = Math.sqrt(ex * ex + ey * ey + ez * ez);
    nrm[0] = nx; nrm[1] = ny; nrm[2] = nz;
    if (change < ELLIPSOID_TOLERANCE) break;
  }
  return true;
}

/** mjc_ellipsoidOutside: the normal of the nearest surface point, by Newton on the Lagrange multiplier. */
function ellipsoidOutside(size: Float64Array): boolean {
  const S0 = size[0]! * size[0]!, S1 = size[1]! * size[1]!, S2 = size[2]! * size[2]!;
  const px = lpos[0]!, py = lpos[1]!, pz = lpos[2]!;
  const P0 = px * px * S0, P1 = py * py * S1, P2 = pz * pz * S2;
  let la = 0;
  for (let iter = 0; iter < ELLIPSOID_ITERATIONS; iter++) {
    const R0 = 1 / (S0 + la), R1 = 1 / (S1 + la), R2 = 1 / (S2 + la);
    const val = P0 * R0 * R0 + P1 * R1 * R1 + P2 * R2 * R2 - 1;
    if (val < ELLIPSOID_TOLERANCE) break;
    const deriv = -2 * (P0 * R0 * R0 * R0 + P1 * R1 * R1 * R1 + P2 * R2 * R2 * R2);
    if (deriv > -MINVAL) break;
    const delta = -val / deriv;
    if (delta < ELLIPSOID_TOLERANCE) break;
    la += delta;
  }
  nrm[0] = px / (S0 + la); nrm[1] = py / (S1 + la); nrm[2] = pz / (S2 + la);
  normalizeNrm();
  return true;
}
