/**
 * Plane against sphere, capsule, cylinder and box, with MuJoCo's contact counts and points
 * (engine_collision_primitive.c, mjc_Plane*): the plane is geom 1, its normal is the plane's z axis, and each
 * contact sits halfway between the two surfaces.
 */
import { MINVAL, type GeomPose, setContact, setTangent } from './contact.js';

/** Sphere (centre c, radius r) against a plane; writes contact k; returns 0 or 1. */
export function planeSphereAt(
  out: Float64Array, k: number, plane: GeomPose, cx: number, cy: number, cz: number, r: number, margin: number,
): number {
  const pm = plane.mat, pp = plane.pos;
  const nx = pm[2]!, ny = pm[5]!, nz = pm[8]!;
  const cdist = (cx - pp[0]!) * nx + (cy - pp[1]!) * ny + (cz - pp[2]!) * nz;
  if (cdist > margin + r) return 0;
  const dist = cdist - r;
  const s = -dist / 2 - r;
  setContact(out, k, dist, cx + nx * s, cy + ny * s, cz + nz * s, nx, ny, nz);
  return 1;
}

export function planeSphere(out: Float64Array, plane: GeomPose, sphere: GeomPose, margin: number): number {
  const p = sphere.pos;
  return planeSphereAt(out, 0, plane, p[0]!, p[1]!, p[2]!, sphere.size[0]!, margin);
}

/** Both end spheres of the capsule; their frames' first tangent follows the capsule axis. */
export function planeCapsule(out: Float64Array, plane: GeomPose, cap: GeomPose, margin: number): number {
  const m = cap.mat, p = cap.pos, r = cap.size[0]!, h = cap.size[1]!;
  const ax = m[2]!, ay = m[5]!, az = m[8]!;
  const n1 = planeSphereAt(out, 0, plane, p[0]! + h * ax, p[1]! + h * ay, p[2]! + h * az, r, margin);
  const n2 = planeSphereAt(out, n1, plane, p[0]! - h * ax, p[1]! - h * ay, p[2]! - h * az, r, margin);
  if (n1) setTangent(out, 0, ax, ay, az);
  if (n2) setTangent(out, n1, ax, ay, az);
  return n1 + n2;
}

/** Up to 4 points: the deepest rim point of each cap's disk, then two more on the deeper disk's rim. */
export function planeCylinder(out: Float64Array, plane: GeomPose, cyl: GeomPose, margin: number): number {
  const pm = plane.mat, cm = cyl.mat, pp = plane.pos, cp = cyl.pos;
  const nx = pm[2]!, ny = pm[5]!, nz = pm[8]!;
  let ax = cm[2]!, ay = cm[5]!, az = cm[8]!;
  const radius = cyl.size[0]!, half = cyl.size[1]!;

  // make the axis point towards the plane
  let prjaxis = nx * ax + ny * ay + nz * az;
  if (prjaxis > 0) { ax = -ax; ay = -ay; az = -az; prjaxis = -prjaxis; }

  const dist0 = (cp[0]! - pp[0]!) * nx + (cp[1]! - pp[1]!) * ny + (cp[2]! - pp[2]!) * nz;

  // direction within the disk towards the plane: -normal without its axis component, scaled by the radius
  let vx = ax * prjaxis - nx, vy = ay * prjaxis - ny, vz = az * prjaxis - nz;
  const lenSqr = vx * vx + vy * vy + vz * vz;
  if (lenSqr >= MINVAL * MINVAL) {
    const s = radius / Math.sqrt(lenSqr);
    vx *= s; vy *= s; vz *= s;
  } else {
    // disk parallel to the plane: any rim point, the cylinder's x axis
    vx = cm[0]! * radius; vy = cm[3]! * radius; vz = cm[6]! * radius;
  }
  const prjvec = vx * nx + vy * ny + vz * nz;
  ax *= half; ay *= half; az *= half;
  prjaxis *= half;

  let cnt = 0;
  const d1 = dist0 + prjaxis + prjvec;
  if (d1 > margin) return 0;
  setContact(out, cnt++, d1,
    cp[0]! + vx + ax - nx * d1 * 0.5, cp[1]! + vy + ay - ny * d1 * 0.5, cp[2]! + vz + az - nz * d1 * 0.5, nx, ny, nz);

  const d2 = dist0 - prjaxis + prjvec;
  if (d2 <= margin) {
    setContact(out, cnt++, d2,
      cp[0]! + vx - ax - nx * d2 * 0.5, cp[1]! + vy - ay - ny * d2 * 0.5, cp[2]! + vz - az - nz * d2 * 0.5,
      nx, ny, nz);
  }

  // two more points on the near disk, at +-120 degrees from the deepest one
  const d3 = dist0 + prjaxis - prjvec * 0.5;
  if (d3 <= margin) {
    let sx = vy * az - vz * ay, sy = vz * ax - vx * az, sz = vx * ay - vy * ax;
    const sn = Math.sqrt(sx * sx + sy * sy + sz * sz);
    if (sn < MINVAL) { sx = 1; sy = 0; sz = 0; } else { sx /= sn; sy /= sn; sz /= sn; }
    const s = radius * Math.sqrt(3.0) / 2;
    sx *= s; sy *= s; sz *= s;
    const bx = cp[0]! + ax - vx * 0.5 - nx * d3 * 0.5;
    const by = cp[1]! + ay - vy * 0.5 - ny * d3 * 0.5;
    const bz = cp[2]! + az - vz * 0.5 - nz * d3 * 0.5;
    setContact(out, cnt++, d3, bx + sx, by + sy, bz + sz, nx, ny, nz);
    setContact(out, cnt++, d3, bx - sx, by - sy, bz - sz, nx, ny, nz);
  }
  return cnt;
}

/** The (at most 4) lowest corners of the box that are within the margin and below the box centre. */
export function planeBox(out: Float64Array, plane: GeomPose, box: GeomPose, margin: number): number {
  const pm = plane.mat, bm = box.mat, pp = plane.pos, bp = box.pos, sz = box.size;
  const nx = pm[2]!, ny = pm[5]!, nz = pm[8]!;
  const dist = (bp[0]! - pp[0]!) * nx + (bp[1]! - pp[1]!) * ny + (bp[2]! - pp[2]!) * nz;
  let cnt = 0;
  for (let i = 0; i < 8; i++) {
    const lx = i & 1 ? sz[0]! : -sz[0]!;
    const ly = i & 2 ? sz[1]! : -sz[1]!;
    const lz = i & 4 ? sz[2]! : -sz[2]!;
    const cx = bm[0]! * lx + bm[1]! * ly + bm[2]! * lz;
    const cy = bm[3]! * lx + bm[4]! * ly + bm[5]! * lz;
    const cz = bm[6]! * lx + bm[7]! * ly + bm[8]! * lz;
    const ldist = nx * cx + ny * cy + nz * cz;
    if (dist + ldist > margin || ldist > 0) continue;
    const d = dist + ldist;
    setContact(out, cnt, d,
      cx + bp[0]! - nx * d / 2, cy + bp[1]! - ny * d / 2, cz + bp[2]! - nz * d / 2, nx, ny, nz);
    if (++cnt >= 4) return 4;
  }
  return cnt;
}
