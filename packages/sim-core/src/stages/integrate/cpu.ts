/**
 * Stage `integrate` (MuJoCo mj_Euler / mj_implicit(fast) + mj_advance):
 * - Euler: qvel += h * qacc, semi-implicit; when any dof has damping (and eulerdamp is on) the damping is
 *   integrated implicitly: qacc' = (M + h*diag(damping))^-1 (qfrcSmooth + qfrcConstraint).
 * - implicit: as implicitfast with the bias force's velocity derivative in qDeriv too, solved by a non-symmetric
 *   LU (implicitAcc).
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
import { type Descendants, descendantsOf, factorLU, solveLU } from '../../math/lu-dof-tree.js';
import { rneDerivativeOf } from '../../physics/rne-derivative.js';

// imported enum members read once: a module binding read in a hot loop is a getter call under tsx
const FREE: number = JointType.Free;
const SLIDE: number = JointType.Slide;
const HINGE: number = JointType.Hinge;
const EULER: number = Integrator.Euler;
const IMPLICITFAST: number = Integrator.ImplicitFast;
const IMPLICIT: number = Integrator.Implicit;

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
  if (integrator === IMPLICIT) {
    implicitAcc(m, d, e0, e1);
    acc = s.vecNv;
  } else if (integrator !== EULER && !implicitFast) {
    const name = ['Euler', 'RK4', 'implicit', 'implicitfast'][integrator] ?? String(integrator);
    throw new Error(`integrate: integrator '${name}' is not supported (Euler, implicit and implicitfast are)`);
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

/** Per-thread memory of the implicit integrator: one env's dense M - h * qDeriv, its right side, D's descendants. */
const implicitScratch = new WeakMap<Model, { A: Float64Array; x: Float64Array; desc: Descendants }>();

/**
 * MuJoCo's implicit integrator (mj_implicitSkip with mjINT_IMPLICIT): qDeriv gets the bias force's velocity
 * derivative too (mjd_rne_vel), then (M - h * qDeriv) qacc = qfrcSmooth + qfrcConstraint is solved by a
 * non-symmetric LU on D's sparsity (a dof, its ancestors and descendants). The result goes to scratch vecNv.
 */
function implicitAcc(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs, nv = m.nv, h = m.opt.timestep;
  const plan = planOf(m);
  const out = scratchOf(m, d).vecNv;
  let mem = implicitScratch.get(m);
  if (!mem) {
    mem = { A: new Float64Array(nv * nv), x: new Float64Array(nv), desc: descendantsOf(plan, nv) };
    implicitScratch.set(m, mem);
  }
  const { A, x, desc } = mem;
  const { qM, qDeriv, qDerivOffdiag, qfrcSmooth, qfrcConstraint } = d;
  const { rowadr, rownnz, colind } = plan;
  const rne = rneDerivativeOf(m);
  for (let e = e0; e < e1; e++) {
    rne.subtract(d, e);
    // A = M (lower triangle mirrored) - h * qDeriv on D's sparsity
    for (let i = 0; i < nv; i++) {
      A[i * nv + i] = qM[(i * nv + i) * n + e]! - h * qDeriv[i * n + e]!;
      for (let a = rowadr[i]!, last = a + rownnz[i]! - 1; a < last; a++) {
        const j = colind[a]!;
        const mij = qM[(i * nv + j) * n + e]!;
        A[i * nv + j] = mij - h * qDerivOffdiag[(i * nv + j) * n + e]!;
        A[j * nv + i] = mij - h * qDerivOffdiag[(j * nv + i) * n + e]!;
      }
      x[i] = qfrcSmooth[i * n + e]! + qfrcConstraint[i * n + e]!;
    }
    factorLU(plan, nv, A);
    solveLU(plan, desc, nv, A, x);
    for (let i = 0; i < nv; i++) out[i * n + e] = x[i]!;
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
