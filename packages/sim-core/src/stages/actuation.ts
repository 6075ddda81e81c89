/**
 * Stage `actuation` (MuJoCo mj_transmission for joint transmissions + mj_fwdActuation, plus Genesis' dof
 * controller):
 * - MuJoCo actuators: length = gear*q, velocity = gear*qdot; force = gain*ctrl + bias with gain fixed
 *   (or affine) and bias none or affine (b0 + b1*length + b2*velocity); ctrl clipped to ctrlrange when
 *   ctrllimited (all ctrl of an env are zeroed if any is NaN/Inf or beyond 1e10, as MuJoCo); force clipped
 *   to forcerange when forcelimited; qfrc_actuator += gear * force; then qfrc_actuator at a hinge or slide
 *   joint clipped to its actuatorfrcrange when actuatorfrclimited.
 * - Genesis' controller (DofCtrlMode in data.ts): a dof in Position, Velocity or Force mode gets that force,
 *   clipped to dofForceRange, and the MuJoCo actuator on it is silenced (its actuatorForce reads 0).
 * - qDeriv, the diagonal of d(qfrc_actuator + qfrc_passive)/d(qvel) that implicitfast and mj_implicit use
 *   (mjd_actuator_vel + mjd_passive_vel): -damping, plus gear^2 * (b2 + g2*ctrl) of each active actuator,
 *   or -kv of a dof under Position/Velocity control. As in MuJoCo, force clipping is ignored here.
 */
import { DofCtrlMode, type Data } from '../data/data.js';
import { BiasType, type Model } from '../model/model.js';
import { planOf } from '../data/plan.js';
import { scratchOf } from '../data/scratch.js';
import { clip } from '../math/clip.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const MODE_NONE: number = DofCtrlMode.None;
const MODE_FORCE: number = DofCtrlMode.Force;
const MODE_POSITION: number = DofCtrlMode.Position;
const BIAS_AFFINE: number = BiasType.Affine;
/** mjJNT_SLIDE (2) and mjJNT_HINGE (3): the joints with one scalar actuator force to clamp. */
const JNT_SLIDE = 2;

const MAXVAL = 1e10;
/** mjGAIN_AFFINE: accepted when a model carries it, though the loaders only produce fixed gains. */
const GAIN_AFFINE = 1;

export function actuation(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const nv = m.nv;
  const plan = planOf(m);
  const bad = scratchOf(m, d).flag;
  const { qpos, qvel, ctrl, actuatorLength, actuatorVelocity, actuatorForce, qfrcActuator, qDeriv, dofCtrlMode } = d;

  for (let i = 0; i < nv; i++) {
    const o = i * n;
    const damping = 0 - m.dofDamping[i]!; // +0 for no damping, as MuJoCo's qDeriv -= damping
    for (let e = e0; e < e1; e++) { qfrcActuator[o + e] = 0; qDeriv[o + e] = damping; }
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
    const dof = plan.actuatorDof[u]!;
    const qa = plan.actuatorQposadr[u]!;
    const gear = m.actuatorGear[6 * u]!;
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
