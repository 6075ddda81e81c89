/**
 * WGSL twin of the CPU's general convex narrow phase (collision/convex.ts and support.ts, MuJoCo 3.3's native
 * ccd): GJK for the distance, or a simplex around the origin when the shapes overlap, then EPA for the depth,
 * normal and witness points; spheres and capsules shrink to their core point or segment first (the radius acts
 * as a margin). One contact per pair, as on the CPU (MuJoCo's multiccd is refused by the loader). Plane-ellipsoid
 * is MuJoCo's plane-convex routine: the support point along the plane's inward normal.
 *
 * The steps, tie-breaks and the order of the polytope's faces and horizon edges follow the CPU's, so both build
 * the same polytope; the arithmetic is f32. Two thresholds that the CPU compares against 1e-15 (a face visible
 * from the new support point; GJK's duality gap, which f32 never drives below 0.5 * ccd_tolerance^2 and which
 * then runs out of iterations at a slightly worse point) are raised to f32's rounding of the terms compared. EPA's
 * bounds on the depth, which decide what faces stay in its search, get room for f32's rounding of a face's
 * distance (CV_SLACK): two hulls face on face make many coplanar faces, and the hull face meeting the upper bound
 * rounded out of the search, leaving EPA on a sliver 0.1 mm short of the depth (test/gpu/mesh-mesh.test.ts).
 *
 * Shapes are described per side (cv_* index 0 and 1) with the geom's type, pose and index; the support dispatch
 * is cv_support's switch on the type. A mesh's case (compiled only into models with a mesh pair, see
 * convexWgsl) is mesh.ts's hull search, warm-started per pair side as on the CPU; it sets cv_vid to the vertex
 * so that EPA stops on a repeated vertex as the CPU does.
 *
 * Storage: the simplex is module-private (small); the EPA polytope lives in cv_epa_run's function scope, so its
 * zero initialisation is paid only by pairs that penetrate. It holds CV_FMAX faces: the CPU allows 6 * 170, but
 * the scenes of test/gpu/convex.test.ts use at most 68 (16 iterations) on the CPU; when the GPU runs out, it stops
 * and keeps the nearest face, as the CPU does when its own storage runs out. ccd_iterations above
 * GPU_CCD_MAX_ITERATIONS is refused at build.
 *
 * Mesa lavapipe inlines every call, so the heavy routines (support, the subdistance solvers, face attachment,
 * the polytope builders) each have one or two call sites, in loops over small constant tables: written out
 * call by call as on the CPU, the kernel took over ten minutes to compile there; now the collision kernel
 * compiles in about a minute (12 s without this file).
 *
 * Depends on collision.ts's set_contact (contacts go into its nc_* buffers).
 */
import { GeomType } from '../../model/model.js';

/** The most EPA iterations the WGSL polytope has room for (one vertex each). */
export const GPU_CCD_MAX_ITERATIONS = 50;
/** Polytope faces in WGSL storage. */
const CV_FMAX = 256;

/**
 * Mesh against sphere, capsule, ellipsoid, cylinder or box (t1 <= t2): the convex routine with the hull's support.
 * Mesh-mesh is gpuMeshMeshPair.
 */
export function gpuMeshConvexPair(t1: number, t2: number): boolean {
  return t2 === GeomType.Mesh && t1 >= GeomType.Sphere && t1 <= GeomType.Box;
}

/**
 * Mesh against mesh: the convex routine with both hulls' supports, in convex_pair only for models with such a
 * pair (convexWgsl's meshMesh).
 */
export function gpuMeshMeshPair(t1: number, t2: number): boolean {
  return t1 === GeomType.Mesh && t2 === GeomType.Mesh;
}

/**
 * The type pairs (t1 <= t2) the WGSL convex routine collides: every pair with an ellipsoid, capsule-cylinder,
 * cylinder-cylinder, cylinder-box and a mesh against sphere, capsule, ellipsoid, cylinder, box and mesh, as on the
 * CPU.
 * Keep in step with convex_pair in convexWgsl.
 */
export function gpuConvexPair(t1: number, t2: number): boolean {
  if (t2 === GeomType.Mesh) return gpuMeshConvexPair(t1, t2) || gpuMeshMeshPair(t1, t2);
  if (t2 === GeomType.Ellipsoid) return t1 === GeomType.Plane || t1 === GeomType.Sphere || t1 === GeomType.Capsule || t1 === GeomType.Ellipsoid;
  if (t1 === GeomType.Ellipsoid) return t2 === GeomType.Cylinder || t2 === GeomType.Box;
  if (t2 === GeomType.Cylinder) return t1 === GeomType.Capsule || t1 === GeomType.Cylinder;
  return t1 === GeomType.Cylinder && t2 === GeomType.Box;
}

/**
 * In place of CONVEX_WGSL for a model with no convex pair: the two entry points, empty. Lavapipe compiles the
 * routine into the collision kernel whether a pair uses it or not (about a minute), so models without one skip it.
 */
export const CONVEX_STUB_WGSL = /* wgsl */ `
fn convex_pair(t1: i32, t2: i32) -> bool { return false; }
fn convex_narrow(g1: i32, g2: i32, t1: i32, t2: i32, p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>,
  p2: vec3<f32>, m2: mat3x3<f32>, s2: vec3<f32>, margin: f32) -> i32 { return 0; }
`;

/**
 * The general convex routine; with `mesh`, the mesh hull's support too (a case of cv_support, needing
 * MESH_HULL_WGSL's mesh_support) and the mesh pairs in convex_pair, with `meshMesh` mesh-mesh among them. Without
 * `mesh` a model compiles no hull search.
 */
export function convexWgsl(mesh: boolean, meshMesh = false): string {
  return /* wgsl */ `
const CV_MINVAL: f32 = 1e-15;
const CV_MINVAL2: f32 = 1e-30;
const CV_MAXVAL2: f32 = 1e20;
const CV_MAX: f32 = 3.0e38;
// f32 rounding of a dot product, relative to the product of the norms (a few ulps)
const CV_EPS: f32 = 4.8e-7;
// EPA's room for f32 rounding in its bounds on the depth, relative to the support points' norms (8 CV_EPS)
const CV_SLACK: f32 = 4e-6;
const CV_VMAX: i32 = ${GPU_CCD_MAX_ITERATIONS + 5};
const CV_FMAX: i32 = ${CV_FMAX};
// support kinds besides the geom types: a sphere's centre and a capsule's segment
const CV_POINT: i32 = 100;
const CV_LINE: i32 = 101;

// keep in step with gpuConvexPair (convex.ts)
fn convex_pair(t1: i32, t2: i32) -> bool {
  ${mesh ? `if (t2 == 7) { return t1 == 2 || t1 == 3 || t1 == 4 || t1 == 5 || t1 == 6${meshMesh ? ' || t1 == 7' : ''}; }` : ''}
  if (t2 == 4) { return t1 == 0 || t1 == 2 || t1 == 3 || t1 == 4; }
  if (t1 == 4) { return t2 == 5 || t2 == 6; }
  if (t2 == 5) { return t1 == 3 || t1 == 5; }
  return t1 == 5 && t2 == 6;
}

// A vertex of the simplex or polytope: the Minkowski point, its points on shape 1 and 2, their support vertices.
struct CvVert { w: vec3<f32>, a: vec3<f32>, b: vec3<f32>, id: vec2<i32> }

var<private> cv_geom: array<i32, 2>;
var<private> cv_type: array<i32, 2>;
var<private> cv_kind: array<i32, 2>;
var<private> cv_pos: array<vec3<f32>, 2>;
var<private> cv_mat: array<mat3x3<f32>, 2>;
var<private> cv_size: array<vec3<f32>, 2>;
var<private> cv_margin: array<f32, 2>;
var<private> cv_vid: i32;
var<private> cv_tol: f32;
var<private> cv_maxit: i32;
var<private> cv_cutoff: f32;
var<private> cv_gjkit: i32;
var<private> cv_dist: f32;
var<private> cv_nx: i32;
var<private> cv_nsimplex: i32;
var<private> cv_x1: vec3<f32>;
var<private> cv_x2: vec3<f32>;
var<private> cv_sx: array<CvVert, 4>;
var<private> cv_lambda: array<f32, 4>;
var<private> cv_isx: array<CvVert, 4>;
var<private> cv_nrm: array<vec3<f32>, 4>;
var<private> cv_proj: vec3<f32>;

// The support point of side i along the unit world direction d (collision/support.ts); cv_vid: the polytope
// vertex chosen, -1 for smooth shapes.
fn cv_support(i: i32, d: vec3<f32>) -> vec3<f32> {
  cv_vid = -1;
  let p = cv_pos[i];
  let m = cv_mat[i];
  let s = cv_size[i];
  let l = transpose(m) * d;
  var r = p;
  switch (cv_kind[i]) {
    case 101: { r = m[2] * select(-s.y, s.y, dot(m[2], d) >= 0.0) + p; }
    case 2: { r = s.x * d + p; }
    case 3: { r = m * vec3<f32>(l.x * s.x, l.y * s.x, l.z * s.x + select(-s.y, s.y, l.z >= 0.0)) + p; }
    case 4: {
      let q = l * s;
      let n2 = dot(q, q);
      if (n2 < CV_MINVAL2) { r = m[0] * s.x + p; } else { r = m * (q * (inverseSqrt(n2) * s)) + p; }
    }
    case 5: {
      let n2 = l.x * l.x + l.y * l.y;
      let scl = select(0.0, s.x / sqrt(n2), n2 >= CV_MINVAL2);
      r = m * vec3<f32>(scl * l.x, scl * l.y, select(-s.y, s.y, l.z >= 0.0)) + p;
    }
    case 6: {
      let c = select(-s, s, l >= vec3<f32>(0.0));
      r = m * c + p;
      cv_vid = select(0, 1, c.x > 0.0) | select(0, 2, c.y > 0.0) | select(0, 4, c.z > 0.0);
    }
    ${mesh ? 'case 7: { let ms = mesh_support(i, cv_geom[i], p, m, d); r = ms.p; cv_vid = ms.vertex; }' : ''}
    default: {}
  }
  return r;
}

// S1(d) - S2(-d), each shape inflated by half its margin. One cv_support call in a loop over the sides: lavapipe
// inlines each call site, and the mesh case's search loops would otherwise be compiled twice per caller.
fn cv_mink(d: vec3<f32>) -> CvVert {
  var v: CvVert;
  var pts: array<vec3<f32>, 2>;
  for (var i = 0; i < 2; i++) {
    let di = select(d, -d, i == 1);
    var q = cv_support(i, di);
    v.id[i] = cv_vid;
    if (cv_margin[i] > 0.0) { q = q + di * (0.5 * cv_margin[i]); }
    pts[i] = q;
  }
  v.a = pts[0];
  v.b = pts[1];
  v.w = v.a - v.b;
  return v;
}

fn cv_polytope_type(t: i32) -> bool { return t == 1 || t == 6 || t == 7; }

// Both shapes are polytopes without margin: GJK and EPA run without tolerance.
fn cv_discrete() -> bool {
  return cv_margin[0] == 0.0 && cv_margin[1] == 0.0 && cv_polytope_type(cv_type[0]) && cv_polytope_type(cv_type[1]);
}

fn cv_no_contact() { cv_nsimplex = 0; cv_nx = 0; cv_dist = CV_MAX; }

fn cv_same_sign(a: f32, b: f32) -> bool { return (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0); }

fn cv_det3(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> f32 { return dot(a, cross(b, c)); }

// cv_proj = the origin projected on the plane through p with normal n. Checked: 1 when n is zero, 2 when it is
// too short or the plane passes through the origin (try another normal).
fn cv_project_along(n: vec3<f32>, p: vec3<f32>, checked: bool) -> i32 {
  let nv = dot(n, p);
  let nn = dot(n, n);
  if (checked) {
    if (nn == 0.0) { return 1; }
    if (!(nv != 0.0 && nn > CV_MINVAL)) { return 2; }
  }
  cv_proj = n * (nv / nn);
  return 0;
}

// The origin projected on the plane of a triangle into cv_proj; true when the triangle is degenerate.
fn cv_project_origin_plane(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>) -> bool {
  let d21 = v2 - v1;
  let d31 = v3 - v1;
  let d32 = v3 - v2;
  // the first usable of three edge cross products, through v2, v1, v3
  let ns = array<vec3<f32>, 3>(cross(d32, d21), cross(d21, d31), cross(d31, d32));
  let ps = array<vec3<f32>, 3>(v2, v1, v3);
  for (var i = 0; i < 3; i++) {
    let k = cv_project_along(ns[i], ps[i], i < 2);
    if (k != 2) { return k == 1; }
  }
  return false;
}

// Signed areas of (p, v2, v3), (p, v1, v3), (p, v1, v2) and of the triangle, in its plane of largest shadow.
fn cv_tri_cofactors(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>, p: vec3<f32>) -> vec4<f32> {
  let m14 = v2.y * v3.z - v2.z * v3.y - v1.y * v3.z + v1.z * v3.y + v1.y * v2.z - v1.z * v2.y;
  let m24 = v2.x * v3.z - v2.z * v3.x - v1.x * v3.z + v1.z * v3.x + v1.x * v2.z - v1.z * v2.x;
  let m34 = v2.x * v3.y - v2.y * v3.x - v1.x * v3.y + v1.y * v3.x + v1.x * v2.y - v1.y * v2.x;
  var mmax = m34;
  var x = 0;
  var y = 1;
  if (abs(m14) >= abs(m24) && abs(m14) >= abs(m34)) { mmax = m14; x = 1; y = 2; }
  else if (abs(m24) >= abs(m34)) { mmax = m24; x = 0; y = 2; }
  let s1x = v1[x]; let s1y = v1[y]; let s2x = v2[x]; let s2y = v2[y]; let s3x = v3[x]; let s3y = v3[y];
  let px = p[x]; let py = p[y];
  return vec4<f32>(
    px * s2y + py * s3x + s2x * s3y - px * s3y - py * s2x - s3x * s2y,
    px * s3y + py * s1x + s3x * s1y - px * s1y - py * s3x - s1x * s3y,
    px * s1y + py * s2x + s1x * s2y - px * s2y - py * s1x - s2x * s1y,
    mmax);
}

// Coordinates of the point of segment (a, b) nearest the origin.
fn cv_s1d(a: vec3<f32>, b: vec3<f32>) -> vec2<f32> {
  let d = b - a;
  let po = b + d * -(dot(b, d) / dot(d, d));
  var mu_max = a.x - b.x;
  var index = 0;
  var mu = a.y - b.y;
  if (abs(mu) >= abs(mu_max)) { mu_max = mu; index = 1; }
  mu = a.z - b.z;
  if (abs(mu) >= abs(mu_max)) { mu_max = mu; index = 2; }
  let c1 = po[index] - b[index];
  let c2 = a[index] - po[index];
  if (cv_same_sign(mu_max, c1) && cv_same_sign(mu_max, c2)) { return vec2<f32>(c1 / mu_max, c2 / mu_max); }
  return vec2<f32>(0.0, 1.0);
}

fn cv_nsq(v: vec3<f32>) -> f32 { return dot(v, v); }

// Coordinates of the point of triangle (a, b, c) nearest the origin.
fn cv_s2d(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
  let degenerate = cv_project_origin_plane(a, b, c);
  // edges opposite a, b, c; a degenerate triangle takes edge (a, b) alone
  var comp = vec3<bool>(true, true, false);
  if (!degenerate) {
    let cf = cv_tri_cofactors(a, b, c, cv_proj);
    comp = vec3<bool>(cv_same_sign(cf.w, cf.x), cv_same_sign(cf.w, cf.y), cv_same_sign(cf.w, cf.z));
    if (all(comp)) { return cf.xyz / cf.w; }
  }
  let vs = array<vec3<f32>, 3>(a, b, c);
  var lam = vec3<f32>(0.0);
  var dmin = CV_MAX;
  for (var i = 0; i < 3; i++) {
    if (comp[i]) { continue; }
    let i1 = select(0, 1, i == 0);
    let i2 = select(2, 1, i == 2);
    let l = cv_s1d(vs[i1], vs[i2]);
    let d = cv_nsq(l.x * vs[i1] + l.y * vs[i2]);
    if (d < dmin || degenerate) {
      lam = vec3<f32>(0.0);
      lam[i1] = l.x;
      lam[i2] = l.y;
      dmin = d;
    }
  }
  return lam;
}

fn cv_s3d() {
  let s1 = cv_sx[0].w; let s2 = cv_sx[1].w; let s3 = cv_sx[2].w; let s4 = cv_sx[3].w;
  let c41 = -cv_det3(s2, s3, s4);
  let c42 = cv_det3(s1, s3, s4);
  let c43 = -cv_det3(s1, s2, s4);
  let c44 = cv_det3(s1, s2, s3);
  let mdet = c41 + c42 + c43 + c44;
  let comp1 = cv_same_sign(mdet, c41);
  let comp2 = cv_same_sign(mdet, c42);
  let comp3 = cv_same_sign(mdet, c43);
  let comp4 = cv_same_sign(mdet, c44);
  if (comp1 && comp2 && comp3 && comp4) {
    cv_lambda = array<f32, 4>(c41 / mdet, c42 / mdet, c43 / mdet, c44 / mdet);
    return;
  }
  // the nearest of the faces whose sign differs (face i leaves out vertex i)
  let comp = vec4<bool>(comp1, comp2, comp3, comp4);
  let vs = array<vec3<f32>, 4>(s1, s2, s3, s4);
  var dmin = CV_MAX;
  for (var i = 0; i < 4; i++) {
    if (comp[i]) { continue; }
    let i1 = select(0, 1, i == 0);
    let i2 = select(1, 2, i <= 1);
    let i3 = select(2, 3, i <= 2);
    let l = cv_s2d(vs[i1], vs[i2], vs[i3]);
    let d = cv_nsq(l.x * vs[i1] + l.y * vs[i2] + l.z * vs[i3]);
    if (d < dmin) {
      cv_lambda = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
      cv_lambda[i1] = l.x;
      cv_lambda[i2] = l.y;
      cv_lambda[i3] = l.z;
      dmin = d;
    }
  }
}

// Barycentric coordinates of the simplex point nearest the origin (Montanari et al.), into cv_lambda.
fn cv_subdistance(n: i32) {
  cv_lambda = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
  if (n == 4) { cv_s3d(); }
  else if (n == 3) { let l = cv_s2d(cv_sx[0].w, cv_sx[1].w, cv_sx[2].w); cv_lambda = array<f32, 4>(l.x, l.y, l.z, 0.0); }
  else if (n == 2) { let l = cv_s1d(cv_sx[0].w, cv_sx[1].w); cv_lambda[0] = l.x; cv_lambda[1] = l.y; }
  else { cv_lambda[0] = 1.0; }
}

// Signed distance of the face (a, b, c) of cv_isx from the origin; its unit normal goes to cv_nrm[no].
fn cv_signed_distance(no: i32, a: i32, b: i32, c: i32) -> f32 {
  let pa = cv_isx[a].w;
  var n = cross(cv_isx[c].w - pa, cv_isx[b].w - pa);
  let n2 = dot(n, n);
  if (n2 > CV_MINVAL2 && n2 < CV_MAXVAL2) {
    n = n * (1.0 / sqrt(n2));
    cv_nrm[no] = n;
    return dot(n, pa);
  }
  cv_nrm[no] = n;
  return CV_MAX;
}

// 1: the tetrahedron grows to contain the origin (contact); 0: separated; -1: undecided.
fn cv_gjk_intersect() -> i32 {
  var perm = array<i32, 4>(0, 1, 2, 3);
  for (var i = 0; i < 4; i++) { cv_isx[i] = cv_sx[i]; }
  var sd: array<f32, 4>;
  var k = cv_gjkit;
  for (; k < cv_maxit; k++) {
    // face i leaves out vertex perm[i], wound outwards
    let faces = array<vec3<i32>, 4>(vec3<i32>(perm[2], perm[1], perm[3]), vec3<i32>(perm[0], perm[2], perm[3]),
      vec3<i32>(perm[1], perm[0], perm[3]), vec3<i32>(perm[0], perm[1], perm[2]));
    for (var f = 0; f < 4; f++) { sd[f] = cv_signed_distance(f, faces[f].x, faces[f].y, faces[f].z); }
    if (sd[3] == 0.0 || sd[2] == 0.0 || sd[1] == 0.0 || sd[0] == 0.0) { cv_gjkit = k; return -1; }
    var i = select(1, 0, sd[0] < sd[1]);
    var j = select(3, 2, sd[2] < sd[3]);
    let index = select(j, i, sd[i] < sd[j]);
    if (sd[index] > 0.0) {
      cv_nsimplex = 4;
      for (var v = 0; v < 4; v++) { cv_sx[v] = cv_isx[perm[v]]; }
      cv_gjkit = k;
      return 1;
    }
    let dd = cv_nrm[index];
    let pv = perm[index];
    cv_isx[pv] = cv_mink(dd);
    if (dot(dd, cv_isx[pv].w) < 0.0) { cv_nsimplex = 0; cv_gjkit = k; return 0; }
    i = (index + 1) & 3;
    j = (index + 2) & 3;
    let swap = perm[i];
    perm[i] = perm[j];
    perm[j] = swap;
  }
  cv_gjkit = k;
  return -1;
}

fn cv_gjk() {
  let get_dist = cv_cutoff > 0.0;
  var backup = !get_dist;
  var n = 0;
  var k = 0;
  let cutoff2 = cv_cutoff * cv_cutoff;
  let epsilon = select(0.5 * cv_tol * cv_tol, 0.0, cv_discrete());
  var xnorm = 0.0;
  cv_lambda = array<f32, 4>(1.0, 0.0, 0.0, 0.0);
  var xk = cv_x1 - cv_x2;
  for (; k < cv_maxit; k++) {
    xnorm = dot(xk, xk);
    if (xnorm < CV_MINVAL2) { break; }
    xnorm = sqrt(xnorm);
    let nd = xk * (1.0 / xnorm);
    cv_sx[n] = cv_mink(-nd);
    let w = cv_sx[n].w;
    // the Frank-Wolfe duality gap, down to f32's rounding of the two products it subtracts
    let gap = dot(xk, xk - w);
    if (gap < max(epsilon, CV_EPS * xnorm * (xnorm + length(w)))) {
      if (k == 0) { n = 1; }
      break;
    }
    if (!get_dist) {
      if (dot(xk, w) > 0.0) { cv_gjkit = k; cv_no_contact(); return; }
    } else if (cv_cutoff < CV_MAX) {
      let vs = dot(xk, w);
      let vv = dot(xk, xk);
      if (vs > 0.0 && (vs * vs) / vv >= cutoff2) { cv_gjkit = k; cv_no_contact(); return; }
    }
    if (n == 3 && backup) {
      cv_gjkit = k;
      let ret = cv_gjk_intersect();
      if (ret != -1) {
        cv_nx = 0;
        cv_dist = select(CV_MAX, 0.0, ret > 0);
        return;
      }
      k = cv_gjkit;
      backup = false;
    }
    cv_subdistance(n + 1);
    n = 0;
    for (var i = 0; i < 4; i++) {
      if (cv_lambda[i] == 0.0) { continue; }
      if (n != i) { cv_sx[n] = cv_sx[i]; }
      cv_lambda[n] = cv_lambda[i];
      n++;
    }
    if (n < 1) { cv_gjkit = k; cv_no_contact(); return; }
    var xnext = vec3<f32>(0.0);
    for (var i = 0; i < n; i++) { xnext = xnext + cv_lambda[i] * cv_sx[i].w; }
    if (all(abs(xnext - xk) < vec3<f32>(CV_MINVAL))) { break; }
    xk = xnext;
    if (n == 4) { xnorm = 0.0; break; }
  }
  var x1 = vec3<f32>(0.0);
  var x2 = vec3<f32>(0.0);
  for (var i = 0; i < n; i++) { x1 = x1 + cv_lambda[i] * cv_sx[i].a; x2 = x2 + cv_lambda[i] * cv_sx[i].b; }
  cv_x1 = x1;
  cv_x2 = x2;
  cv_nx = 1;
  cv_gjkit = k;
  cv_nsimplex = n;
  cv_dist = xnorm;
}

// ---- EPA: the polytope lives in cv_epa_run's scope; face and vertex indices follow the CPU's

struct CvPoly {
  v: array<CvVert, CV_VMAX>,
  fv: array<vec3<i32>, CV_FMAX>,
  fa: array<vec3<i32>, CV_FMAX>,
  fp: array<vec3<f32>, CV_FMAX>,
  fd2: array<f32, CV_FMAX>,
  // position in map; -1 when not mapped, -2 when deleted
  fidx: array<i32, CV_FMAX>,
  map: array<i32, CV_FMAX>,
  hor: array<vec2<i32>, CV_FMAX>,
  stk: array<vec3<i32>, CV_FMAX>,
  nv: i32,
  nf: i32,
  nmap: i32,
  ne: i32,
}

fn cv_insert(P: ptr<function, CvPoly>, v: CvVert) -> i32 {
  let n = (*P).nv;
  (*P).v[n] = v;
  (*P).nv = n + 1;
  return n;
}

fn cv_epa_support(P: ptr<function, CvPoly>, d: vec3<f32>, dnorm: f32) -> i32 {
  var dir = vec3<f32>(1.0, 0.0, 0.0);
  if (dnorm > CV_MINVAL) { dir = d / dnorm; }
  return cv_insert(P, cv_mink(dir));
}

// Adds a face; returns its squared distance to the origin (0 when its plane is degenerate).
fn cv_attach(P: ptr<function, CvPoly>, v1: i32, v2: i32, v3: i32, a1: i32, a2: i32, a3: i32) -> f32 {
  let f = (*P).nf;
  (*P).nf = f + 1;
  (*P).fv[f] = vec3<i32>(v1, v2, v3);
  (*P).fa[f] = vec3<i32>(a1, a2, a3);
  if (cv_project_origin_plane((*P).v[v3].w, (*P).v[v2].w, (*P).v[v1].w)) { return 0.0; }
  let d2 = dot(cv_proj, cv_proj);
  (*P).fp[f] = cv_proj;
  (*P).fd2[f] = d2;
  (*P).fidx[f] = -1;
  return d2;
}

fn cv_map_all(P: ptr<function, CvPoly>, count: i32) {
  for (var i = 0; i < count; i++) { (*P).map[i] = i; (*P).fidx[i] = i; }
  (*P).nmap = count;
}

// Restart from triangle (v1, v2, v3) of the polytope as GJK's simplex.
fn cv_replace_simplex3(P: ptr<function, CvPoly>, v1: i32, v2: i32, v3: i32) {
  cv_nsimplex = 3;
  cv_sx[0] = (*P).v[v1];
  cv_sx[1] = (*P).v[v2];
  cv_sx[2] = (*P).v[v3];
  (*P).nf = 0;
  (*P).nv = 0;
  (*P).nmap = 0;
}

// True when the origin and p3 are strictly on the same side of the plane (p0, p1, p2).
fn cv_same_side(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>) -> bool {
  let n = cross(p1 - p0, p2 - p0);
  let dot1 = dot(n, p3 - p0);
  let dot2 = dot(n, -p0);
  return (dot1 > 0.0 && dot2 > 0.0) || (dot1 < 0.0 && dot2 < 0.0);
}

fn cv_test_tetra(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>) -> bool {
  return cv_same_side(p0, p1, p2, p3) && cv_same_side(p1, p2, p3, p0) && cv_same_side(p2, p3, p0, p1) && cv_same_side(p3, p0, p1, p2);
}

fn cv_tri_affine(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
  let cf = cv_tri_cofactors(a, b, c, p);
  return cf.xyz / cf.w;
}

// True when point p lies on triangle (a, b, c).
fn cv_tri_point_intersect(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, p: vec3<f32>) -> bool {
  let af = cv_tri_affine(a, b, c, p);
  if (af.x < 0.0 || af.y < 0.0 || af.z < 0.0) { return false; }
  return length(a * af.x + b * af.y + c * af.z - p) < CV_MINVAL;
}

// True when ray (v1, v2) crosses triangle (v3, v4, v5).
fn cv_ray_triangle(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>, v4: vec3<f32>, v5: vec3<f32>) -> bool {
  let d12 = v2 - v1;
  let d13 = v3 - v1;
  let d14 = v4 - v1;
  let d15 = v5 - v1;
  let vol1 = cv_det3(d13, d14, d12);
  let vol2 = cv_det3(d14, d15, d12);
  let vol3 = cv_det3(d15, d13, d12);
  return (vol1 >= 0.0 && vol2 >= 0.0 && vol3 >= 0.0) || (vol1 <= 0.0 && vol2 <= 0.0 && vol3 <= 0.0);
}

// Attaches the first count faces of the lists; the index of the first whose plane passes through the origin, or -1.
fn cv_attach_all(P: ptr<function, CvPoly>, fv: array<vec3<i32>, 6>, fa: array<vec3<i32>, 6>, count: i32) -> i32 {
  for (var i = 0; i < count; i++) {
    if (cv_attach(P, fv[i].x, fv[i].y, fv[i].z, fa[i].x, fa[i].y, fa[i].z) < CV_MINVAL2) { return i; }
  }
  return -1;
}

// From a triangle: a hexahedron of it and the supports along both its normals. 0: ready, 1: failed.
fn cv_polytope3(P: ptr<function, CvPoly>) -> i32 {
  let n = cross(cv_sx[1].w - cv_sx[0].w, cv_sx[2].w - cv_sx[0].w);
  let nnorm = sqrt(dot(n, n));
  if (nnorm < CV_MINVAL) { return 1; }
  for (var i = 0; i < 3; i++) { _ = cv_insert(P, cv_sx[i]); }
  // v5 (along -n) is inserted before v4
  for (var i = 0; i < 2; i++) { _ = cv_epa_support(P, select(n, n * -1.0, i == 0), nnorm); }
  let v1 = 0; let v2 = 1; let v3 = 2; let v5 = 3; let v4 = 4;
  let w1 = (*P).v[v1].w; let w2 = (*P).v[v2].w; let w3 = (*P).v[v3].w; let w4 = (*P).v[v4].w; let w5 = (*P).v[v5].w;
  if (cv_tri_point_intersect(w1, w2, w3, w4)) { return 1; }
  if (cv_tri_point_intersect(w1, w2, w3, w5)) { return 1; }
  if (cv_dist > 10.0 * CV_MINVAL && !cv_test_tetra(w1, w2, w3, w4) && !cv_test_tetra(w1, w2, w3, w5)) { return 1; }
  let fv = array<vec3<i32>, 6>(vec3<i32>(v4, v1, v2), vec3<i32>(v4, v3, v1), vec3<i32>(v4, v2, v3),
    vec3<i32>(v5, v2, v1), vec3<i32>(v5, v1, v3), vec3<i32>(v5, v3, v2));
  let fa = array<vec3<i32>, 6>(vec3<i32>(1, 3, 2), vec3<i32>(2, 4, 0), vec3<i32>(0, 5, 1),
    vec3<i32>(5, 0, 4), vec3<i32>(3, 1, 5), vec3<i32>(4, 2, 3));
  if (cv_attach_all(P, fv, fa, 6) >= 0) { return 1; }
  cv_map_all(P, 6);
  return 0;
}

// From a segment: its two ends and three supports 120 degrees apart around it. 0: ready, 1: failed, 3: the
// origin lies on a face, go on from that triangle (cv_polytope3).
fn cv_polytope2(P: ptr<function, CvPoly>) -> i32 {
  let diff = cv_sx[1].w - cv_sx[0].w;
  var value = CV_MAX;
  var index = 0;
  for (var i = 0; i < 3; i++) { if (abs(diff[i]) < value) { value = abs(diff[i]); index = i; } }
  var e = vec3<f32>(0.0);
  e[index] = 1.0;
  let d1 = cross(e, diff);
  let u = diff / sqrt(dot(diff, diff));
  let sn = 0.86602540378;
  let cs = -0.5;
  // rows of the rotation by 120 degrees about u, as columns of its transpose
  let rt = mat3x3<f32>(
    vec3<f32>(cs + u.x * u.x * (1.0 - cs), u.x * u.y * (1.0 - cs) - u.z * sn, u.x * u.z * (1.0 - cs) + u.y * sn),
    vec3<f32>(u.y * u.x * (1.0 - cs) + u.z * sn, cs + u.y * u.y * (1.0 - cs), u.y * u.z * (1.0 - cs) - u.x * sn),
    vec3<f32>(u.x * u.z * (1.0 - cs) - u.y * sn, u.y * u.z * (1.0 - cs) + u.x * sn, cs + u.z * u.z * (1.0 - cs)));
  for (var i = 0; i < 2; i++) { _ = cv_insert(P, cv_sx[i]); }
  var d = d1;
  for (var i = 0; i < 3; i++) {
    _ = cv_epa_support(P, d, sqrt(dot(d, d)));
    d = d * rt;
  }
  let v1 = 0; let v2 = 1; let v3 = 2; let v4 = 3; let v5 = 4;
  let fv = array<vec3<i32>, 6>(vec3<i32>(v1, v3, v4), vec3<i32>(v1, v5, v3), vec3<i32>(v1, v4, v5),
    vec3<i32>(v2, v4, v3), vec3<i32>(v2, v3, v5), vec3<i32>(v2, v5, v4));
  let fa = array<vec3<i32>, 6>(vec3<i32>(1, 3, 2), vec3<i32>(2, 4, 0), vec3<i32>(0, 5, 1),
    vec3<i32>(5, 0, 4), vec3<i32>(3, 1, 5), vec3<i32>(4, 2, 3));
  let through = cv_attach_all(P, fv, fa, 6);
  if (through >= 0) {
    cv_replace_simplex3(P, fv[through].x, fv[through].y, fv[through].z);
    return 3;
  }
  let v = &(*P).v;
  if (!cv_ray_triangle((*v)[v1].w, (*v)[v2].w, (*v)[v3].w, (*v)[v4].w, (*v)[v5].w)) { return 1; }
  cv_map_all(P, 6);
  return 0;
}

// From GJK's tetrahedron; returns as cv_polytope2.
fn cv_polytope4(P: ptr<function, CvPoly>) -> i32 {
  for (var i = 0; i < 4; i++) { _ = cv_insert(P, cv_sx[i]); }
  let v1 = 0; let v2 = 1; let v3 = 2; let v4 = 3;
  let z = vec3<i32>(0);
  let fv = array<vec3<i32>, 6>(vec3<i32>(v1, v2, v3), vec3<i32>(v1, v4, v2), vec3<i32>(v1, v3, v4), vec3<i32>(v4, v3, v2), z, z);
  let fa = array<vec3<i32>, 6>(vec3<i32>(1, 3, 2), vec3<i32>(2, 3, 0), vec3<i32>(0, 3, 1), vec3<i32>(2, 0, 1), z, z);
  let through = cv_attach_all(P, fv, fa, 4);
  if (through >= 0) {
    cv_replace_simplex3(P, fv[through].x, fv[through].y, fv[through].z);
    return 3;
  }
  let v = &(*P).v;
  if (!cv_test_tetra((*v)[v1].w, (*v)[v2].w, (*v)[v3].w, (*v)[v4].w)) { return 1; }
  cv_map_all(P, 4);
  return 0;
}

fn cv_delete_face(P: ptr<function, CvPoly>, f: i32) {
  let idx = (*P).fidx[f];
  if (idx >= 0) {
    (*P).nmap = (*P).nmap - 1;
    let last = (*P).map[(*P).nmap];
    (*P).map[idx] = last;
    (*P).fidx[last] = idx;
  }
  (*P).fidx[f] = -2;
}

fn cv_add_edge(P: ptr<function, CvPoly>, f: i32, edge: i32) {
  if ((*P).ne < CV_FMAX) { (*P).hor[(*P).ne] = vec2<i32>(f, edge); (*P).ne = (*P).ne + 1; }
}

fn cv_get_edge(P: ptr<function, CvPoly>, f: i32, vertex: i32) -> i32 {
  let fv = (*P).fv[f];
  if (fv.x == vertex) { return 0; }
  if (fv.y == vertex) { return 1; }
  return 2;
}

// Face f can be seen from w (the CPU's 1e-15 threshold raised to f32's rounding of the dot product).
fn cv_visible(P: ptr<function, CvPoly>, f: i32, w: vec3<f32>) -> bool {
  let fp = (*P).fp[f];
  return dot(fp, w) - (*P).fd2[f] > max(CV_MINVAL, CV_EPS * length(fp) * length(w));
}

// The CPU's recursive horizon search from face f0 (entered by edge e0) with an explicit stack, visiting
// neighbours in the same order so that the horizon edges come out in the same cycle. False when f0 is not visible.
fn cv_horizon_rec(P: ptr<function, CvPoly>, f0: i32, e0: i32, w: vec3<f32>) -> bool {
  if (!cv_visible(P, f0, w)) { return false; }
  cv_delete_face(P, f0);
  (*P).stk[0] = vec3<i32>(f0, e0, 1);
  var sp = 1;
  while (sp > 0) {
    let top = (*P).stk[sp - 1];
    if (top.z > 2) { sp--; continue; }
    (*P).stk[sp - 1].z = top.z + 1;
    let f = top.x;
    let i = (top.y + top.z) % 3;
    let adj = (*P).fa[f][i];
    if ((*P).fidx[adj] > -2) {
      let ae = cv_get_edge(P, adj, (*P).fv[f][(i + 1) % 3]);
      if (cv_visible(P, adj, w)) {
        cv_delete_face(P, adj);
        if (sp < CV_FMAX) { (*P).stk[sp] = vec3<i32>(adj, ae, 1); sp++; }
      } else {
        cv_add_edge(P, adj, ae);
      }
    }
  }
  return true;
}

fn cv_horizon(P: ptr<function, CvPoly>, f: i32, w: vec3<f32>) {
  cv_delete_face(P, f);
  for (var i = 0; i < 3; i++) {
    let adj = (*P).fa[f][i];
    if ((*P).fidx[adj] <= -2) { continue; }
    let ae = cv_get_edge(P, adj, (*P).fv[f][(i + 1) % 3]);
    if (!cv_horizon_rec(P, adj, ae, w)) { cv_add_edge(P, adj, ae); }
  }
}

fn cv_map_within(P: ptr<function, CvPoly>, f: i32, d2: f32, lower2: f32, upper2: f32) {
  if (d2 >= lower2 && d2 <= upper2) {
    let i = (*P).nmap;
    (*P).nmap = i + 1;
    (*P).map[i] = f;
    (*P).fidx[f] = i;
  }
}

// Expands the polytope; sets cv_dist, cv_x1, cv_x2 from the face nearest the origin (cv_nx 0 on failure).
fn cv_epa(P: ptr<function, CvPoly>) {
  var upper = CV_MAX;
  var upper2 = CV_MAX;
  var lower2 = 0.0;
  var slack = 0.0;
  var face = -1;
  var pface = -1;
  let discrete = cv_discrete();
  let tol = select(cv_tol, CV_MINVAL, discrete);
  for (var k = 0; k < cv_maxit; k++) {
    pface = face;
    lower2 = CV_MAX;
    for (var i = 0; i < (*P).nmap; i++) {
      let f = (*P).map[i];
      if ((*P).fd2[f] < lower2) { face = f; lower2 = (*P).fd2[f]; }
    }
    if (lower2 > upper2 || face < 0) { face = pface; break; }
    if (lower2 <= 0.0) { break; }
    let lower = sqrt(lower2);
    let wi = cv_epa_support(P, (*P).fp[face], lower);
    let w = (*P).v[wi].w;
    let upper_k = dot((*P).fp[face], w) / lower;
    // f32 rounds a face's distance by about CV_EPS times the vertices' norms: the bounds that keep faces in the
    // search get that much room, or the face of the hull that meets the upper bound can round out of it
    slack = max(slack, CV_SLACK * length(w));
    if (upper_k < upper) { upper = upper_k; }
    upper2 = (upper + slack) * (upper + slack);
    let lo = max(lower - slack, 0.0);
    if (upper - lower < tol) { break; }
    if (discrete) {
      let id = (*P).v[wi].id;
      var i = 0;
      for (; i < (*P).nv - 1; i++) { if (all((*P).v[i].id == id)) { break; } }
      if (i != (*P).nv - 1) { break; }
    }
    cv_horizon(P, face, w);
    if ((*P).ne < 3) { face = -1; break; }
    let nf = (*P).nf;
    let ne = (*P).ne;
    // out of face storage: keep the nearest face (as the CPU when its storage runs out)
    if (ne > CV_FMAX - nf) { break; }
    for (var i = 0; i < ne; i++) {
      let h = (*P).hor[i];
      let a = (*P).fv[h.x][h.y];
      let b = (*P).fv[h.x][(h.y + 1) % 3];
      (*P).fa[h.x][h.y] = nf + i;
      let d2 = cv_attach(P, wi, b, a, select(nf + i - 1, nf + ne - 1, i == 0), h.x, select(nf + i + 1, nf + (i + 1) % ne, i == 0 || i == ne - 1));
      if (d2 == 0.0) { face = -1; break; }
      cv_map_within(P, (*P).nf - 1, d2, lo * lo, upper2);
    }
    (*P).ne = 0;
    if ((*P).nmap == 0 || face < 0) { break; }
  }
  if (face >= 0) {
    let fv = (*P).fv[face];
    let va = (*P).v[fv.x]; let vb = (*P).v[fv.y]; let vc = (*P).v[fv.z];
    let af = cv_tri_affine(va.w, vb.w, vc.w, (*P).fp[face]);
    cv_x1 = af.x * va.a + af.y * vb.a + af.z * vc.a;
    cv_x2 = af.x * va.b + af.y * vb.b + af.z * vc.b;
    cv_dist = -sqrt((*P).fd2[face]);
    cv_nx = 1;
  } else {
    cv_nx = 0;
    cv_dist = 0.0;
  }
}

fn cv_epa_run() {
  var P: CvPoly;
  var ret = cv_nsimplex;
  if (ret == 2) { ret = cv_polytope2(&P); } else if (ret == 4) { ret = cv_polytope4(&P); }
  if (ret == 3) { ret = cv_polytope3(&P); }
  if (ret == 0) { cv_epa(&P); }
}

fn cv_reset_centers() { cv_x1 = cv_pos[0]; cv_x2 = cv_pos[1]; }

// Moves the witness points out by the cores' radii (the inflated cores' distance).
fn cv_inflate(m1: f32, m2: f32) {
  var n = cv_x2 - cv_x1;
  let norm = length(n);
  if (norm < CV_MINVAL) { n = vec3<f32>(1.0, 0.0, 0.0); } else { n = n * (1.0 / norm); }
  if (m1 != 0.0) { cv_x1 = cv_x1 + m1 * n; }
  if (m2 != 0.0) { cv_x2 = cv_x2 - m2 * n; }
  cv_dist = cv_dist - (m1 + m2);
}

fn cv_core_kind(t: i32) -> i32 {
  if (t == 2) { return CV_POINT; }
  if (t == 3) { return CV_LINE; }
  return -1;
}

// mjc_ccd for one contact: the signed distance of the shapes inflated by half the margin each, with the witness
// points in cv_x1, cv_x2 when negative.
fn cv_ccd(margin: f32) -> f32 {
  cv_margin = array<f32, 2>(margin, margin);
  cv_kind = cv_type;
  cv_cutoff = 0.0;
  cv_gjkit = 0;
  cv_nsimplex = 0;
  cv_reset_centers();
  let c1 = cv_core_kind(cv_type[0]);
  let c2 = cv_core_kind(cv_type[1]);
  let full1 = select(0.0, cv_size[0].x + 0.5 * margin, c1 >= 0);
  let full2 = select(0.0, cv_size[1].x + 0.5 * margin, c2 >= 0);
  // the cores first when there are any, then the full shapes: one cv_gjk call site (lavapipe inlines each one)
  var cores = c1 >= 0 || c2 >= 0;
  for (var run = 0; run < 2; run++) {
    if (cores) {
      if (c1 >= 0) { cv_kind[0] = c1; cv_margin[0] = 0.0; }
      if (c2 >= 0) { cv_kind[1] = c2; cv_margin[1] = 0.0; }
      cv_cutoff = full1 + full2;
    }
    cv_gjk();
    if (!cores) { break; }
    cv_cutoff = 0.0;
    cv_margin = array<f32, 2>(margin, margin);
    cv_kind = cv_type;
    if (cv_dist > cv_tol) {
      cv_inflate(full1, full2);
      if (cv_dist > cv_cutoff) { cv_dist = CV_MAX; }
      return cv_dist;
    }
    cv_gjkit = 0;
    cv_reset_centers();
    cores = false;
  }
  if (cv_dist <= cv_tol && cv_nsimplex > 1) {
    cv_dist = 0.0;
    cv_epa_run();
  }
  return cv_dist;
}

// Plane (point pp, normal n) against an ellipsoid: its lowest point (the libccd-era support: normalise, then
// scale) is the one contact, halfway to the plane.
fn cv_plane_ellipsoid(pp: vec3<f32>, n: vec3<f32>, p: vec3<f32>, m: mat3x3<f32>, s: vec3<f32>, margin: f32) -> i32 {
  let l = transpose(m) * -n;
  var q = l * s;
  let norm = length(q);
  if (norm < CV_MINVAL) { q = vec3<f32>(1.0, 0.0, 0.0); } else { q = q * (1.0 / norm); }
  let v = m * (q * s) + p;
  let d = dot(n, v - pp);
  if (d > margin) { return 0; }
  set_contact(0, d, v + n * (-0.5 * d), n);
  return 1;
}

// The convex narrow phase of geoms g1, g2 (types t1 <= t2, convex_pair true): at most one contact, as contact 0.
fn convex_narrow(g1: i32, g2: i32, t1: i32, t2: i32, p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>,
  p2: vec3<f32>, m2: mat3x3<f32>, s2: vec3<f32>, margin: f32) -> i32 {
  if (t1 == 0) { return cv_plane_ellipsoid(p1, m1[2], p2, m2, s2, margin); }
  cv_geom = array<i32, 2>(g1, g2);
  cv_type = array<i32, 2>(t1, t2);
  cv_pos = array<vec3<f32>, 2>(p1, p2);
  cv_mat = array<mat3x3<f32>, 2>(m1, m2);
  cv_size = array<vec3<f32>, 2>(s1, s2);
  cv_tol = OPT_CCD_TOLERANCE;
  cv_maxit = min(OPT_CCD_ITERATIONS, ${GPU_CCD_MAX_ITERATIONS});
  ${mesh ? '// each pair starts its hull searches afresh, as MuJoCo\'s ccd objects do\n  mesh_support_reset();' : ''}
  let d = cv_ccd(margin);
  if (!(d < 0.0) || cv_nx < 1) { return 0; }
  var n = cv_x1 - cv_x2;
  let norm = length(n);
  if (norm < CV_MINVAL) { n = vec3<f32>(1.0, 0.0, 0.0); } else { n = n * (1.0 / norm); }
  set_contact(0, margin + d, 0.5 * (cv_x1 + cv_x2), n);
  return 1;
}
`;
}
