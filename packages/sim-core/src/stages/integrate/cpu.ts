/**
 * Stage `integrate` (MuJoCo mj_Euler / mj_implicit(fast) + mj_advance):
 * - Euler: qvel += h * qacc, semi-implicit; when any dof has damping (and eulerdamp is on) the damping is
 *   integrated implicitly: qacc' = (M + h*diag(damping))^-1 (qfrcSmooth + qfrcConstraint).
 * - implicitfast: qacc' = (M - h*qDeriv)^-1 (qfrcSmooth + qfrcConstraint), qDeriv from the actuation stage
 *   (actuator and damping velocity derivatives, no Coriolis term) on M's sparsity: its diagonal, and for a
 *   velocity-dependent tendon actuator the entries between a dof and its ancestors.
 * Then qpos integrates with the new qvel (free/ball rotations as quaternions, angular velocity in the
 * local frame), time += h and qaccWarmstart = qacc (the solver's, as MuJoCo keeps it).
 * Sets Data.errFlags bit 0 on NaN/Inf and bit 1 on |value| > 1e10 (MuJoCo's mjMAXVAL) in qpos, qvel or qacc.
 */
import type { Data, Real } from '../../data/data.js';
import { Integrator, JointType, type Model } from '../../model/model.js';
import { planOf, type Plan } from '../../data/plan.js';
import { scratchOf } from '../../data/scratch.js';
import { copyTree, factorLDL, solveLDL } from '../factor_m/cpu.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const SLIDE: number = JointType.Slide;
const HINGE: number = JointType.Hinge;
const EULER: number = Integrator.Euler;
const IMPLICITFAST: number = Integrator.ImplicitFast;

const MINVAL = 1e-15;
const MAXVAL = 1e10;
const ERR_NAN = 1;
const ERR_BLOWUP = 2;

export function integrate(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs, nv = m.nv;
  const h = m.opt.timestep;
  const integrator = m.opt.integrator;
  const plan = planOf(m);
  const s = scratchOf(m, d);
  const { qvel, qacc, qM, qfrcSmooth, qfrcConstraint, qDeriv } = d;

  let acc: Real | Float64Array = qacc;
  const implicitFast = integrator === IMPLICITFAST;
  if (integrator !== EULER && !implicitFast) {
    const name = ['Euler', 'RK4', 'implicit', 'implicitfast'][integrator] ?? String(integrator);
    throw new Error(`integrate: integrator '${name}' is not supported (Euler and implicitfast are)`);
  }
  const eulerDamp = integrator === EULER && !m.opt.disableEulerdamp && plan.anyDamping;
  if (eulerDamp || implicitFast) {
    const { qH, qHDiagInv, vecNv: x, invd, tmp } = s;
    copyTree(plan, nv, n, qM, qH, e0, e1);
    for (let i = 0; i < nv; i++) {
      const ii = (i * nv + i) * n, o = i * n;
      if (eulerDamp) {
        const hb = h * m.dofDamping[i]!;
        for (let e = e0; e < e1; e++) qH[ii + e] = qH[ii + e]! + hb;
      } else {
        for (let e = e0; e < e1; e++) qH[ii + e] = qH[ii + e]! - h * qDeriv[o + e]!;
      }
      for (let e = e0; e < e1; e++) x[o + e] = qfrcSmooth[o + e]! + qfrcConstraint[o + e]!;
    }
    if (implicitFast && d.qDerivOffdiag.length > 0) addOffdiagonal(plan, nv, n, h, qH, d.qDerivOffdiag, e0, e1);
    factorLDL(plan, nv, n, qH, qHDiagInv, invd, tmp, e0, e1);
    solveLDL(plan, nv, n, qH, qHDiagInv, x, e0, e1);
    acc = x;
  }

  // qvel += h * acc; qacc kept for the warm start; both checked for NaN and blow-up on the way
  const { time, qaccWarmstart, errFlags, qpos } = d;
  for (let i = 0; i < nv; i++) {
    const o = i * n;
    for (let e = e0; e < e1; e++) {
      const v = qvel[o + e]! + h * acc[o + e]!;
      qvel[o + e] = v;
      const a = qacc[o + e]!;
      qaccWarmstart[o + e] = a;
      if (!(v >= -MAXVAL && v <= MAXVAL)) flagBad(errFlags, e, v);
      if (!(a >= -MAXVAL && a <= MAXVAL)) flagBad(errFlags, e, a);
    }
  }
  integratePos(m, qpos, qvel, n, h, e0, e1);
  for (let e = e0; e < e1; e++) time[e] = time[e]! + h;
  for (let k = 0; k < m.nq; k++) {
    const o = k * n;
    for (let e = e0; e < e1; e++) {
      const v = qpos[o + e]!;
      if (!(v >= -MAXVAL && v <= MAXVAL)) flagBad(errFlags, e, v);
    }
  }
}

/**
 * qH(i, j) -= h * qDeriv(i, j) left of the diagonal, for j an ancestor of i: implicitfast's gather of qDeriv into
 * M's lower sparsity (mapD2M). A simple dof's row has no such entries in MuJoCo's reduced M, so it gets none.
 */
function addOffdiagonal(plan: Plan, nv: number, n: number, h: number, qH: Float64Array, qDerivOffdiag: Real, e0: number, e1: number): void {
  const { rowadr, rownnz, colind, dofSimple } = plan;
  for (let i = 0; i < nv; i++) {
    if (dofSimple[i] !== 0) continue;
    for (let c = rowadr[i]!, end = c + rownnz[i]! - 1; c < end; c++) {
      const o = (i * nv + colind[c]!) * n;
      for (let e = e0; e < e1; e++) qH[o + e] = qH[o + e]! - h * qDerivOffdiag[o + e]!;
    }
  }
}

function flagBad(flags: Uint32Array, e: number, v: number): void {
  flags[e] = flags[e]! | (Number.isNaN(v) || v === Infinity || v === -Infinity ? ERR_NAN : ERR_BLOWUP);
}

/** mj_integratePos: qpos <- qpos (+) h * qvel for envs [e0, e1) of SoA arrays with n envs. */
export function integratePos(m: Model, qpos: Real, qvel: Real, n: number, h: number, e0: number, e1: number): void {
  for (let j = 0; j < m.njnt; j++) {
    let pa = m.jntQposadr[j]!, da = m.jntDofadr[j]!;
    const type = m.jntType[j]!;
    if (type === HINGE || type === SLIDE) {
      const qo = pa * n, vo = da * n;
      for (let e = e0; e < e1; e++) qpos[qo + e] = qpos[qo + e]! + h * qvel[vo + e]!;
      continue;
    }
    if (type === FREE) {
      for (let k = 0; k < 3; k++) {
        const qo = (pa + k) * n, vo = (da + k) * n;
        for (let e = e0; e < e1; e++) qpos[qo + e] = qpos[qo + e]! + h * qvel[vo + e]!;
      }
      pa += 3; da += 3;
    }
    // mju_quatIntegrate: q <- normalize(q) * axisAngle(w/|w|, h|w|)
    const Q = pa * n, V = da * n;
    for (let e = e0; e < e1; e++) {
      let ax = qvel[V + e]!, ay = qvel[V + n + e]!, az = qvel[V + 2 * n + e]!;
      const nrm = Math.sqrt(ax * ax + ay * ay + az * az);
      if (nrm < MINVAL) { ax = 1; ay = 0; az = 0; }
      else { const s = 1 / nrm; ax *= s; ay *= s; az *= s; }
      const angle = h * nrm;
      let rw = 1, rx = 0, ry = 0, rz = 0;
      if (angle !== 0) {
        const s = Math.sin(angle * 0.5);
        rw = Math.cos(angle * 0.5); rx = ax * s; ry = ay * s; rz = az * s;
      }
      let qw = qpos[Q + e]!, qx = qpos[Q + n + e]!, qy = qpos[Q + 2 * n + e]!, qz = qpos[Q + 3 * n + e]!;
      const qn = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
      if (qn < MINVAL) { qw = 1; qx = 0; qy = 0; qz = 0; }
      else if (Math.abs(qn - 1) > MINVAL) { const s = 1 / qn; qw *= s; qx *= s; qy *= s; qz *= s; }
      qpos[Q + e] = qw * rw - qx * rx - qy * ry - qz * rz;
      qpos[Q + n + e] = qw * rx + qx * rw + qy * rz - qz * ry;
      qpos[Q + 2 * n + e] = qw * ry - qx * rz + qy * rw + qz * rx;
      qpos[Q + 3 * n + e] = qw * rz + qx * ry - qy * rx + qz * rw;
    }
  }
}
