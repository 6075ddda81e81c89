/**
 * Stage `passive` (MuJoCo mj_passive, springs and dampers): joint springs pull toward qpos_spring
 * (-stiffness * (qpos - qpos_spring); for ball and free rotations the quaternion difference as a rotation
 * vector), dof dampers give -damping * qvel, and tendons (fixed and spatial) add J' * (spring outside the dead
 * band of their spring length - damping * tendon velocity). With <option density> or <option viscosity>, fluid
 * forces (MuJoCo's inertia-box model, physics/fluid.ts) are added last, as mj_passive adds qfrc_fluid. qfrcPassive
 * is their sum.
 */
import type { Data } from '../../data/data.js';
import { JointType, type Model } from '../../model/model.js';
import { subQuat } from '../../math/quat.js';
import { comVel } from '../rne/cpu.js';
import { hasFluid, fluidOf } from '../../physics/fluid.js';
import { isSpatial, spatialTendonsOf, tendonState } from '../../physics/tendon.js';

/** A tendon's [length, velocity], a ball or free joint's rotation from its spring pose (scratch). */
const tendonScratch = new Float64Array(2);
const dif = new Float64Array(3);

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const SLIDE: number = JointType.Slide;
const HINGE: number = JointType.Hinge;

const MINVAL = 1e-15;

export function passive(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  const { qpos, qvel, qfrcPassive: f } = d;

  for (let i = 0; i < m.nv; i++) {
    const o = i * n;
    const damping = m.dofDamping[i]!;
    if (damping !== 0) for (let e = e0; e < e1; e++) f[o + e] = -damping * qvel[o + e]!;
    else for (let e = e0; e < e1; e++) f[o + e] = 0;
  }

  for (let j = 0; j < m.njnt; j++) {
    const k = m.jntStiffness[j]!;
    if (k === 0) continue;
    let pa = m.jntQposadr[j]!, da = m.jntDofadr[j]!;
    const type = m.jntType[j]!;
    if (type === HINGE || type === SLIDE || type === FREE) {
      const cnt = type === FREE ? 3 : 1;
      for (let c = 0; c < cnt; c++) {
        const s = m.qposSpring[pa + c]!;
        const qo = (pa + c) * n, fo = (da + c) * n;
        for (let e = e0; e < e1; e++) f[fo + e] = f[fo + e]! - k * (qpos[qo + e]! - s);
      }
      if (type !== FREE) continue;
      pa += 3; da += 3;
    }
    // rotation: dif = subQuat(normalize(qpos), qpos_spring), force = -k * dif
    const sw = m.qposSpring[pa]!, sx = m.qposSpring[pa + 1]!, sy = m.qposSpring[pa + 2]!, sz = m.qposSpring[pa + 3]!;
    for (let e = e0; e < e1; e++) {
      let qw = qpos[pa * n + e]!, qx = qpos[(pa + 1) * n + e]!, qy = qpos[(pa + 2) * n + e]!, qz = qpos[(pa + 3) * n + e]!;
      const nrm = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
      if (nrm < MINVAL) { qw = 1; qx = 0; qy = 0; qz = 0; }
      else if (Math.abs(nrm - 1) > MINVAL) { const s = 1 / nrm; qw *= s; qx *= s; qy *= s; qz *= s; }
      subQuat(dif, qw, qx, qy, qz, sw, sx, sy, sz);
      f[da * n + e] = f[da * n + e]! - k * dif[0]!;
      f[(da + 1) * n + e] = f[(da + 1) * n + e]! - k * dif[1]!;
      f[(da + 2) * n + e] = f[(da + 2) * n + e]! - k * dif[2]!;
    }
  }

  for (let t = 0; t < m.ntendon; t++) {
    const k = m.tendonStiffness[t]!, b = m.tendonDamping[t]!;
    if (k === 0 && b === 0) continue;
    const lower = m.tendonLengthspring[2 * t]!, upper = m.tendonLengthspring[2 * t + 1]!;
    const adr = m.tendonAdr[t]!, end = adr + m.tendonNum[t]!;
    if (isSpatial(m, t)) {
      const sp = spatialTendonsOf(m), J = sp.J;
      for (let e = e0; e < e1; e++) {
        sp.compute(d, t, e);
        const length = sp.length;
        const spring = length > upper ? k * (upper - length) : length < lower ? k * (lower - length) : 0;
        const force = spring - b * sp.velocity(d, e);
        if (force === 0) continue;
        for (let i = 0; i < m.nv; i++) f[i * n + e] = f[i * n + e]! + J[i]! * force;
      }
      continue;
    }
    for (let e = e0; e < e1; e++) {
      tendonState(m, t, qpos, qvel, n, e, tendonScratch);
      const length = tendonScratch[0]!, velocity = tendonScratch[1]!;
      const spring = length > upper ? k * (upper - length) : length < lower ? k * (lower - length) : 0;
      const force = spring - b * velocity;
      if (force === 0) continue;
      for (let w = adr; w < end; w++) {
        const o = m.jntDofadr[m.wrapObjid[w]!]! * n + e;
        f[o] = f[o]! + m.wrapPrm[w]! * force;
      }
    }
  }

  if (hasFluid(m)) {
    // fluid forces need the body velocities, which MuJoCo's mj_fwdVelocity computes (mj_comVel) before mj_passive;
    // here rne computes them after this stage, so a model with fluid forces computes them once more first
    comVel(m, d, e0, e1);
    const fluid = fluidOf(m), q = fluid.qfrc;
    for (let e = e0; e < e1; e++) {
      fluid.compute(d, e);
      for (let i = 0; i < m.nv; i++) f[i * n + e] = f[i * n + e]! + q[i]!;
    }
  }
}
