/**
 * WGSL twin of the spatial tendons (src/physics/tendon.ts and tendon-wrap.ts, MuJoCo's mj_tendon and mju_wrap):
 * each spatial tendon's length and dense Jacobian, computed once per step at the end of `com` (site frames,
 * subtree coms and cdof are then current; qpos does not change before integrate) into Data's tenLength and
 * tenJ, which passive, actuation and make_constraint read. Fixed tendons keep their joint sums there.
 * Wrap types (MuJoCo's mjtWrap): 1 joint, 2 pulley, 3 site, 4 sphere, 5 cylinder.
 */

/** Reading a tendon's state: which tendons are spatial, their velocity, and their forces on dofs. */
export const TENDON_USE_WGSL = /* wgsl */ `
fn ten_is_spatial(t: i32) -> bool {
  return mn(M_TENDON_NUM, t) > 0 && mn(M_WRAP_TYPE, mn(M_TENDON_ADR, t)) != 1;
}
// A spatial tendon's velocity: J . qvel.
fn ten_velocity(t: i32, e: u32) -> f32 {
  var v = 0.0;
  for (var i = 0; i < NV; i++) { v += dget(D_TEN_J, t * NV + i, e) * dget(D_QVEL, i, e); }
  return v;
}
// field[i] += gear * J[i] * f over the dofs (the nv-vector field at 'base'): a spatial tendon's force.
fn ten_add(base: u32, t: i32, gear: f32, f: f32, e: u32) {
  for (var i = 0; i < NV; i++) { dset(base, i, e, dget(base, i, e) + gear * dget(D_TEN_J, t * NV + i, e) * f); }
}
`;

const WRAP_WGSL = /* wgsl */ `
const TEN_MINVAL: f32 = 1e-15;
const TEN_PI: f32 = 3.14159265358979;

// mju_normalize in 2D and 3D: (1, 0[, 0]) below MINVAL.
fn ten_unit2(v: vec2<f32>) -> vec2<f32> {
  let n = length(v);
  if (n < TEN_MINVAL) { return vec2<f32>(1.0, 0.0); }
  return v / n;
}
fn ten_unit3(v: vec3<f32>) -> vec3<f32> {
  let n = length(v);
  if (n < TEN_MINVAL) { return vec3<f32>(1.0, 0.0, 0.0); }
  return v / n;
}

// Whether 2D segments p1-p2 and p3-p4 cross.
fn ten_crosses(p1: vec2<f32>, p2: vec2<f32>, p3: vec2<f32>, p4: vec2<f32>) -> bool {
  let det = (p4.y - p3.y) * (p2.x - p1.x) - (p4.x - p3.x) * (p2.y - p1.y);
  if (abs(det) < TEN_MINVAL) { return false; }
  let a = ((p4.x - p3.x) * (p1.y - p3.y) - (p4.y - p3.y) * (p1.x - p3.x)) / det;
  let b = ((p2.x - p1.x) * (p1.y - p3.y) - (p2.y - p1.y) * (p1.x - p3.x)) / det;
  return a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0;
}

// Arc length between tangent points on the circle, the long way round when 'ind' says the solution goes so.
fn ten_arc(p0: vec2<f32>, p1: vec2<f32>, ind: bool, radius: f32) -> f32 {
  // the angle between them as atan2 (|cross|, dot): acos of the dot, as in f64, loses half the digits of a
  // small angle in f32 (measured 4e-6 m of tendon length on a 4 cm drum)
  let u0 = ten_unit2(p0);
  let u1 = ten_unit2(p1);
  var angle = atan2(abs(u0.x * u1.y - u0.y * u1.x), dot(u0, u1));
  let c = p0.y * p1.x - p0.x * p1.y;
  if ((c > 0.0 && ind) || (c < 0.0 && !ind)) { angle = 2.0 * TEN_PI - angle; }
  return radius * angle;
}

struct TenWrap2 { len: f32, a: vec2<f32>, b: vec2<f32> }

// 2D wrap of the segment e0-e1 around a circle at the origin (side: the side site's direction, when has_side).
fn ten_wrap_circle(e0: vec2<f32>, e1: vec2<f32>, has_side: bool, side: vec2<f32>, radius: f32) -> TenWrap2 {
  let miss = TenWrap2(-1.0, vec2<f32>(0.0), vec2<f32>(0.0));
  let sqlen0 = dot(e0, e0);
  let sqlen1 = dot(e1, e1);
  let sqrad = radius * radius;
  if (sqlen0 < sqrad || sqlen1 < sqrad || radius < TEN_MINVAL) { return miss; }
  let dif = e1 - e0;
  let dd = dot(dif, dif);
  if (dd < TEN_MINVAL) { return miss; }
  // the segment's point nearest the centre: no wrap when it clears the circle (on the side site's side)
  let a = clamp(-dot(dif, e0) / dd, 0.0, 1.0);
  let nearest = a * dif + e0;
  if (dot(nearest, nearest) > sqrad && (!has_side || dot(side, nearest) >= 0.0)) { return miss; }
  let sqrt0 = sqrt(sqlen0 - sqrad);
  let sqrt1 = sqrt(sqlen1 - sqrad);
  var sol: array<vec4<f32>, 2>;
  var good: array<f32, 2>;
  for (var i = 0; i < 2; i++) {
    let sgn = select(-1.0, 1.0, i == 0);
    let s = vec4<f32>(
      (e0.x * sqrad + sgn * radius * e0.y * sqrt0) / sqlen0, (e0.y * sqrad - sgn * radius * e0.x * sqrt0) / sqlen0,
      (e1.x * sqrad - sgn * radius * e1.y * sqrt1) / sqlen1, (e1.y * sqrad + sgn * radius * e1.x * sqrt1) / sqlen1);
    sol[i] = s;
    // goodness: towards the side site, or else the shorter path
    var g: f32;
    if (has_side) { g = dot(ten_unit2(s.xy + s.zw), side); } else { let d = s.xy - s.zw; g = -dot(d, d); }
    if (ten_crosses(e0, s.xy, e1, s.zw)) { g = -10000.0; }
    good[i] = g;
  }
  let i = select(1, 0, good[0] > good[1]);
  let s = sol[i];
  if (ten_crosses(e0, s.xy, e1, s.zw)) { return miss; }
  return TenWrap2(ten_arc(s.xy, s.zw, i == 1, radius), s.xy, s.zw);
}

// The Newton solve below runs on y = 1 - z: its start z = 1 - 1e-7 is no f32 number (the nearest is
// 1 - 1.19e-7), and there asin's slope moves f by 9e-5, enough to take the other branch than f64 does.
// asin(a z) as atan2 of (1 - a z)(1 + a z) with 1 - a z = (1 - a) + a y keeps those digits; lavapipe's own
// f32 asin and acos are short polynomials, far coarser than the solve's tolerance near 1.
fn ten_asin1(a: f32, y: f32) -> f32 {
  let x = a * (1.0 - y);
  return atan2(x, sqrt(max(0.0, ((1.0 - a) + a * y) * (1.0 + x))));
}
// d asin(a z) / dz = a / sqrt(1 - (a z)^2), the root at least MINVAL
fn ten_dasin1(a: f32, y: f32) -> f32 {
  let x = a * (1.0 - y);
  return a / max(TEN_MINVAL, sqrt(max(0.0, ((1.0 - a) + a * y) * (1.0 + x))));
}
fn ten_newton_f(A: f32, B: f32, G: f32, y: f32) -> f32 {
  return ten_asin1(A, y) + ten_asin1(B, y) - 2.0 * ten_asin1(1.0, y) + G;
}

// 2D wrap from inside (side site within the circle): one tangent point by Newton's method; len 0, or -1.
fn ten_wrap_inside(e0: vec2<f32>, e1: vec2<f32>, radius: f32) -> TenWrap2 {
  let miss = TenWrap2(-1.0, vec2<f32>(0.0), vec2<f32>(0.0));
  let len0 = length(e0);
  let len1 = length(e1);
  let dif = e1 - e0;
  let dd = dot(dif, dif);
  if (len0 <= radius || len1 <= radius || radius < TEN_MINVAL || len0 < TEN_MINVAL || len1 < TEN_MINVAL) { return miss; }
  if (dd > TEN_MINVAL) {
    let a = -dot(dif, e0) / dd;
    if (a > 0.0 && a < 1.0 && length(e0 + dif * a) <= radius) { return miss; }
  }
  // fallback on numerical failure: the direction of the endpoints' average
  let avg = radius * ten_unit2(0.5 * (e0 + e1));
  let fallback = TenWrap2(0.0, avg, avg);
  // solve asin(A z) + asin(B z) - 2 asin(z) + G = 0
  let A = radius / len0;
  let B = radius / len1;
  let cosG = (len0 * len0 + len1 * len1 - dd) / (2.0 * len0 * len1);
  if (cosG < -1.0 + TEN_MINVAL) { return miss; }
  if (cosG > 1.0 - TEN_MINVAL) { return fallback; }
  // the angle between the ends, as atan2 (see ten_asin1)
  let G = atan2(abs(e0.x * e1.y - e0.y * e1.x), dot(e0, e1));
  var y = 1e-7;
  var f = ten_newton_f(A, B, G, y);
  if (f > 0.0) { return fallback; }
  var iter = 0;
  for (; iter < 20 && abs(f) > 1e-6; iter++) {
    let df = ten_dasin1(A, y) + ten_dasin1(B, y) - 2.0 * ten_dasin1(1.0, y);
    if (df > -TEN_MINVAL) { return fallback; }
    // z - f / df, as y
    let y1 = y + f / df;
    if (y1 < y) { return fallback; }
    y = y1;
    f = ten_newton_f(A, B, G, y);
    if (f > 1e-6) { return fallback; }
  }
  if (iter >= 20) { return fallback; }
  // rotate from the endpoint on the positive side by the solved angle
  var v: vec2<f32>;
  var ang: f32;
  if (e0.x * e1.y - e0.y * e1.x > 0.0) { v = e0; ang = ten_asin1(1.0, y) - ten_asin1(A, y); } else { v = e1; ang = ten_asin1(1.0, y) - ten_asin1(B, y); }
  v = ten_unit2(v);
  let p = radius * vec2<f32>(cos(ang) * v.x - sin(ang) * v.y, sin(ang) * v.x + cos(ang) * v.y);
  return TenWrap2(0.0, p, p);
}

struct TenWrap3 { len: f32, a: vec3<f32>, b: vec3<f32> }

// The tendon from x0 to x1 around geom g (sphere, or cylinder when cyl), with side site 'side' (-1: none):
// the two tangent points (world) and the length along the surface, or len -1 when it does not wrap.
fn ten_wrap_geom(x0: vec3<f32>, x1: vec3<f32>, g: i32, cyl: bool, side: i32, e: u32) -> TenWrap3 {
  let miss = TenWrap3(-1.0, vec3<f32>(0.0), vec3<f32>(0.0));
  let radius = mr(M_GEOM_SIZE, 3 * g);
  let gpos = ld3(D_GEOM_XPOS, g, e);
  let gmat = ldmat(D_GEOM_XMAT, g, e);
  let gT = transpose(gmat);
  let p0 = gT * (x0 - gpos);
  let p1 = gT * (x1 - gpos);
  if (length(p0) < TEN_MINVAL || length(p1) < TEN_MINVAL) { return miss; }
  // the 2D frame: the plane of the centre and both points (sphere), the cross-section (cylinder)
  var ax0 = vec3<f32>(1.0, 0.0, 0.0);
  var ax1 = vec3<f32>(0.0, 1.0, 0.0);
  if (!cyl) {
    ax0 = ten_unit3(p0);
    var normal = cross(p0, p1);
    let nrm = length(normal);
    if (nrm < TEN_MINVAL) {
      // p0 and p1 parallel: a normal from the axis and a vector off its largest component
      let ab = abs(ax0);
      var other = vec3<f32>(0.0, 1.0, 1.0);
      if (ab.y > ab.x && ab.y > ab.z) { other = vec3<f32>(1.0, 0.0, 1.0); }
      if (ab.z > ab.x && ab.z > ab.y) { other = vec3<f32>(1.0, 1.0, 0.0); }
      normal = ten_unit3(cross(ax0, other));
    } else {
      normal = normal / nrm;
    }
    ax1 = ten_unit3(cross(normal, ax0));
  }
  let d0 = vec2<f32>(dot(p0, ax0), dot(p0, ax1));
  let d1 = vec2<f32>(dot(p1, ax0), dot(p1, ax1));
  var w: TenWrap2;
  var inside = false;
  var sd = vec2<f32>(0.0);
  if (side >= 0) {
    let s = gT * (ld3(D_SITE_XPOS, side, e) - gpos);
    sd = radius * ten_unit2(vec2<f32>(dot(s, ax0), dot(s, ax1)));
    inside = length(s) < radius;
  }
  if (inside) { w = ten_wrap_inside(d0, d1, radius); } else { w = ten_wrap_circle(d0, d1, side >= 0, sd, radius); }
  if (w.len < 0.0) { return miss; }
  // back to 3D in the geom's frame
  var r0 = ax0 * w.a.x + ax1 * w.a.y;
  var r1 = ax0 * w.b.x + ax1 * w.b.y;
  var len = w.len;
  if (cyl) {
    // heights interpolated along the unrolled path, the wrap's length including its rise
    let L0 = length(p0.xy - r0.xy);
    let L1 = length(p1.xy - r1.xy);
    r0.z = p0.z + (p1.z - p0.z) * L0 / (L0 + len + L1);
    r1.z = p0.z + (p1.z - p0.z) * (L0 + len) / (L0 + len + L1);
    let height = abs(r1.z - r0.z);
    len = sqrt(len * len + height * height);
  }
  return TenWrap3(len, gmat * r0 + gpos, gmat * r1 + gpos);
}

// tenJ[t] += scale * sgn * (point p's Jacobian on body) . dir.
fn ten_point_jac(t: i32, body: i32, p: vec3<f32>, dir: vec3<f32>, scale: f32, e: u32) {
  let o = p - ld3(D_SUBTREE_COM, mn(M_BODY_ROOTID, body), e);
  var b = body;
  while (b != 0 && mn(M_BODY_DOFNUM, b) == 0) { b = mn(M_BODY_PARENTID, b); }
  if (b == 0) { return; }
  var i = mn(M_BODY_DOFADR, b) + mn(M_BODY_DOFNUM, b) - 1;
  while (i >= 0) {
    let w = vec3<f32>(dget(D_CDOF, 6 * i, e), dget(D_CDOF, 6 * i + 1, e), dget(D_CDOF, 6 * i + 2, e));
    let v = vec3<f32>(dget(D_CDOF, 6 * i + 3, e), dget(D_CDOF, 6 * i + 4, e), dget(D_CDOF, 6 * i + 5, e));
    dset(D_TEN_J, t * NV + i, e, dget(D_TEN_J, t * NV + i, e) + scale * dot(v + cross(w, o), dir));
    i = mn(M_DOF_PARENTID, i);
  }
}

// The straight piece a (on body ba) to b (on body bb) in tendon t's Jacobian, over the divisor.
fn ten_segment(t: i32, a: vec3<f32>, ba: i32, b: vec3<f32>, bb: i32, divisor: f32, e: u32) {
  if (ba == bb) { return; } // points on one body keep their distance
  let dir = ten_unit3(b - a);
  ten_point_jac(t, bb, b, dir, 1.0 / divisor, e);
  ten_point_jac(t, ba, a, dir, -1.0 / divisor, e);
}

// Every spatial tendon's length and Jacobian into tenLength and tenJ.
fn spatial_tendons(e: u32) {
  for (var t = 0; t < NTENDON; t++) {
    if (!ten_is_spatial(t)) { continue; }
    for (var i = 0; i < NV; i++) { dset(D_TEN_J, t * NV + i, e, 0.0); }
    let adr = mn(M_TENDON_ADR, t);
    let num = mn(M_TENDON_NUM, t);
    var len = 0.0;
    var divisor = 1.0;
    var j = 0;
    while (j < num - 1) {
      let w = adr + j;
      let type0 = mn(M_WRAP_TYPE, w);
      let type1 = mn(M_WRAP_TYPE, w + 1);
      if (type0 == 2 || type1 == 2) {
        if (type0 == 2) { divisor = mr(M_WRAP_PRM, w); }
        j++;
        continue;
      }
      let wrapped = type1 == 4 || type1 == 5;
      let s0 = mn(M_WRAP_OBJID, w);
      let s1 = mn(M_WRAP_OBJID, w + select(1, 2, wrapped));
      let p0 = ld3(D_SITE_XPOS, s0, e);
      let p1 = ld3(D_SITE_XPOS, s1, e);
      let b0 = mn(M_SITE_BODYID, s0);
      let b1 = mn(M_SITE_BODYID, s1);
      var wr = TenWrap3(-1.0, vec3<f32>(0.0), vec3<f32>(0.0));
      if (wrapped) {
        let g = mn(M_WRAP_OBJID, w + 1);
        wr = ten_wrap_geom(p0, p1, g, type1 == 5, i32(round(mr(M_WRAP_PRM, w + 1))), e);
      }
      if (wr.len < 0.0) {
        len += distance(p0, p1) / divisor;
        ten_segment(t, p0, b0, p1, b1, divisor, e);
      } else {
        len += (distance(p0, wr.a) + wr.len + distance(wr.b, p1)) / divisor;
        let gb = mn(M_GEOM_BODYID, mn(M_WRAP_OBJID, w + 1));
        ten_segment(t, p0, b0, wr.a, gb, divisor, e);
        ten_segment(t, wr.b, gb, p1, b1, divisor, e);
      }
      j += select(1, 2, wrapped);
    }
    dset(D_TEN_LENGTH, t, e, len);
  }
}
`;

/** In place of SPATIAL_TENDON_WGSL for a model with no spatial tendon (the wraps would only add compile time). */
export const SPATIAL_TENDON_STUB_WGSL = /* wgsl */ `
fn spatial_tendons(e: u32) {}
`;

/** The path and wrap computation, for the `com` kernel (it needs TENDON_USE_WGSL too). */
export const SPATIAL_TENDON_WGSL = TENDON_USE_WGSL + WRAP_WGSL;
