/**
 * A spatial tendon's wrap around a sphere or a cylinder (MuJoCo's mju_wrap): the two tangent points where the
 * tendon from x0 to x1 leaves straight lines for the geom's surface, and the length along the surface, or -1
 * when the straight segment misses the geom. The 3D problem becomes a 2D circle wrap: in the plane through the
 * sphere's centre and both points, or in the cylinder's cross-section (the height then interpolated along the
 * path). A side site picks the side the tendon passes on; a side site inside the geom wraps from inside.
 */
import type { Real } from '../data/data.js';

const MINVAL = 1e-15;

// scratch (one wrap at a time per thread: a wrap allocates nothing)
const arcPts = new Float64Array(4);
const sol = new Float64Array(8);
const tmp2 = new Float64Array(2);
const vec2 = new Float64Array(2);
const local = new Float64Array(6);
const axis = new Float64Array(6);
const normal = new Float64Array(3);
const d2 = new Float64Array(4);
const side3 = new Float64Array(3);
const side2 = new Float64Array(2);
const pnt = new Float64Array(4);
const res = new Float64Array(6);

/** Whether 2D segments p1-p2 and p3-p4 (points at offsets in arrays) cross. */
function crosses(
  p1x: number, p1y: number, p2x: number, p2y: number, p3x: number, p3y: number, p4x: number, p4y: number,
): boolean {
  const det = (p4y - p3y) * (p2x - p1x) - (p4x - p3x) * (p2y - p1y);
  if (Math.abs(det) < MINVAL) return false;
  const a = ((p4x - p3x) * (p1y - p3y) - (p4y - p3y) * (p1x - p3x)) / det;
  const b = ((p2x - p1x) * (p1y - p3y) - (p2y - p1y) * (p1x - p3x)) / det;
  return a >= 0 && a <= 1 && b >= 0 && b <= 1;
}

/** Normalises 2D v in place as mju_normalize does ((1, 0) below MINVAL); returns the norm. */
function normalize2(v: Float64Array, o: number): number {
  const norm = Math.sqrt(v[o]! * v[o]! + v[o + 1]! * v[o + 1]!);
  if (norm < MINVAL) { v[o] = 1; v[o + 1] = 0; }
  else { const inv = 1 / norm; v[o] = v[o]! * inv; v[o + 1] = v[o + 1]! * inv; }
  return norm;
}

/** Arc length between 2D points on the circle, the long way round when `ind` says the solution goes so. */
function arcLength(p0x: number, p0y: number, p1x: number, p1y: number, ind: number, radius: number): number {
  const a = arcPts;
  a[0] = p0x; a[1] = p0y; a[2] = p1x; a[3] = p1y;
  normalize2(a, 0);
  normalize2(a, 2);
  let angle = Math.acos(a[0]! * a[2]! + a[1]! * a[3]!);
  const cross = p0y * p1x - p0x * p1y;
  if ((cross > 0 && ind) || (cross < 0 && !ind)) angle = 2 * Math.PI - angle;
  return radius * angle;
}

/** 2D wrap of end (x0 y0 x1 y1) around a circle at the origin; tangent points to pnt; -1 when none. */
function wrapCircle(pnt: Float64Array, end: Float64Array, side: Float64Array | null, radius: number): number {
  const sqlen0 = end[0]! * end[0]! + end[1]! * end[1]!;
  const sqlen1 = end[2]! * end[2]! + end[3]! * end[3]!;
  const sqrad = radius * radius;
  if (sqlen0 < sqrad || sqlen1 < sqrad || radius < MINVAL) return -1;
  const difx = end[2]! - end[0]!, dify = end[3]! - end[1]!;
  const dd = difx * difx + dify * dify;
  if (dd < MINVAL) return -1;
  // the segment's point nearest the centre: no wrap when it clears the circle (on the side site's side)
  let a = -(difx * end[0]! + dify * end[1]!) / dd;
  if (a < 0) a = 0; else if (a > 1) a = 1;
  const nx = a * difx + end[0]!, ny = a * dify + end[1]!;
  if (nx * nx + ny * ny > sqrad && (!side || side[0]! * nx + side[1]! * ny >= 0)) return -1;

  const sqrt0 = Math.sqrt(sqlen0 - sqrad), sqrt1 = Math.sqrt(sqlen1 - sqrad);
  const tmp = tmp2;
  let good0 = 0, good1 = 0;
  for (let i = 0; i < 2; i++) {
    const sgn = i === 0 ? 1 : -1, o = 4 * i;
    sol[o] = (end[0]! * sqrad + sgn * radius * end[1]! * sqrt0) / sqlen0;
    sol[o + 1] = (end[1]! * sqrad - sgn * radius * end[0]! * sqrt0) / sqlen0;
    sol[o + 2] = (end[2]! * sqrad - sgn * radius * end[3]! * sqrt1) / sqlen1;
    sol[o + 3] = (end[3]! * sqrad + sgn * radius * end[2]! * sqrt1) / sqlen1;
    // goodness: towards the side site, or else the shorter path
    let good: number;
    if (side) {
      tmp[0] = sol[o]! + sol[o + 2]!; tmp[1] = sol[o + 1]! + sol[o + 3]!;
      normalize2(tmp, 0);
      good = tmp[0]! * side[0]! + tmp[1]! * side[1]!;
    } else {
      tmp[0] = sol[o]! - sol[o + 2]!; tmp[1] = sol[o + 1]! - sol[o + 3]!;
      good = -(tmp[0]! * tmp[0]! + tmp[1]! * tmp[1]!);
    }
    if (crosses(end[0]!, end[1]!, sol[o]!, sol[o + 1]!, end[2]!, end[3]!, sol[o + 2]!, sol[o + 3]!)) good = -10000;
    if (i === 0) good0 = good; else good1 = good;
  }
  const i = good0 > good1 ? 0 : 1, o = 4 * i;
  for (let k = 0; k < 4; k++) pnt[k] = sol[o + k]!;
  if (crosses(end[0]!, end[1]!, pnt[0]!, pnt[1]!, end[2]!, end[3]!, pnt[2]!, pnt[3]!)) return -1;
  return arcLength(sol[o]!, sol[o + 1]!, sol[o + 2]!, sol[o + 3]!, i, radius);
}

/** 2D wrap from inside (side site within the circle): one tangent point found by Newton's method; 0 or -1. */
function wrapInside(pnt: Float64Array, end: Float64Array, radius: number): number {
  const maxiter = 20, zinit = 1 - 1e-7, tolerance = 1e-6;
  const len0 = Math.sqrt(end[0]! * end[0]! + end[1]! * end[1]!);
  const len1 = Math.sqrt(end[2]! * end[2]! + end[3]! * end[3]!);
  const difx = end[2]! - end[0]!, dify = end[3]! - end[1]!;
  const dd = difx * difx + dify * dify;
  if (len0 <= radius || len1 <= radius || radius < MINVAL || len0 < MINVAL || len1 < MINVAL) return -1;
  if (dd > MINVAL) {
    const a = -(difx * end[0]! + dify * end[1]!) / dd;
    if (a > 0 && a < 1) {
      const tx = end[0]! + difx * a, ty = end[1]! + dify * a;
      if (Math.sqrt(tx * tx + ty * ty) <= radius) return -1;
    }
  }
  // fallback on numerical failure: the direction of the endpoints' average
  pnt[0] = 0.5 * (end[0]! + end[2]!);
  pnt[1] = 0.5 * (end[1]! + end[3]!);
  normalize2(pnt, 0);
  pnt[0] = pnt[0]! * radius; pnt[1] = pnt[1]! * radius;
  pnt[2] = pnt[0]; pnt[3] = pnt[1];

  // solve asin(A z) + asin(B z) - 2 asin(z) + G = 0
  const A = radius / len0, B = radius / len1;
  const cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1);
  if (cosG < -1 + MINVAL) return -1;
  if (cosG > 1 - MINVAL) return 0;
  const G = Math.acos(cosG);
  const fOf = (z: number): number => Math.asin(A * z) + Math.asin(B * z) - 2 * Math.asin(z) + G;
  let z = zinit;
  let f = fOf(z);
  if (f > 0) return 0;
  let iter = 0;
  for (; iter < maxiter && Math.abs(f) > tolerance; iter++) {
    const df = A / Math.max(MINVAL, Math.sqrt(1 - z * z * A * A)) + B / Math.max(MINVAL, Math.sqrt(1 - z * z * B * B)) -
      2 / Math.max(MINVAL, Math.sqrt(1 - z * z));
    if (df > -MINVAL) return 0;
    const z1 = z - f / df;
    if (z1 > z) return 0;
    z = z1;
    f = fOf(z);
    if (f > tolerance) return 0;
  }
  if (iter >= maxiter) return 0;

  // rotate from the endpoint on the positive side by the solved angle
  const vec = vec2;
  let ang: number;
  if (end[0]! * end[3]! - end[1]! * end[2]! > 0) {
    vec[0] = end[0]!; vec[1] = end[1]!;
    ang = Math.asin(z) - Math.asin(A * z);
  } else {
    vec[0] = end[2]!; vec[1] = end[3]!;
    ang = Math.asin(z) - Math.asin(B * z);
  }
  normalize2(vec, 0);
  pnt[0] = radius * (Math.cos(ang) * vec[0]! - Math.sin(ang) * vec[1]!);
  pnt[1] = radius * (Math.sin(ang) * vec[0]! + Math.cos(ang) * vec[1]!);
  pnt[2] = pnt[0]; pnt[3] = pnt[1];
  return 0;
}

/** The geom a tendon wraps: its frame in env e of SoA geomXpos/geomXmat (n envs), radius and kind. */
export interface WrapGeom { xpos: Real; xmat: Real; n: number; e: number; geom: number; radius: number; cylinder: boolean }

/** p - x (3 from offset po) in the geom's frame: xmat' (p - xpos), into out at oo. */
function toLocal(out: Float64Array, oo: number, p: ArrayLike<number>, po: number, g: WrapGeom): void {
  const { xpos, xmat, n, e, geom } = g;
  const tx = p[po]! - xpos[3 * geom * n + e]!, ty = p[po + 1]! - xpos[(3 * geom + 1) * n + e]!, tz = p[po + 2]! - xpos[(3 * geom + 2) * n + e]!;
  const M = (k: number): number => xmat[(9 * geom + k) * n + e]!;
  out[oo] = M(0) * tx + M(3) * ty + M(6) * tz;
  out[oo + 1] = M(1) * tx + M(4) * ty + M(7) * tz;
  out[oo + 2] = M(2) * tx + M(5) * ty + M(8) * tz;
}

function normalize3(v: Float64Array, o: number): number {
  const norm = Math.sqrt(v[o]! * v[o]! + v[o + 1]! * v[o + 1]! + v[o + 2]! * v[o + 2]!);
  if (norm < MINVAL) { v[o] = 1; v[o + 1] = 0; v[o + 2] = 0; }
  else { const inv = 1 / norm; v[o] = v[o]! * inv; v[o + 1] = v[o + 1]! * inv; v[o + 2] = v[o + 2]! * inv; }
  return norm;
}

function cross3(out: Float64Array, oo: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!;
  out[oo] = ay * bz - az * by;
  out[oo + 1] = az * bx - ax * bz;
  out[oo + 2] = ax * by - ay * bx;
}

const dot3 = (a: Float64Array, ao: number, b: Float64Array, bo: number): number =>
  a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]!;

/**
 * Wraps the tendon from pts[a..a+3] to pts[b..b+3] around geom g, with the side site at pts[side..side+3] (side
 * -1: none). Writes the two tangent points (world) to wpnt (6) and returns the length along the surface, or -1
 * for no wrap.
 */
export function wrapGeom(wpnt: Float64Array, pts: Float64Array, a: number, b: number, side: number, g: WrapGeom): number {
  const radius = g.radius;
  const p = local;
  toLocal(p, 0, pts, a, g);
  toLocal(p, 3, pts, b, g);
  if (Math.sqrt(dot3(p, 0, p, 0)) < MINVAL || Math.sqrt(dot3(p, 3, p, 3)) < MINVAL) return -1;

  // the 2D frame: the plane of the centre and both points (sphere), the cross-section (cylinder)
  if (!g.cylinder) {
    axis[0] = p[0]!; axis[1] = p[1]!; axis[2] = p[2]!;
    normalize3(axis, 0);
    cross3(normal, 0, p, 0, p, 3);
    const nrm = normalize3(normal, 0);
    if (nrm < MINVAL) {
      // p0 and p1 parallel: a normal from the axis and a vector off its largest component
      let i = 0;
      const ab = [Math.abs(axis[0]!), Math.abs(axis[1]!), Math.abs(axis[2]!)];
      if (ab[1]! > ab[0]! && ab[1]! > ab[2]!) i = 1;
      if (ab[2]! > ab[0]! && ab[2]! > ab[1]!) i = 2;
      axis[3] = 1; axis[4] = 1; axis[5] = 1; axis[3 + i] = 0;
      cross3(normal, 0, axis, 0, axis, 3);
      normalize3(normal, 0);
    }
    cross3(axis, 3, normal, 0, axis, 0);
    normalize3(axis, 3);
  } else {
    axis.fill(0);
    axis[0] = 1; axis[4] = 1;
  }
  const d = d2;
  d[0] = dot3(p, 0, axis, 0); d[1] = dot3(p, 0, axis, 3); d[2] = dot3(p, 3, axis, 0); d[3] = dot3(p, 3, axis, 3);

  let sd: Float64Array | null = null;
  let inside = false;
  if (side >= 0) {
    const s = side3;
    toLocal(s, 0, pts, side, g);
    sd = side2;
    sd[0] = dot3(s, 0, axis, 0); sd[1] = dot3(s, 0, axis, 3);
    normalize2(sd, 0);
    sd[0] = sd[0]! * radius; sd[1] = sd[1]! * radius;
    inside = Math.sqrt(dot3(s, 0, s, 0)) < radius;
  }
  let wlen = inside ? wrapInside(pnt, d, radius) : wrapCircle(pnt, d, sd, radius);
  if (wlen < 0) return -1;

  // back to 3D in the geom's frame
  for (let i = 0; i < 2; i++) {
    for (let k = 0; k < 3; k++) res[3 * i + k] = axis[k]! * pnt[2 * i]! + axis[3 + k]! * pnt[2 * i + 1]!;
  }
  if (g.cylinder) {
    // heights interpolated along the unrolled path, the wrap's length including its rise
    const L0 = Math.sqrt((p[0]! - res[0]!) * (p[0]! - res[0]!) + (p[1]! - res[1]!) * (p[1]! - res[1]!));
    const L1 = Math.sqrt((p[3]! - res[3]!) * (p[3]! - res[3]!) + (p[4]! - res[4]!) * (p[4]! - res[4]!));
    res[2] = p[2]! + ((p[5]! - p[2]!) * L0) / (L0 + wlen + L1);
    res[5] = p[2]! + ((p[5]! - p[2]!) * (L0 + wlen)) / (L0 + wlen + L1);
    const height = Math.abs(res[5]! - res[2]!);
    wlen = Math.sqrt(wlen * wlen + height * height);
  }
  const { xpos, xmat, n, e, geom } = g;
  const M = (k: number): number => xmat[(9 * geom + k) * n + e]!;
  for (let i = 0; i < 2; i++) {
    for (let r = 0; r < 3; r++) {
      wpnt[3 * i + r] = M(3 * r) * res[3 * i]! + M(3 * r + 1) * res[3 * i + 1]! + M(3 * r + 2) * res[3 * i + 2]! + xpos[(3 * geom + r) * n + e]!;
    }
  }
  return wlen;
}
