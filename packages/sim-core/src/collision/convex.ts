/**
 * General convex collision, as MuJoCo 3.3 computes it with its native ccd (engine_collision_gjk.c, mjc_ccd,
 * called by mjc_Convex in engine_collision_convex.c): GJK finds the distance between two convex shapes given by
 * support functions, or a simplex around the origin of their Minkowski difference when they overlap; EPA then
 * expands that simplex into a polytope until its face nearest the origin gives the penetration depth, the
 * normal and a witness point on each shape. Spheres and capsules are shrunk to their core point or segment
 * first (their radius becomes a margin), so shallow contacts with them need GJK only.
 *
 * The steps, tolerances, tie-breaks and the order of floating-point operations follow MuJoCo's, because the
 * contact point and normal of a resting contact feed back into the motion: only the same arithmetic keeps a
 * trajectory within 1e-9 of MuJoCo's over hundreds of steps. One pair gives one contact (MuJoCo's multi-point
 * search runs only for box and mesh pairs under the multiccd flag, which the loader refuses).
 *
 * Everything runs on module scratch: the narrow phase of one thread runs one pair at a time.
 */
import { GeomType } from '../model/model.js';
import { MINVAL, type GeomPose, makeGeomPose, type NarrowPhase, setContact } from './contact.js';
import { lineSupport, pointSupport, type Support } from './support.js';

export type { Support } from './support.js';

/** mjOption defaults (ccd_tolerance, ccd_iterations). */
export const CCD_TOLERANCE = 1e-6;
export const CCD_ITERATIONS = 35;

/** One side of a convex pair: its pose, its type (spheres, capsules and polytopes get special handling) and its support. */
export interface ConvexShape {
  pose: GeomPose;
  type: number;
  support: Support;
  /** Where GJK starts on this shape, when not at the pose's position (a height field prism's centroid). */
  center?: Float64Array;
}

const MINVAL2 = MINVAL * MINVAL;
const MAXVAL2 = 1e10 * 1e10;
const MAX_LIMIT = Number.MAX_VALUE;
/** mjMAX_EPA_ITERATIONS: MuJoCo's static polytope storage covers this many iterations. */
const MAX_EPA_ITERATIONS = 170;

// A vertex of the simplex or polytope is 9 numbers (the Minkowski point, then its points on shape 1 and shape 2)
// and 2 indices (the support vertices of polytope shapes).
const VS = 9;

// ---------------------------------------------------------------------------------------------------------------
// one ccd run's state (mjCCDStatus and the two mjCCDObj)

let obj1: ConvexShape, obj2: ConvexShape;
let support1: Support, support2: Support;
let margin1 = 0, margin2 = 0;
let tolerance = CCD_TOLERANCE;
let maxIterations = CCD_ITERATIONS;
let distCutoff = 0;
let gjkIterations = 0;
let dist = 0;
let nx = 0;
let nsimplex = 0;
const x1 = new Float64Array(3), x2 = new Float64Array(3);
const simplex = new Float64Array(4 * VS);
const simplexIdx = new Int32Array(8);

// polytope
let capacity = 0;
let pverts = new Float64Array(0);
let pvertIdx = new Int32Array(0);
let nverts = 0;
let maxfaces = 0;
let faceVerts = new Int32Array(0);
let faceAdj = new Int32Array(0);
let faceV = new Float64Array(0);
let faceDist2 = new Float64Array(0);
let faceIndex = new Int32Array(0);
let nfaces = 0;
let map = new Int32Array(0);
let nmap = 0;
let horIndices = new Int32Array(0);
let horEdges = new Int32Array(0);
let nedges = 0;
let horW = 0; // offset of w in pverts

function ensureCapacity(iterations: number): void {
  const n = Math.max(iterations, MAX_EPA_ITERATIONS);
  if (n <= capacity) return;
  capacity = n;
  maxfaces = 6 * n;
  pverts = new Float64Array((5 + n) * VS);
  pvertIdx = new Int32Array((5 + n) * 2);
  faceVerts = new Int32Array(3 * maxfaces);
  faceAdj = new Int32Array(3 * maxfaces);
  faceV = new Float64Array(3 * maxfaces);
  faceDist2 = new Float64Array(maxfaces);
  faceIndex = new Int32Array(maxfaces);
  map = new Int32Array(maxfaces);
  // the horizon has fewer edges than the polytope has faces
  horIndices = new Int32Array(maxfaces);
  horEdges = new Int32Array(maxfaces);
}

// ---------------------------------------------------------------------------------------------------------------
// small vector helpers over (array, offset)

const dot3 = (a: Float64Array, i: number, b: Float64Array, j: number): number =>
  a[i]! * b[j]! + a[i + 1]! * b[j + 1]! + a[i + 2]! * b[j + 2]!;

/** det of the 3x3 matrix with columns v1, v2, v3: v1 . (v2 x v3) */
function det3(a: Float64Array, i: number, b: Float64Array, j: number, c: Float64Array, k: number): number {
  return a[i]! * (b[j + 1]! * c[k + 2]! - b[j + 2]! * c[k + 1]!)
    + a[i + 1]! * (b[j + 2]! * c[k]! - b[j]! * c[k + 2]!)
    + a[i + 2]! * (b[j]! * c[k + 1]! - b[j + 1]! * c[k]!);
}

/** res = sum of coef[c] * v_c for c < n; the vectors are at the given offsets of `src`, component `comp`. */
function lincomb(res: Float64Array, r: number, coef: Float64Array, n: number, src: Float64Array,
  o1: number, o2: number, o3: number, o4: number): void {
  for (let i = 0; i < 3; i++) {
    switch (n) {
      case 1: res[r + i] = coef[0]! * src[o1 + i]!; break;
      case 2: res[r + i] = coef[0]! * src[o1 + i]! + coef[1]! * src[o2 + i]!; break;
      case 3: res[r + i] = coef[0]! * src[o1 + i]! + coef[1]! * src[o2 + i]! + coef[2]! * src[o3 + i]!; break;
      case 4:
        res[r + i] = coef[0]! * src[o1 + i]! + coef[1]! * src[o2 + i]! + coef[2]! * src[o3 + i]! + coef[3]! * src[o4 + i]!;
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// support points of the Minkowski difference

function isPolytope(type: number): boolean {
  return type === GeomType.Mesh || type === GeomType.Box || type === GeomType.HField;
}

/** Both shapes are polytopes without margin: GJK and EPA converge exactly, so they run without tolerance. */
function discreteShapes(): boolean {
  if (margin1 !== 0 || margin2 !== 0) return false;
  return isPolytope(obj1.type) && isPolytope(obj2.type);
}

/** Vertex at offset `o` of `buf` (indices at `io` of `idx`) = S1(dir) - S2(-dir), each inflated by half its margin. */
function support(buf: Float64Array, o: number, idx: Int32Array, io: number,
  dx: number, dy: number, dz: number, nx_: number, ny: number, nz: number): void {
  idx[io] = support1(obj1.pose, dx, dy, dz, buf, o + 3);
  if (margin1 > 0) {
    const m = 0.5 * margin1;
    buf[o + 3] = buf[o + 3]! + dx * m; buf[o + 4] = buf[o + 4]! + dy * m; buf[o + 5] = buf[o + 5]! + dz * m;
  }
  idx[io + 1] = support2(obj2.pose, nx_, ny, nz, buf, o + 6);
  if (margin2 > 0) {
    const m = 0.5 * margin2;
    buf[o + 6] = buf[o + 6]! + nx_ * m; buf[o + 7] = buf[o + 7]! + ny * m; buf[o + 8] = buf[o + 8]! + nz * m;
  }
  buf[o] = buf[o + 3]! - buf[o + 6]!;
  buf[o + 1] = buf[o + 4]! - buf[o + 7]!;
  buf[o + 2] = buf[o + 5]! - buf[o + 8]!;
}

// ---------------------------------------------------------------------------------------------------------------
// GJK

const lambda = new Float64Array(4);
const xk = new Float64Array(3);
const xnext = new Float64Array(3);

function noContact(): void {
  nsimplex = 0;
  nx = 0;
  dist = MAX_LIMIT;
}

function copyVertex(dst: Float64Array, dIdx: Int32Array, d: number, src: Float64Array, sIdx: Int32Array, s: number): void {
  for (let i = 0; i < VS; i++) dst[d * VS + i] = src[s * VS + i]!;
  dIdx[2 * d] = sIdx[2 * s]!;
  dIdx[2 * d + 1] = sIdx[2 * s + 1]!;
}

function gjk(): void {
  const getDist = distCutoff > 0;
  let backup = !getDist;
  let n = 0;
  let k = 0;
  const cutoff2 = distCutoff * distCutoff;
  const epsilon = discreteShapes() ? 0 : 0.5 * tolerance * tolerance;
  let xNorm = 0;
  lambda[0] = 1; lambda[1] = 0; lambda[2] = 0; lambda[3] = 0;
  xk[0] = x1[0]! - x2[0]!; xk[1] = x1[1]! - x2[1]!; xk[2] = x1[2]! - x2[2]!;

  for (; k < maxIterations; k++) {
    xNorm = dot3(xk, 0, xk, 0);
    if (xNorm < MINVAL2) break;
    xNorm = Math.sqrt(xNorm);
    // support along -x_k (the direction is normalised as the support functions expect)
    const s = 1 / xNorm;
    const ndx = xk[0]! * s, ndy = xk[1]! * s, ndz = xk[2]! * s;
    const o = n * VS;
    support(simplex, o, simplexIdx, 2 * n, -ndx, -ndy, -ndz, ndx, ndy, ndz);

    // Frank-Wolfe duality gap
    const gx = xk[0]! - simplex[o]!, gy = xk[1]! - simplex[o + 1]!, gz = xk[2]! - simplex[o + 2]!;
    if (xk[0]! * gx + xk[1]! * gy + xk[2]! * gz < epsilon) {
      if (!k) n = 1;
      break;
    }

    // a separating plane: no contact (or too far, when distances are wanted)
    if (!getDist) {
      if (dot3(xk, 0, simplex, o) > 0) {
        gjkIterations = k;
        noContact();
        return;
      }
    } else if (distCutoff < MAX_LIMIT) {
      const vs = dot3(xk, 0, simplex, o), vv = dot3(xk, 0, xk, 0);
      if (dot3(xk, 0, simplex, o) > 0 && (vs * vs) / vv >= cutoff2) {
        gjkIterations = k;
        noContact();
        return;
      }
    }

    // with a tetrahedron and only contact wanted, a cheaper test decides
    if (n === 3 && backup) {
      gjkIterations = k;
      const ret = gjkIntersect();
      if (ret !== -1) {
        nx = 0;
        dist = ret > 0 ? 0 : MAX_LIMIT;
        return;
      }
      k = gjkIterations;
      backup = false;
    }

    subdistance(n + 1);

    n = 0;
    for (let i = 0; i < 4; i++) {
      if (lambda[i] === 0) continue;
      if (n !== i) copyVertex(simplex, simplexIdx, n, simplex, simplexIdx, i);
      lambda[n++] = lambda[i]!;
    }
    if (n < 1) {
      gjkIterations = k;
      noContact();
      return;
    }

    lincomb(xnext, 0, lambda, n, simplex, 0, VS, 2 * VS, 3 * VS);
    if (Math.abs(xnext[0]! - xk[0]!) < MINVAL && Math.abs(xnext[1]! - xk[1]!) < MINVAL && Math.abs(xnext[2]! - xk[2]!) < MINVAL) {
      break;
    }
    xk[0] = xnext[0]!; xk[1] = xnext[1]!; xk[2] = xnext[2]!;
    if (n === 4) {
      xNorm = 0;
      break;
    }
  }

  // witness points
  lincomb(x1, 0, lambda, n, simplex, 3, VS + 3, 2 * VS + 3, 3 * VS + 3);
  lincomb(x2, 0, lambda, n, simplex, 6, VS + 6, 2 * VS + 6, 3 * VS + 6);
  nx = 1;
  gjkIterations = k;
  nsimplex = n;
  dist = xNorm;
}

// gjkIntersect's own copy of the simplex, its face normals and distances
const isx = new Float64Array(4 * VS);
const isxIdx = new Int32Array(8);
const normals = new Float64Array(12);
const sdist = new Float64Array(4);
const perm = new Int32Array(4);

/** Signed distance of the face (a, b, c) of isx from the origin; its unit normal goes to normals[no]. */
function signedDistance(no: number, a: number, b: number, c: number): number {
  const ao = a * VS, bo = b * VS, co = c * VS;
  const d1x = isx[co]! - isx[ao]!, d1y = isx[co + 1]! - isx[ao + 1]!, d1z = isx[co + 2]! - isx[ao + 2]!;
  const d2x = isx[bo]! - isx[ao]!, d2y = isx[bo + 1]! - isx[ao + 1]!, d2z = isx[bo + 2]! - isx[ao + 2]!;
  let nxx = d1y * d2z - d1z * d2y, nyy = d1z * d2x - d1x * d2z, nzz = d1x * d2y - d1y * d2x;
  const norm2 = nxx * nxx + nyy * nyy + nzz * nzz;
  if (norm2 > MINVAL2 && norm2 < MAXVAL2) {
    const s = 1 / Math.sqrt(norm2);
    nxx *= s; nyy *= s; nzz *= s;
    normals[no] = nxx; normals[no + 1] = nyy; normals[no + 2] = nzz;
    return nxx * isx[ao]! + nyy * isx[ao + 1]! + nzz * isx[ao + 2]!;
  }
  normals[no] = nxx; normals[no + 1] = nyy; normals[no + 2] = nzz;
  return MAX_LIMIT;
}

/** 1: the tetrahedron can be grown to contain the origin (contact); 0: separated; -1: undecided. */
function gjkIntersect(): number {
  for (let i = 0; i < 4; i++) {
    copyVertex(isx, isxIdx, i, simplex, simplexIdx, i);
    perm[i] = i;
  }
  let k = gjkIterations;
  for (; k < maxIterations; k++) {
    sdist[0] = signedDistance(0, perm[2]!, perm[1]!, perm[3]!);
    sdist[1] = signedDistance(3, perm[0]!, perm[2]!, perm[3]!);
    sdist[2] = signedDistance(6, perm[1]!, perm[0]!, perm[3]!);
    sdist[3] = signedDistance(9, perm[0]!, perm[1]!, perm[2]!);

    // the origin on a face's plane: this test cannot converge
    if (sdist[3] === 0 || sdist[2] === 0 || sdist[1] === 0 || sdist[0] === 0) {
      gjkIterations = k;
      return -1;
    }

    let i = sdist[0]! < sdist[1]! ? 0 : 1;
    let j = sdist[2]! < sdist[3]! ? 2 : 3;
    const index = sdist[i]! < sdist[j]! ? i : j;

    // origin inside: EPA takes this tetrahedron
    if (sdist[index]! > 0) {
      nsimplex = 4;
      for (let v = 0; v < 4; v++) copyVertex(simplex, simplexIdx, v, isx, isxIdx, perm[v]!);
      gjkIterations = k;
      return 1;
    }

    // replace the vertex opposite the face nearest the origin by the support beyond that face
    const no = 3 * index, vo = perm[index]! * VS;
    const ddx = normals[no]!, ddy = normals[no + 1]!, ddz = normals[no + 2]!;
    support(isx, vo, isxIdx, 2 * perm[index]!, ddx, ddy, ddz, -ddx, -ddy, -ddz);
    if (ddx * isx[vo]! + ddy * isx[vo + 1]! + ddz * isx[vo + 2]! < 0) {
      nsimplex = 0;
      gjkIterations = k;
      return 0;
    }

    // keep the orientation
    i = (index + 1) & 3;
    j = (index + 2) & 3;
    const swap = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = swap;
  }
  gjkIterations = k;
  return -1;
}

// ---------------------------------------------------------------------------------------------------------------
// GJK's distance subalgorithm (Montanari et al., ToG 2017): barycentric coordinates of the simplex point nearest
// the origin

const sameSign2 = (a: number, b: number): number => (a > 0 && b > 0 ? 1 : a < 0 && b < 0 ? -1 : 0);

const po = new Float64Array(3);
const tmpv = new Float64Array(3);

/**
 * res = the origin projected on the plane through point p of v with normal n. With `checked`, a zero normal
 * gives 1 (degenerate) and a normal too short or a plane through the origin gives 2 (try another normal).
 */
function projectAlong(res: Float64Array, r: number, nx_: number, ny: number, nz: number, v: Float64Array, p: number,
  checked: boolean): number {
  const nv = nx_ * v[p]! + ny * v[p + 1]! + nz * v[p + 2]!;
  const nn = nx_ * nx_ + ny * ny + nz * nz;
  if (checked) {
    if (nn === 0) return 1;
    if (!(nv !== 0 && nn > MINVAL)) return 2;
  }
  const s = nv / nn;
  res[r] = nx_ * s; res[r + 1] = ny * s; res[r + 2] = nz * s;
  return 0;
}

/**
 * Origin projected on the plane through a, b, c (all in one array); returns true when the plane is degenerate.
 * Of the three cross products of the edges, the first that is usable gives the normal.
 */
function projectOriginPlane(res: Float64Array, r: number, v: Float64Array, a: number, b: number, c: number): boolean {
  const d21x = v[b]! - v[a]!, d21y = v[b + 1]! - v[a + 1]!, d21z = v[b + 2]! - v[a + 2]!;
  const d31x = v[c]! - v[a]!, d31y = v[c + 1]! - v[a + 1]!, d31z = v[c + 2]! - v[a + 2]!;
  const d32x = v[c]! - v[b]!, d32y = v[c + 1]! - v[b + 1]!, d32z = v[c + 2]! - v[b + 2]!;
  // (v3 - v2) x (v2 - v1) through v2
  let k = projectAlong(res, r, d32y * d21z - d32z * d21y, d32z * d21x - d32x * d21z, d32x * d21y - d32y * d21x, v, b, true);
  if (k !== 2) return k === 1;
  // (v2 - v1) x (v3 - v1) through v1
  k = projectAlong(res, r, d21y * d31z - d21z * d31y, d21z * d31x - d21x * d31z, d21x * d31y - d21y * d31x, v, a, true);
  if (k !== 2) return k === 1;
  // (v3 - v1) x (v3 - v2) through v3
  projectAlong(res, r, d31y * d32z - d31z * d32y, d31z * d32x - d31x * d32z, d31x * d32y - d31y * d32x, v, c, false);
  return false;
}

function subdistance(n: number): void {
  lambda[0] = 0; lambda[1] = 0; lambda[2] = 0; lambda[3] = 0;
  switch (n) {
    case 4: S3D(); break;
    case 3: S2D(lambda, 0, VS, 2 * VS); break;
    case 2: S1D(lambda, 0, 0, VS); break;
    default: lambda[0] = 1;
  }
}

const l2d = new Float64Array(3);
const l1d = new Float64Array(2);

/** Squared norm of sum lam[c] * simplex vertex c (at offsets a, b, c). */
function normSqr(lam: Float64Array, n: number, a: number, b: number, c: number): number {
  lincomb(tmpv, 0, lam, n, simplex, a, b, c, 0);
  return dot3(tmpv, 0, tmpv, 0);
}

/** [C31, C32, C33, M]: signed areas of (p, v2, v3), (p, v1, v3), (p, v1, v2) and of the triangle, in its plane of largest shadow. */
const cof = new Float64Array(4);

/** The cofactors of triangle (a, b, c) of v and point p of pa, as S2D and triAffineCoord use them (into cof). */
function triangleCofactors(v: Float64Array, a: number, b: number, c: number, pa: Float64Array, p: number): void {
  const M14 = v[b + 1]! * v[c + 2]! - v[b + 2]! * v[c + 1]! - v[a + 1]! * v[c + 2]! + v[a + 2]! * v[c + 1]!
    + v[a + 1]! * v[b + 2]! - v[a + 2]! * v[b + 1]!;
  const M24 = v[b]! * v[c + 2]! - v[b + 2]! * v[c]! - v[a]! * v[c + 2]! + v[a + 2]! * v[c]!
    + v[a]! * v[b + 2]! - v[a + 2]! * v[b]!;
  const M34 = v[b]! * v[c + 1]! - v[b + 1]! * v[c]! - v[a]! * v[c + 1]! + v[a + 1]! * v[c]!
    + v[a]! * v[b + 1]! - v[a + 1]! * v[b]!;

  // drop the axis along which the triangle's projection is largest
  let Mmax: number, x: number, y: number;
  const mu1 = Math.abs(M14), mu2 = Math.abs(M24), mu3 = Math.abs(M34);
  if (mu1 >= mu2 && mu1 >= mu3) { Mmax = M14; x = 1; y = 2; } else if (mu2 >= mu3) { Mmax = M24; x = 0; y = 2; } else { Mmax = M34; x = 0; y = 1; }
  const s1x = v[a + x]!, s1y = v[a + y]!, s2x = v[b + x]!, s2y = v[b + y]!, s3x = v[c + x]!, s3y = v[c + y]!;
  const px = pa[p + x]!, py = pa[p + y]!;
  cof[0] = px * s2y + py * s3x + s2x * s3y - px * s3y - py * s2x - s3x * s2y;
  cof[1] = px * s3y + py * s1x + s3x * s1y - px * s1y - py * s3x - s1x * s3y;
  cof[2] = px * s1y + py * s2x + s1x * s2y - px * s2y - py * s1x - s2x * s1y;
  cof[3] = Mmax;
}

function S3D(): void {
  const s1 = 0, s2 = VS, s3 = 2 * VS, s4 = 3 * VS;
  const C41 = -det3(simplex, s2, simplex, s3, simplex, s4);
  const C42 = det3(simplex, s1, simplex, s3, simplex, s4);
  const C43 = -det3(simplex, s1, simplex, s2, simplex, s4);
  const C44 = det3(simplex, s1, simplex, s2, simplex, s3);
  const mdet = C41 + C42 + C43 + C44;
  const comp1 = sameSign2(mdet, C41), comp2 = sameSign2(mdet, C42);
  const comp3 = sameSign2(mdet, C43), comp4 = sameSign2(mdet, C44);
  if (comp1 && comp2 && comp3 && comp4) {
    lambda[0] = C41 / mdet; lambda[1] = C42 / mdet; lambda[2] = C43 / mdet; lambda[3] = C44 / mdet;
    return;
  }

  // the nearest of the faces whose sign differs
  let dmin = MAX_LIMIT;
  if (!comp1) {
    S2D(l2d, s2, s3, s4);
    dmin = normSqr(l2d, 3, s2, s3, s4);
    lambda[0] = 0; lambda[1] = l2d[0]!; lambda[2] = l2d[1]!; lambda[3] = l2d[2]!;
  }
  if (!comp2) {
    S2D(l2d, s1, s3, s4);
    const d = normSqr(l2d, 3, s1, s3, s4);
    if (d < dmin) {
      lambda[0] = l2d[0]!; lambda[1] = 0; lambda[2] = l2d[1]!; lambda[3] = l2d[2]!;
      dmin = d;
    }
  }
  if (!comp3) {
    S2D(l2d, s1, s2, s4);
    const d = normSqr(l2d, 3, s1, s2, s4);
    if (d < dmin) {
      lambda[0] = l2d[0]!; lambda[1] = l2d[1]!; lambda[2] = 0; lambda[3] = l2d[2]!;
      dmin = d;
    }
  }
  if (!comp4) {
    S2D(l2d, s1, s2, s3);
    const d = normSqr(l2d, 3, s1, s2, s3);
    if (d < dmin) {
      lambda[0] = l2d[0]!; lambda[1] = l2d[1]!; lambda[2] = l2d[2]!;
    }
  }
}

/** Coordinates in `lam` (3) of the point of triangle (a, b, c) of the simplex nearest the origin. */
function S2D(lam: Float64Array, a: number, b: number, c: number): void {
  const v = simplex;
  if (projectOriginPlane(po, 0, v, a, b, c)) {
    S1D(lam, 0, a, b);
    lam[2] = 0;
    return;
  }
  triangleCofactors(v, a, b, c, po, 0);
  const C31 = cof[0]!, C32 = cof[1]!, C33 = cof[2]!, Mmax = cof[3]!;
  const comp1 = sameSign2(Mmax, C31), comp2 = sameSign2(Mmax, C32), comp3 = sameSign2(Mmax, C33);
  if (comp1 && comp2 && comp3) {
    lam[0] = C31 / Mmax; lam[1] = C32 / Mmax; lam[2] = C33 / Mmax;
    return;
  }

  let dmin = MAX_LIMIT;
  if (!comp1) {
    S1D(l1d, 0, b, c);
    dmin = normSqr(l1d, 2, b, c, 0);
    lam[0] = 0; lam[1] = l1d[0]!; lam[2] = l1d[1]!;
  }
  if (!comp2) {
    S1D(l1d, 0, a, c);
    const d = normSqr(l1d, 2, a, c, 0);
    if (d < dmin) {
      lam[0] = l1d[0]!; lam[1] = 0; lam[2] = l1d[1]!;
      dmin = d;
    }
  }
  if (!comp3) {
    S1D(l1d, 0, a, b);
    const d = normSqr(l1d, 2, a, b, 0);
    if (d < dmin) {
      lam[0] = l1d[0]!; lam[1] = l1d[1]!; lam[2] = 0;
    }
  }
}

/** Coordinates (lam[l], lam[l+1]) of the point of segment (a, b) of the simplex nearest the origin. */
function S1D(lam: Float64Array, l: number, a: number, b: number): void {
  const v = simplex;
  // origin projected on the line: p = v2 - <v2, v2 - v1> / |v2 - v1|^2 (v2 - v1)
  const dx = v[b]! - v[a]!, dy = v[b + 1]! - v[a + 1]!, dz = v[b + 2]! - v[a + 2]!;
  const scl = -((v[b]! * dx + v[b + 1]! * dy + v[b + 2]! * dz) / (dx * dx + dy * dy + dz * dz));
  po[0] = v[b]! + scl * dx; po[1] = v[b + 1]! + scl * dy; po[2] = v[b + 2]! + scl * dz;

  // the axis with the largest shadow of the segment
  let mu = v[a]! - v[b]!;
  let muMax = mu;
  let index = 0;
  mu = v[a + 1]! - v[b + 1]!;
  if (Math.abs(mu) >= Math.abs(muMax)) { muMax = mu; index = 1; }
  mu = v[a + 2]! - v[b + 2]!;
  if (Math.abs(mu) >= Math.abs(muMax)) { muMax = mu; index = 2; }

  const C1 = po[index]! - v[b + index]!;
  const C2 = v[a + index]! - po[index]!;
  const same = sameSign2(muMax, C1) && sameSign2(muMax, C2);
  lam[l] = same ? C1 / muMax : 0;
  lam[l + 1] = same ? C2 / muMax : 1;
}

// ---------------------------------------------------------------------------------------------------------------
// EPA: the initial polytope

const EPA_OK = 0;
const EPA_FAIL = 1;

function insertVertex(src: Float64Array, sIdx: Int32Array, s: number): number {
  const n = nverts++;
  copyVertex(pverts, pvertIdx, n, src, sIdx, s);
  return n;
}

function epaSupport(d: Float64Array, o: number, dnorm: number): number {
  let dx = 1, dy = 0, dz = 0, ndx = -1, ndy = 0, ndz = 0;
  if (dnorm > MINVAL) {
    dx = d[o]! / dnorm; dy = d[o + 1]! / dnorm; dz = d[o + 2]! / dnorm;
    ndx = -dx; ndy = -dy; ndz = -dz;
  }
  const n = nverts++;
  support(pverts, n * VS, pvertIdx, 2 * n, dx, dy, dz, ndx, ndy, ndz);
  return n;
}

/** Adds a face; returns its squared distance to the origin (0 when its plane is degenerate). */
function attachFace(v1: number, v2: number, v3: number, adj1: number, adj2: number, adj3: number): number {
  const f = nfaces++;
  faceVerts[3 * f] = v1; faceVerts[3 * f + 1] = v2; faceVerts[3 * f + 2] = v3;
  faceAdj[3 * f] = adj1; faceAdj[3 * f + 1] = adj2; faceAdj[3 * f + 2] = adj3;
  if (projectOriginPlane(faceV, 3 * f, pverts, v3 * VS, v2 * VS, v1 * VS)) return 0;
  const d2 = faceV[3 * f]! * faceV[3 * f]! + faceV[3 * f + 1]! * faceV[3 * f + 1]! + faceV[3 * f + 2]! * faceV[3 * f + 2]!;
  faceDist2[f] = d2;
  faceIndex[f] = -1;
  return d2;
}

function mapAll(count: number): void {
  for (let i = 0; i < count; i++) {
    map[i] = i;
    faceIndex[i] = i;
  }
  nmap = count;
}

/** Restart from the triangle (v1, v2, v3) of the polytope as GJK's simplex. */
function replaceSimplex3(v1: number, v2: number, v3: number): void {
  nsimplex = 3;
  copyVertex(simplex, simplexIdx, 0, pverts, pvertIdx, v1);
  copyVertex(simplex, simplexIdx, 1, pverts, pvertIdx, v2);
  copyVertex(simplex, simplexIdx, 2, pverts, pvertIdx, v3);
  nfaces = 0;
  nverts = 0;
  nmap = 0;
}

/** True when the origin and p3 are strictly on the same side of the plane (p0, p1, p2); points in pverts. */
function sameSide(p0: number, p1: number, p2: number, p3: number): boolean {
  const v = pverts;
  const d1x = v[p1]! - v[p0]!, d1y = v[p1 + 1]! - v[p0 + 1]!, d1z = v[p1 + 2]! - v[p0 + 2]!;
  const d2x = v[p2]! - v[p0]!, d2y = v[p2 + 1]! - v[p0 + 1]!, d2z = v[p2 + 2]! - v[p0 + 2]!;
  const nx_ = d1y * d2z - d1z * d2y, ny = d1z * d2x - d1x * d2z, nz = d1x * d2y - d1y * d2x;
  const dot1 = nx_ * (v[p3]! - v[p0]!) + ny * (v[p3 + 1]! - v[p0 + 1]!) + nz * (v[p3 + 2]! - v[p0 + 2]!);
  const dot2 = nx_ * (v[p0]! * -1) + ny * (v[p0 + 1]! * -1) + nz * (v[p0 + 2]! * -1);
  return (dot1 > 0 && dot2 > 0) || (dot1 < 0 && dot2 < 0);
}

function testTetra(p0: number, p1: number, p2: number, p3: number): boolean {
  return sameSide(p0, p1, p2, p3) && sameSide(p1, p2, p3, p0) && sameSide(p2, p3, p0, p1) && sameSide(p3, p0, p1, p2);
}

/** Sign of the crossing of ray (v1, v2) with triangle (v3, v4, v5): 1, -1, or 0 when it misses. */
function rayTriangle(v1: number, v2: number, v3: number, v4: number, v5: number): number {
  const v = pverts;
  const d12 = tri0, d13 = tri1, d14 = tri2, d15 = tri3;
  for (let i = 0; i < 3; i++) {
    d12[i] = v[v2 + i]! - v[v1 + i]!;
    d13[i] = v[v3 + i]! - v[v1 + i]!;
    d14[i] = v[v4 + i]! - v[v1 + i]!;
    d15[i] = v[v5 + i]! - v[v1 + i]!;
  }
  const vol1 = det3(d13, 0, d14, 0, d12, 0);
  const vol2 = det3(d14, 0, d15, 0, d12, 0);
  const vol3 = det3(d15, 0, d13, 0, d12, 0);
  if (vol1 >= 0 && vol2 >= 0 && vol3 >= 0) return 1;
  if (vol1 <= 0 && vol2 <= 0 && vol3 <= 0) return -1;
  return 0;
}
const tri0 = new Float64Array(3), tri1 = new Float64Array(3), tri2 = new Float64Array(3), tri3 = new Float64Array(3);

const pd = new Float64Array(9);

/** From a segment: a hexahedron of its two ends and three supports 120 degrees apart around it. */
function polytope2(): number {
  const dx = simplex[VS]! - simplex[0]!, dy = simplex[VS + 1]! - simplex[1]!, dz = simplex[VS + 2]! - simplex[2]!;
  const diff = [dx, dy, dz];
  let value = MAX_LIMIT;
  let index = 0;
  for (let i = 0; i < 3; i++) {
    if (Math.abs(diff[i]!) < value) {
      value = Math.abs(diff[i]!);
      index = i;
    }
  }
  // d1 = e_index x diff
  const ex = index === 0 ? 1 : 0, ey = index === 1 ? 1 : 0, ez = index === 2 ? 1 : 0;
  pd[0] = ey * dz - ez * dy; pd[1] = ez * dx - ex * dz; pd[2] = ex * dy - ey * dx;

  // rotation by 120 degrees about the segment
  const n = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const u1 = dx / n, u2 = dy / n, u3 = dz / n;
  const sin = 0.86602540378, cos = -0.5;
  const R0 = cos + u1 * u1 * (1 - cos), R1 = u1 * u2 * (1 - cos) - u3 * sin, R2 = u1 * u3 * (1 - cos) + u2 * sin;
  const R3 = u2 * u1 * (1 - cos) + u3 * sin, R4 = cos + u2 * u2 * (1 - cos), R5 = u2 * u3 * (1 - cos) - u1 * sin;
  const R6 = u1 * u3 * (1 - cos) - u2 * sin, R7 = u2 * u3 * (1 - cos) + u1 * sin, R8 = cos + u3 * u3 * (1 - cos);
  for (let r = 1; r < 3; r++) {
    const a = pd[3 * r - 3]!, b = pd[3 * r - 2]!, c = pd[3 * r - 1]!;
    pd[3 * r] = R0 * a + R1 * b + R2 * c;
    pd[3 * r + 1] = R3 * a + R4 * b + R5 * c;
    pd[3 * r + 2] = R6 * a + R7 * b + R8 * c;
  }

  const v1 = insertVertex(simplex, simplexIdx, 0);
  const v2 = insertVertex(simplex, simplexIdx, 1);
  const v3 = epaSupport(pd, 0, Math.sqrt(dot3(pd, 0, pd, 0)));
  const v4 = epaSupport(pd, 3, Math.sqrt(dot3(pd, 3, pd, 3)));
  const v5 = epaSupport(pd, 6, Math.sqrt(dot3(pd, 6, pd, 6)));

  // a face through the origin: the origin is on a triangle, start from it instead
  const faces: Array<[number, number, number, number, number, number]> = [
    [v1, v3, v4, 1, 3, 2], [v1, v5, v3, 2, 4, 0], [v1, v4, v5, 0, 5, 1],
    [v2, v4, v3, 5, 0, 4], [v2, v3, v5, 3, 1, 5], [v2, v5, v4, 4, 2, 3],
  ];
  for (const f of faces) {
    if (attachFace(f[0], f[1], f[2], f[3], f[4], f[5]) < MINVAL2) {
      replaceSimplex3(f[0], f[1], f[2]);
      return polytope3();
    }
  }
  if (!rayTriangle(v1 * VS, v2 * VS, v3 * VS, v4 * VS, v5 * VS)) return EPA_FAIL;
  mapAll(6);
  return EPA_OK;
}

const affine = new Float64Array(3);

/** Affine coordinates of point p (in `pa` at `p`) on the triangle (v1, v2, v3) of pverts. */
function triAffineCoord(res: Float64Array, a: number, b: number, c: number, pa: Float64Array, p: number): void {
  triangleCofactors(pverts, a, b, c, pa, p);
  res[0] = cof[0]! / cof[3]!; res[1] = cof[1]! / cof[3]!; res[2] = cof[2]! / cof[3]!;
}

/** True when point p of pverts lies on the triangle (a, b, c) of pverts. */
function triPointIntersect(a: number, b: number, c: number, p: number): boolean {
  triAffineCoord(affine, a, b, c, pverts, p);
  if (affine[0]! < 0 || affine[1]! < 0 || affine[2]! < 0) return false;
  const v = pverts;
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const pr = v[a + i]! * affine[0]! + v[b + i]! * affine[1]! + v[c + i]! * affine[2]!;
    const d = pr - v[p + i]!;
    s += d * d;
  }
  return Math.sqrt(s) < MINVAL;
}

/** From a triangle: a hexahedron of it and the supports along both its normals. */
function polytope3(): number {
  const s = simplex;
  const d1x = s[VS]! - s[0]!, d1y = s[VS + 1]! - s[1]!, d1z = s[VS + 2]! - s[2]!;
  const d2x = s[2 * VS]! - s[0]!, d2y = s[2 * VS + 1]! - s[1]!, d2z = s[2 * VS + 2]! - s[2]!;
  pd[0] = d1y * d2z - d1z * d2y; pd[1] = d1z * d2x - d1x * d2z; pd[2] = d1x * d2y - d1y * d2x;
  const nnorm = Math.sqrt(dot3(pd, 0, pd, 0));
  if (nnorm < MINVAL) return EPA_FAIL;
  pd[3] = pd[0]! * -1; pd[4] = pd[1]! * -1; pd[5] = pd[2]! * -1;

  const v1 = insertVertex(simplex, simplexIdx, 0);
  const v2 = insertVertex(simplex, simplexIdx, 1);
  const v3 = insertVertex(simplex, simplexIdx, 2);
  const v5 = epaSupport(pd, 3, nnorm);
  const v4 = epaSupport(pd, 0, nnorm);

  if (triPointIntersect(v1 * VS, v2 * VS, v3 * VS, v4 * VS)) return EPA_FAIL;
  if (triPointIntersect(v1 * VS, v2 * VS, v3 * VS, v5 * VS)) return EPA_FAIL;

  // GJK may stop within tolerance of a triangle that misses the origin: then neither half may contain it
  if (dist > 10 * MINVAL && !testTetra(v1 * VS, v2 * VS, v3 * VS, v4 * VS) && !testTetra(v1 * VS, v2 * VS, v3 * VS, v5 * VS)) {
    return EPA_FAIL;
  }

  if (attachFace(v4, v1, v2, 1, 3, 2) < MINVAL2) return EPA_FAIL;
  if (attachFace(v4, v3, v1, 2, 4, 0) < MINVAL2) return EPA_FAIL;
  if (attachFace(v4, v2, v3, 0, 5, 1) < MINVAL2) return EPA_FAIL;
  if (attachFace(v5, v2, v1, 5, 0, 4) < MINVAL2) return EPA_FAIL;
  if (attachFace(v5, v1, v3, 3, 1, 5) < MINVAL2) return EPA_FAIL;
  if (attachFace(v5, v3, v2, 4, 2, 3) < MINVAL2) return EPA_FAIL;
  mapAll(6);
  return EPA_OK;
}

/** From GJK's tetrahedron. */
function polytope4(): number {
  const v1 = insertVertex(simplex, simplexIdx, 0);
  const v2 = insertVertex(simplex, simplexIdx, 1);
  const v3 = insertVertex(simplex, simplexIdx, 2);
  const v4 = insertVertex(simplex, simplexIdx, 3);
  const faces: Array<[number, number, number, number, number, number]> = [
    [v1, v2, v3, 1, 3, 2], [v1, v4, v2, 2, 3, 0], [v1, v3, v4, 0, 3, 1], [v4, v3, v2, 2, 0, 1],
  ];
  for (const f of faces) {
    if (attachFace(f[0], f[1], f[2], f[3], f[4], f[5]) < MINVAL2) {
      replaceSimplex3(f[0], f[1], f[2]);
      return polytope3();
    }
  }
  if (!testTetra(v1 * VS, v2 * VS, v3 * VS, v4 * VS)) return EPA_FAIL;
  mapAll(4);
  return EPA_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// EPA: expansion

function deleteFace(f: number): void {
  const idx = faceIndex[f]!;
  if (idx >= 0) {
    const last = map[--nmap]!;
    map[idx] = last;
    faceIndex[last] = idx;
  }
  faceIndex[f] = -2;
}

function addEdge(index: number, edge: number): void {
  horEdges[nedges] = edge;
  horIndices[nedges++] = index;
}

function getEdge(f: number, vertex: number): number {
  if (faceVerts[3 * f] === vertex) return 0;
  if (faceVerts[3 * f + 1] === vertex) return 1;
  return 2;
}

/** Deletes face f if w sees it and recurses into its neighbours; returns whether it was visible. */
function horizonRec(f: number, e: number): boolean {
  const w = horW;
  const visible = faceV[3 * f]! * pverts[w]! + faceV[3 * f + 1]! * pverts[w + 1]! + faceV[3 * f + 2]! * pverts[w + 2]!
    - faceDist2[f]! > MINVAL;
  if (!visible) return false;
  deleteFace(f);
  for (let k = 1; k < 3; k++) {
    const i = (e + k) % 3;
    const adj = faceAdj[3 * f + i]!;
    if (faceIndex[adj]! > -2) {
      const adjEdge = getEdge(adj, faceVerts[3 * f + (i + 1) % 3]!);
      if (!horizonRec(adj, adjEdge)) addEdge(adj, adjEdge);
    }
  }
  return true;
}

function horizon(f: number): void {
  deleteFace(f);
  let adj = faceAdj[3 * f]!;
  let adjEdge = getEdge(adj, faceVerts[3 * f + 1]!);
  if (!horizonRec(adj, adjEdge)) addEdge(adj, adjEdge);
  adj = faceAdj[3 * f + 1]!;
  adjEdge = getEdge(adj, faceVerts[3 * f + 2]!);
  if (faceIndex[adj]! > -2 && !horizonRec(adj, adjEdge)) addEdge(adj, adjEdge);
  adj = faceAdj[3 * f + 2]!;
  adjEdge = getEdge(adj, faceVerts[3 * f]!);
  if (faceIndex[adj]! > -2 && !horizonRec(adj, adjEdge)) addEdge(adj, adjEdge);
}

/** Stores face f in the map when its distance is within the current bounds. */
function mapIfWithin(f: number, dist2: number, lower2: number, upper2: number): void {
  if (dist2 >= lower2 && dist2 <= upper2) {
    const i = nmap++;
    map[i] = f;
    faceIndex[f] = i;
  }
}

/** Expands the polytope; returns the face nearest the origin (-1 on failure) and sets dist, x1, x2. */
function epa(): number {
  let upper = MAX_LIMIT, upper2 = MAX_LIMIT, lower2 = 0;
  let face = -1, pface = -1;
  const discrete = discreteShapes();
  const tol = discrete ? MINVAL : tolerance;

  let k = 0;
  for (; k < maxIterations; k++) {
    pface = face;
    lower2 = MAX_LIMIT;
    for (let i = 0; i < nmap; i++) {
      const f = map[i]!;
      if (faceDist2[f]! < lower2) {
        face = f;
        lower2 = faceDist2[f]!;
      }
    }
    if (lower2 > upper2 || face < 0) {
      face = pface;
      break;
    }
    // the origin on a face's plane (MuJoCo warns and keeps the face)
    if (lower2 <= 0) break;

    const lower = Math.sqrt(lower2);
    const wi = epaSupport(faceV, 3 * face, lower);
    const wo = wi * VS;
    const upperK = (faceV[3 * face]! * pverts[wo]! + faceV[3 * face + 1]! * pverts[wo + 1]! + faceV[3 * face + 2]! * pverts[wo + 2]!) / lower;
    if (upperK < upper) {
      upper = upperK;
      upper2 = upper * upper;
    }
    if (upper - lower < tol) break;

    // a polytope's support vertex seen before: nothing more to expand
    if (discrete) {
      const i1 = pvertIdx[2 * wi]!, i2 = pvertIdx[2 * wi + 1]!;
      let i = 0;
      for (; i < nverts - 1; i++) if (i1 === pvertIdx[2 * i] && i2 === pvertIdx[2 * i + 1]) break;
      if (i !== nverts - 1) break;
    }

    horW = wo;
    horizon(face);
    if (nedges < 3) {
      face = -1;
      break;
    }

    const nf = nfaces, ne = nedges;
    // out of face storage (MuJoCo warns and keeps the face)
    if (ne > maxfaces - nfaces) break;

    let horIndex = horIndices[0]!, horEdge = horEdges[0]!;
    let a = faceVerts[3 * horIndex + horEdge]!, b = faceVerts[3 * horIndex + (horEdge + 1) % 3]!;
    faceAdj[3 * horIndex + horEdge] = nf;
    let d2 = attachFace(wi, b, a, nf + ne - 1, horIndex, nf + 1);
    if (d2 === 0) {
      face = -1;
      break;
    }
    mapIfWithin(nfaces - 1, d2, lower2, upper2);

    for (let i = 1; i < ne; i++) {
      const cur = nf + i, next = nf + (i + 1) % ne;
      horIndex = horIndices[i]!; horEdge = horEdges[i]!;
      a = faceVerts[3 * horIndex + horEdge]!;
      b = faceVerts[3 * horIndex + (horEdge + 1) % 3]!;
      faceAdj[3 * horIndex + horEdge] = cur;
      d2 = attachFace(wi, b, a, cur - 1, horIndex, next);
      if (d2 === 0) {
        face = -1;
        break;
      }
      mapIfWithin(nfaces - 1, d2, lower2, upper2);
    }
    nedges = 0;
    if (!nmap || face < 0) break;
  }

  if (face >= 0) {
    // witness points: the face's nearest point in affine coordinates, applied to each shape's vertices
    const a = faceVerts[3 * face]! * VS, b = faceVerts[3 * face + 1]! * VS, c = faceVerts[3 * face + 2]! * VS;
    triAffineCoord(affine, a, b, c, faceV, 3 * face);
    lincomb(x1, 0, affine, 3, pverts, a + 3, b + 3, c + 3, 0);
    lincomb(x2, 0, affine, 3, pverts, a + 6, b + 6, c + 6, 0);
    dist = -Math.sqrt(faceDist2[face]!);
    nx = 1;
  } else {
    nx = 0;
    dist = 0;
  }
  return face;
}

// ---------------------------------------------------------------------------------------------------------------
// mjc_ccd and mjc_Convex

function inflate(m1: number, m2: number): void {
  let nxx = x2[0]! - x1[0]!, nyy = x2[1]! - x1[1]!, nzz = x2[2]! - x1[2]!;
  const norm = Math.sqrt(nxx * nxx + nyy * nyy + nzz * nzz);
  if (norm < MINVAL) { nxx = 1; nyy = 0; nzz = 0; } else { const inv = 1 / norm; nxx *= inv; nyy *= inv; nzz *= inv; }
  if (m1) { x1[0] = x1[0]! + m1 * nxx; x1[1] = x1[1]! + m1 * nyy; x1[2] = x1[2]! + m1 * nzz; }
  if (m2) { x2[0] = x2[0]! - m2 * nxx; x2[1] = x2[1]! - m2 * nyy; x2[2] = x2[2]! - m2 * nzz; }
  dist -= m1 + m2;
}

function resetCenters(): void {
  const p1 = obj1.center ?? obj1.pose.pos, p2 = obj2.center ?? obj2.pose.pos;
  x1[0] = p1[0]!; x1[1] = p1[1]!; x1[2] = p1[2]!;
  x2[0] = p2[0]!; x2[1] = p2[1]!; x2[2] = p2[2]!;
}

/** The core (point or segment) of a sphere or capsule, whose radius becomes a margin; null for other shapes. */
function coreSupport(type: number): Support | null {
  if (type === GeomType.Sphere) return pointSupport;
  if (type === GeomType.Capsule) return lineSupport;
  return null;
}

/**
 * mjc_ccd for one contact: the signed distance between the two shapes, each inflated by half its margin, with
 * the witness points in x1, x2 when they overlap (negative result). Non-negative results carry no contact.
 */
function ccd(s1: ConvexShape, s2: ConvexShape, m1: number, m2: number, tol: number, iterations: number): number {
  obj1 = s1; obj2 = s2;
  support1 = s1.support; support2 = s2.support;
  margin1 = m1; margin2 = m2;
  tolerance = tol;
  maxIterations = iterations;
  distCutoff = 0;
  gjkIterations = 0;
  nsimplex = 0;
  resetCenters();

  // spheres and capsules: distance between their cores first; shallow contacts need nothing more
  const c1 = coreSupport(s1.type), c2 = coreSupport(s2.type);
  if (c1 || c2) {
    const full1 = c1 ? s1.pose.size[0]! + 0.5 * m1 : 0, full2 = c2 ? s2.pose.size[0]! + 0.5 * m2 : 0;
    if (c1) { support1 = c1; margin1 = 0; }
    if (c2) { support2 = c2; margin2 = 0; }
    distCutoff = full1 + full2;
    gjk();
    distCutoff = 0;
    margin1 = m1; margin2 = m2;
    support1 = s1.support; support2 = s2.support;
    if (dist > tolerance) {
      inflate(full1, full2);
      if (dist > distCutoff) dist = MAX_LIMIT;
      return dist;
    }
    // the cores overlap: rerun on the full shapes
    gjkIterations = 0;
    resetCenters();
  }
  gjk();

  if (dist <= tolerance && nsimplex > 1) {
    dist = 0; // assume touching
    ensureCapacity(maxIterations);
    nfaces = 0; nmap = 0; nverts = 0; nedges = 0;
    const ret = nsimplex === 2 ? polytope2() : nsimplex === 3 ? polytope3() : polytope4();
    if (ret === EPA_OK) epa();
  }
  return dist;
}

/**
 * MuJoCo's mjc_Convex with native ccd for two convex shapes: at most one contact, written as contact 0 of
 * `out`; returns the count. The normal points from shape 1 to shape 2; the contact sits halfway between the
 * witness points; dist is the signed distance of the surfaces (negative in penetration, up to `margin` apart).
 */
export function convexCollide(
  out: Float64Array, s1: ConvexShape, s2: ConvexShape, margin: number,
  tol = CCD_TOLERANCE, iterations = CCD_ITERATIONS,
): number {
  const d = ccd(s1, s2, margin, margin, tol, iterations);
  if (!(d < 0) || nx < 1) return 0;
  let nxx = x1[0]! - x2[0]!, nyy = x1[1]! - x2[1]!, nzz = x1[2]! - x2[2]!;
  const norm = Math.sqrt(nxx * nxx + nyy * nyy + nzz * nzz);
  if (norm < MINVAL) { nxx = 1; nyy = 0; nzz = 0; } else { const inv = 1 / norm; nxx *= inv; nyy *= inv; nzz *= inv; }
  setContact(out, 0, margin + d,
    0.5 * (x1[0]! + x2[0]!), 0.5 * (x1[1]! + x2[1]!), 0.5 * (x1[2]! + x2[2]!), nxx, nyy, nzz);
  return 1;
}

/**
 * mjc_penetration's call of mjc_ccd (as the height field uses it): the signed distance of the two shapes, each
 * inflated by half its own margin; when negative, the witness points are in w[0..2] (shape 1) and w[3..5].
 */
export function convexPenetration(
  s1: ConvexShape, s2: ConvexShape, m1: number, m2: number, tol: number, iterations: number, w: Float64Array,
): number {
  const d = ccd(s1, s2, m1, m2, tol, iterations);
  if (d < 0) {
    w[0] = x1[0]!; w[1] = x1[1]!; w[2] = x1[2]!;
    w[3] = x2[0]!; w[4] = x2[1]!; w[5] = x2[2]!;
  }
  return d;
}

/**
 * A narrow phase for geoms of types type1 <= type2 through convexCollide, with the given supports (a mesh
 * support plugs in here) and the model's ccd_tolerance and ccd_iterations.
 */
export function convexNarrowPhase(
  type1: number, support1: Support, type2: number, support2: Support,
  tol = CCD_TOLERANCE, iterations = CCD_ITERATIONS,
): NarrowPhase {
  const a: ConvexShape = { pose: EMPTY_POSE, type: type1, support: support1 };
  const b: ConvexShape = { pose: EMPTY_POSE, type: type2, support: support2 };
  return (out, g1, g2, margin) => {
    a.pose = g1;
    b.pose = g2;
    return convexCollide(out, a, b, margin, tol, iterations);
  };
}
const EMPTY_POSE = makeGeomPose();

/**
 * mjc_PlaneConvex without a mesh: the shape's support point along the plane's inward normal is the one
 * contact, halfway between it and the plane (MuJoCo collides an ellipsoid with a plane this way).
 */
export function planeConvex(out: Float64Array, plane: GeomPose, g: GeomPose, support: Support, margin: number): number {
  const pm = plane.mat, pp = plane.pos;
  const nx_ = pm[2]!, ny = pm[5]!, nz = pm[8]!;
  support(g, -pm[2]!, -pm[5]!, -pm[8]!, vec, 0);
  const d = nx_ * (vec[0]! - pp[0]!) + ny * (vec[1]! - pp[1]!) + nz * (vec[2]! - pp[2]!);
  if (d > margin) return 0;
  const s = -0.5 * d;
  setContact(out, 0, d, vec[0]! + nx_ * s, vec[1]! + ny * s, vec[2]! + nz * s, nx_, ny, nz);
  return 1;
}
const vec = new Float64Array(3);
