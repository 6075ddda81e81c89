/**
 * Sphere, capsule and sphere-cylinder pairs, as MuJoCo computes them: every case reduces to one or two
 * sphere-sphere tests between the nearest points of the two core shapes (a point or a segment).
 * The normal points from geom 1 to geom 2; the contact sits halfway between the surfaces.
 */
import { MINVAL, type GeomPose, setContact } from './contact.js';
import { planeSphereAt } from './plane.js';
import { clip } from '../math/clip.js';

/**
 * Sphere (centre a, radius ra, z axis of mat1) against sphere (centre b, radius rb, z axis of mat2); writes
 * contact k. When the centres coincide the normal is the cross product of the two z axes, as in MuJoCo.
 */
export function sphereSphereAt(
  out: Float64Array, k: number,
  ax: number, ay: number, az: number, ra: number, mat1: Float64Array,
  bx: number, by: number, bz: number, rb: number, mat2: Float64Array, margin: number,
): number {
  const dx = ax - bx, dy = ay - by, dz = az - bz;
  const cdistSqr = dx * dx + dy * dy + dz * dz;
  const minDist = margin + ra + rb;
  if (cdistSqr > minDist * minDist) return 0;
  const dist = Math.sqrt(cdistSqr) - ra - rb;
  let nx = bx - ax, ny = by - ay, nz = bz - az;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len < MINVAL) {
    const ux = mat1[2]!, uy = mat1[5]!, uz = mat1[8]!;
    const vx = mat2[2]!, vy = mat2[5]!, vz = mat2[8]!;
    nx = uy * vz - uz * vy; ny = uz * vx - ux * vz; nz = ux * vy - uy * vx;
    const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (n < MINVAL) { nx = 1; ny = 0; nz = 0; } else { nx /= n; ny /= n; nz /= n; }
  } else {
    nx /= len; ny /= len; nz /= len;
  }
  const s = ra + dist / 2;
  setContact(out, k, dist, ax + nx * s, ay + ny * s, az + nz * s, nx, ny, nz);
  return 1;
}

export function sphereSphere(out: Float64Array, g1: GeomPose, g2: GeomPose, margin: number): number {
  const a = g1.pos, b = g2.pos;
  return sphereSphereAt(out, 0, a[0]!, a[1]!, a[2]!, g1.size[0]!, g1.mat, b[0]!, b[1]!, b[2]!, g2.size[0]!, g2.mat, margin);
}

/** Sphere against the nearest point of the capsule's segment. */
export function sphereCapsule(out: Float64Array, sph: GeomPose, cap: GeomPose, margin: number): number {
  const a = sph.pos, b = cap.pos, m = cap.mat, h = cap.size[1]!;
  const ux = m[2]!, uy = m[5]!, uz = m[8]!;
  let x = ux * (a[0]! - b[0]!) + uy * (a[1]! - b[1]!) + uz * (a[2]! - b[2]!);
  x = clip(x, -h, h);
  return sphereSphereAt(out, 0, a[0]!, a[1]!, a[2]!, sph.size[0]!, sph.mat,
    b[0]! + ux * x, b[1]! + uy * x, b[2]! + uz * x, cap.size[0]!, m, margin);
}

const clip1 = (x: number): number => clip(x, -1, 1);

/** Sphere test between the points at fractions x1, x2 (in -1..1) along the two capsules' segments. */
function segmentSpheres(
  out: Float64Array, k: number, g1: GeomPose, g2: GeomPose, x1: number, x2: number, margin: number,
): number {
  const p1 = g1.pos, p2 = g2.pos, m1 = g1.mat, m2 = g2.mat;
  const s1 = g1.size[1]! * x1, s2 = g2.size[1]! * x2;
  return sphereSphereAt(out, k,
    p1[0]! + m1[2]! * s1, p1[1]! + m1[5]! * s1, p1[2]! + m1[8]! * s1, g1.size[0]!, m1,
    p2[0]! + m2[2]! * s2, p2[1]! + m2[5]! * s2, p2[2]! + m2[8]! * s2, g2.size[0]!, m2, margin);
}

/** Nearest points of the two segments; parallel segments give up to two contacts (segment ends). */
export function capsuleCapsule(out: Float64Array, g1: GeomPose, g2: GeomPose, margin: number): number {
  const p1 = g1.pos, p2 = g2.pos, m1 = g1.mat, m2 = g2.mat;
  const h1 = g1.size[1]!, h2 = g2.size[1]!;
  const a1x = m1[2]! * h1, a1y = m1[5]! * h1, a1z = m1[8]! * h1;
  const a2x = m2[2]! * h2, a2y = m2[5]! * h2, a2z = m2[8]! * h2;
  const dx = p1[0]! - p2[0]!, dy = p1[1]! - p2[1]!, dz = p1[2]! - p2[2]!;
  const ma = a1x * a1x + a1y * a1y + a1z * a1z;
  const mb = -(a1x * a2x + a1y * a2y + a1z * a2z);
  const mc = a2x * a2x + a2y * a2y + a2z * a2z;
  const u = -(a1x * dx + a1y * dy + a1z * dz);
  const v = a2x * dx + a2y * dy + a2z * dz;
  const det = ma * mc - mb * mb;

  if (Math.abs(det) >= MINVAL) {
    let x1 = (mc * u - mb * v) / det;
    let x2 = (ma * v - mb * u) / det;
    if (x1 > 1) { x1 = 1; x2 = (v - mb) / mc; } else if (x1 < -1) { x1 = -1; x2 = (v + mb) / mc; }
    if (x2 > 1) { x2 = 1; x1 = clip1((u - mb) / ma); } else if (x2 < -1) { x2 = -1; x1 = clip1((u + mb) / ma); }
    return segmentSpheres(out, 0, g1, g2, x1, x2, margin);
  }

  // parallel axes: try the ends of segment 1, then the ends of segment 2, stop at two contacts
  let n = segmentSpheres(out, 0, g1, g2, 1, clip1((v - mb) / mc), margin);
  n += segmentSpheres(out, n, g1, g2, -1, clip1((v + mb) / mc), margin);
  if (n >= 2) return n;
  n += segmentSpheres(out, n, g1, g2, clip1((u - mb) / ma), 1, margin);
  if (n >= 2) return n;
  n += segmentSpheres(out, n, g1, g2, clip1((u + mb) / ma), -1, margin);
  return n;
}

/** Sphere against cylinder: side (sphere-sphere), cap (plane-sphere) or rim (sphere against a point). */
export function sphereCylinder(out: Float64Array, sph: GeomPose, cyl: GeomPose, margin: number): number {
  const a = sph.pos, b = cyl.pos, m = cyl.mat, radius = cyl.size[0]!, height = cyl.size[1]!;
  const ux = m[2]!, uy = m[5]!, uz = m[8]!;
  const vx = a[0]! - b[0]!, vy = a[1]! - b[1]!, vz = a[2]! - b[2]!;
  const x = ux * vx + uy * vy + uz * vz;
  const ax = ux * x, ay = uy * x, az = uz * x;
  let px = vx - ax, py = vy - ay, pz = vz - az;
  const pSqr = px * px + py * py + pz * pz;

  let side = Math.abs(x) < height;
  let cap = pSqr < radius * radius;
  if (side && cap) {
    // centre inside: keep the shallower way out
    if (height - Math.abs(x) < radius - Math.sqrt(pSqr)) side = false; else cap = false;
  }
  if (side) {
    return sphereSphereAt(out, 0, a[0]!, a[1]!, a[2]!, sph.size[0]!, sph.mat,
      ax + b[0]!, ay + b[1]!, az + b[2]!, radius, m, margin);
  }
  if (cap) {
    // the cap is a plane whose normal is +-axis; its frame flips x and z for the bottom cap
    const capPose = capScratch;
    const sgn = x > 0 ? 1 : -1;
    capPose.pos[0] = b[0]! + ux * height * sgn;
    capPose.pos[1] = b[1]! + uy * height * sgn;
    capPose.pos[2] = b[2]! + uz * height * sgn;
    for (let r = 0; r < 3; r++) {
      capPose.mat[3 * r] = sgn * m[3 * r]!;
      capPose.mat[3 * r + 1] = m[3 * r + 1]!;
      capPose.mat[3 * r + 2] = sgn * m[3 * r + 2]!;
    }
    const n = planeSphereAt(out, 0, capPose, a[0]!, a[1]!, a[2]!, sph.size[0]!, margin);
    if (n) {
      // the sphere is geom 1: the normal must point from it to the cylinder
      out[4] = -out[4]!; out[5] = -out[5]!; out[6] = -out[6]!;
    }
    return n;
  }
  const s = radius / Math.sqrt(pSqr);
  px *= s; py *= s; pz *= s;
  const hh = x > 0 ? height : -height;
  return sphereSphereAt(out, 0, a[0]!, a[1]!, a[2]!, sph.size[0]!, sph.mat,
    ux * hh + px + b[0]!, uy * hh + py + b[1]!, uz * hh + pz + b[2]!, 0, m, margin);
}

const capScratch: GeomPose = { pos: new Float64Array(3), mat: new Float64Array(9), size: new Float64Array(3) };
