/**
 * WGSL twin of stage `collision` (cpu.ts beside it): one invocation per env, serial inside the env.
 *
 * The CPU builds its candidate pair list once per model (collision/plan.ts); here the same filters run inside
 * the kernel, in the same order, so the kernel needs nothing but the packed model: body pairs (b1 < b2) with
 * geoms, weld/parent-weld filter, <exclude> signatures, the self-collision switch, contype/conaffinity, pair
 * ordering by geom type, then the bounding-sphere test and the narrow phase. Explicit <pair>s merge in by body
 * signature, with their own parameters and no filters, and replace the dynamic pair of the same geoms. Contacts
 * come out in the CPU's order with its positions, frames and parameters (collision/params.ts). A pair whose
 * contacts do not all fit in MAXCON is dropped whole and sets errFlags bit 2 (value 4); later pairs still may fit.
 *
 * Narrow phases mirrored: plane against sphere, capsule, cylinder, box and mesh (mesh.ts); sphere-sphere,
 * sphere-capsule, capsule-capsule, sphere-cylinder, sphere-box, capsule-box, box-box (box_box.ts).
 * The CPU's general convex pairs (ellipsoids, capsule-cylinder, cylinder-cylinder, cylinder-box, and a mesh
 * against sphere, capsule, ellipsoid, cylinder, box and mesh with the hull's support) run through convex.ts
 * (f32 GJK/EPA); height fields are refused at build (refuseHFieldCollision).
 * Geom types: 0 plane, 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, 6 box, 7 mesh.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { WGSL_MATH } from '../../gpu/wgsl-math.js';
import { BOX_BOX_WGSL } from '../../gpu/kernels/box_box.js';
import { CONVEX_STUB_WGSL, convexWgsl, gpuConvexPair } from '../../gpu/kernels/convex.js';
import { MESH_HULL_WGSL, PLANE_MESH_STUB_WGSL, PLANE_MESH_WGSL } from '../../gpu/kernels/mesh.js';

const COLLISION_HELPERS = /* wgsl */ `
const MINVAL_C: f32 = 1e-15;
// One pair's contacts (box-box may write up to 24 before dropping repeats): distance, point, normal, tangent.
var<private> nc_dist: array<f32, 24>;
var<private> nc_pos: array<vec3<f32>, 24>;
var<private> nc_n: array<vec3<f32>, 24>;
var<private> nc_t: array<vec3<f32>, 24>;

fn set_contact(k: i32, dist: f32, p: vec3<f32>, n: vec3<f32>) {
  nc_dist[k] = dist; nc_pos[k] = p; nc_n[k] = n; nc_t[k] = vec3<f32>(0.0);
}

// Plane (point pp, normal pn) against a sphere (centre c, radius r), as contact k.
fn plane_sphere_at(k: i32, pp: vec3<f32>, pn: vec3<f32>, c: vec3<f32>, r: f32, margin: f32) -> i32 {
  let cdist = dot(c - pp, pn);
  if (cdist > margin + r) { return 0; }
  let dist = cdist - r;
  set_contact(k, dist, c + pn * (-dist / 2.0 - r), pn);
  return 1;
}

fn plane_capsule(pp: vec3<f32>, pn: vec3<f32>, cp: vec3<f32>, cm: mat3x3<f32>, r: f32, h: f32, margin: f32) -> i32 {
  let a = cm[2];
  let n1 = plane_sphere_at(0, pp, pn, cp + h * a, r, margin);
  let n2 = plane_sphere_at(n1, pp, pn, cp - h * a, r, margin);
  if (n1 != 0) { nc_t[0] = a; }
  if (n2 != 0) { nc_t[n1] = a; }
  return n1 + n2;
}

fn plane_cylinder(pp: vec3<f32>, n: vec3<f32>, cp: vec3<f32>, cm: mat3x3<f32>, radius: f32, halfh: f32, margin: f32) -> i32 {
  var ax = cm[2];
  var prjaxis = dot(n, ax);
  if (prjaxis > 0.0) { ax = -ax; prjaxis = -prjaxis; }
  let dist0 = dot(cp - pp, n);
  var v = ax * prjaxis - n;
  let lenSqr = dot(v, v);
  if (lenSqr >= MINVAL_C * MINVAL_C) { v = v * (radius / sqrt(lenSqr)); } else { v = cm[0] * radius; }
  let prjvec = dot(v, n);
  ax = ax * halfh;
  prjaxis = prjaxis * halfh;
  var cnt = 0;
  let d1 = dist0 + prjaxis + prjvec;
  if (d1 > margin) { return 0; }
  set_contact(cnt, d1, cp + v + ax - n * d1 * 0.5, n); cnt++;
  let d2 = dist0 - prjaxis + prjvec;
  if (d2 <= margin) { set_contact(cnt, d2, cp + v - ax - n * d2 * 0.5, n); cnt++; }
  let d3 = dist0 + prjaxis - prjvec * 0.5;
  if (d3 <= margin) {
    var s = cross(v, ax);
    let sn = length(s);
    if (sn < MINVAL_C) { s = vec3<f32>(1.0, 0.0, 0.0); } else { s = s / sn; }
    s = s * (radius * sqrt(3.0) / 2.0);
    let b = cp + ax - v * 0.5 - n * d3 * 0.5;
    set_contact(cnt, d3, b + s, n); cnt++;
    set_contact(cnt, d3, b - s, n); cnt++;
  }
  return cnt;
}

fn plane_box(pp: vec3<f32>, n: vec3<f32>, bp: vec3<f32>, bm: mat3x3<f32>, sz: vec3<f32>, margin: f32) -> i32 {
  let dist = dot(bp - pp, n);
  var cnt = 0;
  for (var i = 0; i < 8; i++) {
    let l = vec3<f32>(select(-sz.x, sz.x, (i & 1) != 0), select(-sz.y, sz.y, (i & 2) != 0), select(-sz.z, sz.z, (i & 4) != 0));
    let c = bm * l;
    let ldist = dot(n, c);
    if (dist + ldist > margin || ldist > 0.0) { continue; }
    let d = dist + ldist;
    set_contact(cnt, d, c + bp - n * d / 2.0, n);
    cnt++;
    if (cnt >= 4) { return 4; }
  }
  return cnt;
}

// Sphere (a, ra, z axis u1) against sphere (b, rb, z axis u2), as contact k; the normal points from a to b.
fn sphere_sphere_at(k: i32, a: vec3<f32>, ra: f32, u1: vec3<f32>, b: vec3<f32>, rb: f32, u2: vec3<f32>, margin: f32) -> i32 {
  let dd = a - b;
  let cdistSqr = dot(dd, dd);
  let minDist = margin + ra + rb;
  if (cdistSqr > minDist * minDist) { return 0; }
  let dist = sqrt(cdistSqr) - ra - rb;
  var n = b - a;
  let len = length(n);
  if (len < MINVAL_C) {
    n = cross(u1, u2);
    let nn = length(n);
    if (nn < MINVAL_C) { n = vec3<f32>(1.0, 0.0, 0.0); } else { n = n / nn; }
  } else {
    n = n / len;
  }
  set_contact(k, dist, a + n * (ra + dist / 2.0), n);
  return 1;
}

fn sphere_capsule(a: vec3<f32>, ra: f32, am: mat3x3<f32>, b: vec3<f32>, bm: mat3x3<f32>, rb: f32, h: f32, margin: f32) -> i32 {
  let u = bm[2];
  let x = clamp(dot(u, a - b), -h, h);
  return sphere_sphere_at(0, a, ra, am[2], b + u * x, rb, u, margin);
}

// Spheres at fractions x1, x2 of the two capsule segments.
fn segment_spheres(k: i32, p1: vec3<f32>, m1: mat3x3<f32>, s1: vec2<f32>, p2: vec3<f32>, m2: mat3x3<f32>, s2: vec2<f32>, x1: f32, x2: f32, margin: f32) -> i32 {
  return sphere_sphere_at(k, p1 + m1[2] * (s1.y * x1), s1.x, m1[2], p2 + m2[2] * (s2.y * x2), s2.x, m2[2], margin);
}

fn capsule_capsule(p1: vec3<f32>, m1: mat3x3<f32>, s1: vec2<f32>, p2: vec3<f32>, m2: mat3x3<f32>, s2: vec2<f32>, margin: f32) -> i32 {
  let a1 = m1[2] * s1.y;
  let a2 = m2[2] * s2.y;
  let dif = p1 - p2;
  let ma = dot(a1, a1);
  let mb = -dot(a1, a2);
  let mc = dot(a2, a2);
  let u = -dot(a1, dif);
  let v = dot(a2, dif);
  let det = ma * mc - mb * mb;
  if (abs(det) >= MINVAL_C) {
    var x1 = (mc * u - mb * v) / det;
    var x2 = (ma * v - mb * u) / det;
    if (x1 > 1.0) { x1 = 1.0; x2 = (v - mb) / mc; } else if (x1 < -1.0) { x1 = -1.0; x2 = (v + mb) / mc; }
    if (x2 > 1.0) { x2 = 1.0; x1 = clamp((u - mb) / ma, -1.0, 1.0); } else if (x2 < -1.0) { x2 = -1.0; x1 = clamp((u + mb) / ma, -1.0, 1.0); }
    return segment_spheres(0, p1, m1, s1, p2, m2, s2, x1, x2, margin);
  }
  var n = segment_spheres(0, p1, m1, s1, p2, m2, s2, 1.0, clamp((v - mb) / mc, -1.0, 1.0), margin);
  n += segment_spheres(n, p1, m1, s1, p2, m2, s2, -1.0, clamp((v + mb) / mc, -1.0, 1.0), margin);
  if (n >= 2) { return n; }
  n += segment_spheres(n, p1, m1, s1, p2, m2, s2, clamp((u - mb) / ma, -1.0, 1.0), 1.0, margin);
  if (n >= 2) { return n; }
  n += segment_spheres(n, p1, m1, s1, p2, m2, s2, clamp((u + mb) / ma, -1.0, 1.0), -1.0, margin);
  return n;
}

fn sphere_cylinder(a: vec3<f32>, ra: f32, am: mat3x3<f32>, b: vec3<f32>, m: mat3x3<f32>, radius: f32, height: f32, margin: f32) -> i32 {
  let u = m[2];
  let vv = a - b;
  let x = dot(u, vv);
  let ax = u * x;
  var p = vv - ax;
  let pSqr = dot(p, p);
  var side = abs(x) < height;
  var cap = pSqr < radius * radius;
  if (side && cap) {
    if (height - abs(x) < radius - sqrt(pSqr)) { side = false; } else { cap = false; }
  }
  if (side) { return sphere_sphere_at(0, a, ra, am[2], ax + b, radius, u, margin); }
  if (cap) {
    let sgn = select(-1.0, 1.0, x > 0.0);
    let n = plane_sphere_at(0, b + u * (height * sgn), u * sgn, a, ra, margin);
    if (n != 0) { nc_n[0] = -nc_n[0]; }
    return n;
  }
  p = p * (radius / sqrt(pSqr));
  let hh = select(-height, height, x > 0.0);
  return sphere_sphere_at(0, a, ra, am[2], u * hh + p + b, 0.0, u, margin);
}

fn sphere_box_at(k: i32, c: vec3<f32>, r: f32, bp: vec3<f32>, bm: mat3x3<f32>, s: vec3<f32>, margin: f32) -> i32 {
  let center = transpose(bm) * (c - bp);
  var clamped = center;
  for (var i = 0; i < 3; i++) { if (s[i] > 0.0) { clamped[i] = clamp(center[i], -s[i], s[i]); } }
  var d = clamped - center;
  var dist = length(d);
  if (dist < MINVAL_C) { d = vec3<f32>(1.0, 0.0, 0.0); } else { d = d / dist; }
  if (dist - r > margin) { return 0; }
  var p: vec3<f32>;
  var n: vec3<f32>;
  if (dist <= MINVAL_C) {
    var closest = (s.x + s.y + s.z) * 2.0;
    var face = 0;
    for (var i = 0; i < 6; i++) {
      let gap = abs(select(-1.0, 1.0, (i % 2) != 0) * s[i >> 1u] - center[i >> 1u]);
      if (closest > gap) { closest = gap; face = i; }
    }
    var l = vec3<f32>(0.0);
    l[face >> 1u] = select(1.0, -1.0, (face % 2) != 0);
    p = center + l * ((r - closest) / 2.0);
    n = bm * l;
    dist = -closest;
  } else {
    p = 0.5 * clamped + 0.5 * (center + d * r);
    n = bm * d;
  }
  set_contact(k, dist - r, bm * p + bp, n);
  return 1;
}

// Capsule (centre cp, axis column cm[2], radius r, half length hl) against a box (collision/box.ts, MuJoCo's
// mjc_CapsuleBox): the box feature nearest the segment gets one sphere; a second sphere goes where the
// capsule lies along a face or across an edge.
fn capsule_box(cp: vec3<f32>, cm: mat3x3<f32>, r: f32, hl: f32, bp: vec3<f32>, bm: mat3x3<f32>, s: vec3<f32>, margin: f32) -> i32 {
  let bt = transpose(bm);
  let pos = bt * (cp - bp);
  let axis = bt * cm[2];
  let half = axis * hl;
  let axisdir = select(0, 1, half.x > 0.0) + select(0, 2, half.y > 0.0) + select(0, 4, half.z > 0.0);
  let bestdistmax = margin + 2.0 * (r + hl + s.x + s.y + s.z);
  var bestdist = bestdistmax;
  var bestsegmentpos = 0.0;
  var bestboxpos = 0.0;
  var cltype = -4;
  var clface = -1;
  var clcorner = 0;
  var cledge = 0;

  // segment ends against the faces
  for (var i = -1; i <= 1; i += 2) {
    var nclamped = 0;
    var last_axis = -1;
    var d2 = 0.0;
    for (var j = 0; j < 3; j++) {
      let p = pos[j] + half[j] * f32(i);
      var c = p;
      if (p < -s[j]) { nclamped++; last_axis = j; c = -s[j]; } else if (p > s[j]) { nclamped++; last_axis = j; c = s[j]; }
      d2 += (c - p) * (c - p);
    }
    if (nclamped > 1) { continue; }
    if (d2 < bestdist) { bestdist = d2; bestsegmentpos = f32(i); cltype = -2 + i; clface = last_axis; }
  }

  // segment against the 12 edges
  for (var j = 0; j < 3; j++) {
    for (var i = 0; i < 8; i++) {
      if ((i & (1 << u32(j))) != 0) { continue; }
      var corner = vec3<f32>(select(-1.0, 1.0, (i & 1) != 0) * s.x, select(-1.0, 1.0, (i & 2) != 0) * s.y, select(-1.0, 1.0, (i & 4) != 0) * s.z);
      corner[j] = 0.0;
      let dif = corner - pos;
      let sj = s[j];
      let ma = sj * sj;
      let mb = -sj * half[j];
      let mc = hl * hl;
      let u = -sj * dif[j];
      let v = dot(half, dif);
      let det = ma * mc - mb * mb;
      if (abs(det) < MINVAL_C) { continue; }
      let idet = 1.0 / det;
      var x1 = (mc * u - mb * v) * idet;
      var x2 = (ma * v - mb * u) * idet;
      var s1 = 1;
      var s2 = 1;
      if (x1 > 1.0) { x1 = 1.0; s1 = 2; x2 = (v - mb) * (1.0 / mc); } else if (x1 < -1.0) { x1 = -1.0; s1 = 0; x2 = (v + mb) * (1.0 / mc); }
      if (x2 > 1.0) {
        x2 = 1.0; s2 = 2; x1 = (u - mb) * (1.0 / ma);
        if (x1 > 1.0) { x1 = 1.0; s1 = 2; } else if (x1 < -1.0) { x1 = -1.0; s1 = 0; }
      } else if (x2 < -1.0) {
        x2 = -1.0; s2 = 0; x1 = (u + mb) * (1.0 / ma);
        if (x1 > 1.0) { x1 = 1.0; s1 = 2; } else if (x1 < -1.0) { x1 = -1.0; s1 = 0; }
      }
      var tmp = dif - half * x2;
      tmp[j] = tmp[j] + sj * x1;
      let d2 = dot(tmp, tmp);
      let code = s1 * 3 + s2;
      if (d2 < bestdist - MINVAL_C) {
        bestdist = d2;
        bestsegmentpos = x2;
        bestboxpos = x1;
        clcorner = i + (1 << u32(j)) * (code / 6);
        cledge = j;
        cltype = code;
      }
    }
  }
  if (cltype == -4) { return 0; }

  var secondpos = -4.0;
  if (cltype >= 0 && cltype / 3 != 1) {
    // nearest to a box corner
    var c1 = axisdir ^ clcorner;
    if (c1 != 0 && c1 != 7) {
      var mul: f32;
      var de: f32;
      var dp: f32;
      if (c1 == 1 || c1 == 2 || c1 == 4) {
        mul = 1.0; de = 1.0 - bestsegmentpos; dp = 1.0 + bestsegmentpos;
      } else {
        mul = -1.0; c1 = 7 - c1; dp = 1.0 - bestsegmentpos; de = 1.0 + bestsegmentpos;
      }
      let ax = select(select(2, 1, c1 == 2), 0, c1 == 1);
      let ax1 = (ax + 1) % 3;
      let ax2 = (ax + 2) % 3;
      if (axis[ax] * axis[ax] > 0.5) {
        secondpos = min(de, 2.0 * s[ax] / abs(half[ax])) * mul;
      } else {
        secondpos = dp;
        let e1 = 2.0 * s[ax1] / abs(half[ax1]);
        if (e1 < secondpos) { secondpos = e1; }
        let e2 = 2.0 * s[ax2] / abs(half[ax2]);
        if (e2 < secondpos) { secondpos = e2; }
        secondpos = secondpos * -mul;
      }
    }
  } else if (cltype >= 0) {
    // nearest to the middle of an edge: a second point only when the capsule crosses the edge
    let c1 = (axisdir ^ clcorner) & (7 - (1 << u32(cledge)));
    if (c1 == 1 || c1 == 2 || c1 == 4) {
      let ax = cledge;
      var ax1 = (ax + 1) % 3;
      let other = (ax + 2) % 3;
      if (abs(axis[ax1]) > abs(axis[other])) { ax1 = other; }
      let ax2 = 3 - ax - ax1;
      var mul: f32;
      if ((c1 & (1 << u32(ax2))) != 0) { mul = 1.0; secondpos = 1.0 - bestsegmentpos; } else { mul = -1.0; secondpos = 1.0 + bestsegmentpos; }
      var e1 = 2.0 * s[ax2] / abs(half[ax2]);
      if (e1 < secondpos) { secondpos = e1; }
      let same = ((axisdir & (1 << u32(ax))) != 0) == ((c1 & (1 << u32(ax2))) != 0);
      let e2 = select(1.0 + bestboxpos, 1.0 - bestboxpos, same);
      e1 = s[ax] * e2 / abs(half[ax]);
      if (e1 < secondpos) { secondpos = e1; }
      secondpos = secondpos * mul;
    }
  } else if (clface != -1) {
    // a segment end is nearest to a face: walk towards the other end while it stays over the face
    let mul = select(-1.0, 1.0, cltype == -3);
    secondpos = 2.0;
    for (var i = 0; i < 3; i++) {
      if (i == clface) { continue; }
      let t = pos[i] - half[i] * mul;
      var e1 = (s[i] - t) / half[i] * mul;
      if (e1 > 0.0 && e1 < secondpos) { secondpos = e1; }
      e1 = (-s[i] - t) / half[i] * mul;
      if (e1 > 0.0 && e1 < secondpos) { secondpos = e1; }
    }
    secondpos = secondpos * mul;
  }

  // one or two spheres along the segment (the second only when secondpos was set)
  var n = 0;
  for (var k = 0; k < 2; k++) {
    if (k == 1 && !(secondpos > -3.0)) { break; }
    let t = select(secondpos + bestsegmentpos, bestsegmentpos, k == 0);
    n += sphere_box_at(n, bm * (pos + half * t) + bp, r, bp, bm, s, margin);
  }
  return n;
}

// keep in step with gpuHasNarrow below
fn has_narrow(t1: i32, t2: i32) -> bool {
  if (convex_pair(t1, t2)) { return true; }
  if (t1 == 0) { return t2 == 2 || t2 == 3 || t2 == 5 || t2 == 6 || t2 == 7; }
  if (t1 == 2) { return t2 == 2 || t2 == 3 || t2 == 5 || t2 == 6; }
  if (t1 == 3) { return t2 == 3 || t2 == 6; }
  if (t1 == 6) { return t2 == 6; }
  return false;
}

fn geom_size(g: i32) -> vec3<f32> { return m3(M_GEOM_SIZE, g); }

// The narrow phase of an ordered pair (type of g1 <= type of g2); fills nc_* and returns the count.
fn narrow(g1: i32, g2: i32, e: u32, margin: f32) -> i32 {
  let t1 = mn(M_GEOM_TYPE, g1);
  let t2 = mn(M_GEOM_TYPE, g2);
  let p1 = ld3(D_GEOM_XPOS, g1, e);
  let p2 = ld3(D_GEOM_XPOS, g2, e);
  let m1 = ldmat(D_GEOM_XMAT, g1, e);
  let m2 = ldmat(D_GEOM_XMAT, g2, e);
  let s1 = geom_size(g1);
  let s2 = geom_size(g2);
  if (convex_pair(t1, t2)) { return convex_narrow(g1, g2, t1, t2, p1, m1, s1, p2, m2, s2, margin); }
  if (t1 == 0) {
    let n = m1[2];
    if (t2 == 2) { return plane_sphere_at(0, p1, n, p2, s2.x, margin); }
    if (t2 == 3) { return plane_capsule(p1, n, p2, m2, s2.x, s2.y, margin); }
    if (t2 == 5) { return plane_cylinder(p1, n, p2, m2, s2.x, s2.y, margin); }
    if (t2 == 6) { return plane_box(p1, n, p2, m2, s2, margin); }
    if (t2 == 7) { return plane_mesh(p1, n, g2, p2, m2, margin); }
    return 0;
  }
  if (t1 == 2) {
    if (t2 == 2) { return sphere_sphere_at(0, p1, s1.x, m1[2], p2, s2.x, m2[2], margin); }
    if (t2 == 3) { return sphere_capsule(p1, s1.x, m1, p2, m2, s2.x, s2.y, margin); }
    if (t2 == 5) { return sphere_cylinder(p1, s1.x, m1, p2, m2, s2.x, s2.y, margin); }
    if (t2 == 6) { return sphere_box_at(0, p1, s1.x, p2, m2, s2, margin); }
    return 0;
  }
  if (t1 == 3 && t2 == 3) { return capsule_capsule(p1, m1, s1.xy, p2, m2, s2.xy, margin); }
  if (t1 == 3 && t2 == 6) { return capsule_box(p1, m1, s1.x, s1.y, p2, m2, s2, margin); }
  if (t1 == 6 && t2 == 6) { return box_box(p1, m1, s1, p2, m2, s2, margin); }
  return 0;
}

// True when the bounding spheres (or sphere and plane half-space) are farther apart than the margin.
fn bounds_apart(g1: i32, g2: i32, e: u32, margin: f32) -> bool {
  let r1 = mr(M_GEOM_RBOUND, g1);
  let r2 = mr(M_GEOM_RBOUND, g2);
  let p1 = ld3(D_GEOM_XPOS, g1, e);
  let p2 = ld3(D_GEOM_XPOS, g2, e);
  if (r1 > 0.0 && r2 > 0.0) {
    let d = p1 - p2;
    let bound = r1 + r2 + margin;
    return dot(d, d) > bound * bound;
  }
  if (mn(M_GEOM_TYPE, g1) == 0 && r2 > 0.0) {
    let n = vec3<f32>(dget(D_GEOM_XMAT, 9 * g1 + 2, e), dget(D_GEOM_XMAT, 9 * g1 + 5, e), dget(D_GEOM_XMAT, 9 * g1 + 8, e));
    return dot(p2 - p1, n) > margin + r2;
  }
  return false;
}

// MuJoCo's filterBodyPair: same weld, or one weld is the other's parent weld (neither is the world).
fn weld_filtered(b1: i32, b2: i32) -> bool {
  let w1 = mn(M_BODY_WELDID, b1);
  let w2 = mn(M_BODY_WELDID, b2);
  if (w1 == w2) { return true; }
  let pw1 = mn(M_BODY_WELDID, mn(M_BODY_PARENTID, w1));
  let pw2 = mn(M_BODY_WELDID, mn(M_BODY_PARENTID, w2));
  return w1 != 0 && w2 != 0 && (w1 == pw2 || w2 == pw1);
}

// Explicit pair k, its geoms ordered by type, as mj_collideGeoms does (no filters but the bounding spheres).
fn collide_explicit(k: i32, e: u32, ncon: i32) -> i32 {
  var ga = mn(M_PAIR_GEOM1, k);
  var gb = mn(M_PAIR_GEOM2, k);
  if (mn(M_GEOM_TYPE, ga) > mn(M_GEOM_TYPE, gb)) { let t = ga; ga = gb; gb = t; }
  if (!has_narrow(mn(M_GEOM_TYPE, ga), mn(M_GEOM_TYPE, gb))) { return ncon; }
  return collide_pair(ga, gb, e, ncon, k);
}

// A geom pair that is also an explicit pair is collided once, as the explicit one (mj_collideGeomPair).
fn is_explicit(g1: i32, g2: i32) -> bool {
  for (var k = 0; k < NPAIR; k++) {
    let p1 = mn(M_PAIR_GEOM1, k);
    let p2 = mn(M_PAIR_GEOM2, k);
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) { return true; }
  }
  return false;
}

fn excluded(b1: i32, b2: i32) -> bool {
  let sig = (b1 << 16u) + b2;
  for (var i = 0; i < NEXCLUDE; i++) { if (mn(M_EXCLUDE_SIGNATURE, i) == sig) { return true; } }
  return false;
}

// mju_makeFrame on contact k: unit normal, the tangent orthogonalised (world y or z when unset), their cross.
fn make_frame(k: i32) -> mat3x3<f32> {
  var n = nc_n[k];
  let nn = length(n);
  if (nn < MINVAL_C) { n = vec3<f32>(1.0, 0.0, 0.0); } else { n = n / nn; }
  var t = nc_t[k];
  if (dot(t, t) < 0.25) {
    t = select(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(0.0, 1.0, 0.0), n.y < 0.5 && n.y > -0.5);
  }
  t = t - n * dot(n, t);
  let tn = length(t);
  if (tn < MINVAL_C) { t = vec3<f32>(1.0, 0.0, 0.0); } else { t = t / tn; }
  return mat3x3<f32>(n, t, cross(n, t));
}

// An explicit pair's own parameters for contact c (collision/params.ts explicitParams).
fn write_pair_params(c: i32, k: i32, e: u32, margin: f32) {
  dset(D_CONTACT_INCLUDEMARGIN, c, e, margin - mr(M_PAIR_GAP, k));
  iset(D_CONTACT_DIM, c, e, mn(M_PAIR_DIM, k));
  for (var i = 0; i < 2; i++) { dset(D_CONTACT_SOLREF, 2 * c + i, e, mr(M_PAIR_SOLREF, 2 * k + i)); }
  for (var i = 0; i < 5; i++) { dset(D_CONTACT_SOLIMP, 5 * c + i, e, mr(M_PAIR_SOLIMP, 5 * k + i)); }
  // mjMINMU floor, as for every contact
  for (var i = 0; i < 5; i++) { dset(D_CONTACT_FRICTION, 5 * c + i, e, max(mr(M_PAIR_FRICTION, 5 * k + i), 1e-5)); }
}

// mj_contactParam for contact c of geoms g1, g2 (see collision/params.ts).
fn write_params(c: i32, g1: i32, g2: i32, e: u32, margin: f32) {
  let gap = max(mr(M_GEOM_GAP, g1), mr(M_GEOM_GAP, g2));
  dset(D_CONTACT_INCLUDEMARGIN, c, e, margin - gap);
  let p1 = mn(M_GEOM_PRIORITY, g1);
  let p2 = mn(M_GEOM_PRIORITY, g2);
  var fri: vec3<f32>;
  if (p1 != p2) {
    let g = select(g2, g1, p1 > p2);
    for (var i = 0; i < 2; i++) { dset(D_CONTACT_SOLREF, 2 * c + i, e, mr(M_GEOM_SOLREF, 2 * g + i)); }
    for (var i = 0; i < 5; i++) { dset(D_CONTACT_SOLIMP, 5 * c + i, e, mr(M_GEOM_SOLIMP, 5 * g + i)); }
    fri = m3(M_GEOM_FRICTION, g);
    iset(D_CONTACT_DIM, c, e, mn(M_GEOM_CONDIM, g));
  } else {
    let s1 = mr(M_GEOM_SOLMIX, g1);
    let s2 = mr(M_GEOM_SOLMIX, g2);
    var mix: f32;
    if (s1 >= MINVAL_C && s2 >= MINVAL_C) { mix = s1 / (s1 + s2); }
    else if (s1 < MINVAL_C && s2 < MINVAL_C) { mix = 0.5; }
    else if (s1 < MINVAL_C) { mix = 0.0; }
    else { mix = 1.0; }
    if (mr(M_GEOM_SOLREF, 2 * g1) > 0.0 && mr(M_GEOM_SOLREF, 2 * g2) > 0.0) {
      for (var i = 0; i < 2; i++) { dset(D_CONTACT_SOLREF, 2 * c + i, e, mix * mr(M_GEOM_SOLREF, 2 * g1 + i) + (1.0 - mix) * mr(M_GEOM_SOLREF, 2 * g2 + i)); }
    } else {
      for (var i = 0; i < 2; i++) { dset(D_CONTACT_SOLREF, 2 * c + i, e, min(mr(M_GEOM_SOLREF, 2 * g1 + i), mr(M_GEOM_SOLREF, 2 * g2 + i))); }
    }
    for (var i = 0; i < 5; i++) { dset(D_CONTACT_SOLIMP, 5 * c + i, e, mix * mr(M_GEOM_SOLIMP, 5 * g1 + i) + (1.0 - mix) * mr(M_GEOM_SOLIMP, 5 * g2 + i)); }
    fri = max(m3(M_GEOM_FRICTION, g1), m3(M_GEOM_FRICTION, g2));
    iset(D_CONTACT_DIM, c, e, max(mn(M_GEOM_CONDIM, g1), mn(M_GEOM_CONDIM, g2)));
  }
  // MuJoCo's floor mjMINMU = 1e-5 on every friction coefficient (0 makes the pyramid degenerate)
  fri = max(fri, vec3<f32>(1e-5));
  dset(D_CONTACT_FRICTION, 5 * c, e, fri.x); dset(D_CONTACT_FRICTION, 5 * c + 1, e, fri.x);
  dset(D_CONTACT_FRICTION, 5 * c + 2, e, fri.y);
  dset(D_CONTACT_FRICTION, 5 * c + 3, e, fri.z); dset(D_CONTACT_FRICTION, 5 * c + 4, e, fri.z);
}

// Narrow phase of one ordered pair (ipair: its explicit pair, or -1); appends its contacts after 'ncon' and
// returns the new count.
fn collide_pair(ga: i32, gb: i32, e: u32, ncon0: i32, ipair: i32) -> i32 {
  var ncon = ncon0;
  var margin = max(mr(M_GEOM_MARGIN, ga), mr(M_GEOM_MARGIN, gb));
  if (ipair >= 0) { margin = mr(M_PAIR_MARGIN, ipair); }
  if (bounds_apart(ga, gb, e, margin)) { return ncon; }
  let num = narrow(ga, gb, e, margin);
  if (ncon + num > MAXCON) {
    // as MuJoCo when its contact buffer is full: this pair's contacts are dropped whole
    iset(D_ERR_FLAGS, 0, e, iget(D_ERR_FLAGS, 0, e) | 4);
    return ncon;
  }
  for (var k = 0; k < num; k++) {
    let c = ncon;
    ncon++;
    dset(D_CONTACT_DIST, c, e, nc_dist[k]);
    st3(D_CONTACT_POS, c, e, nc_pos[k]);
    stmat(D_CONTACT_FRAME, c, e, transpose(make_frame(k)));
    if (ipair >= 0) { write_pair_params(c, ipair, e, margin); } else { write_params(c, ga, gb, e, margin); }
    iset(D_CONTACT_GEOM, 2 * c, e, ga);
    iset(D_CONTACT_GEOM, 2 * c + 1, e, gb);
  }
  return ncon;
}
`;

/** The pairs (type1 <= type2) the WGSL narrow phase has, as its has_narrow; the GPU backend refuses the rest at build. */
export function gpuHasNarrow(t1: number, t2: number): boolean {
  if (gpuConvexPair(t1, t2)) return true;
  if (t1 === 0 && t2 === 7) return true; // plane-mesh
  if (t1 === 0 || t1 === 2) return t2 === 2 || t2 === 3 || t2 === 5 || t2 === 6;
  if (t1 === 3) return t2 === 3 || t2 === 6;
  if (t1 === 6) return t2 === 6;
  return false;
}

/**
 * The collision kernel with the general convex routine (with or without the mesh hull's support, with or without
 * mesh-mesh) and plane-mesh, or without them (empty stand-ins): see gpuKernelsFor, which leaves out what a model's
 * pairs cannot reach.
 */
export function collisionKernelWith(features: { convex: boolean; meshConvex: boolean; planeMesh: boolean; meshMesh?: boolean }): KernelDef {
  const meshMesh = features.meshMesh ?? false;
  const convex = features.convex || features.meshConvex || meshMesh ? convexWgsl(features.meshConvex || meshMesh, meshMesh) : CONVEX_STUB_WGSL;
  return {
    name: 'collision',
    helpers: WGSL_MATH + COLLISION_HELPERS + BOX_BOX_WGSL + convex + MESH_HULL_WGSL
      + (features.planeMesh ? PLANE_MESH_WGSL : PLANE_MESH_STUB_WGSL),
    body: COLLISION_BODY,
  };
}

const COLLISION_BODY = /* wgsl */ `
  var ncon = 0;
  if (OPT_COLLISION != 0) {
    // explicit pairs (sorted by body signature) merge in before the body pair of the same or a higher signature
    var next = 0;
    for (var b1 = 0; b1 < NBODY; b1++) {
      let n1 = mn(M_BODY_GEOMNUM, b1);
      if (n1 == 0) { continue; }
      let a1 = mn(M_BODY_GEOMADR, b1);
      for (var b2 = b1 + 1; b2 < NBODY; b2++) {
        let n2 = mn(M_BODY_GEOMNUM, b2);
        if (n2 == 0) { continue; }
        let signature = (b1 << 16u) + b2;
        while (next < NPAIR && mn(M_PAIR_SIGNATURE, next) <= signature) {
          ncon = collide_explicit(next, e, ncon);
          next++;
        }
        if (weld_filtered(b1, b2) || excluded(b1, b2)) { continue; }
        if (OPT_SELF_COLLISION == 0 && b1 != 0 && mn(M_BODY_ROOTID, b1) == mn(M_BODY_ROOTID, b2)) { continue; }
        let a2 = mn(M_BODY_GEOMADR, b2);
        for (var g1 = a1; g1 < a1 + n1; g1++) {
          for (var g2 = a2; g2 < a2 + n2; g2++) {
            let ct1 = mn(M_GEOM_CONTYPE, g1); let ca1 = mn(M_GEOM_CONAFFINITY, g1);
            let ct2 = mn(M_GEOM_CONTYPE, g2); let ca2 = mn(M_GEOM_CONAFFINITY, g2);
            if ((ct1 & ca2) == 0 && (ct2 & ca1) == 0) { continue; }
            if (is_explicit(g1, g2)) { continue; }
            var ga = g1; var gb = g2;
            if (mn(M_GEOM_TYPE, g1) > mn(M_GEOM_TYPE, g2)) { ga = g2; gb = g1; }
            if (!has_narrow(mn(M_GEOM_TYPE, ga), mn(M_GEOM_TYPE, gb))) { continue; }
            ncon = collide_pair(ga, gb, e, ncon, -1);
          }
        }
      }
    }
    while (next < NPAIR) {
      ncon = collide_explicit(next, e, ncon);
      next++;
    }
  }
  iset(D_NCON, 0, e, ncon);`;

/** Every narrow phase (the default of tests that build their own pipeline for any model). */
export const collisionKernel: KernelDef = collisionKernelWith({ convex: true, meshConvex: true, planeMesh: true, meshMesh: true });
