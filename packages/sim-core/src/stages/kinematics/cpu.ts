/**
 * Stage `kinematics` (MuJoCo mj_kinematics): global poses of bodies, inertial frames, joints (anchor and
 * axis), geoms and sites from qpos, walking the tree root to leaves.
 * Hinge, slide, ball and free joints; quaternions (w, x, y, z) are normalised as MuJoCo does (only when
 * off by more than 1e-15). Envs are the innermost loop.
 */
import type { Data, Real } from '../../data/data.js';
import { JointType, type Model } from '../../model/model.js';
import { planOf, SameFrame } from '../../data/plan.js';
import { scratchOf, type Frames } from '../../data/scratch.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const SLIDE: number = JointType.Slide;
const BALL: number = JointType.Ball;
const SF_NONE: number = SameFrame.None;
const SF_BODY: number = SameFrame.Body;
const SF_INERTIA: number = SameFrame.Inertia;
const SF_BODYROT: number = SameFrame.BodyRot;

const MINVAL = 1e-15;

export function kinematics(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const plan = planOf(m);
  const { qpos, xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geomXpos, geomXmat, siteXpos, siteXmat } = d;
  const f = scratchOf(m, d).frames;
  const { bodyPos, bodyQuat, jntPos, jntAxis, jntQposadr, jntType, qpos0 } = m;

  for (let e = e0; e < e1; e++) {
    xpos[e] = 0; xpos[n + e] = 0; xpos[2 * n + e] = 0;
    xipos[e] = 0; xipos[n + e] = 0; xipos[2 * n + e] = 0;
    xquat[e] = 1; xquat[n + e] = 0; xquat[2 * n + e] = 0; xquat[3 * n + e] = 0;
    quatToMat(xmat, e, n, 1, 0, 0, 0);
    quatToMat(ximat, e, n, 1, 0, 0, 0);
  }

  for (let b = 1; b < m.nbody; b++) {
    const jntadr = m.bodyJntadr[b]!;
    const jntnum = m.bodyJntnum[b]!;
    const pid = m.bodyParentid[b]!;
    const isFree = jntnum === 1 && jntType[jntadr] === FREE;
    const freeQa = jntQposadr[jntadr]!;
    const bpx = bodyPos[3 * b]!, bpy = bodyPos[3 * b + 1]!, bpz = bodyPos[3 * b + 2]!;
    const bqw = bodyQuat[4 * b]!, bqx = bodyQuat[4 * b + 1]!, bqy = bodyQuat[4 * b + 2]!, bqz = bodyQuat[4 * b + 3]!;
    const P3 = 3 * pid * n, P4 = 4 * pid * n, P9 = 9 * pid * n;

    for (let e = e0; e < e1; e++) {
      let px: number, py: number, pz: number, qw: number, qx: number, qy: number, qz: number;
      if (isFree) {
        const qa = freeQa;
        px = qpos[qa * n + e]!; py = qpos[(qa + 1) * n + e]!; pz = qpos[(qa + 2) * n + e]!;
        qw = qpos[(qa + 3) * n + e]!; qx = qpos[(qa + 4) * n + e]!; qy = qpos[(qa + 5) * n + e]!; qz = qpos[(qa + 6) * n + e]!;
        const nrm = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
        if (nrm < MINVAL) { qw = 1; qx = 0; qy = 0; qz = 0; }
        else if (Math.abs(nrm - 1) > MINVAL) { const s = 1 / nrm; qw *= s; qx *= s; qy *= s; qz *= s; }
        xanchor[3 * jntadr * n + e] = px; xanchor[(3 * jntadr + 1) * n + e] = py; xanchor[(3 * jntadr + 2) * n + e] = pz;
        xaxis[3 * jntadr * n + e] = jntAxis[3 * jntadr]!;
        xaxis[(3 * jntadr + 1) * n + e] = jntAxis[3 * jntadr + 1]!;
        xaxis[(3 * jntadr + 2) * n + e] = jntAxis[3 * jntadr + 2]!;
      } else {
        if (pid !== 0) {
          const m0 = xmat[P9 + e]!, m1 = xmat[P9 + n + e]!, m2 = xmat[P9 + 2 * n + e]!;
          const m3 = xmat[P9 + 3 * n + e]!, m4 = xmat[P9 + 4 * n + e]!, m5 = xmat[P9 + 5 * n + e]!;
          const m6 = xmat[P9 + 6 * n + e]!, m7 = xmat[P9 + 7 * n + e]!, m8 = xmat[P9 + 8 * n + e]!;
          px = m0 * bpx + m1 * bpy + m2 * bpz + xpos[P3 + e]!;
          py = m3 * bpx + m4 * bpy + m5 * bpz + xpos[P3 + n + e]!;
          pz = m6 * bpx + m7 * bpy + m8 * bpz + xpos[P3 + 2 * n + e]!;
          const aw = xquat[P4 + e]!, ax = xquat[P4 + n + e]!, ay = xquat[P4 + 2 * n + e]!, az = xquat[P4 + 3 * n + e]!;
          qw = aw * bqw - ax * bqx - ay * bqy - az * bqz;
          qx = aw * bqx + ax * bqw + ay * bqz - az * bqy;
          qy = aw * bqy - ax * bqz + ay * bqw + az * bqx;
          qz = aw * bqz + ax * bqy - ay * bqx + az * bqw;
        } else {
          px = bpx; py = bpy; pz = bpz; qw = bqw; qx = bqx; qy = bqy; qz = bqz;
        }

        for (let jj = 0; jj < jntnum; jj++) {
          const j = jntadr + jj;
          const qa = jntQposadr[j]!;
          const type = jntType[j]!;
          const ax0 = jntAxis[3 * j]!, ax1 = jntAxis[3 * j + 1]!, ax2 = jntAxis[3 * j + 2]!;
          const jp0 = jntPos[3 * j]!, jp1 = jntPos[3 * j + 1]!, jp2 = jntPos[3 * j + 2]!;
          const isId = qw === 1 && qx === 0 && qy === 0 && qz === 0;

          // xaxis = rot(axis, q)
          let gx: number, gy: number, gz: number;
          if (ax0 === 0 && ax1 === 0 && ax2 === 0) { gx = 0; gy = 0; gz = 0; }
          else if (isId) { gx = ax0; gy = ax1; gz = ax2; }
          else {
            const t0 = qw * ax0 + qy * ax2 - qz * ax1, t1 = qw * ax1 + qz * ax0 - qx * ax2, t2 = qw * ax2 + qx * ax1 - qy * ax0;
            gx = ax0 + 2 * (qy * t2 - qz * t1); gy = ax1 + 2 * (qz * t0 - qx * t2); gz = ax2 + 2 * (qx * t1 - qy * t0);
          }
          // xanchor = rot(jnt_pos, q) + xpos
          let cx: number, cy: number, cz: number;
          if (jp0 === 0 && jp1 === 0 && jp2 === 0) { cx = 0; cy = 0; cz = 0; }
          else if (isId) { cx = jp0; cy = jp1; cz = jp2; }
          else {
            const t0 = qw * jp0 + qy * jp2 - qz * jp1, t1 = qw * jp1 + qz * jp0 - qx * jp2, t2 = qw * jp2 + qx * jp1 - qy * jp0;
            cx = jp0 + 2 * (qy * t2 - qz * t1); cy = jp1 + 2 * (qz * t0 - qx * t2); cz = jp2 + 2 * (qx * t1 - qy * t0);
          }
          cx += px; cy += py; cz += pz;

          if (type === SLIDE) {
            const dq = qpos[qa * n + e]! - qpos0[qa]!;
            px += gx * dq; py += gy * dq; pz += gz * dq;
          } else {
            let lw: number, lx: number, ly: number, lz: number;
            if (type === BALL) {
              lw = qpos[qa * n + e]!; lx = qpos[(qa + 1) * n + e]!; ly = qpos[(qa + 2) * n + e]!; lz = qpos[(qa + 3) * n + e]!;
              const nrm = Math.sqrt(lw * lw + lx * lx + ly * ly + lz * lz);
              if (nrm < MINVAL) { lw = 1; lx = 0; ly = 0; lz = 0; }
              else if (Math.abs(nrm - 1) > MINVAL) { const s = 1 / nrm; lw *= s; lx *= s; ly *= s; lz *= s; }
            } else {
              const angle = qpos[qa * n + e]! - qpos0[qa]!;
              if (angle === 0) { lw = 1; lx = 0; ly = 0; lz = 0; }
              else {
                const s = Math.sin(angle * 0.5);
                lw = Math.cos(angle * 0.5); lx = ax0 * s; ly = ax1 * s; lz = ax2 * s;
              }
            }
            const nw = qw * lw - qx * lx - qy * ly - qz * lz;
            const nx = qw * lx + qx * lw + qy * lz - qz * ly;
            const ny = qw * ly - qx * lz + qy * lw + qz * lx;
            const nz = qw * lz + qx * ly - qy * lx + qz * lw;
            qw = nw; qx = nx; qy = ny; qz = nz;
            // off-centre rotation: xpos = xanchor - rot(jnt_pos, q)
            let vx: number, vy: number, vz: number;
            if (jp0 === 0 && jp1 === 0 && jp2 === 0) { vx = 0; vy = 0; vz = 0; }
            else if (qw === 1 && qx === 0 && qy === 0 && qz === 0) { vx = jp0; vy = jp1; vz = jp2; }
            else {
              const t0 = qw * jp0 + qy * jp2 - qz * jp1, t1 = qw * jp1 + qz * jp0 - qx * jp2, t2 = qw * jp2 + qx * jp1 - qy * jp0;
              vx = jp0 + 2 * (qy * t2 - qz * t1); vy = jp1 + 2 * (qz * t0 - qx * t2); vz = jp2 + 2 * (qx * t1 - qy * t0);
            }
            px = cx - vx; py = cy - vy; pz = cz - vz;
          }
          xanchor[3 * j * n + e] = cx; xanchor[(3 * j + 1) * n + e] = cy; xanchor[(3 * j + 2) * n + e] = cz;
          xaxis[3 * j * n + e] = gx; xaxis[(3 * j + 1) * n + e] = gy; xaxis[(3 * j + 2) * n + e] = gz;
        }
      }

      const nrm = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
      if (nrm < MINVAL) { qw = 1; qx = 0; qy = 0; qz = 0; }
      else if (Math.abs(nrm - 1) > MINVAL) { const s = 1 / nrm; qw *= s; qx *= s; qy *= s; qz *= s; }
      const B3 = 3 * b * n + e, B4 = 4 * b * n + e, B9 = 9 * b * n + e;
      xquat[B4] = qw; xquat[B4 + n] = qx; xquat[B4 + 2 * n] = qy; xquat[B4 + 3 * n] = qz;
      xpos[B3] = px; xpos[B3 + n] = py; xpos[B3 + 2 * n] = pz;
      quatToMat(xmat, B9, n, qw, qx, qy, qz);
    }
  }

  for (let b = 1; b < m.nbody; b++) {
    local2global(f, xipos, ximat, m.bodyIpos, m.bodyIquat, b, b, plan.bodySameframe[b]!, e0, e1);
  }
  for (let g = 0; g < m.ngeom; g++) {
    local2global(f, geomXpos, geomXmat, m.geomPos, m.geomQuat, g, m.geomBodyid[g]!, plan.geomSameframe[g]!, e0, e1);
  }
  for (let s = 0; s < m.nsite; s++) {
    local2global(f, siteXpos, siteXmat, m.sitePos, m.siteQuat, s, m.siteBodyid[s]!, plan.siteSameframe[s]!, e0, e1);
  }
}

/** Writes the rotation matrix of a unit quaternion into mat[o + k*n], k = 0..8 (mju_quat2Mat). */
export function quatToMat(mat: Real, o: number, n: number, qw: number, qx: number, qy: number, qz: number): void {
  if (qw === 1 && qx === 0 && qy === 0 && qz === 0) {
    mat[o] = 1; mat[o + n] = 0; mat[o + 2 * n] = 0;
    mat[o + 3 * n] = 0; mat[o + 4 * n] = 1; mat[o + 5 * n] = 0;
    mat[o + 6 * n] = 0; mat[o + 7 * n] = 0; mat[o + 8 * n] = 1;
    return;
  }
  const q00 = qw * qw, q01 = qw * qx, q02 = qw * qy, q03 = qw * qz;
  const q11 = qx * qx, q12 = qx * qy, q13 = qx * qz, q22 = qy * qy, q23 = qy * qz, q33 = qz * qz;
  mat[o] = q00 + q11 - q22 - q33;
  mat[o + 4 * n] = q00 - q11 + q22 - q33;
  mat[o + 8 * n] = q00 - q11 - q22 + q33;
  mat[o + n] = 2 * (q12 - q03);
  mat[o + 2 * n] = 2 * (q13 + q02);
  mat[o + 3 * n] = 2 * (q12 + q03);
  mat[o + 5 * n] = 2 * (q23 - q01);
  mat[o + 6 * n] = 2 * (q13 - q02);
  mat[o + 7 * n] = 2 * (q23 + q01);
}

/** mj_local2Global for object `i` at (pos, quat) in the frame of `body`, into (outPos, outMat). */
function local2global(
  f: Frames, outPos: Real, outMat: Real, pos: Float64Array, quat: Float64Array, i: number, body: number,
  sf: number, e0: number, e1: number,
): void {
  const n = f.n;
  const n2 = 2 * n, n3 = 3 * n, n4 = 4 * n, n5 = 5 * n, n6 = 6 * n, n7 = 7 * n, n8 = 8 * n;
  const B3 = 3 * body * n, B4 = 4 * body * n, B9 = 9 * body * n, O3 = 3 * i * n, O9 = 9 * i * n;
  const xpos = f.xpos, xmat = f.xmat;
  // position: a copy when the frame is the body's or its inertia's (as MuJoCo: no rounding from a product)
  if (sf === SF_BODY || sf === SF_INERTIA) {
    const src = sf === SF_BODY ? xpos : f.xipos;
    for (let e = e0; e < e1; e++) {
      outPos[O3 + e] = src[B3 + e]!; outPos[O3 + n + e] = src[B3 + n + e]!; outPos[O3 + n2 + e] = src[B3 + n2 + e]!;
    }
  } else {
    const p0 = pos[3 * i]!, p1 = pos[3 * i + 1]!, p2 = pos[3 * i + 2]!;
    for (let e = e0; e < e1; e++) {
      const r = B9 + e;
      outPos[O3 + e] = xmat[r]! * p0 + xmat[r + n]! * p1 + xmat[r + n2]! * p2 + xpos[B3 + e]!;
      outPos[O3 + n + e] = xmat[r + n3]! * p0 + xmat[r + n4]! * p1 + xmat[r + n5]! * p2 + xpos[B3 + n + e]!;
      outPos[O3 + n2 + e] = xmat[r + n6]! * p0 + xmat[r + n7]! * p1 + xmat[r + n8]! * p2 + xpos[B3 + n2 + e]!;
    }
  }
  if (sf !== SF_NONE) {
    const src = sf === SF_BODY || sf === SF_BODYROT ? xmat : f.ximat;
    for (let e = e0; e < e1; e++) {
      const o = O9 + e, b = B9 + e;
      outMat[o] = src[b]!; outMat[o + n] = src[b + n]!; outMat[o + n2] = src[b + n2]!;
      outMat[o + n3] = src[b + n3]!; outMat[o + n4] = src[b + n4]!; outMat[o + n5] = src[b + n5]!;
      outMat[o + n6] = src[b + n6]!; outMat[o + n7] = src[b + n7]!; outMat[o + n8] = src[b + n8]!;
    }
    return;
  }
  const xquat = f.xquat;
  const bw = quat[4 * i]!, bx = quat[4 * i + 1]!, by = quat[4 * i + 2]!, bz = quat[4 * i + 3]!;
  for (let e = e0; e < e1; e++) {
    const aw = xquat[B4 + e]!, ax = xquat[B4 + n + e]!, ay = xquat[B4 + n2 + e]!, az = xquat[B4 + n3 + e]!;
    quatToMat(outMat, O9 + e, n,
      aw * bw - ax * bx - ay * by - az * bz,
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw);
  }
}
