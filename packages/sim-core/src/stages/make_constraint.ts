/**
 * Stage `make_constraint` (MuJoCo's mj_makeConstraint + mj_makeImpedance + mj_referenceConstraint): builds
 * each env's constraint rows in MuJoCo's order: joint equalities, dof friction loss, joint limits, contacts
 * (frictionless: 1 row; pyramidal: 2*(condim-1) rows, one pair of opposing edges per friction direction).
 * Per row it writes efcJ (dense, maxEfc x nv per env), efcPos, efcMargin, efcFrictionloss, efcType, efcId, and
 * the soft-constraint terms efcR, efcD and efcAref (see solver/impedance.ts) with diagApprox from the
 * model's dof/body invweight0. Rows beyond d.maxEfc are dropped and set errFlags bit 2.
 */
import { mixCondim } from '../collision/params.js';
import type { Data, Real } from '../data/data.js';
import { ConeType, EqType, JointType, type Model } from '../model/model.js';
import { clampSolimp, impedance, refDamping, refStiffness, regularizer, safeSolref } from '../solver/impedance.js';
import { addPointJacobian, bodyMoves, gatherCdof } from '../solver/jacobian.js';
import { ConstraintType, MINVAL } from '../solver/types.js';

const ERR_OVERFLOW = 1 << 2;
const warned = new WeakSet<Model>();

function isZero(v: Float64Array, len: number): boolean {
  for (let i = 0; i < len; i++) if (v[i] !== 0) return false;
  return true;
}

/**
 * Builds one env's rows at a time. Holds work arrays and, for the duration of a stage call, the Data
 * arrays it reads and writes (so inner loops index local typed arrays, not Data's properties).
 */
class RowBuilder {
  readonly cdof: Float64Array;   // 6 nv
  readonly jp: Float64Array;     // 3 x nv, translational Jacobian difference
  readonly jr: Float64Array;     // 3 x nv, rotational
  readonly jac: Float64Array;    // 6 x nv, the same rotated into the contact frame
  readonly row: Float64Array;    // nv
  readonly qvel: Float64Array;   // nv
  readonly dA: Float64Array;     // maxEfc: diagApprox per row
  readonly vel: Float64Array;    // maxEfc: J qvel per row
  readonly solref = new Float64Array(2);
  readonly solimp = new Float64Array(5);

  // the env being built
  e = 0;
  nefc = 0;
  full = false;

  // Data, bound per stage call
  n = 1; maxEfc = 0;
  efcJ!: Real; efcPos!: Real; efcMargin!: Real; efcFrictionloss!: Real; efcR!: Real; efcD!: Real; efcAref!: Real;
  efcType!: Int32Array; efcId!: Int32Array; errFlags!: Uint32Array;
  qpos!: Real; qvelSoa!: Real; cdofSoa!: Real; subtreeCom!: Real;
  ncon!: Int32Array; contactDist!: Real; contactIncludemargin!: Real; contactGeom!: Int32Array; contactPos!: Real;
  contactFrame!: Real; contactSolref!: Real; contactSolimp!: Real; contactFriction!: Real;

  constructor(readonly m: Model, maxEfc: number) {
    const nv = Math.max(1, m.nv);
    this.cdof = new Float64Array(6 * nv);
    this.jp = new Float64Array(3 * nv);
    this.jr = new Float64Array(3 * nv);
    this.jac = new Float64Array(6 * nv);
    this.row = new Float64Array(nv);
    this.qvel = new Float64Array(nv);
    this.dA = new Float64Array(Math.max(1, maxEfc));
    this.vel = new Float64Array(Math.max(1, maxEfc));
  }

  bind(d: Data): void {
    this.n = d.nEnvs; this.maxEfc = d.maxEfc;
    this.efcJ = d.efcJ; this.efcPos = d.efcPos; this.efcMargin = d.efcMargin; this.efcFrictionloss = d.efcFrictionloss;
    this.efcR = d.efcR; this.efcD = d.efcD; this.efcAref = d.efcAref; this.efcType = d.efcType; this.efcId = d.efcId;
    this.errFlags = d.errFlags; this.qpos = d.qpos; this.qvelSoa = d.qvel; this.cdofSoa = d.cdof; this.subtreeCom = d.subtreeCom;
    this.ncon = d.ncon; this.contactDist = d.contactDist; this.contactIncludemargin = d.contactIncludemargin;
    this.contactGeom = d.contactGeom; this.contactPos = d.contactPos; this.contactFrame = d.contactFrame;
    this.contactSolref = d.contactSolref; this.contactSolimp = d.contactSolimp; this.contactFriction = d.contactFriction;
  }

  /** Starts env e: no rows yet, its qvel gathered. */
  begin(e: number): void {
    this.e = e;
    this.nefc = 0;
    this.full = false;
    const n = this.n, nv = this.m.nv, q = this.qvelSoa;
    for (let j = 0; j < nv; j++) this.qvel[j] = q[j * n + e]!;
  }

  /**
   * True when `count` more rows fit; otherwise marks the env full and flags it, so a constraint is either
   * complete or absent (never a pyramid with missing rows).
   */
  reserve(count: number): boolean {
    if (this.nefc + count <= this.maxEfc) return true;
    this.full = true;
    this.errFlags[this.e] = this.errFlags[this.e]! | ERR_OVERFLOW;
    return false;
  }

  /** Appends `row` as a constraint row (space was reserved). */
  addRow(type: number, id: number, pos: number, margin: number, frictionloss: number, diagApprox: number): void {
    const e = this.e, n = this.n, nv = this.m.nv;
    const r = this.nefc++;
    const base = r * nv, J = this.efcJ, row = this.row, qvel = this.qvel;
    let vel = 0;
    for (let j = 0; j < nv; j++) {
      const v = row[j]!;
      J[(base + j) * n + e] = v;
      vel += v * qvel[j]!;
    }
    this.vel[r] = vel;
    const i = r * n + e;
    this.efcType[i] = type;
    this.efcId[i] = id;
    this.efcPos[i] = pos;
    this.efcMargin[i] = margin;
    this.efcFrictionloss[i] = frictionloss;
    this.dA[r] = diagApprox;
  }

  /**
   * Sets R, D and aref of rows [start, start+count) that share one impedance (one scalar row, or all rows of
   * a pyramidal contact), from this.solref/solimp. `mu0` is the contact's sliding friction (pyramidal only).
   */
  finishRows(start: number, count: number, isFriction: boolean, pyramidal: boolean, mu0: number): void {
    const e = this.e, n = this.n, m = this.m;
    const { solref, solimp, efcPos, efcMargin } = this;
    safeSolref(solref, m.opt.timestep);
    clampSolimp(solimp);
    const imp = impedance(solimp, efcPos[start * n + e]!, efcMargin[start * n + e]!);
    const K = isFriction ? 0 : refStiffness(solref, solimp);
    const B = refDamping(solref, solimp);
    let Rpy = 0;
    if (pyramidal) {
      // the pyramid's common R matches the elliptic cone's friction impedance: R0 * 2 mu^2, mu scaled by impratio
      const R0 = regularizer(imp, this.dA[start]!);
      const R1 = R0 / Math.max(MINVAL, m.opt.impratio);
      const mu = mu0 * Math.sqrt(R1 / R0);
      Rpy = 2 * mu * mu * R0;
    }
    for (let r = start; r < start + count; r++) {
      const R = pyramidal ? Rpy : regularizer(imp, this.dA[r]!);
      const i = r * n + e;
      this.efcR[i] = R;
      this.efcD[i] = 1 / R;
      this.efcAref[i] = -B * this.vel[r]! - K * imp * (efcPos[i]! - efcMargin[i]!);
    }
  }

  loadParams(ref: ArrayLike<number>, refAt: number, imp: ArrayLike<number>, impAt: number): void {
    this.solref[0] = ref[refAt]!; this.solref[1] = ref[refAt + 1]!;
    for (let k = 0; k < 5; k++) this.solimp[k] = imp[impAt + k]!;
  }

  equalityRows(): void {
    const m = this.m, e = this.e, n = this.n, nv = m.nv, row = this.row, qpos = this.qpos;
    for (let i = 0; i < m.neq && !this.full; i++) {
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
      const q1 = qpos[m.jntQposadr[j1]! * n + e]! - m.qpos0[m.jntQposadr[j1]!]!;
      row.fill(0);
      row[dof1] = 1;
      let pos: number;
      let dA = m.dofInvweight0[dof1]!;
      if (j2 >= 0) {
        // q1 - ref1 = polynomial(q2 - ref2)
        const dof2 = m.jntDofadr[j2]!;
        const x = qpos[m.jntQposadr[j2]! * n + e]! - m.qpos0[m.jntQposadr[j2]!]!;
        const a0 = m.eqData[c]!, a1 = m.eqData[c + 1]!, a2 = m.eqData[c + 2]!, a3 = m.eqData[c + 3]!, a4 = m.eqData[c + 4]!;
        pos = q1 - a0 - (a1 * x + a2 * x * x + a3 * x * x * x + a4 * x * x * x * x);
        const deriv = a1 + 2 * a2 * x + 3 * a3 * x * x + 4 * a4 * x * x * x;
        row[dof2] = row[dof2]! - deriv;
        dA += m.dofInvweight0[dof2]!;
      } else {
        pos = q1 - m.eqData[c]!;
      }
      if (isZero(row, nv)) continue;
      if (!this.reserve(1)) return;
      const r = this.nefc;
      this.addRow(ConstraintType.Equality, i, pos, 0, 0, dA);
      this.loadParams(m.eqSolref, 2 * i, m.eqSolimp, 5 * i);
      this.finishRows(r, 1, false, false, 0);
    }
  }

  frictionRows(): void {
    const m = this.m, row = this.row;
    for (let i = 0; i < m.nv && !this.full; i++) {
      const floss = m.dofFrictionloss[i]!;
      if (!(floss > 0)) continue;
      row.fill(0);
      row[i] = 1;
      if (!this.reserve(1)) return;
      const r = this.nefc;
      this.addRow(ConstraintType.FrictionDof, i, 0, 0, floss, m.dofInvweight0[i]!);
      this.loadParams(m.dofSolref, 2 * i, m.dofSolimp, 5 * i);
      this.finishRows(r, 1, true, false, 0);
    }
  }

  limitRows(): void {
    const m = this.m;
    if (!m.opt.enableJointLimit) return;
    const e = this.e, n = this.n, row = this.row, qpos = this.qpos;
    for (let j = 0; j < m.njnt && !this.full; j++) {
      if (!m.jntLimited[j]) continue;
      const type = m.jntType[j]!;
      if (type !== JointType.Hinge && type !== JointType.Slide) continue;
      const margin = m.jntMargin[j]!;
      const value = qpos[m.jntQposadr[j]! * n + e]!;
      const dof = m.jntDofadr[j]!;
      for (let side = -1; side <= 1; side += 2) {
        const dist = side * (m.jntRange[2 * j + (side + 1) / 2]! - value);
        if (!(dist < margin)) continue;
        row.fill(0);
        row[dof] = -side;
        if (!this.reserve(1)) return;
        const r = this.nefc;
        this.addRow(ConstraintType.LimitJoint, j, dist, margin, 0, m.dofInvweight0[dof]!);
        this.loadParams(m.jntSolref, 2 * j, m.jntSolimp, 5 * j);
        this.finishRows(r, 1, false, false, 0);
      }
    }
  }

  contactRows(): void {
    const m = this.m, e = this.e, n = this.n, nv = m.nv;
    const { jp, jr, jac, row, contactFrame, contactFriction } = this;
    const ncon = this.ncon[e]!;
    let cdofReady = false;
    for (let c = 0; c < ncon && !this.full; c++) {
      const dist = this.contactDist[c * n + e]!, includemargin = this.contactIncludemargin[c * n + e]!;
      if (dist >= includemargin) continue; // in the gap: a contact, but no constraint
      const g1 = this.contactGeom[2 * c * n + e]!, g2 = this.contactGeom[(2 * c + 1) * n + e]!;
      const b1 = m.geomBodyid[g1]!, b2 = m.geomBodyid[g2]!;
      if (!bodyMoves(m, b1) && !bodyMoves(m, b2)) continue;
      if (!cdofReady) { gatherCdof(m, this.cdofSoa, n, e, this.cdof); cdofReady = true; }
      const dim = mixCondim(m, g1, g2);
      if (dim !== 1 && m.opt.cone !== ConeType.Pyramidal) {
        throw new Error('sim-core make_constraint: only the pyramidal friction cone is implemented');
      }
      if (!this.reserve(dim === 1 ? 1 : 2 * (dim - 1))) return;
      const cp = this.contactPos;
      const px = cp[3 * c * n + e]!, py = cp[(3 * c + 1) * n + e]!, pz = cp[(3 * c + 2) * n + e]!;
      jp.fill(0);
      jr.fill(0);
      const rot = dim > 3 ? jr : null;
      addPointJacobian(m, this.subtreeCom, n, e, this.cdof, b2, px, py, pz, 1, jp, rot);
      addPointJacobian(m, this.subtreeCom, n, e, this.cdof, b1, px, py, pz, -1, jp, rot);

      // rotate into the contact frame: normal, tangent 1, tangent 2, then torsion/rolling about the same axes
      const f = 9 * c;
      const nrow = (dim > 1 ? 3 : 1) + (dim > 3 ? dim - 3 : 0);
      for (let r = 0; r < nrow; r++) {
        const src = r < 3 ? jp : jr;
        const fr = r < 3 ? r : r - 3;
        const f0 = contactFrame[(f + 3 * fr) * n + e]!, f1 = contactFrame[(f + 3 * fr + 1) * n + e]!;
        const f2 = contactFrame[(f + 3 * fr + 2) * n + e]!;
        for (let j = 0; j < nv; j++) jac[r * nv + j] = f0 * src[j]! + f1 * src[nv + j]! + f2 * src[2 * nv + j]!;
      }

      const tran = m.bodyInvweight0[2 * b1]! + m.bodyInvweight0[2 * b2]!;
      const rotw = m.bodyInvweight0[2 * b1 + 1]! + m.bodyInvweight0[2 * b2 + 1]!;
      const start = this.nefc;
      for (let k = 0; k < 2; k++) this.solref[k] = this.contactSolref[(2 * c + k) * n + e]!;
      for (let k = 0; k < 5; k++) this.solimp[k] = this.contactSolimp[(5 * c + k) * n + e]!;

      if (dim === 1) {
        for (let j = 0; j < nv; j++) row[j] = jac[j]!;
        this.addRow(ConstraintType.ContactFrictionless, c, dist, includemargin, 0, tran);
        this.finishRows(start, 1, false, false, 0);
        continue;
      }
      for (let k = 1; k < dim; k++) {
        const mu = contactFriction[(5 * c + k - 1) * n + e]!;
        const dA = tran + mu * mu * (k - 1 < 2 ? tran : rotw);
        for (let sgn = 1; sgn >= -1; sgn -= 2) {
          const smu = sgn * mu;
          for (let j = 0; j < nv; j++) row[j] = jac[j]! + smu * jac[k * nv + j]!;
          this.addRow(ConstraintType.ContactPyramidal, c, dist, includemargin, 0, dA);
        }
      }
      this.finishRows(start, 2 * (dim - 1), false, true, contactFriction[5 * c * n + e]!);
    }
  }
}

const builders = new WeakMap<Data, RowBuilder>();

export function makeConstraint(m: Model, d: Data, e0: number, e1: number): void {
  let b = builders.get(d);
  if (!b || b.m !== m) {
    b = new RowBuilder(m, d.maxEfc);
    builders.set(d, b);
  }
  b.bind(d);
  const nefc = d.nefc;
  for (let e = e0; e < e1; e++) {
    b.begin(e);
    b.equalityRows();
    b.frictionRows();
    b.limitRows();
    b.contactRows();
    nefc[e] = b.nefc;
  }
}
