/** WGSL helpers shared by kernels: quaternions (w, x, y, z), 3x3 matrices stored row-major in Data. */
export const WGSL_MATH = /* wgsl */ `
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(
    a.x * b.x - a.y * b.y - a.z * b.z - a.w * b.w,
    a.x * b.y + a.y * b.x + a.z * b.w - a.w * b.z,
    a.x * b.z - a.y * b.w + a.z * b.x + a.w * b.y,
    a.x * b.w + a.y * b.z - a.z * b.y + a.w * b.x);
}
fn quat_normalize(q: vec4<f32>) -> vec4<f32> {
  let n = length(q);
  if (n < 1e-15) { return vec4<f32>(1.0, 0.0, 0.0, 0.0); }
  return q / n;
}
// Columns of the rotation matrix of q; WGSL matrices are column-major, so m * v rotates v.
fn quat_to_mat(q: vec4<f32>) -> mat3x3<f32> {
  let w = q.x; let x = q.y; let y = q.z; let z = q.w;
  return mat3x3<f32>(
    vec3<f32>(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)),
    vec3<f32>(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)),
    vec3<f32>(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)));
}
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> { return quat_to_mat(q) * v; }
fn axis_angle_quat(axis: vec3<f32>, angle: f32) -> vec4<f32> {
  let s = sin(0.5 * angle);
  return vec4<f32>(cos(0.5 * angle), axis * s);
}
fn ld3(base: u32, k: i32, e: u32) -> vec3<f32> {
  return vec3<f32>(dget(base, 3 * k, e), dget(base, 3 * k + 1, e), dget(base, 3 * k + 2, e));
}
fn st3(base: u32, k: i32, e: u32, v: vec3<f32>) {
  dset(base, 3 * k, e, v.x); dset(base, 3 * k + 1, e, v.y); dset(base, 3 * k + 2, e, v.z);
}
fn ld4(base: u32, k: i32, e: u32) -> vec4<f32> {
  return vec4<f32>(dget(base, 4 * k, e), dget(base, 4 * k + 1, e), dget(base, 4 * k + 2, e), dget(base, 4 * k + 3, e));
}
fn st4(base: u32, k: i32, e: u32, v: vec4<f32>) {
  dset(base, 4 * k, e, v.x); dset(base, 4 * k + 1, e, v.y); dset(base, 4 * k + 2, e, v.z); dset(base, 4 * k + 3, e, v.w);
}
// Data matrices are row-major (MuJoCo's xmat): element (r, c) at 9k + 3r + c.
fn ldmat(base: u32, k: i32, e: u32) -> mat3x3<f32> {
  var m: mat3x3<f32>;
  for (var r = 0; r < 3; r++) { for (var c = 0; c < 3; c++) { m[c][r] = dget(base, 9 * k + 3 * r + c, e); } }
  return m;
}
fn stmat(base: u32, k: i32, e: u32, m: mat3x3<f32>) {
  for (var r = 0; r < 3; r++) { for (var c = 0; c < 3; c++) { dset(base, 9 * k + 3 * r + c, e, m[c][r]); } }
}
fn m3(base: i32, k: i32) -> vec3<f32> { return vec3<f32>(mr(base, 3 * k), mr(base, 3 * k + 1), mr(base, 3 * k + 2)); }
fn m4(base: i32, k: i32) -> vec4<f32> { return vec4<f32>(mr(base, 4 * k), mr(base, 4 * k + 1), mr(base, 4 * k + 2), mr(base, 4 * k + 3)); }
fn ld6(base: u32, k: i32, e: u32) -> array<f32, 6> {
  var v: array<f32, 6>;
  for (var i = 0; i < 6; i++) { v[i] = dget(base, 6 * k + i, e); }
  return v;
}
fn st6(base: u32, k: i32, e: u32, v: array<f32, 6>) {
  for (var i = 0; i < 6; i++) { dset(base, 6 * k + i, e, v[i]); }
}
// MuJoCo's spatial algebra (6-vectors: angular first, then linear).
fn cross_motion(vel: array<f32, 6>, v: array<f32, 6>) -> array<f32, 6> {
  var r: array<f32, 6>;
  r[0] = -vel[2] * v[1] + vel[1] * v[2];
  r[1] = vel[2] * v[0] - vel[0] * v[2];
  r[2] = -vel[1] * v[0] + vel[0] * v[1];
  r[3] = -vel[2] * v[4] + vel[1] * v[5] - vel[5] * v[1] + vel[4] * v[2];
  r[4] = vel[2] * v[3] - vel[0] * v[5] + vel[5] * v[0] - vel[3] * v[2];
  r[5] = -vel[1] * v[3] + vel[0] * v[4] - vel[4] * v[0] + vel[3] * v[1];
  return r;
}
fn cross_force(vel: array<f32, 6>, f: array<f32, 6>) -> array<f32, 6> {
  var r: array<f32, 6>;
  r[0] = -vel[2] * f[1] + vel[1] * f[2] - vel[5] * f[4] + vel[4] * f[5];
  r[1] = vel[2] * f[0] - vel[0] * f[2] + vel[5] * f[3] - vel[3] * f[5];
  r[2] = -vel[1] * f[0] + vel[0] * f[1] - vel[4] * f[3] + vel[3] * f[4];
  r[3] = -vel[2] * f[4] + vel[1] * f[5];
  r[4] = vel[2] * f[3] - vel[0] * f[5];
  r[5] = -vel[1] * f[3] + vel[0] * f[4];
  return r;
}
// cinert (10): inertia at the com frame origin (xx, yy, zz, xy, xz, yz), mass * offset (3), mass.
fn mul_inert_vec(i: array<f32, 10>, v: array<f32, 6>) -> array<f32, 6> {
  var r: array<f32, 6>;
  r[0] = i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5];
  r[1] = i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5];
  r[2] = i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4];
  r[3] = i[8] * v[1] - i[7] * v[2] + i[9] * v[3];
  r[4] = i[6] * v[2] - i[8] * v[0] + i[9] * v[4];
  r[5] = i[7] * v[0] - i[6] * v[1] + i[9] * v[5];
  return r;
}
fn ld10(base: u32, k: i32, e: u32) -> array<f32, 10> {
  var v: array<f32, 10>;
  for (var i = 0; i < 10; i++) { v[i] = dget(base, 10 * k + i, e); }
  return v;
}
fn dot6(a: array<f32, 6>, b: array<f32, 6>) -> f32 {
  var s = 0.0;
  for (var i = 0; i < 6; i++) { s += a[i] * b[i]; }
  return s;
}
`;
