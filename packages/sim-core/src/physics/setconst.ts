/**
 * The model constants MuJoCo's mj_setConst derives at qpos0, for a Model whose loader did not fill them:
 * body_subtreemass, body_invweight0 and dof_invweight0 (mean diagonal of the inverse inertia seen by a
 * body's com / a joint, which scale constraint regularisation), stat.meaninertia (mean diagonal of M) and
 * the damping of position-like actuators given as a dampratio (biasprm[2] > 0 becomes
 * -dampratio * 2 * sqrt(kp * reflected inertia)).
 */
import { EqType, JointType, TrnType, type Model } from '../model/model.js';
import type { Data } from '../data/data.js';
import { makeData } from '../data/make-data.js';
import { kinematics } from '../stages/kinematics/cpu.js';
import { bodyPointToWorld } from '../solver/jacobian.js';
import { com } from '../stages/com/cpu.js';
import { crb } from '../stages/crb/cpu.js';
import { factorM, solveMEnv } from '../stages/factor_m/cpu.js';
import { hasSpatialTendons, isSpatial, spatialTendonsOf } from './tendon.js';

const MINVAL = 1e-15;
const EPS = 1e-14;

/** Returns a copy of `m` with the constants set (arrays that change are new; the input is not modified). */
export function setConst(input: Model): Model {
  const nbody = input.nbody, nv = input.nv;
  const subtreemass = Float64Array.from(input.bodyMass);
  for (let b = nbody - 1; b > 0; b--) subtreemass[input.bodyParentid[b]!]! += subtreemass[b]!;
  const m: Model = { ...input, bodySubtreemass: subtreemass };

  // M and its factor at qpos0, one env in f64
  const d = makeData(m, 1, '64', { maxContacts: 0, maxEfc: 0 });
  kinematics(m, d, 0, 1);
  com(m, d, 0, 1);
  crb(m, d, 0, 1);
  factorM(m, d, 0, 1);
  const M0 = new Float64Array(nv);
  for (let i = 0; i < nv; i++) M0[i] = d.qM[i * nv + i]!;

  let meaninertia = input.statMeaninertia;
  if (nv > 0) {
    meaninertia = 0;
    for (let i = 0; i < nv; i++) meaninertia += M0[i]!;
    meaninertia /= nv;
  }

  const simple = bodySimple(m);
  const col = new Float64Array(nv);

  // body_invweight0: A = J inv(M) J' for the Jacobian of the body com, mean of the translational and rotational diagonals
  const bodyInvweight0 = new Float64Array(2 * nbody);
  for (let b = 1; b < nbody; b++) {
    if (m.bodyWeldid[b] === 0) continue;
    if (simple[b] === 2) {
      bodyInvweight0[2 * b] = 1 / Math.max(MINVAL, m.bodyMass[b]!);
      continue;
    }
    const chain = dofChain(m, b);
    const ox = d.xipos[3 * b]! - d.subtreeCom[3 * m.bodyRootid[b]!]!;
    const oy = d.xipos[3 * b + 1]! - d.subtreeCom[3 * m.bodyRootid[b]! + 1]!;
    const oz = d.xipos[3 * b + 2]! - d.subtreeCom[3 * m.bodyRootid[b]! + 2]!;
    let trans = 0, rot = 0;
    for (let row = 0; row < 6; row++) {
      col.fill(0);
      for (const j of chain) {
        const c = d.cdof.subarray(6 * j, 6 * j + 6);
        const cross = [c[1]! * oz - c[2]! * oy, c[2]! * ox - c[0]! * oz, c[0]! * oy - c[1]! * ox];
        col[j] = row < 3 ? c[3 + row]! + cross[row]! : c[row - 3]!;
      }
      const jrow = Float64Array.from(col);
      solveMEnv(m, d, 0, col);
      let a = 0;
      for (let j = 0; j < nv; j++) a += jrow[j]! * col[j]!;
      if (row < 3) trans += a; else rot += a;
    }
    bodyInvweight0[2 * b] = trans / 3;
    bodyInvweight0[2 * b + 1] = rot / 3;
  }

  // dof_invweight0: diagonal block of inv(M) of each joint, averaged per translational / rotational part
  const dofInvweight0 = new Float64Array(nv);
  const invDiag = (i: number): number => {
    col.fill(0);
    col[i] = 1;
    solveMEnv(m, d, 0, col);
    return col[i]!;
  };
  for (let j = 0; j < m.njnt; j++) {
    const id = m.jntDofadr[j]!;
    const b = m.jntBodyid[j]!;
    const type = m.jntType[j]!;
    if (simple[b] === 2) { dofInvweight0[id] = 1 / Math.max(MINVAL, m.bodyMass[b]!); continue; }
    if (type === JointType.Free) {
      const t = (invDiag(id) + invDiag(id + 1) + invDiag(id + 2)) / 3;
      const r = (invDiag(id + 3) + invDiag(id + 4) + invDiag(id + 5)) / 3;
      dofInvweight0.fill(t, id, id + 3);
      dofInvweight0.fill(r, id + 3, id + 6);
    } else if (type === JointType.Ball) {
      dofInvweight0.fill((invDiag(id) + invDiag(id + 1) + invDiag(id + 2)) / 3, id, id + 3);
    } else {
      dofInvweight0[id] = invDiag(id);
    }
  }

  // position-like actuators with biasprm[2] > 0: that value is a damping ratio
  let biasprm = m.actuatorBiasprm;
  for (let u = 0; u < m.nu; u++) {
    const kp = m.actuatorGainprm[10 * u]!;
    const kv = m.actuatorBiasprm[10 * u + 2]!;
    if (kp !== -m.actuatorBiasprm[10 * u + 1]! || kv <= 0 || m.actuatorTrntype[u] !== TrnType.Joint) continue;
    const gear = Math.abs(m.actuatorGear[6 * u]!);
    const dof = m.jntDofadr[m.actuatorTrnid[2 * u]!]!;
    const mass = gear * gear > MINVAL ? M0[dof]! / (gear * gear) : 0;
    if (biasprm === m.actuatorBiasprm) biasprm = Float64Array.from(biasprm);
    biasprm[10 * u + 2] = -kv * 2 * Math.sqrt(kp * mass);
  }

  // Tendons: invweight0 = J inv(M) J' at qpos0 (a fixed tendon's J is its joints' coefficients), and a spring
  // length of -1 -1 becomes the tendon's length at qpos_spring (MuJoCo's setSpring)
  const tendonInvweight0 = new Float64Array(m.ntendon);
  const tendonLengthspring = Float64Array.from(m.tendonLengthspring);
  const spatial = hasSpatialTendons(m) ? spatialTendonsOf(m) : null;
  const atSpring = spatial ? springPose(m) : null;
  for (let t = 0; t < m.ntendon; t++) {
    col.fill(0);
    let springLength = 0;
    if (spatial && atSpring && isSpatial(m, t)) {
      spatial.compute(atSpring, t, 0);
      springLength = spatial.length;
      spatial.compute(d, t, 0);
      col.set(spatial.J.subarray(0, nv));
    }
    for (let k = m.tendonAdr[t]!; k < m.tendonAdr[t]! + m.tendonNum[t]! && !isSpatial(m, t); k++) {
      const j = m.wrapObjid[k]!;
      col[m.jntDofadr[j]!] = m.wrapPrm[k]!;
      springLength += m.wrapPrm[k]! * m.qposSpring[m.jntQposadr[j]!]!;
    }
    const jrow = Float64Array.from(col);
    if (nv > 0) solveMEnv(m, d, 0, col);
    let a = 0;
    for (let j = 0; j < nv; j++) a += jrow[j]! * col[j]!;
    tendonInvweight0[t] = a;
    if (tendonLengthspring[2 * t] === -1 && tendonLengthspring[2 * t + 1] === -1) tendonLengthspring.fill(springLength, 2 * t, 2 * t + 2);
  }

  // A connect equality's anchor in body 2's frame (eqData 3-5), where the anchor on body 1 is at qpos0
  let eqData = m.eqData;
  for (let i = 0; i < m.neq; i++) {
    if (m.eqType[i] === EqType.Weld) {
      if (eqData === m.eqData) eqData = Float64Array.from(eqData);
      weldConst(eqData, 11 * i, m.eqObj1id[i]!, m.eqObj2id[i]!, d);
      continue;
    }
    if (m.eqType[i] !== EqType.Connect) continue;
    if (eqData === m.eqData) eqData = Float64Array.from(eqData);
    const b1 = m.eqObj1id[i]!, b2 = m.eqObj2id[i]!, c = 11 * i;
    const world = new Float64Array(3);
    bodyPointToWorld(world, d.xpos, d.xmat, 1, 0, b1, eqData, c);
    const rel = [0, 1, 2].map((k) => world[k]! - d.xpos[3 * b2 + k]!);
    for (let k = 0; k < 3; k++) {
      eqData[c + 3 + k] = d.xmat[9 * b2 + k]! * rel[0]! + d.xmat[9 * b2 + 3 + k]! * rel[1]! + d.xmat[9 * b2 + 6 + k]! * rel[2]!;
    }
  }

  return { ...m, bodyInvweight0, dofInvweight0, statMeaninertia: meaninertia, actuatorBiasprm: biasprm, eqData, tendonInvweight0, tendonLengthspring };
}

/**
 * A weld's missing data at qpos0, as MuJoCo's mj_setConst: with no relative pose given (a zero quaternion in
 * eqData 6-9), body 1's anchor (eqData 3-5, its frame) is where body 2's anchor (eqData 0-2) is, and the
 * relative pose is neg(q1) * q2; a given quaternion is only normalized.
 */
function weldConst(eqData: Float64Array, c: number, b1: number, b2: number, d: Data): void {
  const rq = [eqData[c + 6]!, eqData[c + 7]!, eqData[c + 8]!, eqData[c + 9]!];
  if (rq.some((v) => v !== 0)) {
    const norm = Math.hypot(...rq);
    for (let k = 0; k < 4; k++) eqData[c + 6 + k] = rq[k]! / norm;
    return;
  }
  const world = new Float64Array(3);
  bodyPointToWorld(world, d.xpos, d.xmat, 1, 0, b2, eqData, c);
  const rel = [0, 1, 2].map((k) => world[k]! - d.xpos[3 * b1 + k]!);
  for (let k = 0; k < 3; k++) {
    eqData[c + 3 + k] = d.xmat[9 * b1 + k]! * rel[0]! + d.xmat[9 * b1 + 3 + k]! * rel[1]! + d.xmat[9 * b1 + 6 + k]! * rel[2]!;
  }
  const a0 = d.xquat[4 * b1]!, a1 = -d.xquat[4 * b1 + 1]!, a2 = -d.xquat[4 * b1 + 2]!, a3 = -d.xquat[4 * b1 + 3]!;
  const b0 = d.xquat[4 * b2]!, bx = d.xquat[4 * b2 + 1]!, by = d.xquat[4 * b2 + 2]!, bz = d.xquat[4 * b2 + 3]!;
  eqData[c + 6] = a0 * b0 - a1 * bx - a2 * by - a3 * bz;
  eqData[c + 7] = a0 * bx + a1 * b0 + a2 * bz - a3 * by;
  eqData[c + 8] = a0 * by - a1 * bz + a2 * b0 + a3 * bx;
  eqData[c + 9] = a0 * bz + a1 * by - a2 * bx + a3 * b0;
}

/** Dofs that move body b: its last dof (or its nearest moving ancestor's) and that dof's ancestors. */
function dofChain(m: Model, b: number): number[] {
  let body = b;
  while (body > 0 && m.bodyDofnum[body] === 0) body = m.bodyParentid[body]!;
  const out: number[] = [];
  if (body === 0) return out;
  for (let j = m.bodyDofadr[body]! + m.bodyDofnum[body]! - 1; j >= 0; j = m.dofParentid[j]!) out.push(j);
  return out;
}

/**
 * MuJoCo's compiler flag body_simple: 1 for a body whose M block is diagonal and constant, 2 when it also
 * has only slide joints (its inverse weight is then 1/mass).
 */
function bodySimple(m: Model): Uint8Array {
  const nbody = m.nbody;
  const simple = new Uint8Array(nbody);
  const nullPose = (b: number): boolean =>
    m.bodyIpos[3 * b] === 0 && m.bodyIpos[3 * b + 1] === 0 && m.bodyIpos[3 * b + 2] === 0 &&
    m.bodyIquat[4 * b] === 1 && m.bodyIquat[4 * b + 1] === 0 && m.bodyIquat[4 * b + 2] === 0 && m.bodyIquat[4 * b + 3] === 0;
  for (let b = 1; b < nbody; b++) {
    const p = m.bodyParentid[b]!;
    const rootOrOnStaticChild = m.bodyRootid[b] === b ||
      (p > 0 && m.bodyParentid[p] === 0 && m.bodyDofnum[p] === 0);
    simple[b] = nullPose(b) && rootOrOnStaticChild ? 1 : 0;
  }
  for (let b = 1; b < nbody; b++) simple[m.bodyParentid[b]!] = 0;
  for (let b = 1; b < nbody; b++) {
    if (!simple[b]) continue;
    let rotFound = false;
    for (let j = m.bodyJntadr[b]!; j < m.bodyJntadr[b]! + m.bodyJntnum[b]!; j++) {
      const type = m.jntType[j]!;
      const aligned = (Math.abs(m.jntAxis[3 * j]!) > EPS ? 1 : 0) + (Math.abs(m.jntAxis[3 * j + 1]!) > EPS ? 1 : 0) +
        (Math.abs(m.jntAxis[3 * j + 2]!) > EPS ? 1 : 0) === 1;
      const nullPos = m.jntPos[3 * j] === 0 && m.jntPos[3 * j + 1] === 0 && m.jntPos[3 * j + 2] === 0;
      if (rotFound || !nullPos || ((type === JointType.Hinge || type === JointType.Slide) && !aligned)) {
        simple[b] = 0;
        break;
      }
      if (type === JointType.Ball || type === JointType.Hinge) rotFound = true;
    }
    if (!simple[b] || m.bodyDofnum[b] === 0) continue;
    simple[b] = 2;
    for (let j = m.bodyJntadr[b]!; j < m.bodyJntadr[b]! + m.bodyJntnum[b]!; j++) {
      if (m.jntType[j] !== JointType.Slide) { simple[b] = 1; break; }
    }
  }
  return simple;
}

/** One f64 env posed at qpos_spring, its sites and cdof computed (spatial tendon lengths there). */
function springPose(m: Model): Data {
  const d = makeData(m, 1, '64', { maxContacts: 0, maxEfc: 0 });
  d.qpos.set(m.qposSpring);
  kinematics(m, d, 0, 1);
  com(m, d, 0, 1);
  return d;
}
