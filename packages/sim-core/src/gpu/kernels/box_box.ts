/**
 * WGSL twin of collision/box-box.ts (MuJoCo's mjc_BoxBox and its driver's clean-up), for the collision
 * kernel. 3x3 matrices that are not geom frames are row-major array<f32, 9>, as in the CPU code; geom frames
 * are WGSL mat3x3 whose column k is the box's axis k. Writes its contacts with set_contact (nc_*).
 */
export const BOX_BOX_WGSL = /* wgsl */ `
const BB_MAXPTS: i32 = 24;
var<private> bb_pts: array<vec3<f32>, 24>;
var<private> bb_depth: array<f32, 24>;
var<private> bb_rot: array<f32, 9>;
var<private> bb_rotabs: array<f32, 9>;
var<private> bb_r: array<f32, 9>;

// Row k of the signed permutation taking face f's outward normal to +z (0-2: +x, +y, +z; 3-5: -x, -y, -z).
fn bb_perm(f: i32) -> vec3<i32> {
  if (f == 0 || f == 3) { return vec3<i32>(2, 1, 0); }
  if (f == 1 || f == 4) { return vec3<i32>(0, 2, 1); }
  return vec3<i32>(0, 1, 2);
}
fn bb_sign(f: i32) -> vec3<f32> {
  switch (f) {
    case 0: { return vec3<f32>(-1.0, 1.0, 1.0); }
    case 1: { return vec3<f32>(1.0, -1.0, 1.0); }
    case 3: { return vec3<f32>(1.0, 1.0, -1.0); }
    case 4: { return vec3<f32>(1.0, 1.0, -1.0); }
    case 5: { return vec3<f32>(-1.0, 1.0, -1.0); }
    default: { return vec3<f32>(1.0, 1.0, 1.0); }
  }
}
// The face rotation applied to a vector (rotmore * v).
fn bb_apply(f: i32, v: vec3<f32>) -> vec3<f32> {
  let p = bb_perm(f);
  return vec3<f32>(v[p.x], v[p.y], v[p.z]) * bb_sign(f);
}
// rotmore^T * v: the inverse permutation.
fn bb_apply_t(f: i32, v: vec3<f32>) -> vec3<f32> {
  let p = bb_perm(f);
  let s = bb_sign(f);
  var out = vec3<f32>(0.0);
  out[p.x] = v.x * s.x; out[p.y] = v.y * s.y; out[p.z] = v.z * s.z;
  return out;
}
// Element (i, j) of rotmore.
fn bb_face(f: i32, i: i32, j: i32) -> f32 {
  let p = bb_perm(f);
  return select(0.0, bb_sign(f)[i], p[i] == j);
}
// Row k of the row-major bb_r as a vector, and column k (row k of its transpose).
fn bb_rrow(k: i32) -> vec3<f32> { return vec3<f32>(bb_r[3 * k], bb_r[3 * k + 1], bb_r[3 * k + 2]); }
fn bb_rcol(k: i32) -> vec3<f32> { return vec3<f32>(bb_r[k], bb_r[3 + k], bb_r[6 + k]); }
// bb_r = geom frame (row-major view of mat3x3 m: element (i, k) is m[k][i]) times rotmore^T.
fn bb_frame_times_face_t(m: mat3x3<f32>, f: i32) {
  for (var i = 0; i < 3; i++) {
    for (var j = 0; j < 3; j++) {
      bb_r[3 * i + j] = m[0][i] * bb_face(f, j, 0) + m[1][i] * bb_face(f, j, 1) + m[2][i] * bb_face(f, j, 2);
    }
  }
}

// mju_outsideBox with the box grown by the margin: 1 outside by more than the ratio, -1 inside, 0 between.
fn bb_outside(p: vec3<f32>, bp: vec3<f32>, bm: mat3x3<f32>, size: vec3<f32>, margin: f32, ratio: f32) -> i32 {
  let v = transpose(bm) * (p - bp);
  var inside = true;
  for (var k = 0; k < 3; k++) {
    let sz = size[k] + margin;
    let big = sz * ratio;
    if (v[k] > big || v[k] < -big) { return 1; }
    let small = sz / ratio;
    if (!(v[k] < small && v[k] > -small)) { inside = false; }
  }
  return select(0, -1, inside);
}

// Drops contacts well outside one box and not inside the other, then repeated positions (MuJoCo's driver).
fn bb_clean(n: i32, p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>, p2: vec3<f32>, m2: mat3x3<f32>, s2: vec3<f32>, margin: f32) -> i32 {
  var bad: array<bool, 24>;
  for (var i = 0; i < n; i++) {
    let o1 = bb_outside(nc_pos[i], p1, m1, s1, margin, 1.01);
    let o2 = bb_outside(nc_pos[i], p2, m2, s2, margin, 1.01);
    bad[i] = (o1 == 1 && o2 != -1) || (o2 == 1 && o1 != -1);
  }
  for (var i = 0; i < n - 1; i++) {
    if (bad[i]) { continue; }
    for (var j = i + 1; j < n; j++) {
      if (bad[j]) { continue; }
      if (all(nc_pos[i] == nc_pos[j])) { bad[i] = true; break; }
    }
  }
  var kept = 0;
  for (var j = 0; j < n; j++) {
    if (bad[j]) { continue; }
    if (kept < j) { nc_dist[kept] = nc_dist[j]; nc_pos[kept] = nc_pos[j]; nc_n[kept] = nc_n[j]; nc_t[kept] = nc_t[j]; }
    kept++;
  }
  return kept;
}

fn box_box(p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>, p2: vec3<f32>, m2: mat3x3<f32>, s2: vec3<f32>, margin: f32) -> i32 {
  let pos21 = transpose(m1) * (p2 - p1);
  let pos12 = transpose(m2) * (p1 - p2);
  for (var i = 0; i < 3; i++) {
    for (var j = 0; j < 3; j++) {
      bb_rot[3 * i + j] = dot(m1[i], m2[j]);
      bb_rotabs[3 * i + j] = abs(bb_rot[3 * i + j]);
    }
  }
  var plen1 = vec3<f32>(0.0);
  var plen2 = vec3<f32>(0.0);
  for (var i = 0; i < 3; i++) {
    plen2[i] = bb_rotabs[3 * i] * s2.x + bb_rotabs[3 * i + 1] * s2.y + bb_rotabs[3 * i + 2] * s2.z;
    plen1[i] = bb_rotabs[i] * s1.x + bb_rotabs[3 + i] * s1.y + bb_rotabs[6 + i] * s1.z;
  }
  var penetration = margin + 3.0 * (s1.x + s1.y + s1.z + s2.x + s2.y + s2.z);
  var code = -1;
  for (var i = 0; i < 3; i++) {
    let c1 = -abs(pos21[i]) + s1[i] + plen2[i];
    let c2 = -abs(pos12[i]) + s2[i] + plen1[i];
    if (c1 < -margin || c2 < -margin) { return 0; }
    if (c1 < penetration) { penetration = c1; code = i + 3 * select(0, 1, pos21[i] < 0.0); }
    if (c2 < penetration) { penetration = c2; code = i + 3 * select(0, 1, pos12[i] < 0.0) + 6; }
  }
  var cle1 = 0;
  var cle2 = 0;
  var inward = false;
  var clnorm = vec3<f32>(0.0);
  for (var i = 0; i < 3; i++) {
    for (var j = 0; j < 3; j++) {
      // box-1 axis i crossed with box-2 axis j (column j of rot) in box 1's frame
      let e = vec3<f32>(bb_rot[j], bb_rot[3 + j], bb_rot[6 + j]);
      var axis: vec3<f32>;
      if (i == 0) { axis = vec3<f32>(0.0, -e.z, e.y); } else if (i == 1) { axis = vec3<f32>(e.z, 0.0, -e.x); } else { axis = vec3<f32>(-e.y, e.x, 0.0); }
      let len = length(axis);
      if (len < MINVAL_C) { continue; }
      axis = axis * (1.0 / len);
      let c2 = dot(pos21, axis);
      var c3 = 0.0;
      for (var k = 0; k < 3; k++) { if (k != i) { c3 += s1[k] * abs(axis[k]); } }
      for (var k = 0; k < 3; k++) { if (k != j) { c3 += s2[k] * bb_rotabs[3 * i + 3 - k - j] / len; } }
      c3 -= abs(c2);
      if (c3 < -margin) { return 0; }
      if (c3 < penetration * (1.0 - 1e-12)) {
        penetration = c3;
        cle1 = 0;
        for (var k = 0; k < 3; k++) { if (k != i && ((axis[k] > 0.0) != (c2 < 0.0))) { cle1 += 1 << u32(k); } }
        cle2 = 0;
        for (var k = 0; k < 3; k++) {
          if (k == j) { continue; }
          let flip = (bb_rot[3 * i + 3 - k - j] > 0.0) != (c2 < 0.0);
          if (flip != ((k - j + 3) % 3 == 1)) { cle2 += 1 << u32(k); }
        }
        code = 12 + i * 3 + j;
        clnorm = axis;
        inward = c2 < 0.0;
      }
    }
  }
  if (code == -1) { return 0; }
  var n = 0;
  if (code < 12) { n = bb_face_contacts(p1, m1, s1, p2, m2, s2, code, pos12, pos21, margin); }
  else { n = bb_edge_contacts(p1, m1, s1, s2, code - 12, cle1, cle2, inward, pos21, clnorm, margin); }
  return bb_clean(n, p1, m1, s1, p2, m2, s2, margin);
}

fn bb_face_contacts(p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>, p2: vec3<f32>, m2: mat3x3<f32>, s2: vec3<f32>,
                    code: i32, pos12: vec3<f32>, pos21: vec3<f32>, margin: f32) -> i32 {
  let f = code % 6;
  let on2 = code >= 6;
  var p: vec3<f32>;
  var sized: vec3<f32>;
  var s: vec3<f32>;
  if (on2) {
    // r = rotmore * rot^T
    for (var i = 0; i < 3; i++) {
      for (var j = 0; j < 3; j++) {
        bb_r[3 * i + j] = bb_face(f, i, 0) * bb_rot[3 * j] + bb_face(f, i, 1) * bb_rot[3 * j + 1] + bb_face(f, i, 2) * bb_rot[3 * j + 2];
      }
    }
    p = bb_apply(f, pos12); sized = bb_apply(f, s2); s = s1;
  } else {
    // r = rows of rot, permuted and signed
    let pm = bb_perm(f);
    let sg = bb_sign(f);
    for (var k = 0; k < 3; k++) { for (var c = 0; c < 3; c++) { bb_r[3 * k + c] = bb_rot[3 * pm[k] + c] * sg[k]; } }
    p = bb_apply(f, pos21); sized = bb_apply(f, s1); s = s2;
  }
  let ss = abs(sized);
  let lx = ss.x; let ly = ss.y; let hz = ss.z;
  p.z -= hz;
  // rt = r^T, so row i of rt is column i of r
  var corner = 0;
  for (var i = 0; i < 3; i++) { if (bb_r[6 + i] < 0.0) { corner += 1 << u32(i); } }
  var lp = p;
  for (var i = 0; i < 3; i++) { lp += bb_rcol(i) * (s[i] * select(-1.0, 1.0, (corner & (1 << u32(i))) != 0)); }
  var pts: array<vec3<f32>, 6>;
  var m = 0;
  pts[m] = lp; m++;
  for (var i = 0; i < 3; i++) {
    if (abs(bb_r[6 + i]) < 0.5) { pts[m] = bb_rcol(i) * (s[i] * select(2.0, -2.0, (corner & (1 << u32(i))) != 0)); m++; }
  }
  pts[3] = pts[0] + pts[1];
  pts[4] = pts[0] + pts[2];
  pts[5] = pts[3] + pts[2];
  var lfrom: array<vec3<f32>, 4>;
  var ldir: array<vec3<f32>, 4>;
  var nl = 0;
  if (m > 1) { lfrom[nl] = pts[0]; ldir[nl] = pts[1]; nl++; }
  if (m > 2) {
    lfrom[nl] = pts[0]; ldir[nl] = pts[2]; nl++;
    lfrom[nl] = pts[3]; ldir[nl] = pts[2]; nl++;
    lfrom[nl] = pts[4]; ldir[nl] = pts[1]; nl++;
  }
  var n = 0;
  for (var i = 0; i < nl; i++) {
    for (var q = 0; q < 2; q++) {
      let a = lfrom[i][q]; let b = ldir[i][q]; let c = lfrom[i][1 - q]; let d = ldir[i][1 - q];
      if (!(abs(b) > MINVAL_C)) { continue; }
      for (var j = -1; j <= 1; j += 2) {
        let l = ss[q] * f32(j);
        let t = (l - a) * (1.0 / b);
        if (t < 0.0 || t > 1.0) { continue; }
        let c2 = c + d * t;
        if (abs(c2) > ss[1 - q]) { continue; }
        bb_pts[n] = lfrom[i] + ldir[i] * t; n++;
      }
    }
  }
  let a = pts[1].x; let b = pts[2].x; let c = pts[1].y; let d = pts[2].y;
  let det = a * d - b * c;
  if (m > 2) {
    for (var i = 0; i < 4; i++) {
      let llx = select(-lx, lx, i >= 2);
      let lly = select(-ly, ly, i % 2 != 0);
      let x = llx - pts[0].x; let y = lly - pts[0].y;
      let u = (x * d - y * b) * (1.0 / det);
      let v = (y * a - x * c) * (1.0 / det);
      if (u <= 0.0 || v <= 0.0 || u >= 1.0 || v >= 1.0) { continue; }
      bb_pts[n] = vec3<f32>(llx, lly, pts[0].z + u * pts[1].z + v * pts[2].z); n++;
    }
  }
  for (var i = 0; i < (1 << u32(m - 1)); i++) {
    let cp = pts[select(i + 2, 0, i == 0)];
    if (i != 0 && (cp.x <= -lx || cp.x >= lx)) { continue; }
    if (i != 0 && (cp.y <= -ly || cp.y >= ly)) { continue; }
    bb_pts[n] = cp; n++;
  }
  if (on2) { bb_frame_times_face_t(m2, f); } else { bb_frame_times_face_t(m1, f); }
  let origin = select(p1, p2, on2);
  let normal = select(1.0, -1.0, on2) * vec3<f32>(bb_r[2], bb_r[5], bb_r[8]);
  var kept = 0;
  for (var i = 0; i < n; i++) {
    let P = bb_pts[i];
    if (P.z > margin) { continue; }
    let dist = P.z * 0.5;
    let local = vec3<f32>(P.x, P.y, dist + hz);
    set_contact(kept, dist, vec3<f32>(dot(bb_rrow(0), local), dot(bb_rrow(1), local), dot(bb_rrow(2), local)) + origin, normal);
    kept++;
  }
  return kept;
}

fn bb_edge_contacts(p1: vec3<f32>, m1: mat3x3<f32>, s1: vec3<f32>, s2: vec3<f32>, code: i32, cle1: i32, cle2: i32,
                    inward: bool, pos21: vec3<f32>, clnorm: vec3<f32>, margin: f32) -> i32 {
  let q1 = code / 3;
  let q2 = code % 3;
  var ax1 = select(1, 0, q2 == 1);
  var ax2 = select(2, 0, q2 == 2);
  var pax1 = select(1, 0, q1 == 1);
  var pax2 = select(2, 0, q1 == 2);
  if (bb_rotabs[3 * q1 + ax1] < bb_rotabs[3 * q1 + ax2]) { ax1 = ax2; ax2 = 3 - q2 - ax1; }
  // rott = rot^T: element (q2, pax) of rott is rot (pax, q2)
  if (bb_rotabs[3 * pax1 + q2] < bb_rotabs[3 * pax2 + q2]) { pax1 = pax2; pax2 = 3 - q1 - pax1; }
  let f = select(pax2 + 3, pax2, (cle1 & (1 << u32(pax2))) != 0);
  var p = bb_apply(f, pos21);
  let rnorm = bb_apply(f, clnorm);
  let pm = bb_perm(f);
  let sg = bb_sign(f);
  for (var k = 0; k < 3; k++) { for (var c = 0; c < 3; c++) { bb_r[3 * k + c] = bb_rot[3 * pm[k] + c] * sg[k]; } }
  let s = abs(bb_apply_t(f, s1));
  let lx = s.x; let ly = s.y; let hz = s.z;
  p.z -= hz;
  // corners of box 2's incident face in the face frame (pu), and projected along the normal (flat)
  let side1 = s2[ax1] * select(-1.0, 1.0, (cle2 & (1 << u32(ax1))) != 0);
  let side2 = s2[ax2] * select(-1.0, 1.0, (cle2 & (1 << u32(ax2))) != 0);
  var pu: array<vec3<f32>, 4>;
  for (var h = 0; h < 2; h++) {
    let base = p + bb_rcol(ax1) * select(-side1, side1, h == 0) + bb_rcol(ax2) * side2;
    pu[2 * h] = base + bb_rcol(q2) * s2[q2];
    pu[2 * h + 1] = base + bb_rcol(q2) * (-s2[q2]);
  }
  let axi0 = pu[0];
  let axi1 = pu[1] - pu[0];
  let axi2 = pu[2] - pu[0];
  if (abs(rnorm.z) < MINVAL_C) { return 0; }
  let innorm = (1.0 / rnorm.z) * select(1.0, -1.0, inward);
  var flat: array<vec3<f32>, 4>;
  for (var i = 0; i < 4; i++) {
    let t = -pu[i].z * (1.0 / rnorm.z);
    flat[i] = pu[i] + rnorm * t;
  }
  let pts0 = flat[0];
  let pts1 = flat[1] - flat[0];
  let pts2 = flat[2] - flat[0];
  var lfrom: array<vec3<f32>, 4>;
  var ldir: array<vec3<f32>, 4>;
  var ufrom: array<vec3<f32>, 4>;
  var udir: array<vec3<f32>, 4>;
  lfrom[0] = pts0; ldir[0] = pts1; ufrom[0] = axi0; udir[0] = axi1;
  lfrom[1] = pts0; ldir[1] = pts2; ufrom[1] = axi0; udir[1] = axi2;
  lfrom[2] = pts0 + pts1; ldir[2] = pts2; ufrom[2] = axi0 + axi1; udir[2] = axi2;
  lfrom[3] = pts0 + pts2; ldir[3] = pts1; ufrom[3] = axi0 + axi2; udir[3] = axi1;
  var n = 0;
  for (var i = 0; i < 4; i++) {
    for (var q = 0; q < 2; q++) {
      let a = lfrom[i][q]; let b = ldir[i][q]; let c = lfrom[i][1 - q]; let d = ldir[i][1 - q];
      if (!(abs(b) > MINVAL_C)) { continue; }
      for (var j = -1; j <= 1; j += 2) {
        if (n >= BB_MAXPTS) { continue; }
        let l = s[q] * f32(j);
        let t = (l - a) * (1.0 / b);
        if (t < 0.0 || t > 1.0) { continue; }
        let c2 = c + d * t;
        if (abs(c2) > s[1 - q]) { continue; }
        if ((ufrom[i].z + udir[i].z * t) * innorm > margin) { continue; }
        var P = ufrom[i] * 0.5 + udir[i] * (0.5 * t);
        P[q] += 0.5 * l;
        P[1 - q] += 0.5 * c2;
        bb_pts[n] = P;
        bb_depth[n] = P.z * innorm * 2.0;
        n++;
      }
    }
  }
  let nlines = n;
  let a = pts1.x; let b = pts2.x; let c = pts1.y; let d = pts2.y;
  // MuJoCo reuses this determinant's variable for a squared distance below; kept for the same contacts
  var det = a * d - b * c;
  let margin2 = margin * margin;
  for (var i = 0; i < 4; i++) {
    if (n >= BB_MAXPTS) { continue; }
    let llx = select(-lx, lx, i >= 2);
    let lly = select(-ly, ly, i % 2 != 0);
    let x = llx - pts0.x; let y = lly - pts0.y;
    var u = (x * d - y * b) * (1.0 / det);
    var v = (y * a - x * c) * (1.0 / det);
    if (nlines == 0) {
      if ((u < 0.0 || u > 1.0) && (v < 0.0 || v > 1.0)) { continue; }
    } else if (u < 0.0 || u > 1.0 || v < 0.0 || v > 1.0) {
      continue;
    }
    u = clamp(u, 0.0, 1.0);
    v = clamp(v, 0.0, 1.0);
    let tp = pu[0] * (1.0 - u - v) + pu[1] * u + pu[2] * v;
    let dif = vec3<f32>(llx, lly, 0.0) - tp;
    let dd = dot(dif, dif);
    det = dd;
    if (tp.z > 0.0 && dd > margin2) { continue; }
    bb_pts[n] = (vec3<f32>(llx, lly, 0.0) + tp) * 0.5;
    bb_depth[n] = sqrt(dd) * select(1.0, -1.0, tp.z < 0.0);
    n++;
  }
  let nface = n;
  for (var i = 0; i < 4; i++) {
    if (n >= BB_MAXPTS) { continue; }
    let x = flat[i].x; let y = flat[i].y;
    if (nlines == 0) {
      if (nface != 0 && (x < -lx || x > lx) && (y < -ly || y > ly)) { continue; }
    } else if (x < -lx || x > lx || y < -ly || y > ly) {
      continue;
    }
    var dd = 0.0;
    var P = vec3<f32>(0.0);
    for (var j = 0; j < 2; j++) {
      let w = flat[i][j];
      if (w < -s[j]) { dd += (w + s[j]) * (w + s[j]); P[j] = -s[j] * 0.5; }
      else if (w > s[j]) { dd += (w - s[j]) * (w - s[j]); P[j] = s[j] * 0.5; }
      else { P[j] = w * 0.5; }
    }
    dd += pu[i].z * innorm * pu[i].z * innorm;
    if (pu[i].z > 0.0 && dd > margin2) { continue; }
    bb_pts[n] = P + pu[i] * 0.5;
    bb_depth[n] = sqrt(dd) * select(1.0, -1.0, pu[i].z < 0.0);
    n++;
  }
  bb_frame_times_face_t(m1, f);
  let normal = select(1.0, -1.0, inward) * vec3<f32>(dot(bb_rrow(0), rnorm), dot(bb_rrow(1), rnorm), dot(bb_rrow(2), rnorm));
  for (var i = 0; i < n; i++) {
    let local = vec3<f32>(bb_pts[i].x, bb_pts[i].y, bb_pts[i].z + hz);
    set_contact(i, bb_depth[i], vec3<f32>(dot(bb_rrow(0), local), dot(bb_rrow(1), local), dot(bb_rrow(2), local)) + p1, normal);
  }
  return n;
}
`;
