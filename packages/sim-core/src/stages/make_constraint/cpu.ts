/**
 * Stage `make_constraint` (MuJoCo's mj_makeConstraint + mj_makeImpedance + mj_referenceConstraint): builds
 * each env's constraint rows in MuJoCo's order: joint equalities, dof friction loss, joint limits, contacts
 * (frictionless: 1 row; pyramidal: 2*(condim-1) rows, one pair of opposing edges per friction direction;
 * elliptic: condim rows, the normal then the frame's frictional directions, as one cone).
 * Per row it writes efcJ (dense, maxEfc x nv per env), efcPos, efcMargin, efcFrictionloss, efcType, efcId, and
 * the soft-constraint terms efcR, efcD and efcAref (see solver/impedance.ts) with diagApprox from the
 * model's dof/body invweight0. Rows beyond d.maxEfc are dropped and set errFlags bit 2.
 */
import type { Data, Real } from '../../data/data.js';
import { ConeType, EqType, JointType, type Model } from '../../model/model.js';
import { clampSolimp, impedance, refDamping, refStiffness, regularizer, safeSolref } from '../../solver/impedance.js';
import { isSpatial, spatialTendonsOf } from '../../physics/tendon.js';
import { addPointJacobian, bodyMoves, bodyPointToWorld } from '../../solver/jacobian.js';
import { ConstraintType, MINVAL } from '../../solver/types.js';

const ERR_OVERFLOW = 1 << 2;

function isZero(v: Float64Array, len: number): boolean {
  for (let i = 0; i < len; i++) if (v[i] !== 0) return false;
  return true;
}

/** Envs whose rows are built before being written to Data together (a cache line of f64). */
const BLOCK = 8;

/** One env's rows, built contiguously, then written to the SoA Data with the rest of its block. */
class Slot {
  nefc = 0;
  readonly J: Float64Array;      // maxEfc x nv
  readonly type: Int32Array;
  readonly id: Int32Array;
  readonly pos: Float64Array;
  readonly margin: Float64Array;
  readonly floss: Float64Array;
  readonly R: Float64Array;
  readonly D: Float64Array;
  readonly aref: Float64Array;
  readonly cdof: Float64Array;   // 6 nv, gathered when the block has contacts

  constructor(nv: number, maxEfc: number) {
    const r = Math.max(1, maxEfc);
    this.J = new Float64Array(r * nv);
    this.type = new Int32Array(r);
    this.id = new Int32Array(r);
    this.pos = new Float64Array(r);
    this.margin = new Float64Array(r);
    this.floss = new Float64Array(r);
    this.R = new Float64Array(r);
    this.D = new Float64Array(r);
    this.aref = new Float64Array(r);
    this.cdof = new Float64Array(6 * nv);
  }
}

/**
 * Builds the rows of a block of envs, one env at a time into its Slot, then writes the block to Data with
 * env-innermost loops (each strided SoA element is written with its block neighbours: one cache line, one
 * page). Holds, for the duration of a stage call, the Data arrays it reads and writes.
 */
class RowBuilder {
  readonly slots: Slot[];
  cur: Slot;
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
  qpos!: Real; qvelSoa!: Real; cdofSoa!: Real; subtreeCom!: Real; xpos!: Real; xmat!: Real; xquat!: Real;
  ncon!: Int32Array; contactDist!: Real; contactIncludemargin!: Real; contactGeom!: Int32Array; contactDim!: Int32Array; contactPos!: Real;
  contactFrame!: Real; contactSolref!: Real; contactSolimp!: Real; contactFriction!: Real;

  /** The model has connect or weld equalities, whose rows need point Jacobians in every env. */
  readonly hasBodyEqualities: boolean;
  /** A connect's two anchors in the world (scratch). */
  private readonly anchor1 = new Float64Array(3);
  private readonly anchor2 = new Float64Array(3);
  /** A weld's six position errors (scratch). */
  private readonly weldPos = new Float64Array(6);

  constructor(readonly m: Model, maxEfc: number) {
    const nv = Math.max(1, m.nv);
    this.hasBodyEqualities = Array.from(m.eqType).some((t) => t === EqType.Connect || t === EqType.Weld);
    this.slots = Array.from({ length: BLOCK }, () => new Slot(nv, maxEfc));
    this.cur = this.slots[0]!;
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
    this.xpos = d.xpos; this.xmat = d.xmat; this.xquat = d.xquat;
    this.ncon = d.ncon; this.contactDist = d.contactDist; this.contactIncludemargin = d.contactIncludemargin;
    this.contactGeom = d.contactGeom; this.contactDim = d.contactDim; this.contactPos = d.contactPos; this.contactFrame = d.contactFrame;
    this.contactSolref = d.contactSolref; this.contactSolimp = d.contactSolimp; this.contactFriction = d.contactFriction;
  }

  /** Gathers the block's cdof (env-innermost) when any of its envs has contacts, or connect equalities need it. */
  gatherBlock(eb: number, be: number): void {
    let any = this.hasBodyEqualities;
    for (let e = eb; e < be; e++) if (this.ncon[e]! > 0) any = true;
    if (!any) return;
    const n = this.n, len = 6 * this.m.nv, src = this.cdofSoa;
    for (let k = 0; k < len; k++) {
      const base = k * n;
      for (let e = eb; e < be; e++) this.slots[e - eb]!.cdof[k] = src[base + e]!;
    }
  }

  /** Starts env e in slot b: no rows yet, its qvel gathered. */
  begin(e: number, b: number): void {
    this.e = e;
    this.nefc = 0;
    this.full = false;
    this.cur = this.slots[b]!;
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
    const nv = this.m.nv;
    const r = this.nefc++;
    const slot = this.cur, base = r * nv, J = slot.J, row = this.row, qvel = this.qvel;
    let vel = 0;
    for (let j = 0; j < nv; j++) {
      const v = row[j]!;
      J[base + j] = v;
      vel += v * qvel[j]!;
    }
    this.vel[r] = vel;
    slot.type[r] = type;
    slot.id[r] = id;
    slot.pos[r] = pos;
    slot.margin[r] = margin;
    slot.floss[r] = frictionloss;
    this.dA[r] = diagApprox;
  }

  /**
   * Sets R, D and aref of rows [start, start+count) that share one impedance (one scalar row, or all rows of
   * a pyramidal contact), from this.solref/solimp. `mu0` is the contact's sliding friction (pyramidal only).
   */
  finishRows(start: number, count: number, isFriction: boolean, pyramidal: boolean, mu0: number, impedancePos?: number): void {
    const m = this.m, slot = this.cur;
    const { solref, solimp } = this;
    safeSolref(solref, m.opt.timestep);
    clampSolimp(solimp);
    // a connect's impedance is that of its whole position error (MuJoCo's getposdim: the norm of its rows)
    const imp = impedance(solimp, impedancePos ?? slot.pos[start]!, slot.margin[start]!);
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
      slot.R[r] = R;
      slot.D[r] = 1 / R;
      slot.aref[r] = -B * this.vel[r]! - K * imp * (slot.pos[r]! - slot.margin[r]!);
    }
  }

  /**
   * R, D and aref of an elliptic contact's rows [start, start+dim) (mj_makeImpedance): one impedance from the
   * normal's distance; the normal's R from its diagApprox, the first frictional R that over impratio, and the
   * others such that R_j friction_j^2 is the same for every frictional row. Frictional rows have no
   * stiffness. `fri` is the contact's first friction coefficient in contactFriction (SoA, stride n).
   */
  finishElliptic(start: number, dim: number, fri: number): void {
    const m = this.m, slot = this.cur, n = this.n, friction = this.contactFriction;
    const { solref, solimp } = this;
    safeSolref(solref, m.opt.timestep);
    clampSolimp(solimp);
    const imp = impedance(solimp, slot.pos[start]!, slot.margin[start]!);
    const K = refStiffness(solref, solimp);
    const B = refDamping(solref, solimp);
    const R0 = regularizer(imp, this.dA[start]!);
    const R1 = R0 / Math.max(MINVAL, m.opt.impratio);
    const f0 = friction[fri]!;
    for (let j = 0; j < dim; j++) {
      const r = start + j;
      let R = j === 0 ? R0 : R1;
      if (j > 1) {
        const fj = friction[fri + (j - 1) * n]!;
        R = (R1 * f0 * f0) / (fj * fj);
      }
      slot.R[r] = R;
      slot.D[r] = 1 / R;
      slot.aref[r] = -B * this.vel[r]! - (j === 0 ? K : 0) * imp * (slot.pos[r]! - slot.margin[r]!);
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
      if (m.eqType[i] === EqType.Connect) {
        this.connectRows(i);
        continue;
      }
      if (m.eqType[i] === EqType.Weld) {
        this.weldRows(i);
        continue;
      }
      // A model built another way must not lose an equality type silently.
      if (m.eqType[i] !== EqType.Joint) throw new Error(`sim-core: equality ${i} has type ${m.eqType[i]}; only joint, connect and weld equalities are supported`);
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

  /**
   * A connect equality (MuJoCo's mj_instantiateEquality): the anchor on body 1 (eqData 0-2, its frame) and on
   * body 2 (eqData 3-5) coincide. Three rows, x y z of their difference, sharing one impedance.
   */
  private connectRows(i: number): void {
    const m = this.m, e = this.e, n = this.n, nv = m.nv, row = this.row, jp = this.jp;
    const b1 = m.eqObj1id[i]!, b2 = m.eqObj2id[i]!, c = 11 * i;
    const p1 = this.anchor1, p2 = this.anchor2;
    bodyPointToWorld(p1, this.xpos, this.xmat, n, e, b1, m.eqData, c);
    bodyPointToWorld(p2, this.xpos, this.xmat, n, e, b2, m.eqData, c + 3);
    jp.fill(0);
    addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b1, p1[0]!, p1[1]!, p1[2]!, 1, jp, null);
    addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b2, p2[0]!, p2[1]!, p2[2]!, -1, jp, null);
    const dA = m.bodyInvweight0[2 * b1]! + m.bodyInvweight0[2 * b2]!;
    if (!this.reserve(3)) return;
    const start = this.nefc;
    for (let k = 0; k < 3; k++) {
      for (let j = 0; j < nv; j++) row[j] = jp[k * nv + j]!;
      this.addRow(ConstraintType.Equality, i, p1[k]! - p2[k]!, 0, 0, dA);
    }
    const dx = p1[0]! - p2[0]!, dy = p1[1]! - p2[1]!, dz = p1[2]! - p2[2]!;
    this.loadParams(m.eqSolref, 2 * i, m.eqSolimp, 5 * i);
    this.finishRows(start, 3, false, false, 0, Math.sqrt(dx * dx + dy * dy + dz * dz));
  }

  /**
   * A weld equality (MuJoCo's mj_instantiateEquality): body 1's anchor (eqData 3-5, its frame) on body 2's
   * (eqData 0-2), and body 1's orientation times the relative pose (eqData 6-9) on body 2's. Six rows: the
   * position difference, then the axis part of neg(q2) * q1 * relpose scaled by torquescale (eqData 10), with
   * the rotational Jacobian corrected as MuJoCo does; all six share the impedance of their norm.
   */
  private weldRows(i: number): void {
    const m = this.m, e = this.e, n = this.n, nv = m.nv, row = this.row, jp = this.jp, jr = this.jr, q = this.xquat;
    const b1 = m.eqObj1id[i]!, b2 = m.eqObj2id[i]!, c = 11 * i, data = m.eqData;
    const p1 = this.anchor1, p2 = this.anchor2;
    bodyPointToWorld(p1, this.xpos, this.xmat, n, e, b1, data, c + 3);
    bodyPointToWorld(p2, this.xpos, this.xmat, n, e, b2, data, c);
    jp.fill(0);
    jr.fill(0);
    addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b1, p1[0]!, p1[1]!, p1[2]!, 1, jp, jr);
    addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b2, p2[0]!, p2[1]!, p2[2]!, -1, jp, jr);
    const torquescale = data[c + 10]!;
    // qa = q1 * relpose; qb = neg(q2)
    const a0 = q[4 * b1 * n + e]!, a1 = q[(4 * b1 + 1) * n + e]!, a2 = q[(4 * b1 + 2) * n + e]!, a3 = q[(4 * b1 + 3) * n + e]!;
    const r0 = data[c + 6]!, r1 = data[c + 7]!, r2 = data[c + 8]!, r3 = data[c + 9]!;
    const qa0 = a0 * r0 - a1 * r1 - a2 * r2 - a3 * r3;
    const qa1 = a0 * r1 + a1 * r0 + a2 * r3 - a3 * r2;
    const qa2 = a0 * r2 - a1 * r3 + a2 * r0 + a3 * r1;
    const qa3 = a0 * r3 + a1 * r2 - a2 * r1 + a3 * r0;
    const qb0 = q[4 * b2 * n + e]!, qb1 = -q[(4 * b2 + 1) * n + e]!, qb2 = -q[(4 * b2 + 2) * n + e]!, qb3 = -q[(4 * b2 + 3) * n + e]!;
    // the orientation error: the axis part of qb * qa
    const ex = qb0 * qa1 + qb1 * qa0 + qb2 * qa3 - qb3 * qa2;
    const ey = qb0 * qa2 - qb1 * qa3 + qb2 * qa0 + qb3 * qa1;
    const ez = qb0 * qa3 + qb1 * qa2 - qb2 * qa1 + qb3 * qa0;
    // rotational Jacobian: 0.5 * axis part of qb * (0, jr column) * qa, times torquescale
    for (let j = 0; j < nv; j++) {
      const x = jr[j]!, y = jr[nv + j]!, z = jr[2 * nv + j]!;
      const t0 = -qb1 * x - qb2 * y - qb3 * z;
      const t1 = qb0 * x + qb2 * z - qb3 * y;
      const t2 = qb0 * y + qb3 * x - qb1 * z;
      const t3 = qb0 * z + qb1 * y - qb2 * x;
      jr[j] = 0.5 * (t0 * qa1 + t1 * qa0 + t2 * qa3 - t3 * qa2) * torquescale;
      jr[nv + j] = 0.5 * (t0 * qa2 - t1 * qa3 + t2 * qa0 + t3 * qa1) * torquescale;
      jr[2 * nv + j] = 0.5 * (t0 * qa3 + t1 * qa2 - t2 * qa1 + t3 * qa0) * torquescale;
    }
    if (!this.reserve(6)) return;
    const start = this.nefc;
    const pos = this.weldPos;
    pos[0] = p1[0]! - p2[0]!; pos[1] = p1[1]! - p2[1]!; pos[2] = p1[2]! - p2[2]!;
    pos[3] = ex * torquescale; pos[4] = ey * torquescale; pos[5] = ez * torquescale;
    for (let k = 0; k < 6; k++) {
      const src = k < 3 ? jp : jr;
      const at = (k % 3) * nv;
      for (let j = 0; j < nv; j++) row[j] = src[at + j]!;
      // translation rows weigh the bodies' translational inertia, rotation rows their rotational
      const dA = m.bodyInvweight0[2 * b1 + (k > 2 ? 1 : 0)]! + m.bodyInvweight0[2 * b2 + (k > 2 ? 1 : 0)]!;
      this.addRow(ConstraintType.Equality, i, pos[k]!, 0, 0, dA);
    }
    let norm = 0;
    for (const v of pos) norm += v * v;
    this.loadParams(m.eqSolref, 2 * i, m.eqSolimp, 5 * i);
    this.finishRows(start, 6, false, false, 0, Math.sqrt(norm));
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
    // then the tendons' (MuJoCo's order: dofs, then tendons)
    for (let t = 0; t < m.ntendon && !this.full; t++) {
      const floss = m.tendonFrictionloss[t]!;
      if (!(floss > 0)) continue;
      this.tendonRow(t, 1);
      if (!this.reserve(1)) return;
      const r = this.nefc;
      this.addRow(ConstraintType.FrictionTendon, t, 0, 0, floss, m.tendonInvweight0[t]!);
      this.loadParams(m.tendonSolrefFri, 2 * t, m.tendonSolimpFri, 5 * t);
      this.finishRows(r, 1, true, false, 0);
    }
  }

  /** The Data of this stage call (spatial tendons read its site positions and cdof). */
  data!: Data;

  /** Fills this.row with tendon t's Jacobian (fixed: its joints' coefficients) times `scale`; returns its length. */
  private tendonRow(t: number, scale: number): number {
    const m = this.m, row = this.row, qpos = this.qpos, n = this.n, e = this.e;
    if (isSpatial(m, t)) {
      const sp = spatialTendonsOf(m);
      sp.compute(this.data, t, e);
      for (let i = 0; i < m.nv; i++) row[i] = scale * sp.J[i]!;
      return sp.length;
    }
    row.fill(0);
    let length = 0;
    for (let w = m.tendonAdr[t]!; w < m.tendonAdr[t]! + m.tendonNum[t]!; w++) {
      const j = m.wrapObjid[w]!;
      row[m.jntDofadr[j]!] = scale * m.wrapPrm[w]!;
      length += m.wrapPrm[w]! * qpos[m.jntQposadr[j]! * n + e]!;
    }
    return length;
  }

  limitRows(): void {
    const m = this.m;
    if (!m.opt.enableJointLimit) return;
    const e = this.e, n = this.n, row = this.row, qpos = this.qpos;
    for (let j = 0; j < m.njnt && !this.full; j++) {
      if (!m.jntLimited[j]) continue;
      const type = m.jntType[j]!;
      if (type === JointType.Ball) {
        this.ballLimitRow(j);
        continue;
      }
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
    // then the tendons' limits, as the joints': a row of minus side times the tendon's Jacobian
    for (let t = 0; t < m.ntendon && !this.full; t++) {
      if (!m.tendonLimited[t]) continue;
      const margin = m.tendonMargin[t]!;
      const length = this.tendonRow(t, 1);
      for (let side = -1; side <= 1; side += 2) {
        const dist = side * (m.tendonRange[2 * t + (side + 1) / 2]! - length);
        if (!(dist < margin)) continue;
        this.tendonRow(t, -side);
        if (!this.reserve(1)) return;
        const r = this.nefc;
        this.addRow(ConstraintType.LimitTendon, t, dist, margin, 0, m.tendonInvweight0[t]!);
        this.loadParams(m.tendonSolrefLim, 2 * t, m.tendonSolimpLim, 5 * t);
        this.finishRows(r, 1, false, false, 0);
      }
    }
  }

  /**
   * A ball joint's limit (MuJoCo's mj_instantiateLimit): the rotation angle of its normalized quaternion
   * against max(range), one row whose Jacobian is minus the rotation axis on the joint's three dofs.
   */
  private ballLimitRow(j: number): void {
    const m = this.m, e = this.e, n = this.n, row = this.row, qpos = this.qpos;
    const qa = m.jntQposadr[j]!, dof = m.jntDofadr[j]!, margin = m.jntMargin[j]!;
    let qw = qpos[qa * n + e]!, qx = qpos[(qa + 1) * n + e]!, qy = qpos[(qa + 2) * n + e]!, qz = qpos[(qa + 3) * n + e]!;
    // mju_normalize4
    const nq = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
    if (nq < MINVAL) { qw = 1; qx = 0; qy = 0; qz = 0; }
    else if (Math.abs(nq - 1) > MINVAL) { const s = 1 / nq; qw *= s; qx *= s; qy *= s; qz *= s; }
    // mju_quat2Vel(quat, dt = 1), then mju_normalize3 of the rotation vector
    let ax = qx, ay = qy, az = qz;
    const sinHalf = Math.sqrt(ax * ax + ay * ay + az * az);
    if (sinHalf < MINVAL) { ax = 1; ay = 0; az = 0; } else { const s = 1 / sinHalf; ax *= s; ay *= s; az *= s; }
    let speed = 2 * Math.atan2(sinHalf, qw);
    if (speed > Math.PI) speed -= 2 * Math.PI;
    let vx = ax * speed, vy = ay * speed, vz = az * speed;
    const value = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (value < MINVAL) { vx = 1; vy = 0; vz = 0; } else { const s = 1 / value; vx *= s; vy *= s; vz *= s; }
    const dist = Math.max(m.jntRange[2 * j]!, m.jntRange[2 * j + 1]!) - value;
    if (!(dist < margin)) return;
    row.fill(0);
    row[dof] = -vx; row[dof + 1] = -vy; row[dof + 2] = -vz;
    if (!this.reserve(1)) return;
    const r = this.nefc;
    this.addRow(ConstraintType.LimitJoint, j, dist, margin, 0, m.dofInvweight0[dof]!);
    this.loadParams(m.jntSolref, 2 * j, m.jntSolimp, 5 * j);
    this.finishRows(r, 1, false, false, 0);
  }

  contactRows(): void {
    const m = this.m, e = this.e, n = this.n, nv = m.nv;
    const { jp, jr, jac, row, contactFrame, contactFriction } = this;
    const ncon = this.ncon[e]!;
    for (let c = 0; c < ncon && !this.full; c++) {
      const dist = this.contactDist[c * n + e]!, includemargin = this.contactIncludemargin[c * n + e]!;
      if (dist >= includemargin) continue; // in the gap: a contact, but no constraint
      const g1 = this.contactGeom[2 * c * n + e]!, g2 = this.contactGeom[(2 * c + 1) * n + e]!;
      const b1 = m.geomBodyid[g1]!, b2 = m.geomBodyid[g2]!;
      if (!bodyMoves(m, b1) && !bodyMoves(m, b2)) continue;
      const dim = this.contactDim[c * n + e]!;
      const elliptic = dim !== 1 && m.opt.cone === ConeType.Elliptic;
      if (!this.reserve(dim === 1 || elliptic ? dim : 2 * (dim - 1))) return;
      const cp = this.contactPos;
      const px = cp[3 * c * n + e]!, py = cp[(3 * c + 1) * n + e]!, pz = cp[(3 * c + 2) * n + e]!;
      jp.fill(0);
      jr.fill(0);
      const rot = dim > 3 ? jr : null;
      addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b2, px, py, pz, 1, jp, rot);
      addPointJacobian(m, this.subtreeCom, n, e, this.cur.cdof, b1, px, py, pz, -1, jp, rot);

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
      if (elliptic) {
        // the normal keeps the contact's distance and margin, the frictional rows have none
        for (let k = 0; k < dim; k++) {
          for (let j = 0; j < nv; j++) row[j] = jac[k * nv + j]!;
          this.addRow(ConstraintType.ContactElliptic, c, k === 0 ? dist : 0, k === 0 ? includemargin : 0, 0, k < 3 ? tran : rotw);
        }
        this.finishElliptic(start, dim, 5 * c * n + e);
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

  /** Writes the rows of envs [eb, be) (slots 0..) to Data, env-innermost. */
  flush(eb: number, be: number, nefcOut: Int32Array): void {
    const n = this.n, nv = this.m.nv, slots = this.slots;
    let maxRows = 0;
    for (let e = eb; e < be; e++) {
      const rows = slots[e - eb]!.nefc;
      nefcOut[e] = rows;
      if (rows > maxRows) maxRows = rows;
    }
    const J = this.efcJ;
    for (let r = 0; r < maxRows; r++) {
      for (let j = 0; j < nv; j++) {
        const base = (r * nv + j) * n, k = r * nv + j;
        for (let e = eb; e < be; e++) {
          const slot = slots[e - eb]!;
          if (r < slot.nefc) J[base + e] = slot.J[k]!;
        }
      }
    }
    const { efcType, efcId, efcPos, efcMargin, efcFrictionloss, efcR, efcD, efcAref } = this;
    for (let r = 0; r < maxRows; r++) {
      const base = r * n;
      for (let e = eb; e < be; e++) {
        const slot = slots[e - eb]!;
        if (r >= slot.nefc) continue;
        const i = base + e;
        efcType[i] = slot.type[r]!;
        efcId[i] = slot.id[r]!;
        efcPos[i] = slot.pos[r]!;
        efcMargin[i] = slot.margin[r]!;
        efcFrictionloss[i] = slot.floss[r]!;
        efcR[i] = slot.R[r]!;
        efcD[i] = slot.D[r]!;
        efcAref[i] = slot.aref[r]!;
      }
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
  b.data = d;
  const nefc = d.nefc;
  for (let eb = e0; eb < e1; eb += BLOCK) {
    const be = Math.min(e1, eb + BLOCK);
    b.gatherBlock(eb, be);
    for (let e = eb; e < be; e++) {
      b.begin(e, e - eb);
      b.equalityRows();
      b.frictionRows();
      b.limitRows();
      b.contactRows();
      b.cur.nefc = b.nefc;
    }
    b.flush(eb, be, nefc);
  }
}
