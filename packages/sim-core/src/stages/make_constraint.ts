/**
 * Stage `make_constraint` (MuJoCo's mj_makeConstraint + mj_makeImpedance + mj_referenceConstraint): builds
 * each env's constraint rows in MuJoCo's order: joint equalities, dof friction loss, joint limits, contacts
 * (frictionless: 1 row; pyramidal: 2*(condim-1) rows, one pair of opposing edges per friction direction).
 * Per row it writes efcJ (dense, maxEfc x nv per env), efcPos, efcMargin, efcFrictionloss, efcType, efcId, and
 * the soft-constraint terms efcR, efcD and efcAref (see solver/impedance.ts) with diagApprox from the
 * model's dof/body invweight0. Rows beyond d.maxEfc are dropped and set errFlags bit 2.
 */
import { mixCondim } from '../collision/params.js';
import type { Data } from '../data/data.js';
import { ConeType, EqType, JointType, type Model } from '../model/model.js';
import { clampSolimp, impedance, refDamping, refStiffness, regularizer, safeSolref } from '../solver/impedance.js';
import { addPointJacobian, bodyMoves, gatherCdof } from '../solver/jacobian.js';
import { ConstraintType, MINVAL } from '../solver/types.js';

const ERR_OVERFLOW = 1 << 2;

interface Scratch {
  cdof: Float64Array;   // 6 nv
  jp: Float64Array;     // 3 x nv, translational Jacobian difference
  jr: Float64Array;     // 3 x nv, rotational
  jac: Float64Array;    // 6 x nv, the same rotated into the contact frame
  row: Float64Array;    // nv
  qvel: Float64Array;   // nv
  dA: Float64Array;     // maxEfc: diagApprox per row
  vel: Float64Array;    // maxEfc: J qvel per row
  solref: Float64Array;
  solimp: Float64Array;
}
const scratches = new WeakMap<Data, Scratch>();
const warned = new WeakSet<Model>();

function scratchFor(m: Model, d: Data): Scratch {
  let s = scratches.get(d);
  if (!s) {
    const nv = Math.max(1, m.nv);
    s = {
      cdof: new Float64Array(6 * nv), jp: new Float64Array(3 * nv), jr: new Float64Array(3 * nv),
      jac: new Float64Array(6 * nv), row: new Float64Array(nv), qvel: new Float64Array(nv),
      dA: new Float64Array(Math.max(1, d.maxEfc)), vel: new Float64Array(Math.max(1, d.maxEfc)), solref: new Float64Array(2), solimp: new Float64Array(5),
    };
    scratches.set(d, s);
  }
  return s;
}

/** Row cursor of one env while its rows are being built. */
interface Cursor { e: number; nefc: number; full: boolean }
const cursor: Cursor = { e: 0, nefc: 0, full: false };

/** Appends `s.row` as a constraint row; returns false (and flags the env) when the env is full. */
function addRow(
  m: Model, d: Data, s: Scratch, type: number, id: number, pos: number, margin: number, frictionloss: number,
  diagApprox: number,
): boolean {
  const e = cursor.e, n = d.nEnvs, nv = m.nv;
  if (cursor.nefc >= d.maxEfc) {
    cursor.full = true;
    d.errFlags[e] = d.errFlags[e]! | ERR_OVERFLOW;
    return false;
  }
  const r = cursor.nefc++;
  const base = r * nv;
  let vel = 0;
  for (let j = 0; j < nv; j++) {
    const v = s.row[j]!;
    d.efcJ[(base + j) * n + e] = v;
    vel += v * s.qvel[j]!;
  }
  s.vel[r] = vel;
  d.efcType[r * n + e] = type;
  d.efcId[r * n + e] = id;
  d.efcPos[r * n + e] = pos;
  d.efcMargin[r * n + e] = margin;
  d.efcFrictionloss[r * n + e] = frictionloss;
  s.dA[r] = diagApprox;
  return true;
}

/**
 * Sets R, D and aref of rows [start, start+count) that share one impedance (one scalar row, or all rows of a
 * pyramidal contact). `mu0` is the contact's sliding friction for pyramidal rows, otherwise unused.
 */
function finishRows(
  m: Model, d: Data, s: Scratch, start: number, count: number, isFriction: boolean, pyramidal: boolean, mu0: number,
): void {
  const e = cursor.e, n = d.nEnvs;
  safeSolref(s.solref, m.opt.timestep);
  clampSolimp(s.solimp);
  const imp = impedance(s.solimp, d.efcPos[start * n + e]!, d.efcMargin[start * n + e]!);
  const K = isFriction ? 0 : refStiffness(s.solref, s.solimp);
  const B = refDamping(s.solref, s.solimp);
  let Rpy = 0;
  if (pyramidal) {
    // the pyramid's common R matches the elliptic cone's friction impedance: R0 * 2 mu^2 with mu scaled by impratio
    const R0 = regularizer(imp, s.dA[start]!);
    const R1 = R0 / Math.max(MINVAL, m.opt.impratio);
    const mu = mu0 * Math.sqrt(R1 / R0);
    Rpy = 2 * mu * mu * R0;
  }
  for (let r = start; r < start + count; r++) {
    const R = pyramidal ? Rpy : regularizer(imp, s.dA[r]!);
    d.efcR[r * n + e] = R;
    d.efcD[r * n + e] = 1 / R;
    const vel = s.vel[r]!;
    const pos = d.efcPos[r * n + e]!, margin = d.efcMargin[r * n + e]!;
    d.efcAref[r * n + e] = -B * vel - K * imp * (pos - margin);
  }
}

function loadParams(s: Scratch, ref: ArrayLike<number>, refAt: number, imp: ArrayLike<number>, impAt: number): void {
  s.solref[0] = ref[refAt]!; s.solref[1] = ref[refAt + 1]!;
  for (let k = 0; k < 5; k++) s.solimp[k] = imp[impAt + k]!;
}

function isZero(v: Float64Array, len: number): boolean {
  for (let i = 0; i < len; i++) if (v[i] !== 0) return false;
  return true;
}

function equalityRows(m: Model, d: Data, s: Scratch): void {
  const e = cursor.e, n = d.nEnvs, nv = m.nv;
  for (let i = 0; i < m.neq && !cursor.full; i++) {
    if (!m.eqActive0[i]) continue;
    if (m.eqType[i] !== EqType.Joint) {
      if (!warned.has(m)) {
        warned.add(m);
        console.warn('sim-core make_constraint: only joint equality constraints are implemented; others are ignored');
      }
      continue;
    }
    const j1 = m.eqObj1id[i]!, j2 = m.eqObj2id[i]!;
    const c = 11 * i;
    const dof1 = m.jntDofadr[j1]!;
    const q1 = d.qpos[m.jntQposadr[j1]! * n + e]! - m.qpos0[m.jntQposadr[j1]!]!;
    s.row.fill(0);
    s.row[dof1] = 1;
    let pos: number;
    let dA = m.dofInvweight0[dof1]!;
    if (j2 >= 0) {
      // q1 - ref1 = polynomial(q2 - ref2)
      const dof2 = m.jntDofadr[j2]!;
      const x = d.qpos[m.jntQposadr[j2]! * n + e]! - m.qpos0[m.jntQposadr[j2]!]!;
      const a0 = m.eqData[c]!, a1 = m.eqData[c + 1]!, a2 = m.eqData[c + 2]!, a3 = m.eqData[c + 3]!, a4 = m.eqData[c + 4]!;
      pos = q1 - a0 - (a1 * x + a2 * x * x + a3 * x * x * x + a4 * x * x * x * x);
      const deriv = a1 + 2 * a2 * x + 3 * a3 * x * x + 4 * a4 * x * x * x;
      s.row[dof2] = s.row[dof2]! - deriv;
      dA += m.dofInvweight0[dof2]!;
    } else {
      pos = q1 - m.eqData[c]!;
    }
    if (isZero(s.row, nv)) continue;
    const r = cursor.nefc;
    if (!addRow(m, d, s, ConstraintType.Equality, i, pos, 0, 0, dA)) return;
    loadParams(s, m.eqSolref, 2 * i, m.eqSolimp, 5 * i);
    finishRows(m, d, s, r, 1, false, false, 0);
  }
}

function frictionRows(m: Model, d: Data, s: Scratch): void {
  for (let i = 0; i < m.nv && !cursor.full; i++) {
    const floss = m.dofFrictionloss[i]!;
    if (!(floss > 0)) continue;
    s.row.fill(0);
    s.row[i] = 1;
    const r = cursor.nefc;
    if (!addRow(m, d, s, ConstraintType.FrictionDof, i, 0, 0, floss, m.dofInvweight0[i]!)) return;
    loadParams(s, m.dofSolref, 2 * i, m.dofSolimp, 5 * i);
    finishRows(m, d, s, r, 1, true, false, 0);
  }
}

function limitRows(m: Model, d: Data, s: Scratch): void {
  if (!m.opt.enableJointLimit) return;
  const e = cursor.e, n = d.nEnvs;
  for (let j = 0; j < m.njnt && !cursor.full; j++) {
    if (!m.jntLimited[j]) continue;
    const type = m.jntType[j]!;
    if (type !== JointType.Hinge && type !== JointType.Slide) continue;
    const margin = m.jntMargin[j]!;
    const value = d.qpos[m.jntQposadr[j]! * n + e]!;
    const dof = m.jntDofadr[j]!;
    for (let side = -1; side <= 1; side += 2) {
      const dist = side * (m.jntRange[2 * j + (side + 1) / 2]! - value);
      if (!(dist < margin)) continue;
      s.row.fill(0);
      s.row[dof] = -side;
      const r = cursor.nefc;
      if (!addRow(m, d, s, ConstraintType.LimitJoint, j, dist, margin, 0, m.dofInvweight0[dof]!)) return;
      loadParams(s, m.jntSolref, 2 * j, m.jntSolimp, 5 * j);
      finishRows(m, d, s, r, 1, false, false, 0);
    }
  }
}

function contactRows(m: Model, d: Data, s: Scratch): void {
  const e = cursor.e, n = d.nEnvs, nv = m.nv;
  const ncon = d.ncon[e]!;
  const { jp, jr, jac } = s;
  let cdofReady = false;
  for (let c = 0; c < ncon && !cursor.full; c++) {
    const dist = d.contactDist[c * n + e]!, includemargin = d.contactIncludemargin[c * n + e]!;
    if (dist >= includemargin) continue; // in the gap: a contact, but no constraint
    const g1 = d.contactGeom[2 * c * n + e]!, g2 = d.contactGeom[(2 * c + 1) * n + e]!;
    const b1 = m.geomBodyid[g1]!, b2 = m.geomBodyid[g2]!;
    if (!bodyMoves(m, b1) && !bodyMoves(m, b2)) continue;
    if (!cdofReady) { gatherCdof(m, d, e, s.cdof); cdofReady = true; }
    const dim = mixCondim(m, g1, g2);
    const px = d.contactPos[3 * c * n + e]!, py = d.contactPos[(3 * c + 1) * n + e]!, pz = d.contactPos[(3 * c + 2) * n + e]!;
    jp.fill(0);
    jr.fill(0);
    const rot = dim > 3 ? jr : null;
    addPointJacobian(m, d, e, s.cdof, b2, px, py, pz, 1, jp, rot);
    addPointJacobian(m, d, e, s.cdof, b1, px, py, pz, -1, jp, rot);

    // rotate into the contact frame: normal, tangent 1, tangent 2, then torsion/rolling about the same axes
    const f = 9 * c;
    const nrow = dim > 1 ? 3 : 1;
    for (let r = 0; r < nrow + (dim > 3 ? dim - 3 : 0); r++) {
      const src = r < 3 ? jp : jr;
      const fr = r < 3 ? r : r - 3;
      const f0 = d.contactFrame[(f + 3 * fr) * n + e]!, f1 = d.contactFrame[(f + 3 * fr + 1) * n + e]!;
      const f2 = d.contactFrame[(f + 3 * fr + 2) * n + e]!;
      for (let j = 0; j < nv; j++) jac[r * nv + j] = f0 * src[j]! + f1 * src[nv + j]! + f2 * src[2 * nv + j]!;
    }

    const tran = m.bodyInvweight0[2 * b1]! + m.bodyInvweight0[2 * b2]!;
    const rotw = m.bodyInvweight0[2 * b1 + 1]! + m.bodyInvweight0[2 * b2 + 1]!;
    const start = cursor.nefc;
    for (let k = 0; k < 2; k++) s.solref[k] = d.contactSolref[(2 * c + k) * n + e]!;
    for (let k = 0; k < 5; k++) s.solimp[k] = d.contactSolimp[(5 * c + k) * n + e]!;

    if (dim === 1) {
      for (let j = 0; j < nv; j++) s.row[j] = jac[j]!;
      if (!addRow(m, d, s, ConstraintType.ContactFrictionless, c, dist, includemargin, 0, tran)) return;
      finishRows(m, d, s, start, 1, false, false, 0);
      continue;
    }
    if (m.opt.cone !== ConeType.Pyramidal) {
      throw new Error('sim-core make_constraint: only the pyramidal friction cone is implemented');
    }
    for (let k = 1; k < dim; k++) {
      const mu = d.contactFriction[(5 * c + k - 1) * n + e]!;
      const dA = tran + mu * mu * (k - 1 < 2 ? tran : rotw);
      for (let sgn = 1; sgn >= -1; sgn -= 2) {
        for (let j = 0; j < nv; j++) s.row[j] = jac[j]! + sgn * mu * jac[k * nv + j]!;
        if (!addRow(m, d, s, ConstraintType.ContactPyramidal, c, dist, includemargin, 0, dA)) return;
      }
    }
    finishRows(m, d, s, start, 2 * (dim - 1), false, true, d.contactFriction[5 * c * n + e]!);
  }
}

export function makeConstraint(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const s = scratchFor(m, d);
  for (let e = e0; e < e1; e++) {
    cursor.e = e;
    cursor.nefc = 0;
    cursor.full = false;
    for (let j = 0; j < m.nv; j++) s.qvel[j] = d.qvel[j * n + e]!;
    equalityRows(m, d, s);
    frictionRows(m, d, s);
    limitRows(m, d, s);
    contactRows(m, d, s);
    d.nefc[e] = cursor.nefc;
  }
}
