/**
 * Stage `sensor` (MuJoCo's mj_sensorPos, mj_sensorVel and mj_sensorAcc): every sensor's value into sensordata,
 * from the state the step started from, as MuJoCo's sensordata is after mj_step. It runs after the constraint
 * solve and before integration, where positions, velocities, qacc and the constraint forces are all those of
 * mj_forward. Accelerometer, force and torque need MuJoCo's mj_rnePostConstraint (body accelerations cacc and
 * interaction forces cfrc_int, with contact and connect/weld forces as external forces); it is computed per env
 * only in a model with such a sensor. Cutoff clamps as apply_cutoff; noise is not added (as MuJoCo since 3.1.4).
 * Runs only when the model has sensors (the CPU pipeline skips it otherwise).
 */
import { contactWrenches } from '../../backend/contacts.js';
import type { Data } from '../../data/data.js';
import { mulInertVec } from '../../math/inertia.js';
import { EqType, type Model } from '../../model/model.js';
import { SensorObj, SensorType } from '../../model/sensors.js';

const EQUALITY_ROW = 0;

/** Per-env scratch: cacc, cfrc_ext, cfrc_int (6 per body), a 6-vector and a 3x3 frame. */
interface Scratch { cacc: Float64Array; cext: Float64Array; cint: Float64Array; v6: Float64Array; w6: Float64Array; out: Float64Array }
const scratchFor = new WeakMap<Model, Scratch>();

function scratch(m: Model): Scratch {
  let s = scratchFor.get(m);
  if (!s) {
    s = {
      cacc: new Float64Array(6 * m.nbody), cext: new Float64Array(6 * m.nbody), cint: new Float64Array(6 * m.nbody),
      v6: new Float64Array(12), w6: new Float64Array(6), out: new Float64Array(4),
    };
    scratchFor.set(m, s);
  }
  return s;
}

/** One env's view of the Data's SoA fields: element k of a field. */
class EnvView {
  constructor(readonly d: Data, readonly n: number, readonly e: number) {}
  at(f: ArrayLike<number>, k: number): number { return f[k * this.n + this.e]!; }
}

export function sensor(m: Model, d: Data, e0: number, e1: number): void {
  const ns = m.nsensor ?? 0;
  if (ns === 0) return;
  const s = scratch(m);
  let needAcc = false;
  for (let i = 0; i < ns; i++) {
    const t = m.sensorType![i]!;
    if (t === SensorType.Accelerometer || t === SensorType.Force || t === SensorType.Torque) needAcc = true;
  }
  const n = d.nEnvs;
  for (let e = e0; e < e1; e++) {
    const v = new EnvView(d, n, e);
    if (needAcc) rnePostConstraint(m, v, s);
    for (let i = 0; i < ns; i++) {
      const dim = m.sensorDim![i]!;
      const out = s.out;
      compute(m, v, s, i, out);
      const cutoff = m.sensorCutoff![i]!;
      const adr = m.sensorAdr![i]!;
      for (let k = 0; k < dim; k++) {
        let x = out[k]!;
        // a quaternion is not cut off (MuJoCo's mjDATATYPE_QUATERNION); every other type here is real
        if (cutoff > 0 && m.sensorType![i] !== SensorType.FrameQuat) x = Math.min(cutoff, Math.max(-cutoff, x));
        d.sensordata[(adr + k) * n + e] = x;
      }
    }
  }
}

/** The body an object of a sensor belongs to. */
function bodyOf(m: Model, type: number, id: number): number {
  if (type === SensorObj.Geom) return m.geomBodyid[id]!;
  if (type === SensorObj.Site) return m.siteBodyid[id]!;
  return id;
}

/** An object's world position and orientation (row-major 3x3) into p (3) and r (9). */
function frameOf(v: EnvView, type: number, id: number, p: Float64Array, r: Float64Array): void {
  const d = v.d;
  const [pos, mat] = type === SensorObj.Body ? [d.xipos, d.ximat] : type === SensorObj.XBody ? [d.xpos, d.xmat]
    : type === SensorObj.Geom ? [d.geomXpos, d.geomXmat] : [d.siteXpos, d.siteXmat];
  for (let k = 0; k < 3; k++) p[k] = v.at(pos, 3 * id + k);
  for (let k = 0; k < 9; k++) r[k] = v.at(mat, 9 * id + k);
}

function mulQuat(out: Float64Array, o: number, a0: number, a1: number, a2: number, a3: number, b0: number, b1: number, b2: number, b3: number): void {
  out[o] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3;
  out[o + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2;
  out[o + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1;
  out[o + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0;
}

/** MuJoCo's get_xquat: an object's world orientation as a quaternion. */
function quatOf(m: Model, v: EnvView, type: number, id: number, out: Float64Array, o: number): void {
  const b = bodyOf(m, type, id);
  const q = (k: number): number => v.at(v.d.xquat, 4 * b + k);
  const local = type === SensorObj.Body ? m.bodyIquat : type === SensorObj.Geom ? m.geomQuat : type === SensorObj.Site ? m.siteQuat : null;
  if (!local) {
    for (let k = 0; k < 4; k++) out[o + k] = q(k);
    return;
  }
  mulQuat(out, o, q(0), q(1), q(2), q(3), local[4 * id]!, local[4 * id + 1]!, local[4 * id + 2]!, local[4 * id + 3]!);
}

const P = new Float64Array(3), R = new Float64Array(9), PR = new Float64Array(3), RR = new Float64Array(9);
const Q = new Float64Array(8), VEL = new Float64Array(6), REFV = new Float64Array(6);

/**
 * mju_transformSpatial of a body's com-based 6-vector `src` (at [6 b]) to point p, rotated into frame r when
 * given: a motion vector (force = false) or a force vector (force = true). Writes out[0..6).
 */
function transformSpatial(out: Float64Array, src: (k: number) => number, force: boolean, p: Float64Array, c0: number, c1: number, c2: number, r: Float64Array | null): void {
  const d0 = p[0]! - c0, d1 = p[1]! - c1, d2 = p[2]! - c2;
  const a0 = src(0), a1 = src(1), a2 = src(2), l0 = src(3), l1 = src(4), l2 = src(5);
  let t0 = a0, t1 = a1, t2 = a2, t3 = l0, t4 = l1, t5 = l2;
  if (force) {
    t0 = a0 - (d1 * l2 - d2 * l1); t1 = a1 - (d2 * l0 - d0 * l2); t2 = a2 - (d0 * l1 - d1 * l0);
  } else {
    t3 = l0 - (d1 * a2 - d2 * a1); t4 = l1 - (d2 * a0 - d0 * a2); t5 = l2 - (d0 * a1 - d1 * a0);
  }
  if (r) {
    out[0] = r[0]! * t0 + r[3]! * t1 + r[6]! * t2; out[1] = r[1]! * t0 + r[4]! * t1 + r[7]! * t2; out[2] = r[2]! * t0 + r[5]! * t1 + r[8]! * t2;
    out[3] = r[0]! * t3 + r[3]! * t4 + r[6]! * t5; out[4] = r[1]! * t3 + r[4]! * t4 + r[7]! * t5; out[5] = r[2]! * t3 + r[5]! * t4 + r[8]! * t5;
  } else {
    out[0] = t0; out[1] = t1; out[2] = t2; out[3] = t3; out[4] = t4; out[5] = t5;
  }
}

/** The subtree com of body b's root (the point cvel, cacc and cfrc_int are expressed at). */
function rootCom(m: Model, v: EnvView, b: number): [number, number, number] {
  const root = m.bodyRootid[b]!;
  return [v.at(v.d.subtreeCom, 3 * root), v.at(v.d.subtreeCom, 3 * root + 1), v.at(v.d.subtreeCom, 3 * root + 2)];
}

/** mj_objectVelocity (acc = null) or mj_objectAcceleration (acc: the cacc scratch) of an object, into out[0..6). */
function objectMotion(m: Model, v: EnvView, type: number, id: number, local: boolean, acc: Float64Array | null, out: Float64Array): void {
  const b = bodyOf(m, type, id);
  if (m.bodyWeldid[b] === 0) { out.fill(0, 0, 6); return; }
  frameOf(v, type, id, P, R);
  const [c0, c1, c2] = rootCom(m, v, b);
  const cvel = (k: number): number => v.at(v.d.cvel, 6 * b + k);
  if (!acc) { transformSpatial(out, cvel, false, P, c0, c1, c2, local ? R : null); return; }
  transformSpatial(out, (k) => acc[6 * b + k]!, false, P, c0, c1, c2, local ? R : null);
  transformSpatial(VEL, cvel, false, P, c0, c1, c2, local ? R : null);
  // Coriolis correction of a rotating frame: acc_lin += vel_ang x vel_lin
  out[3] = out[3]! + (VEL[1]! * VEL[5]! - VEL[2]! * VEL[4]!);
  out[4] = out[4]! + (VEL[2]! * VEL[3]! - VEL[0]! * VEL[5]!);
  out[5] = out[5]! + (VEL[0]! * VEL[4]! - VEL[1]! * VEL[3]!);
}

function compute(m: Model, v: EnvView, s: Scratch, i: number, out: Float64Array): void {
  const d = v.d;
  const type = m.sensorType![i]!, objtype = m.sensorObjtype![i]!, id = m.sensorObjid![i]!;
  const reftype = m.sensorReftype![i]!, refid = m.sensorRefid![i]!;
  switch (type) {
    case SensorType.JointPos: out[0] = v.at(d.qpos, m.jntQposadr[id]!); return;
    case SensorType.JointVel: out[0] = v.at(d.qvel, m.jntDofadr[id]!); return;
    case SensorType.ActuatorFrc: out[0] = v.at(d.actuatorForce, id); return;
    case SensorType.Clock: out[0] = d.time[v.e]!; return;
    case SensorType.SubtreeCom: for (let k = 0; k < 3; k++) out[k] = v.at(d.subtreeCom, 3 * id + k); return;
    case SensorType.FramePos: {
      frameOf(v, objtype, id, P, R);
      if (refid < 0) { out.set(P); return; }
      frameOf(v, reftype, refid, PR, RR);
      const x = P[0]! - PR[0]!, y = P[1]! - PR[1]!, z = P[2]! - PR[2]!;
      for (let k = 0; k < 3; k++) out[k] = RR[k]! * x + RR[3 + k]! * y + RR[6 + k]! * z;
      return;
    }
    case SensorType.FrameQuat: {
      quatOf(m, v, objtype, id, Q, 0);
      if (refid < 0) { for (let k = 0; k < 4; k++) out[k] = Q[k]!; return; }
      quatOf(m, v, reftype, refid, Q, 4);
      mulQuat(out, 0, Q[4]!, -Q[5]!, -Q[6]!, -Q[7]!, Q[0]!, Q[1]!, Q[2]!, Q[3]!);
      return;
    }
    case SensorType.FrameLinVel:
    case SensorType.FrameAngVel: {
      const xvel = s.v6;
      objectMotion(m, v, objtype, id, false, null, xvel);
      if (refid >= 0) {
        frameOf(v, objtype, id, P, R);
        const px = P[0]!, py = P[1]!, pz = P[2]!;
        frameOf(v, reftype, refid, PR, RR);
        objectMotion(m, v, reftype, refid, false, null, REFV);
        const rel = s.w6;
        for (let k = 0; k < 6; k++) rel[k] = xvel[k]! - REFV[k]!;
        // the rotating reference frame: rel_lin += (p - p_ref) x w_ref
        const rx = px - PR[0]!, ry = py - PR[1]!, rz = pz - PR[2]!;
        rel[3] = rel[3]! + (ry * REFV[2]! - rz * REFV[1]!);
        rel[4] = rel[4]! + (rz * REFV[0]! - rx * REFV[2]!);
        rel[5] = rel[5]! + (rx * REFV[1]! - ry * REFV[0]!);
        for (let k = 0; k < 3; k++) {
          xvel[k] = RR[k]! * rel[0]! + RR[3 + k]! * rel[1]! + RR[6 + k]! * rel[2]!;
          xvel[3 + k] = RR[k]! * rel[3]! + RR[3 + k]! * rel[4]! + RR[6 + k]! * rel[5]!;
        }
      }
      const o = type === SensorType.FrameLinVel ? 3 : 0;
      for (let k = 0; k < 3; k++) out[k] = xvel[o + k]!;
      return;
    }
    case SensorType.Gyro:
    case SensorType.Velocimeter: {
      objectMotion(m, v, SensorObj.Site, id, true, null, s.v6);
      const o = type === SensorType.Velocimeter ? 3 : 0;
      for (let k = 0; k < 3; k++) out[k] = s.v6[o + k]!;
      return;
    }
    case SensorType.Accelerometer: {
      objectMotion(m, v, SensorObj.Site, id, true, s.cacc, s.v6);
      for (let k = 0; k < 3; k++) out[k] = s.v6[3 + k]!;
      return;
    }
    case SensorType.Force:
    case SensorType.Torque: {
      // the interaction force between the site's body and its parent, at the site, in the site's frame
      const b = m.siteBodyid[id]!;
      frameOf(v, SensorObj.Site, id, P, R);
      const [c0, c1, c2] = rootCom(m, v, b);
      transformSpatial(s.v6, (k) => s.cint[6 * b + k]!, true, P, c0, c1, c2, R);
      const o = type === SensorType.Force ? 3 : 0;
      for (let k = 0; k < 3; k++) out[k] = s.v6[o + k]!;
      return;
    }
  }
}

/** Adds (sign +1) or subtracts a world torque:force `f` applied at point (x, y, z) to body k's cfrc_ext. */
function applyExternal(m: Model, v: EnvView, cext: Float64Array, k: number, f: Float64Array, x: number, y: number, z: number, sign: number): void {
  if (k === 0) return;
  const [c0, c1, c2] = rootCom(m, v, k);
  // mju_transformSpatial(force) from the point to the root's subtree com
  const d0 = c0 - x, d1 = c1 - y, d2 = c2 - z;
  const t0 = f[0]! - (d1 * f[5]! - d2 * f[4]!), t1 = f[1]! - (d2 * f[3]! - d0 * f[5]!), t2 = f[2]! - (d0 * f[4]! - d1 * f[3]!);
  const o = 6 * k;
  cext[o] = cext[o]! + sign * t0; cext[o + 1] = cext[o + 1]! + sign * t1; cext[o + 2] = cext[o + 2]! + sign * t2;
  cext[o + 3] = cext[o + 3]! + sign * f[3]!; cext[o + 4] = cext[o + 4]! + sign * f[4]!; cext[o + 5] = cext[o + 5]! + sign * f[5]!;
}

/** MuJoCo's mj_rnePostConstraint for one env: cacc and cfrc_int of every body (no xfrc_applied in sim-core). */
function rnePostConstraint(m: Model, v: EnvView, s: Scratch): void {
  const d = v.d, { cacc, cext, cint } = s, f = s.w6;
  cacc.fill(0, 0, 6);
  cacc[3] = -m.opt.gravity[0]; cacc[4] = -m.opt.gravity[1]; cacc[5] = -m.opt.gravity[2];
  cext.fill(0);

  // contacts: the world torque:force on geom 2's body, its opposite on geom 1's
  const ncon = d.ncon[v.e]!;
  if (ncon > 0) {
    const local = contactWrenches(d, v.n, v.e, ncon);
    for (let c = 0; c < ncon; c++) {
      for (let j = 0; j < 3; j++) {
        let tq = 0, fo = 0;
        for (let r = 0; r < 3; r++) {
          const fr = v.at(d.contactFrame, 9 * c + 3 * r + j);
          tq += fr * local[6 * c + 3 + r]!;
          fo += fr * local[6 * c + r]!;
        }
        f[j] = tq; f[3 + j] = fo;
      }
      const x = v.at(d.contactPos, 3 * c), y = v.at(d.contactPos, 3 * c + 1), z = v.at(d.contactPos, 3 * c + 2);
      applyExternal(m, v, cext, m.geomBodyid[v.at(d.contactGeom, 2 * c)]!, f, x, y, z, -1);
      applyExternal(m, v, cext, m.geomBodyid[v.at(d.contactGeom, 2 * c + 1)]!, f, x, y, z, 1);
    }
  }

  // connect and weld: their constraint force on body 1 at its anchor, the opposite on body 2 at its anchor
  const nefc = d.nefc[v.e]!;
  for (let r = 0; r < nefc;) {
    if (v.at(d.efcType, r) !== EQUALITY_ROW) { r++; continue; }
    const q = v.at(d.efcId, r), type = m.eqType[q]!;
    if (type !== EqType.Connect && type !== EqType.Weld) { r++; continue; }
    const weld = type === EqType.Weld;
    for (let k = 0; k < 3; k++) {
      f[3 + k] = v.at(d.efcForce, r + k);
      f[k] = weld ? v.at(d.efcForce, r + 3 + k) : 0;
    }
    const c = 11 * q;
    const ends: [number, number, number][] = [[m.eqObj1id[q]!, weld ? c + 3 : c, 1], [m.eqObj2id[q]!, weld ? c : c + 3, -1]];
    for (const [b, off, sign] of ends) {
      if (b === 0) continue;
      const o0 = m.eqData[off]!, o1 = m.eqData[off + 1]!, o2 = m.eqData[off + 2]!;
      const w = (k: number): number => v.at(d.xpos, 3 * b + k) + v.at(d.xmat, 9 * b + 3 * k) * o0 + v.at(d.xmat, 9 * b + 3 * k + 1) * o1 + v.at(d.xmat, 9 * b + 3 * k + 2) * o2;
      applyExternal(m, v, cext, b, f, w(0), w(1), w(2), sign);
    }
    r += weld ? 6 : 3;
  }

  // forward: cacc = cacc_parent + cdofDot qvel + cdof qacc; cfrc_int = I cacc + v x* (I v) - cfrc_ext
  cint.fill(0, 0, 6);
  const h = s.v6;
  for (let b = 1; b < m.nbody; b++) {
    const p = m.bodyParentid[b]!, bda = m.bodyDofadr[b]!, nd = m.bodyDofnum[b]!;
    for (let k = 0; k < 6; k++) {
      let a = 0;
      for (let j = 0; j < nd; j++) a += v.at(d.cdofDot, 6 * (bda + j) + k) * v.at(d.qvel, bda + j);
      let c = 0;
      for (let j = 0; j < nd; j++) c += v.at(d.cdof, 6 * (bda + j) + k) * v.at(d.qacc, bda + j);
      cacc[6 * b + k] = cacc[6 * p + k]! + a + c;
    }
    const I = (k: number): number => v.at(d.cinert, 10 * b + k);
    const i0 = I(0), i1 = I(1), i2 = I(2), i3 = I(3), i4 = I(4), i5 = I(5), i6 = I(6), i7 = I(7), i8 = I(8), i9 = I(9);
    const o = 6 * b;
    mulInertVec(h, 0, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, cacc[o]!, cacc[o + 1]!, cacc[o + 2]!, cacc[o + 3]!, cacc[o + 4]!, cacc[o + 5]!);
    const w0 = v.at(d.cvel, o), w1 = v.at(d.cvel, o + 1), w2 = v.at(d.cvel, o + 2);
    const l0 = v.at(d.cvel, o + 3), l1 = v.at(d.cvel, o + 4), l2 = v.at(d.cvel, o + 5);
    mulInertVec(h, 6, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, w0, w1, w2, l0, l1, l2);
    const h0 = h[6]!, h1 = h[7]!, h2 = h[8]!, h3 = h[9]!, h4 = h[10]!, h5 = h[11]!;
    cint[o] = h[0]! + (-w2 * h1 + w1 * h2 + (-l2 * h4 + l1 * h5)) - cext[o]!;
    cint[o + 1] = h[1]! + (w2 * h0 - w0 * h2 + (l2 * h3 - l0 * h5)) - cext[o + 1]!;
    cint[o + 2] = h[2]! + (-w1 * h0 + w0 * h1 + (-l1 * h3 + l0 * h4)) - cext[o + 2]!;
    cint[o + 3] = h[3]! + (-w2 * h4 + w1 * h5) - cext[o + 3]!;
    cint[o + 4] = h[4]! + (w2 * h3 - w0 * h5) - cext[o + 4]!;
    cint[o + 5] = h[5]! + (-w1 * h3 + w0 * h4) - cext[o + 5]!;
  }
  for (let b = m.nbody - 1; b > 0; b--) {
    const p = m.bodyParentid[b]!;
    for (let k = 0; k < 6; k++) cint[6 * p + k] = cint[6 * p + k]! + cint[6 * b + k]!;
  }
}
