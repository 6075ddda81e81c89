/**
 * Box-box, with the separating-axis method of MuJoCo's mjc_BoxBox (MuJoCo 3.3's engine_collision_box.c), so
 * the contact points, depths and normal are MuJoCo's. The 15 candidate axes (3 face normals of each box, 9
 * edge-edge cross products) are tested; the axis of least penetration decides the case:
 * - face: the other box's nearest face (or edge, or corner) is expressed in the frame of the reference face,
 *   its edges are clipped against the face rectangle, the face corners inside the other face and the other
 *   face's corners over this face are added; each point below the margin is a contact at mid-depth. As in
 *   MuJoCo, such a contact's dist is half the depth of its point.
 * - edge-edge: the incident face of box 2 is projected along the contact normal onto the nearest face of
 *   box 1 and clipped the same way; dist is the distance along the normal.
 * The normal points from box 1 into box 2. As MuJoCo's collision driver does, contacts well outside the boxes
 * and repeated positions are then dropped.
 */
import { MINVAL, POS, STRIDE, type GeomPose, setContact } from './contact.js';
import { clip } from '../math/clip.js';

type V3 = Float64Array;
const v3 = (): V3 => new Float64Array(3);
const m3 = (): Float64Array => new Float64Array(9);

// scratch (the narrow phase runs serially in one thread)
const pos12 = v3(), pos21 = v3(), rot = m3(), rott = m3(), rotabs = m3(), rottabs = m3();
const plen1 = v3(), plen2 = v3(), axis = v3(), clnorm = v3(), rnorm = v3();
const r = m3(), rt = m3(), p = v3(), s = v3(), ss = v3(), sized = v3(), lp = v3(), normal = v3(), tmp = v3(), dif = v3();
const pts = Array.from({ length: 6 }, v3);
const pu = Array.from({ length: 4 }, v3);
const flat = Array.from({ length: 4 }, () => new Float64Array(2));
const axi = Array.from({ length: 3 }, v3);
const lines = Array.from({ length: 4 }, () => new Float64Array(6));
const linesu = Array.from({ length: 4 }, () => new Float64Array(6));
/** Candidate points of one pair; at most 24 (16 edge crossings, 4 corners each way). */
const MAX_POINTS = 24;
const points = Array.from({ length: MAX_POINTS }, v3);
const depth = new Float64Array(MAX_POINTS);

/** res = m^T v (3x3 row-major). */
function mulMatTVec(res: V3, m: Float64Array, x: number, y: number, z: number): void {
  res[0] = m[0]! * x + m[3]! * y + m[6]! * z;
  res[1] = m[1]! * x + m[4]! * y + m[7]! * z;
  res[2] = m[2]! * x + m[5]! * y + m[8]! * z;
}

/** res = a^T b. */
function mulMatTMat(res: Float64Array, a: Float64Array, b: Float64Array): void {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) res[3 * i + j] = a[i]! * b[j]! + a[3 + i]! * b[3 + j]! + a[6 + i]! * b[6 + j]!;
  }
}

/** res = a b^T. */
function mulMatMatT(res: Float64Array, a: Float64Array, b: Float64Array): void {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) res[3 * i + j] = a[3 * i]! * b[3 * j]! + a[3 * i + 1]! * b[3 * j + 1]! + a[3 * i + 2]! * b[3 * j + 2]!;
  }
}

function transpose(res: Float64Array, m: Float64Array): void {
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) res[3 * j + i] = m[3 * i + j]!;
}

/** out += row `row` of m (3 numbers from m[3*row]) times k. */
function addRow(out: V3, m: Float64Array, row: number, k: number): void {
  out[0] = out[0]! + m[3 * row]! * k;
  out[1] = out[1]! + m[3 * row + 1]! * k;
  out[2] = out[2]! + m[3 * row + 2]! * k;
}

/**
 * The face frame for a face index (0-2: +x, +y, +z; 3-5: -x, -y, -z): a signed permutation taking that face's
 * outward normal to +z. `perm`/`sign` apply it to vectors (out[k] = v[perm[k]] * sign[k]); `matrix` is the
 * same rotation as a 3x3 matrix.
 */
interface FaceFrame { perm: [number, number, number]; sign: [number, number, number]; matrix: number[] }
const FACE_FRAMES: FaceFrame[] = [
  { perm: [2, 1, 0], sign: [-1, 1, 1], matrix: [0, 0, -1, 0, 1, 0, 1, 0, 0] },
  { perm: [0, 2, 1], sign: [1, -1, 1], matrix: [1, 0, 0, 0, 0, -1, 0, 1, 0] },
  { perm: [0, 1, 2], sign: [1, 1, 1], matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1] },
  { perm: [2, 1, 0], sign: [1, 1, -1], matrix: [0, 0, 1, 0, 1, 0, -1, 0, 0] },
  { perm: [0, 2, 1], sign: [1, 1, -1], matrix: [1, 0, 0, 0, 0, 1, 0, -1, 0] },
  { perm: [0, 1, 2], sign: [-1, 1, -1], matrix: [-1, 0, 0, 0, 1, 0, 0, 0, -1] },
];
const faceMat = m3();

function permuted(out: V3, f: FaceFrame, x: V3): void {
  const a = x[f.perm[0]]! * f.sign[0], b = x[f.perm[1]]! * f.sign[1], c = x[f.perm[2]]! * f.sign[2];
  out[0] = a; out[1] = b; out[2] = c;
}

function permutedRows(out: Float64Array, f: FaceFrame, m: Float64Array): void {
  for (let k = 0; k < 3; k++) for (let c = 0; c < 3; c++) out[3 * k + c] = m[3 * f.perm[k]! + c]! * f.sign[k]!;
}

export function boxBox(out: Float64Array, b1: GeomPose, b2: GeomPose, margin: number): number {
  const pos1 = b1.pos, mat1 = b1.mat, size1 = b1.size;
  const pos2 = b2.pos, mat2 = b2.mat, size2 = b2.size;
  mulMatTVec(pos21, mat1, pos2[0]! - pos1[0]!, pos2[1]! - pos1[1]!, pos2[2]! - pos1[2]!);
  mulMatTVec(pos12, mat2, pos1[0]! - pos2[0]!, pos1[1]! - pos2[1]!, pos1[2]! - pos2[2]!);
  mulMatTMat(rot, mat1, mat2);
  transpose(rott, rot);
  for (let i = 0; i < 9; i++) { rotabs[i] = Math.abs(rot[i]!); rottabs[i] = Math.abs(rott[i]!); }
  // extents of each box along the other's axes
  for (let i = 0; i < 3; i++) {
    plen2[i] = rotabs[3 * i]! * size2[0]! + rotabs[3 * i + 1]! * size2[1]! + rotabs[3 * i + 2]! * size2[2]!;
    plen1[i] = rotabs[i]! * size1[0]! + rotabs[3 + i]! * size1[1]! + rotabs[6 + i]! * size1[2]!;
  }

  let penetration = margin;
  for (let i = 0; i < 3; i++) penetration += size1[i]! * 3 + size2[i]! * 3;
  let code = -1;
  for (let i = 0; i < 3; i++) {
    const c1 = -Math.abs(pos21[i]!) + size1[i]! + plen2[i]!;
    const c2 = -Math.abs(pos12[i]!) + size2[i]! + plen1[i]!;
    if (c1 < -margin || c2 < -margin) return 0;
    if (c1 < penetration) { penetration = c1; code = i + 3 * (pos21[i]! < 0 ? 1 : 0); }
    if (c2 < penetration) { penetration = c2; code = i + 3 * (pos12[i]! < 0 ? 1 : 0) + 6; }
  }

  // edge-edge axes: box-1 axis i crossed with box-2 axis j (row j of rott, in box 1's frame)
  let cle1 = 0, cle2 = 0, inward = false;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const e0 = rott[3 * j]!, e1 = rott[3 * j + 1]!, e2 = rott[3 * j + 2]!;
      if (i === 0) { axis[0] = 0; axis[1] = -e2; axis[2] = e1; }
      else if (i === 1) { axis[0] = e2; axis[1] = 0; axis[2] = -e0; }
      else { axis[0] = -e1; axis[1] = e0; axis[2] = 0; }
      const len = Math.sqrt(axis[0]! * axis[0]! + axis[1]! * axis[1]! + axis[2]! * axis[2]!);
      if (len < MINVAL) continue;
      const inv = 1 / len; // mju_normalize3 scales by the inverse
      axis[0] = axis[0]! * inv; axis[1] = axis[1]! * inv; axis[2] = axis[2]! * inv;
      const c2 = pos21[0]! * axis[0]! + pos21[1]! * axis[1]! + pos21[2]! * axis[2]!;
      let c3 = 0;
      for (let k = 0; k < 3; k++) if (k !== i) c3 += size1[k]! * Math.abs(axis[k]!);
      for (let k = 0; k < 3; k++) if (k !== j) c3 += size2[k]! * rotabs[3 * i + 3 - k - j]! / len;
      c3 -= Math.abs(c2);
      if (c3 < -margin) return 0;
      if (c3 < penetration * (1 - 1e-12)) {
        penetration = c3;
        cle1 = 0;
        for (let k = 0; k < 3; k++) if (k !== i && (axis[k]! > 0) !== (c2 < 0)) cle1 += 1 << k;
        cle2 = 0;
        for (let k = 0; k < 3; k++) {
          if (k === j) continue;
          const flip = (rot[3 * i + 3 - k - j]! > 0) !== (c2 < 0);
          if (flip !== ((k - j + 3) % 3 === 1)) cle2 += 1 << k;
        }
        code = 12 + i * 3 + j;
        clnorm.set(axis);
        inward = c2 < 0;
      }
    }
  }
  if (code === -1) return 0;
  const n = code < 12 ? faceContacts(out, b1, b2, code, margin) : edgeContacts(out, b1, b2, code - 12, cle1, cle2, inward, margin);
  return dropBadContacts(out, n, b1, b2, margin);
}

/** Where a point lies against a box whose half-sizes (plus the margin) are inflated and deflated by `ratio`:
 *  1 outside the inflated box, -1 inside the deflated one, 0 in between (mju_outsideBox). */
function outsideBox(px: number, py: number, pz: number, box: GeomPose, margin: number, ratio: number): number {
  const b = box.pos, m = box.mat, sz = box.size;
  const dx = px - b[0]!, dy = py - b[1]!, dz = pz - b[2]!;
  const v0 = m[0]! * dx + m[3]! * dy + m[6]! * dz, v1 = m[1]! * dx + m[4]! * dy + m[7]! * dz, v2 = m[2]! * dx + m[5]! * dy + m[8]! * dz;
  let inside = true;
  for (let k = 0; k < 3; k++) {
    const v = k === 0 ? v0 : k === 1 ? v1 : v2;
    const size = sz[k]! + margin;
    const big = size * ratio;
    if (v > big || v < -big) return 1;
    const small = size / ratio;
    if (!(v < small && v > -small)) inside = false;
  }
  return inside ? -1 : 0;
}

/** Contacts further than 1% outside one box and not inside the other are dropped. */
const REMOVE_RATIO = 1.01;
const bad = new Uint8Array(MAX_POINTS);

/**
 * MuJoCo's collision driver cleans box-box output before using it: a contact more than 1% outside one box
 * (its size plus the margin) and not inside the other is dropped, and so is a contact at exactly the position
 * of a later one. Kept contacts are compacted in order.
 */
function dropBadContacts(out: Float64Array, n: number, b1: GeomPose, b2: GeomPose, margin: number): number {
  for (let i = 0; i < n; i++) {
    const o = i * STRIDE + POS;
    const x = out[o]!, y = out[o + 1]!, z = out[o + 2]!;
    const out1 = outsideBox(x, y, z, b1, margin, REMOVE_RATIO), out2 = outsideBox(x, y, z, b2, margin, REMOVE_RATIO);
    bad[i] = (out1 === 1 && out2 !== -1) || (out2 === 1 && out1 !== -1) ? 1 : 0;
  }
  for (let i = 0; i < n - 1; i++) {
    if (bad[i]) continue;
    const oi = i * STRIDE + POS;
    for (let j = i + 1; j < n; j++) {
      if (bad[j]) continue;
      const oj = j * STRIDE + POS;
      if (out[oi] === out[oj] && out[oi + 1] === out[oj + 1] && out[oi + 2] === out[oj + 2]) { bad[i] = 1; break; }
    }
  }
  let kept = 0;
  for (let j = 0; j < n; j++) {
    if (bad[j]) continue;
    if (kept < j) out.copyWithin(kept * STRIDE, j * STRIDE, (j + 1) * STRIDE);
    kept++;
  }
  return kept;
}

/** The face path: code % 6 is the reference face, code >= 6 means it is a face of box 2. */
function faceContacts(out: Float64Array, b1: GeomPose, b2: GeomPose, code: number, margin: number): number {
  const face = FACE_FRAMES[code % 6]!;
  faceMat.set(face.matrix);
  const onBox2 = code >= 6;
  if (onBox2) {
    mulMatMatT(r, faceMat, rot);
    permuted(p, face, pos12);
    permuted(sized, face, b2.size);
    s.set(b1.size);
  } else {
    permutedRows(r, face, rot);
    permuted(p, face, pos21);
    permuted(sized, face, b1.size);
    s.set(b2.size);
  }
  transpose(rt, r);
  for (let i = 0; i < 3; i++) ss[i] = Math.abs(sized[i]!);
  const lx = ss[0]!, ly = ss[1]!, hz = ss[2]!;
  p[2] = p[2]! - hz;

  // the other box's corner nearest the face, and its edges from there that lie along the face
  let corner = 0;
  for (let i = 0; i < 3; i++) if (r[6 + i]! < 0) corner += 1 << i;
  lp.set(p);
  for (let i = 0; i < 3; i++) addRow(lp, rt, i, s[i]! * ((corner & (1 << i)) ? 1 : -1));
  let m = 0;
  pts[m++]!.set(lp);
  for (let i = 0; i < 3; i++) {
    if (Math.abs(r[6 + i]!) < 0.5) {
      const e = pts[m++]!;
      e.fill(0);
      addRow(e, rt, i, s[i]! * ((corner & (1 << i)) ? -2 : 2));
    }
  }
  for (let k = 0; k < 3; k++) {
    pts[3]![k] = pts[0]![k]! + pts[1]![k]!;
    pts[4]![k] = pts[0]![k]! + pts[2]![k]!;
    pts[5]![k] = pts[3]![k]! + pts[2]![k]!;
  }
  let nl = 0;
  const line = (from: V3, dir: V3): void => { const L = lines[nl++]!; L.set(from, 0); L.set(dir, 3); };
  if (m > 1) line(pts[0]!, pts[1]!);
  if (m > 2) { line(pts[0]!, pts[2]!); line(pts[3]!, pts[2]!); line(pts[4]!, pts[1]!); }

  // edges crossing the sides of the face rectangle
  let n = 0;
  for (let i = 0; i < nl; i++) {
    const L = lines[i]!;
    for (let q = 0; q < 2; q++) {
      const a = L[q]!, b = L[3 + q]!, c = L[1 - q]!, d = L[4 - q]!;
      if (!(Math.abs(b) > MINVAL)) continue;
      for (let j = -1; j <= 1; j += 2) {
        const l = ss[q]! * j;
        const t = (l - a) * (1 / b);
        if (t < 0 || t > 1) continue;
        const c2 = c + d * t;
        if (Math.abs(c2) > ss[1 - q]!) continue;
        const P = points[n++]!;
        for (let k = 0; k < 3; k++) P[k] = L[k]! + L[3 + k]! * t;
      }
    }
  }
  // corners of the face rectangle inside the other face (a parallelogram)
  const a = pts[1]![0]!, b = pts[2]![0]!, c = pts[1]![1]!, d = pts[2]![1]!;
  const det = a * d - b * c;
  if (m > 2) {
    for (let i = 0; i < 4; i++) {
      const llx = i >= 2 ? lx : -lx, lly = i % 2 ? ly : -ly;
      const x = llx - pts[0]![0]!, y = lly - pts[0]![1]!;
      const u = (x * d - y * b) * (1 / det), v = (y * a - x * c) * (1 / det);
      if (u <= 0 || v <= 0 || u >= 1 || v >= 1) continue;
      const P = points[n++]!;
      P[0] = llx; P[1] = lly; P[2] = pts[0]![2]! + u * pts[1]![2]! + v * pts[2]![2]!;
    }
  }
  // corners of the other face over this one
  for (let i = 0; i < 1 << (m - 1); i++) {
    const C = pts[i === 0 ? 0 : i + 2]!;
    if (i && (C[0]! <= -lx || C[0]! >= lx)) continue;
    if (i && (C[1]! <= -ly || C[1]! >= ly)) continue;
    points[n++]!.set(C);
  }

  // keep the points within the margin; each contact sits halfway down its depth, as MuJoCo's does
  mulMatMatT(r, onBox2 ? b2.mat : b1.mat, faceMat);
  const origin = onBox2 ? b2.pos : b1.pos;
  const sign = onBox2 ? -1 : 1;
  normal[0] = sign * r[2]!; normal[1] = sign * r[5]!; normal[2] = sign * r[8]!;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const P = points[i]!;
    if (P[2]! > margin) continue;
    const dist = P[2]! * 0.5;
    const z = dist + hz;
    const wx = r[0]! * P[0]! + r[1]! * P[1]! + r[2]! * z;
    const wy = r[3]! * P[0]! + r[4]! * P[1]! + r[5]! * z;
    const wz = r[6]! * P[0]! + r[7]! * P[1]! + r[8]! * z;
    setContact(out, kept++, dist, wx + origin[0]!, wy + origin[1]!, wz + origin[2]!, normal[0]!, normal[1]!, normal[2]!);
  }
  return kept;
}

/** The edge-edge path: axis q1 of box 1 against axis q2 of box 2. */
function edgeContacts(
  out: Float64Array, b1: GeomPose, b2: GeomPose, code: number, cle1: number, cle2: number, inward: boolean, margin: number,
): number {
  const size1 = b1.size, size2 = b2.size;
  const q1 = Math.floor(code / 3), q2 = code % 3;
  let ax1 = q2 === 1 ? 0 : 1, ax2 = q2 === 2 ? 0 : 2;
  let pax1 = q1 === 1 ? 0 : 1, pax2 = q1 === 2 ? 0 : 2;
  if (rotabs[3 * q1 + ax1]! < rotabs[3 * q1 + ax2]!) { ax1 = ax2; ax2 = 3 - q2 - ax1; }
  if (rottabs[3 * q2 + pax1]! < rottabs[3 * q2 + pax2]!) { pax1 = pax2; pax2 = 3 - q1 - pax1; }
  const face = FACE_FRAMES[(cle1 & (1 << pax2)) ? pax2 : pax2 + 3]!;
  faceMat.set(face.matrix);

  permuted(p, face, pos21);
  permuted(rnorm, face, clnorm);
  permutedRows(r, face, rot);
  mulMatTVec(tmp, faceMat, size1[0]!, size1[1]!, size1[2]!);
  for (let i = 0; i < 3; i++) s[i] = Math.abs(tmp[i]!);
  transpose(rt, r);
  const lx = s[0]!, ly = s[1]!, hz = s[2]!;
  p[2] = p[2]! - hz;

  // the four corners of box 2's incident face, in the face frame of box 1
  const side1 = size2[ax1]! * ((cle2 & (1 << ax1)) ? 1 : -1);
  const side2 = size2[ax2]! * ((cle2 & (1 << ax2)) ? 1 : -1);
  for (let half = 0; half < 2; half++) {
    const P = pu[2 * half]!;
    P.set(p);
    addRow(P, rt, ax1, half === 0 ? side1 : -side1);
    addRow(P, rt, ax2, side2);
    const Q = pu[2 * half + 1]!;
    Q.set(P);
    addRow(P, rt, q2, size2[q2]!);
    addRow(Q, rt, q2, -size2[q2]!);
  }
  axi[0]!.set(pu[0]!);
  for (let k = 0; k < 3; k++) { axi[1]![k] = pu[1]![k]! - pu[0]![k]!; axi[2]![k] = pu[2]![k]! - pu[0]![k]!; }
  if (Math.abs(rnorm[2]!) < MINVAL) return 0;
  const innorm = (1 / rnorm[2]!) * (inward ? -1 : 1);

  // the corners projected along the normal onto the face plane (pu keeps them unprojected)
  for (let i = 0; i < 4; i++) {
    const t = -pu[i]![2]! * (1 / rnorm[2]!);
    for (let k = 0; k < 2; k++) flat[i]![k] = pu[i]![k]! + rnorm[k]! * t;
    pts[i]![0] = flat[i]![0]!; pts[i]![1] = flat[i]![1]!; pts[i]![2] = pu[i]![2]! + rnorm[2]! * t;
  }
  for (let k = 0; k < 3; k++) { pts[1]![k] = pts[1]![k]! - pts[0]![k]!; pts[2]![k] = pts[2]![k]! - pts[0]![k]!; }

  let nl = 0;
  const line = (from: V3, dir: V3, fromU: V3, dirU: V3, addFrom?: V3, addFromU?: V3): void => {
    const L = lines[nl]!, U = linesu[nl]!;
    for (let k = 0; k < 3; k++) {
      L[k] = from[k]! + (addFrom ? addFrom[k]! : 0); L[3 + k] = dir[k]!;
      U[k] = fromU[k]! + (addFromU ? addFromU[k]! : 0); U[3 + k] = dirU[k]!;
    }
    nl++;
  };
  line(pts[0]!, pts[1]!, axi[0]!, axi[1]!);
  line(pts[0]!, pts[2]!, axi[0]!, axi[2]!);
  line(pts[0]!, pts[2]!, axi[0]!, axi[2]!, pts[1]!, axi[1]!);
  line(pts[0]!, pts[1]!, axi[0]!, axi[1]!, pts[2]!, axi[2]!);

  let n = 0;
  for (let i = 0; i < nl; i++) {
    const L = lines[i]!, U = linesu[i]!;
    for (let q = 0; q < 2; q++) {
      const a = L[q]!, b = L[3 + q]!, c = L[1 - q]!, d = L[4 - q]!;
      if (!(Math.abs(b) > MINVAL)) continue;
      for (let j = -1; j <= 1; j += 2) {
        if (n >= MAX_POINTS) continue;
        const l = s[q]! * j;
        const t = (l - a) * (1 / b);
        if (t < 0 || t > 1) continue;
        const c2 = c + d * t;
        if (Math.abs(c2) > s[1 - q]!) continue;
        if ((U[2]! + U[5]! * t) * innorm > margin) continue;
        const P = points[n]!;
        for (let k = 0; k < 3; k++) P[k] = U[k]! * 0.5 + U[3 + k]! * (0.5 * t);
        P[q] = P[q]! + 0.5 * l;
        P[1 - q] = P[1 - q]! + 0.5 * c2;
        depth[n] = P[2]! * innorm * 2;
        n++;
      }
    }
  }
  const nLines = n;

  const a = pts[1]![0]!, b = pts[2]![0]!, c = pts[1]![1]!, d = pts[2]![1]!;
  // MuJoCo keeps this determinant in a variable that the loop below reuses for a squared distance, so from the
  // first corner that reaches that point on, the later corners divide by it instead; kept for the same contacts
  let det = a * d - b * c;
  const margin2 = margin * margin;
  for (let i = 0; i < 4; i++) {
    if (n >= MAX_POINTS) continue;
    const llx = i >= 2 ? lx : -lx, lly = i % 2 ? ly : -ly;
    const x = llx - pts[0]![0]!, y = lly - pts[0]![1]!;
    let u = (x * d - y * b) * (1 / det), v = (y * a - x * c) * (1 / det);
    if (nLines === 0) {
      if ((u < 0 || u > 1) && (v < 0 || v > 1)) continue;
    } else if (u < 0 || u > 1 || v < 0 || v > 1) {
      continue;
    }
    u = clip(u, 0, 1);
    v = clip(v, 0, 1);
    for (let k = 0; k < 3; k++) tmp[k] = pu[0]![k]! * (1 - u - v) + pu[1]![k]! * u + pu[2]![k]! * v;
    dif[0] = llx - tmp[0]!; dif[1] = lly - tmp[1]!; dif[2] = 0 - tmp[2]!;
    const dd = dif[0]! * dif[0]! + dif[1]! * dif[1]! + dif[2]! * dif[2]!;
    det = dd;
    if (tmp[2]! > 0 && dd > margin2) continue;
    const P = points[n]!;
    P[0] = (llx + tmp[0]!) * 0.5; P[1] = (lly + tmp[1]!) * 0.5; P[2] = (0 + tmp[2]!) * 0.5;
    depth[n] = Math.sqrt(dd) * (tmp[2]! < 0 ? -1 : 1);
    n++;
  }
  const nFace = n;

  for (let i = 0; i < 4; i++) {
    if (n >= MAX_POINTS) continue;
    const x = flat[i]![0]!, y = flat[i]![1]!;
    if (nLines === 0) {
      if (nFace !== 0 && (x < -lx || x > lx) && (y < -ly || y > ly)) continue;
    } else if (x < -lx || x > lx || y < -ly || y > ly) {
      continue;
    }
    let dd = 0;
    for (let j = 0; j < 2; j++) {
      const w = flat[i]![j]!;
      if (w < -s[j]!) dd += (w + s[j]!) * (w + s[j]!);
      else if (w > s[j]!) dd += (w - s[j]!) * (w - s[j]!);
    }
    dd += pu[i]![2]! * innorm * pu[i]![2]! * innorm;
    if (pu[i]![2]! > 0 && dd > margin2) continue;
    const P = points[n]!;
    for (let j = 0; j < 2; j++) {
      const w = flat[i]![j]!;
      P[j] = w < -s[j]! ? -s[j]! * 0.5 : w > s[j]! ? s[j]! * 0.5 : w * 0.5;
    }
    P[2] = 0;
    for (let k = 0; k < 3; k++) P[k] = P[k]! + pu[i]![k]! * 0.5;
    depth[n] = Math.sqrt(dd) * (pu[i]![2]! < 0 ? -1 : 1);
    n++;
  }

  mulMatMatT(r, b1.mat, faceMat);
  const nsign = inward ? -1 : 1;
  for (let k = 0; k < 3; k++) normal[k] = nsign * (r[3 * k]! * rnorm[0]! + r[3 * k + 1]! * rnorm[1]! + r[3 * k + 2]! * rnorm[2]!);
  const pos1 = b1.pos;
  for (let i = 0; i < n; i++) {
    const P = points[i]!;
    const z = P[2]! + hz;
    const wx = r[0]! * P[0]! + r[1]! * P[1]! + r[2]! * z;
    const wy = r[3]! * P[0]! + r[4]! * P[1]! + r[5]! * z;
    const wz = r[6]! * P[0]! + r[7]! * P[1]! + r[8]! * z;
    setContact(out, i, depth[i]!, wx + pos1[0]!, wy + pos1[1]!, wz + pos1[2]!, normal[0]!, normal[1]!, normal[2]!);
  }
  return n;
}
