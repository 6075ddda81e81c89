/**
 * Stage `actuation` (MuJoCo mj_transmission for joint, tendon and site transmissions + mj_fwdActuation, plus Genesis' dof
 * controller):
 * - MuJoCo actuators: length = gear*q, velocity = gear*qdot; force = gain*ctrl + bias with gain fixed
 *   (or affine) and bias none or affine (b0 + b1*length + b2*velocity); ctrl clipped to ctrlrange when
 *   ctrllimited (all ctrl of an env are zeroed if any is NaN/Inf or beyond 1e10, as MuJoCo); force clipped
 *   to forcerange when forcelimited; qfrc_actuator += gear * force; then qfrc_actuator at a hinge or slide
 *   joint clipped to its actuatorfrcrange when actuatorfrclimited.
 * - Genesis' controller (DofCtrlMode in data.ts): a dof in Position, Velocity or Force mode gets that force,
 *   clipped to dofForceRange, and the MuJoCo actuator on it is silenced (its actuatorForce reads 0).
 * - qDeriv, d(qfrc_actuator + qfrc_passive)/d(qvel) that implicitfast and mj_implicit use (mjd_actuator_vel +
 *   mjd_passive_vel, in that order): each active actuator's moment' * (b2 + g2*ctrl) * moment (a joint's moment
 *   is its gear; a tendon's is gear times the tendon's Jacobian, and couples the tendon's dofs: those entries
 *   go to qDerivOffdiag, on MuJoCo's D sparsity), then -damping, then each damped tendon's J' (-damping) J,
 *   then the inertia-box fluid forces' derivative (implicit integrators only, physics/fluid.ts), then -kv of a
 *   dof under Genesis' Position/Velocity control. As in MuJoCo, force clipping is ignored here and an affine
 *   gain's term takes the raw ctrl.
 */
import { DofCtrlMode, type Data } from '../../data/data.js';
import { BiasType, Integrator, TrnType, type Model } from '../../model/model.js';
import { planOf } from '../../data/plan.js';
import { scratchOf } from '../../data/scratch.js';
import { clip } from '../../math/clip.js';
import { isVelocityDependent } from '../../model/implicit-support.js';
import { fluidInQDeriv, fluidOf } from '../../physics/fluid.js';
import { siteTransmissionOf } from '../../physics/site-transmission.js';
import { isSpatial, spatialTendonsOf, tendonState } from '../../physics/tendon.js';

/** A tendon's [length, velocity] (scratch). */
const tendonScratch = new Float64Array(2);

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const MODE_NONE: number = DofCtrlMode.None;
const MODE_FORCE: number = DofCtrlMode.Force;
const MODE_POSITION: number = DofCtrlMode.Position;
const BIAS_AFFINE: number = BiasType.Affine;
const TENDON: number = TrnType.Tendon;
const SITE: number = TrnType.Site;
const EULER: number = Integrator.Euler;
/** mjJNT_SLIDE (2) and mjJNT_HINGE (3): the joints with one scalar actuator force to clamp. */
const JNT_SLIDE = 2;

const MAXVAL = 1e10;
/** mjGAIN_AFFINE: gain = gainprm[0] + gainprm[1] * length + gainprm[2] * velocity (MJCF gaintype="affine"). */
const GAIN_AFFINE = 1;

/** One actuator's force law (MuJoCo's mj_fwdActuation for no dynamics): its parameters, read once per stage. */
class ForceLaw {
  readonly ctrlLimited: boolean; readonly clo: number; readonly chi: number;
  readonly forceLimited: boolean; readonly flo: number; readonly fhi: number;
  readonly affineGain: boolean; readonly g0: number; readonly g1: number; readonly g2: number;
  readonly affineBias: boolean; readonly b0: number; readonly b1: number; readonly b2: number;

  constructor(m: Model, u: number) {
    this.ctrlLimited = m.actuatorCtrllimited[u] !== 0;
    this.clo = m.actuatorCtrlrange[2 * u]!; this.chi = m.actuatorCtrlrange[2 * u + 1]!;
    this.forceLimited = m.actuatorForcelimited[u] !== 0;
    this.flo = m.actuatorForcerange[2 * u]!; this.fhi = m.actuatorForcerange[2 * u + 1]!;
    this.affineGain = m.actuatorGaintype[u] === GAIN_AFFINE;
    this.g0 = m.actuatorGainprm[10 * u]!; this.g1 = m.actuatorGainprm[10 * u + 1]!; this.g2 = m.actuatorGainprm[10 * u + 2]!;
    this.affineBias = m.actuatorBiastype[u] === BIAS_AFFINE;
    this.b0 = m.actuatorBiasprm[10 * u]!; this.b1 = m.actuatorBiasprm[10 * u + 1]!; this.b2 = m.actuatorBiasprm[10 * u + 2]!;
  }

  /** The force at this length and velocity for the raw ctrl (0 when the env's controls are bad). */
  force(rawCtrl: number, bad: boolean, len: number, vel: number): number {
    let c = 0;
    if (!bad) c = this.ctrlLimited ? clip(rawCtrl, this.clo, this.chi) : rawCtrl;
    const gain = this.affineGain ? this.g0 + this.g1 * len + this.g2 * vel : this.g0;
    let force = gain * c;
    if (this.affineBias) force += this.b0 + this.b1 * len + this.b2 * vel;
    return this.forceLimited ? clip(force, this.flo, this.fhi) : force;
  }

}

/** A tendon actuator's moment (dense, nv) and the dofs where it is non-zero (scratch). */
let momentScratch = new Float64Array(0);
let momentDofs = new Int32Array(0);

/** d(force)/d(actuator velocity) of a velocity-dependent actuator (mjd_actuator_vel, no dynamics): b2 + g2 * raw ctrl. */
function forceVelocityDerivative(m: Model, u: number, rawCtrl: number): number {
  let dvel = m.actuatorBiastype[u] === BIAS_AFFINE ? m.actuatorBiasprm[10 * u + 2]! : 0;
  if (m.actuatorGaintype[u] === GAIN_AFFINE) {
    const g2 = m.actuatorGainprm[10 * u + 2]!;
    if (g2 !== 0) dvel += g2 * rawCtrl;
  }
  return dvel;
}

/**
 * qDeriv += moment' * B * moment for env e, as MuJoCo's addJTBJSparse: only entries (k, p) with p = k, an
 * ancestor or a descendant of k (MuJoCo's D sparsity; two sibling fingers' cross terms are dropped), the diagonal
 * into qDeriv, the rest into qDerivOffdiag. `dofs` lists the moment's non-zero dofs in ascending order.
 */
function addMomentDerivative(m: Model, d: Data, moment: Float64Array, dofs: Int32Array, count: number, B: number, e: number): void {
  const n = d.nEnvs, nv = m.nv;
  const { qDeriv, qDerivOffdiag } = d;
  const { rowadr, rownnz, colind } = planOf(m);
  for (let a = 0; a < count; a++) {
    const k = dofs[a]!;
    const scl = moment[k]! * B;
    for (let b = 0; b < count; b++) {
      const p = dofs[b]!;
      if (p === k) { qDeriv[k * n + e] = qDeriv[k * n + e]! + scl * moment[p]!; continue; }
      // related along the dof tree: the lower of the two is in the other's ancestor row
      const lo = Math.min(p, k), hi = Math.max(p, k);
      let related = false;
      for (let c = rowadr[hi]!, end = c + rownnz[hi]! - 1; c < end; c++) if (colind[c] === lo) { related = true; break; }
      if (!related) continue;
      const o = (k * nv + p) * n + e;
      qDerivOffdiag[o] = qDerivOffdiag[o]! + scl * moment[p]!;
    }
  }
}

/** Dense scratch of nv for a tendon actuator's moment, zeroed (and momentDofs of nv). */
function momentOf(nv: number): Float64Array {
  if (momentScratch.length < nv) { momentScratch = new Float64Array(nv); momentDofs = new Int32Array(nv); }
  momentScratch.fill(0, 0, nv);
  return momentScratch;
}

/**
 * qDeriv += J' * (-damping) * J of a damped tendon (mjd_passive_vel, after the dofs' damping), J its Jacobian:
 * the coefficients of a fixed tendon's joints, or a spatial tendon's path Jacobian at this pose.
 */
function tendonDampingDerivative(m: Model, d: Data, t: number, e0: number, e1: number): void {
  const nv = m.nv, B = -m.tendonDamping[t]!;
  const J = momentOf(nv);
  if (isSpatial(m, t)) {
    const sp = spatialTendonsOf(m);
    for (let e = e0; e < e1; e++) {
      sp.compute(d, t, e);
      let count = 0;
      for (let i = 0; i < nv; i++) {
        J[i] = sp.J[i]!;
        if (J[i] !== 0) momentDofs[count++] = i;
      }
      addMomentDerivative(m, d, J, momentDofs, count, B, e);
    }
    return;
  }
  for (let w = m.tendonAdr[t]!, end = w + m.tendonNum[t]!; w < end; w++) {
    const i = m.jntDofadr[m.wrapObjid[w]!]!;
    J[i] = J[i]! + m.wrapPrm[w]!;
  }
  let count = 0;
  for (let i = 0; i < nv; i++) if (J[i] !== 0) momentDofs[count++] = i;
  for (let e = e0; e < e1; e++) addMomentDerivative(m, d, J, momentDofs, count, B, e);
}

/**
 * An actuator on a fixed tendon (mjTRN_TENDON): length gear * tendon length, velocity gear * tendon velocity,
 * and its force reaches each of the tendon's joints through gear * coef. Genesis' dof controllers do not
 * silence it (it drives no single dof). A velocity-dependent one adds its moment' * B * moment to qDeriv.
 */
function tendonActuator(m: Model, d: Data, u: number, e0: number, e1: number, bad: Uint8Array): void {
  const n = d.nEnvs;
  const { qpos, qvel, ctrl, actuatorLength, actuatorVelocity, actuatorForce, qfrcActuator } = d;
  const t = m.actuatorTrnid[2 * u]!;
  const adr = m.tendonAdr[t]!, end = adr + m.tendonNum[t]!;
  const gear = m.actuatorGear[6 * u]!;
  const law = new ForceLaw(m, u);
  const U = u * n;
  const state = tendonScratch;
  if (isSpatial(m, t)) {
    spatialTendonActuator(m, d, u, t, gear, law, e0, e1, bad);
    return;
  }
  // the moment gear * coef summed per dof (MuJoCo's ten_J), constant for a fixed tendon
  const velocityDependent = isVelocityDependent(m, u);
  let count = 0;
  const moment = velocityDependent ? momentOf(m.nv) : momentScratch;
  if (velocityDependent) {
    for (let w = adr; w < end; w++) { const i = m.jntDofadr[m.wrapObjid[w]!]!; moment[i] = moment[i]! + m.wrapPrm[w]!; }
    for (let i = 0; i < m.nv; i++) if (moment[i] !== 0) { moment[i] = gear * moment[i]!; momentDofs[count++] = i; }
  }
  for (let e = e0; e < e1; e++) {
    tendonState(m, t, qpos, qvel, n, e, state);
    const len = gear * state[0]!, vel = gear * state[1]!;
    actuatorLength[U + e] = len;
    actuatorVelocity[U + e] = vel;
    const force = law.force(ctrl[U + e]!, bad[e] !== 0, len, vel);
    actuatorForce[U + e] = force;
    for (let w = adr; w < end; w++) {
      const o = m.jntDofadr[m.wrapObjid[w]!]! * n + e;
      qfrcActuator[o] = qfrcActuator[o]! + gear * m.wrapPrm[w]! * force;
    }
    if (velocityDependent) {
      const B = forceVelocityDerivative(m, u, ctrl[U + e]!);
      if (B !== 0) addMomentDerivative(m, d, moment, momentDofs, count, B, e);
    }
  }
}


/** An actuator on a spatial tendon: its moment gear * J, its force reaching every dof through that moment. */
function spatialTendonActuator(
  m: Model, d: Data, u: number, t: number, gear: number, law: ForceLaw, e0: number, e1: number, bad: Uint8Array,
): void {
  const n = d.nEnvs, U = u * n, nv = m.nv;
  const { ctrl, actuatorLength, actuatorVelocity, actuatorForce, qfrcActuator } = d;
  const sp = spatialTendonsOf(m), J = sp.J;
  const velocityDependent = isVelocityDependent(m, u);
  const moment = velocityDependent ? momentOf(nv) : momentScratch;
  for (let e = e0; e < e1; e++) {
    sp.compute(d, t, e);
    // MuJoCo's velocity: moment . qvel, moment = gear * J
    let vel = 0;
    for (let i = 0; i < nv; i++) vel += gear * J[i]! * d.qvel[i * n + e]!;
    const len = gear * sp.length;
    actuatorLength[U + e] = len;
    actuatorVelocity[U + e] = vel;
    const force = law.force(ctrl[U + e]!, bad[e] !== 0, len, vel);
    actuatorForce[U + e] = force;
    for (let i = 0; i < nv; i++) qfrcActuator[i * n + e] = qfrcActuator[i * n + e]! + gear * J[i]! * force;
    if (velocityDependent) {
      const B = forceVelocityDerivative(m, u, ctrl[U + e]!);
      if (B === 0) continue;
      let count = 0;
      for (let i = 0; i < nv; i++) {
        moment[i] = gear * J[i]!;
        if (J[i] !== 0) momentDofs[count++] = i;
      }
      addMomentDerivative(m, d, moment, momentDofs, count, B, e);
    }
  }
}

/**
 * An actuator on a site (mjTRN_SITE, site-transmission.ts): its moment row spreads the force over every dof of the
 * site's body chain (and, with a refsite, the refsite's); velocity = moment . qvel, as MuJoCo's mj_fwdVelocity. A
 * velocity-dependent one adds its moment' * B * moment to qDeriv, as a tendon's.
 */
function siteActuator(m: Model, d: Data, u: number, e0: number, e1: number, bad: Uint8Array): void {
  const n = d.nEnvs, U = u * n, nv = m.nv;
  const { ctrl, actuatorLength, actuatorVelocity, actuatorForce, qfrcActuator, qvel } = d;
  const st = siteTransmissionOf(m), moment = st.moment;
  const law = new ForceLaw(m, u);
  const velocityDependent = isVelocityDependent(m, u);
  if (velocityDependent) momentOf(nv);
  for (let e = e0; e < e1; e++) {
    st.compute(d, u, e);
    let vel = 0;
    for (let i = 0; i < nv; i++) if (moment[i] !== 0) vel += moment[i]! * qvel[i * n + e]!;
    const len = st.length;
    actuatorLength[U + e] = len;
    actuatorVelocity[U + e] = vel;
    const force = law.force(ctrl[U + e]!, bad[e] !== 0, len, vel);
    actuatorForce[U + e] = force;
    for (let i = 0; i < nv; i++) if (moment[i] !== 0) qfrcActuator[i * n + e] = qfrcActuator[i * n + e]! + moment[i]! * force;
    if (velocityDependent) {
      const B = forceVelocityDerivative(m, u, ctrl[U + e]!);
      if (B === 0) continue;
      let count = 0;
      for (let i = 0; i < nv; i++) if (moment[i] !== 0) momentDofs[count++] = i;
      addMomentDerivative(m, d, moment, momentDofs, count, B, e);
    }
  }
}

export function actuation(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const nv = m.nv;
  const plan = planOf(m);
  const bad = scratchOf(m, d).flag;
  const { qpos, qvel, ctrl, actuatorLength, actuatorVelocity, actuatorForce, qfrcActuator, qDeriv, qDerivOffdiag, dofCtrlMode } = d;

  for (let i = 0; i < nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) { qfrcActuator[o + e] = 0; qDeriv[o + e] = 0; }
  }
  if (qDerivOffdiag.length > 0) {
    for (let k = 0; k < nv * nv; k++) qDerivOffdiag.fill(0, k * n + e0, k * n + e1);
  }

  // one bad control zeroes all controls of that env
  for (let e = e0; e < e1; e++) bad[e] = 0;
  for (let u = 0; u < m.nu; u++) {
    const limited = m.actuatorCtrllimited[u] !== 0;
    const lo = m.actuatorCtrlrange[2 * u]!, hi = m.actuatorCtrlrange[2 * u + 1]!;
    for (let e = e0; e < e1; e++) {
      let c = ctrl[u * n + e]!;
      if (limited) c = clip(c, lo, hi);
      if (!(c >= -MAXVAL && c <= MAXVAL)) bad[e] = 1;
    }
  }

  for (let u = 0; u < m.nu; u++) {
    if (m.actuatorTrntype[u] === TENDON) {
      tendonActuator(m, d, u, e0, e1, bad);
      continue;
    }
    if (m.actuatorTrntype[u] === SITE) {
      siteActuator(m, d, u, e0, e1, bad);
      continue;
    }
    const dof = plan.actuatorDof[u]!;
    const qa = plan.actuatorQposadr[u]!;
    const gear = m.actuatorGear[6 * u]!;
    // The force law written out, not ForceLaw's methods: with them this stage cost 50% more per env-step on
    // Franka (bench/stages.ts, 160 -> 247 ns at 4096 envs), the hottest loop of the actuators.
    const ctrlLimited = m.actuatorCtrllimited[u] !== 0;
    const clo = m.actuatorCtrlrange[2 * u]!, chi = m.actuatorCtrlrange[2 * u + 1]!;
    const forceLimited = m.actuatorForcelimited[u] !== 0;
    const flo = m.actuatorForcerange[2 * u]!, fhi = m.actuatorForcerange[2 * u + 1]!;
    const affineGain = m.actuatorGaintype[u] === GAIN_AFFINE;
    const g0 = m.actuatorGainprm[10 * u]!, g1 = m.actuatorGainprm[10 * u + 1]!, g2 = m.actuatorGainprm[10 * u + 2]!;
    const affineBias = m.actuatorBiastype[u] === BIAS_AFFINE;
    const b0 = m.actuatorBiasprm[10 * u]!, b1 = m.actuatorBiasprm[10 * u + 1]!, b2 = m.actuatorBiasprm[10 * u + 2]!;
    const U = u * n, Q = qa * n, V = dof * n;
    for (let e = e0; e < e1; e++) {
      const len = gear * qpos[Q + e]!;
      const vel = gear * qvel[V + e]!;
      actuatorLength[U + e] = len;
      actuatorVelocity[U + e] = vel;
      if (dofCtrlMode[V + e] !== MODE_NONE) { actuatorForce[U + e] = 0; continue; }
      let c = 0;
      if (bad[e] === 0) {
        c = ctrl[U + e]!;
        if (ctrlLimited) c = clip(c, clo, chi);
      }
      const gain = affineGain ? g0 + g1 * len + g2 * vel : g0;
      let force = gain * c;
      if (affineBias) force += b0 + b1 * len + b2 * vel;
      if (forceLimited) force = clip(force, flo, fhi);
      actuatorForce[U + e] = force;
      qfrcActuator[V + e] = qfrcActuator[V + e]! + gear * force;
      // MuJoCo's derivative uses the raw ctrl for an affine gain
      const dvel = (affineBias ? b2 : 0) + (affineGain ? g2 * ctrl[U + e]! : 0);
      if (dvel !== 0) qDeriv[V + e] = qDeriv[V + e]! + gear * dvel * gear;
    }
  }

  // mjd_passive_vel after mjd_actuator_vel: qDeriv -= damping (0 - 0 = +0 on an undamped dof with no actuator)
  for (let i = 0; i < nv; i++) {
    const o = i * n, damping = m.dofDamping[i]!;
    if (damping === 0) continue;
    for (let e = e0; e < e1; e++) qDeriv[o + e] = qDeriv[o + e]! - damping;
  }
  // only the implicit integrators read it; a spatial tendon's Jacobian would cost Euler a path computation
  if (m.opt.integrator !== EULER) {
    for (let t = 0; t < m.ntendon; t++) if (m.tendonDamping[t] !== 0) tendonDampingDerivative(m, d, t, e0, e1);
  }
  // then the inertia-box fluid forces' (mjd_inertiaBoxFluid), for the implicit integrators only
  if (fluidInQDeriv(m)) {
    const fluid = fluidOf(m);
    for (let e = e0; e < e1; e++) {
      fluid.addDerivative(d, e, (row, dofs, count, B) => addMomentDerivative(m, d, row, dofs, count, B, e));
    }
  }

  // MuJoCo's joint-level clamp (jnt_actfrclimited / actuatorfrcrange, also URDF <limit effort>) on the
  // actuator force summed at a hinge or slide joint; before Genesis' controller, which has its own range
  const actfrcLimited = m.jntActfrclimited, actfrcRange = m.jntActfrcrange;
  if (actfrcLimited && actfrcRange) {
    for (let j = 0; j < m.njnt; j++) {
      if (actfrcLimited[j] === 0 || m.jntType[j]! < JNT_SLIDE) continue;
      const lo = actfrcRange[2 * j]!, hi = actfrcRange[2 * j + 1]!;
      const o = m.jntDofadr[j]! * n;
      for (let e = e0; e < e1; e++) {
        const f = qfrcActuator[o + e]!;
        qfrcActuator[o + e] = clip(f, lo, hi);
      }
    }
  }

  // Genesis' dof controller
  const { dofCtrlPos, dofCtrlVel, dofCtrlForce, dofKp, dofKv, dofForceRange } = d;
  for (let i = 0; i < nv; i++) {
    const o = i * n;
    const qa = plan.dofQposadr[i]!;
    const lo = 2 * i * n, hi = (2 * i + 1) * n;
    for (let e = e0; e < e1; e++) {
      const mode = dofCtrlMode[o + e]!;
      if (mode === MODE_NONE) continue;
      let f: number;
      if (mode === MODE_FORCE) {
        f = dofCtrlForce[o + e]!;
      } else {
        const kv = dofKv[o + e]!;
        f = kv * (dofCtrlVel[o + e]! - qvel[o + e]!);
        // a rotational dof of a ball or free joint has no scalar coordinate: velocity term only
        if (mode === MODE_POSITION && qa >= 0) f += dofKp[o + e]! * (dofCtrlPos[o + e]! - qpos[qa * n + e]!);
        qDeriv[o + e] = qDeriv[o + e]! - kv;
      }
      const a = dofForceRange[lo + e]!, b = dofForceRange[hi + e]!;
      f = clip(f, a, b);
      qfrcActuator[o + e] = qfrcActuator[o + e]! + f;
    }
  }
}
