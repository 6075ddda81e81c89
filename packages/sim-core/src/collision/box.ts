/**
 * Sphere-box and capsule-box, following MuJoCo's engine_collision_box.c: the box is geom 2, the normal points
 * from the sphere/capsule into the box. Capsule-box finds the box feature (face, edge or corner) nearest the
 * capsule segment, places one sphere there and, when the capsule lies along the box, a second sphere at the
 * farthest point of the segment still over the box.
 */
import { MINVAL, type GeomPose, setContact } from './contact.js';
import { clip } from '../math/clip.js';

const center = new Float64Array(3);
const clamped = new Float64Array(3);

/** Sphere (centre c, radius r) against a box; writes contact k; returns 0 or 1. */
export function sphereBoxAt(
  out: Float64Array, k: number, cx: number, cy: number, cz: number, r: number, box: GeomPose, margin: number,
): number {
  const bm = box.mat, bp = box.pos, s = box.size;
  // sphere centre in the box frame
  const tx = cx - bp[0]!, ty = cy - bp[1]!, tz = cz - bp[2]!;
  center[0] = bm[0]! * tx + bm[3]! * ty + bm[6]! * tz;
  center[1] = bm[1]! * tx + bm[4]! * ty + bm[7]! * tz;
  center[2] = bm[2]! * tx + bm[5]! * ty + bm[8]! * tz;
  for (let i = 0; i < 3; i++) {
    const c = center[i]!, lim = s[i]!;
    clamped[i] = lim > 0 ? clip(c, -lim, lim) : c;
  }
  let dx = clamped[0]! - center[0]!, dy = clamped[1]! - center[1]!, dz = clamped[2]! - center[2]!;
  let dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (dist < MINVAL) { dx = 1; dy = 0; dz = 0; } else { dx /= dist; dy /= dist; dz /= dist; }
  if (dist - r > margin) return 0;

  let px: number, py: number, pz: number, nx: number, ny: number, nz: number;
  if (dist <= MINVAL) {
    // centre inside the box: push out through the nearest face
    let closest = (s[0]! + s[1]! + s[2]!) * 2;
    let face = 0;
    for (let i = 0; i < 6; i++) {
      const gap = Math.abs((i % 2 ? 1 : -1) * s[i >> 1]! - center[i >> 1]!);
      if (closest > gap) { closest = gap; face = i; }
    }
    const lx = (face >> 1) === 0 ? (face % 2 ? -1 : 1) : 0;
    const ly = (face >> 1) === 1 ? (face % 2 ? -1 : 1) : 0;
    const lz = (face >> 1) === 2 ? (face % 2 ? -1 : 1) : 0;
    const h = (r - closest) / 2;
    px = center[0]! + lx * h; py = center[1]! + ly * h; pz = center[2]! + lz * h;
    nx = bm[0]! * lx + bm[1]! * ly + bm[2]! * lz;
    ny = bm[3]! * lx + bm[4]! * ly + bm[5]! * lz;
    nz = bm[6]! * lx + bm[7]! * ly + bm[8]! * lz;
    dist = -closest;
  } else {
    // halfway between the nearest box point and the deepest sphere point
    px = 0.5 * clamped[0]! + 0.5 * (center[0]! + dx * r);
    py = 0.5 * clamped[1]! + 0.5 * (center[1]! + dy * r);
    pz = 0.5 * clamped[2]! + 0.5 * (center[2]! + dz * r);
    nx = bm[0]! * dx + bm[1]! * dy + bm[2]! * dz;
    ny = bm[3]! * dx + bm[4]! * dy + bm[5]! * dz;
    nz = bm[6]! * dx + bm[7]! * dy + bm[8]! * dz;
  }
  setContact(out, k, dist - r,
    bm[0]! * px + bm[1]! * py + bm[2]! * pz + bp[0]!,
    bm[3]! * px + bm[4]! * py + bm[5]! * pz + bp[1]!,
    bm[6]! * px + bm[7]! * py + bm[8]! * pz + bp[2]!,
    nx, ny, nz);
  return 1;
}

export function sphereBox(out: Float64Array, sph: GeomPose, box: GeomPose, margin: number): number {
  const p = sph.pos;
  return sphereBoxAt(out, 0, p[0]!, p[1]!, p[2]!, sph.size[0]!, box, margin);
}

const pos = new Float64Array(3);
const axis = new Float64Array(3);
const half = new Float64Array(3);
const tmp = new Float64Array(3);
const corner = new Float64Array(3);
const dif = new Float64Array(3);

/** Places a sphere of the capsule's radius at segment fraction t (box frame) and collides it with the box. */
function capsulePointBox(out: Float64Array, k: number, t: number, r: number, box: GeomPose, margin: number): number {
  const bm = box.mat, bp = box.pos;
  const lx = pos[0]! + half[0]! * t, ly = pos[1]! + half[1]! * t, lz = pos[2]! + half[2]! * t;
  return sphereBoxAt(out, k,
    bm[0]! * lx + bm[1]! * ly + bm[2]! * lz + bp[0]!,
    bm[3]! * lx + bm[4]! * ly + bm[5]! * lz + bp[1]!,
    bm[6]! * lx + bm[7]! * ly + bm[8]! * lz + bp[2]!, r, box, margin);
}

export function capsuleBox(out: Float64Array, cap: GeomPose, box: GeomPose, margin: number): number {
  const bm = box.mat, bp = box.pos, s = box.size, cm = cap.mat, cp = cap.pos;
  const r = cap.size[0]!, hl = cap.size[1]!;

  // capsule centre and axis in the box frame
  const tx = cp[0]! - bp[0]!, ty = cp[1]! - bp[1]!, tz = cp[2]! - bp[2]!;
  const wx = cm[2]!, wy = cm[5]!, wz = cm[8]!;
  for (let i = 0; i < 3; i++) {
    pos[i] = bm[i]! * tx + bm[3 + i]! * ty + bm[6 + i]! * tz;
    axis[i] = bm[i]! * wx + bm[3 + i]! * wy + bm[6 + i]! * wz;
    half[i] = axis[i]! * hl;
  }
  const axisdir = (half[0]! > 0 ? 1 : 0) + (half[1]! > 0 ? 2 : 0) + (half[2]! > 0 ? 4 : 0);

  const bestdistmax = margin + 2 * (r + hl + s[0]! + s[1]! + s[2]!);
  let bestdist = bestdistmax;
  let bestsegmentpos = 0;
  let bestboxpos = 0;
  let cltype = -4;     // -3/-1: a segment end is nearest to a face; 0..8: an edge (s1*3+s2 clamp codes)
  let clface = -1;
  let clcorner = 0;
  let cledge = 0;

  // segment ends against the faces
  for (let i = -1; i <= 1; i += 2) {
    let nclamped = 0, lastAxis = -1, d2 = 0;
    for (let j = 0; j < 3; j++) {
      const p = pos[j]! + half[j]! * i;
      let c = p;
      if (p < -s[j]!) { nclamped++; lastAxis = j; c = -s[j]!; } else if (p > s[j]!) { nclamped++; lastAxis = j; c = s[j]!; }
      d2 += (c - p) * (c - p);
    }
    if (nclamped > 1) continue;
    if (d2 < bestdist) { bestdist = d2; bestsegmentpos = i; cltype = -2 + i; clface = lastAxis; }
  }

  // segment against the 12 edges
  for (let j = 0; j < 3; j++) {
    for (let i = 0; i < 8; i++) {
      if ((i & (1 << j)) !== 0) continue;
      corner[0] = (i & 1 ? 1 : -1) * s[0]!;
      corner[1] = (i & 2 ? 1 : -1) * s[1]!;
      corner[2] = (i & 4 ? 1 : -1) * s[2]!;
      corner[j] = 0;
      for (let k = 0; k < 3; k++) dif[k] = corner[k]! - pos[k]!;
      const sj = s[j]!;
      const ma = sj * sj;
      const mb = -sj * half[j]!;
      const mc = hl * hl;
      const u = -sj * dif[j]!;
      const v = half[0]! * dif[0]! + half[1]! * dif[1]! + half[2]! * dif[2]!;
      const det = ma * mc - mb * mb;
      if (Math.abs(det) < MINVAL) continue;
      const idet = 1 / det;
      let x1 = (mc * u - mb * v) * idet;
      let x2 = (ma * v - mb * u) * idet;
      let s1 = 1, s2 = 1;
      if (x1 > 1) { x1 = 1; s1 = 2; x2 = (v - mb) * (1 / mc); } else if (x1 < -1) { x1 = -1; s1 = 0; x2 = (v + mb) * (1 / mc); }
      if (x2 > 1) {
        x2 = 1; s2 = 2; x1 = (u - mb) * (1 / ma);
        if (x1 > 1) { x1 = 1; s1 = 2; } else if (x1 < -1) { x1 = -1; s1 = 0; }
      } else if (x2 < -1) {
        x2 = -1; s2 = 0; x1 = (u + mb) * (1 / ma);
        if (x1 > 1) { x1 = 1; s1 = 2; } else if (x1 < -1) { x1 = -1; s1 = 0; }
      }
      for (let k = 0; k < 3; k++) tmp[k] = dif[k]! - half[k]! * x2;
      tmp[j] = tmp[j]! + sj * x1;
      const d2 = tmp[0]! * tmp[0]! + tmp[1]! * tmp[1]! + tmp[2]! * tmp[2]!;
      const code = s1 * 3 + s2;
      if (d2 < bestdist - MINVAL) {
        bestdist = d2;
        bestsegmentpos = x2;
        bestboxpos = x1;
        clcorner = i + (1 << j) * Math.floor(code / 6);
        cledge = j;
        cltype = code;
      }
    }
  }
  if (cltype === -4) return 0;

  // a second point along the segment, where the capsule lies along a face or an edge
  let secondpos = -4;
  if (cltype >= 0 && Math.floor(cltype / 3) !== 1) {
    // nearest to a box corner
    let c1 = axisdir ^ clcorner;
    if (c1 !== 0 && c1 !== 7) {
      let mul: number, de: number, dp: number;
      if (c1 === 1 || c1 === 2 || c1 === 4) {
        mul = 1; de = 1 - bestsegmentpos; dp = 1 + bestsegmentpos;
      } else {
        mul = -1; c1 = 7 - c1; dp = 1 - bestsegmentpos; de = 1 + bestsegmentpos;
      }
      const ax = c1 === 1 ? 0 : c1 === 2 ? 1 : 2;
      const ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
      if (axis[ax]! * axis[ax]! > 0.5) {
        secondpos = Math.min(de, 2 * s[ax]! / Math.abs(half[ax]!)) * mul;
      } else {
        secondpos = dp;
        const e1 = 2 * s[ax1]! / Math.abs(half[ax1]!);
        if (e1 < secondpos) secondpos = e1;
        const e2 = 2 * s[ax2]! / Math.abs(half[ax2]!);
        if (e2 < secondpos) secondpos = e2;
        secondpos *= -mul;
      }
    }
  } else if (cltype >= 0) {
    // nearest to the middle of an edge: a second point only when the capsule crosses the edge
    const c1 = (axisdir ^ clcorner) & (7 - (1 << cledge));
    if (c1 === 1 || c1 === 2 || c1 === 4) {
      const ax = cledge;
      let ax1 = (ax + 1) % 3;
      const other = (ax + 2) % 3;
      if (Math.abs(axis[ax1]!) > Math.abs(axis[other]!)) ax1 = other;
      const ax2 = 3 - ax - ax1;
      let mul: number;
      if (c1 & (1 << ax2)) { mul = 1; secondpos = 1 - bestsegmentpos; } else { mul = -1; secondpos = 1 + bestsegmentpos; }
      let e1 = 2 * s[ax2]! / Math.abs(half[ax2]!);
      if (e1 < secondpos) secondpos = e1;
      const e2 = ((axisdir & (1 << ax)) !== 0) === ((c1 & (1 << ax2)) !== 0) ? 1 - bestboxpos : 1 + bestboxpos;
      e1 = s[ax]! * e2 / Math.abs(half[ax]!);
      if (e1 < secondpos) secondpos = e1;
      secondpos *= mul;
    }
  } else if (clface !== -1) {
    // a segment end is nearest to a face: walk towards the other end while it stays over the face
    const mul = cltype === -3 ? 1 : -1;
    secondpos = 2;
    for (let i = 0; i < 3; i++) {
      if (i === clface) continue;
      const t = pos[i]! - half[i]! * mul;
      let e1 = (s[i]! - t) / half[i]! * mul;
      if (e1 > 0 && e1 < secondpos) secondpos = e1;
      e1 = (-s[i]! - t) / half[i]! * mul;
      if (e1 > 0 && e1 < secondpos) secondpos = e1;
    }
    secondpos *= mul;
  }

  let n = capsulePointBox(out, 0, bestsegmentpos, r, box, margin);
  if (secondpos > -3) n += capsulePointBox(out, n, secondpos + bestsegmentpos, r, box, margin);
  return n;
}
