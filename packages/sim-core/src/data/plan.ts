/**
 * Model-derived index tables the stages share, built once per Model and cached (Model is immutable).
 *
 * The dof tree gives the sparsity of M and of its L'DL factor: M(i, j) can be non-zero only when j is i or
 * an ancestor of i along dof_parentid. Rows are stored like MuJoCo's M_rowadr/M_colind: row i lists its
 * ancestors in ascending order followed by i itself.
 * A worker thread receives a structured clone of the Model, so it builds its own plan.
 */
import { Integrator, JointType, TrnType, type Model } from '../model/model.js';
import { isVelocityDependent } from '../model/implicit-support.js';

/** MuJoCo's mjSameFrame: how a child frame (inertia, geom, site) relates to its body frame. */
export const enum SameFrame { None = 0, Body = 1, Inertia = 2, BodyRot = 3, InertiaRot = 4 }

export interface Plan {
  /** Row i of the dof tree: colind[rowadr[i] .. rowadr[i] + rownnz[i]) = ancestors of i ascending, then i. */
  rowadr: Int32Array;
  rownnz: Int32Array;
  colind: Int32Array;
  /** Ancestors of dof i in descending order (parent first), for the backward passes of the factorization. */
  ancDescAdr: Int32Array;
  ancDescNum: Int32Array;
  ancDesc: Int32Array;

  bodySameframe: Uint8Array;
  geomSameframe: Uint8Array;
  siteSameframe: Uint8Array;

  /** qpos address of a scalar dof's coordinate (hinge, slide, and the 3 translations of a free joint); -1 for rotational dofs of ball and free joints. */
  dofQposadr: Int32Array;
  /** Joint type of each dof. */
  dofJntType: Int32Array;

  /** Actuator -> dof it drives (joint transmission on a hinge or slide), or -1. */
  actuatorDof: Int32Array;
  /** Actuator -> qpos address of that joint, or -1. */
  actuatorQposadr: Int32Array;
  /** Dof -> the first MuJoCo actuator driving it, or -1 (the Genesis controller silences it). */
  dofActuator: Int32Array;

  /** Any dof_damping > 0 (mj_Euler integrates damping implicitly only then). */
  anyDamping: boolean;

  /**
   * Actuators on a tendon or a site whose force depends on velocity (an affine bias with biasprm[2] != 0, or an
   * affine gain with gainprm[2] != 0): their velocity derivative moment' * B * moment couples the dofs their
   * moment spans, so the actuation stage writes it into qDeriv and qDerivOffdiag for the implicit integrators.
   */
  coupledVelocityActuators: Int32Array;
  /** MuJoCo's dof_simplenum != 0: the dof's body is 'simple' (M diagonal there), and MuJoCo's reduced M, which
   *  implicitfast factors, keeps no entry left of the diagonal in its row. */
  dofSimple: Uint8Array;
}

const plans = new WeakMap<Model, Plan>();

function isNullPos(a: Float64Array, o: number): boolean {
  return a[o] === 0 && a[o + 1] === 0 && a[o + 2] === 0;
}
function isNullQuat(a: Float64Array, o: number): boolean {
  return a[o] === 1 && a[o + 1] === 0 && a[o + 2] === 0 && a[o + 3] === 0;
}
function samePos(a: Float64Array, ao: number, b: Float64Array, bo: number): boolean {
  return a[ao] === b[bo] && a[ao + 1] === b[bo + 1] && a[ao + 2] === b[bo + 2];
}
function sameQuat(a: Float64Array, ao: number, b: Float64Array, bo: number): boolean {
  return a[ao] === b[bo] && a[ao + 1] === b[bo + 1] && a[ao + 2] === b[bo + 2] && a[ao + 3] === b[bo + 3];
}

/** MuJoCo's compiler rule for *_sameframe of an object attached to `body` at (pos, quat). */
function sameframeOf(m: Model, body: number, pos: Float64Array, quat: Float64Array, i: number, allowInertia: boolean): SameFrame {
  if (isNullPos(pos, 3 * i) && isNullQuat(quat, 4 * i)) return SameFrame.Body;
  if (allowInertia && samePos(pos, 3 * i, m.bodyIpos, 3 * body) && sameQuat(quat, 4 * i, m.bodyIquat, 4 * body)) return SameFrame.Inertia;
  if (isNullQuat(quat, 4 * i)) return SameFrame.BodyRot;
  if (allowInertia && sameQuat(quat, 4 * i, m.bodyIquat, 4 * body)) return SameFrame.InertiaRot;
  return SameFrame.None;
}

function buildPlan(m: Model): Plan {
  const nv = m.nv;
  const rowadr = new Int32Array(nv);
  const rownnz = new Int32Array(nv);
  const cols: number[] = [];
  const ancDescAdr = new Int32Array(nv);
  const ancDescNum = new Int32Array(nv);
  const desc: number[] = [];
  for (let i = 0; i < nv; i++) {
    const anc: number[] = [];
    for (let j = m.dofParentid[i]!; j >= 0; j = m.dofParentid[j]!) anc.push(j);
    ancDescAdr[i] = desc.length;
    ancDescNum[i] = anc.length;
    // Loops, not push(...anc): a spread passes every element as an argument, which overflows the stack on deep chains.
    for (const a of anc) desc.push(a);
    rowadr[i] = cols.length;
    rownnz[i] = anc.length + 1;
    for (let k = anc.length - 1; k >= 0; k--) cols.push(anc[k]!);
    cols.push(i);
  }

  const bodySameframe = new Uint8Array(m.nbody);
  for (let b = 1; b < m.nbody; b++) {
    bodySameframe[b] = isNullPos(m.bodyIpos, 3 * b) && isNullQuat(m.bodyIquat, 4 * b) ? SameFrame.Body
      : isNullQuat(m.bodyIquat, 4 * b) ? SameFrame.BodyRot : SameFrame.None;
  }
  const geomSameframe = new Uint8Array(m.ngeom);
  for (let g = 0; g < m.ngeom; g++) geomSameframe[g] = sameframeOf(m, m.geomBodyid[g]!, m.geomPos, m.geomQuat, g, true);
  const siteSameframe = new Uint8Array(m.nsite);
  for (let s = 0; s < m.nsite; s++) siteSameframe[s] = sameframeOf(m, m.siteBodyid[s]!, m.sitePos, m.siteQuat, s, true);

  const dofQposadr = new Int32Array(nv).fill(-1);
  const dofJntType = new Int32Array(nv);
  for (let j = 0; j < m.njnt; j++) {
    const type = m.jntType[j]!;
    const da = m.jntDofadr[j]!;
    const qa = m.jntQposadr[j]!;
    const ndof = type === JointType.Free ? 6 : type === JointType.Ball ? 3 : 1;
    for (let k = 0; k < ndof; k++) dofJntType[da + k] = type;
    if (type === JointType.Hinge || type === JointType.Slide) dofQposadr[da] = qa;
    if (type === JointType.Free) for (let k = 0; k < 3; k++) dofQposadr[da + k] = qa + k;
  }

  const actuatorDof = new Int32Array(m.nu).fill(-1);
  const actuatorQposadr = new Int32Array(m.nu).fill(-1);
  const dofActuator = new Int32Array(nv).fill(-1);
  for (let u = 0; u < m.nu; u++) {
    // a tendon or site actuator drives no one dof (-1 here; the actuation stage walks its tendon or site Jacobian)
    if (m.actuatorTrntype[u] === TrnType.Tendon || m.actuatorTrntype[u] === TrnType.Site) continue;
    const jnt = m.actuatorTrnid[2 * u]!;
    const type = m.jntType[jnt]!;
    if (type !== JointType.Hinge && type !== JointType.Slide) {
      throw new Error(`actuator ${m.actuatorName[u] || u}: joint transmission is supported on hinge and slide joints only`);
    }
    const dof = m.jntDofadr[jnt]!;
    actuatorDof[u] = dof;
    actuatorQposadr[u] = m.jntQposadr[jnt]!;
    if (dofActuator[dof] === -1) dofActuator[dof] = u;
  }

  let anyDamping = false;
  for (let i = 0; i < nv; i++) if (m.dofDamping[i]! > 0) anyDamping = true;

  return {
    rowadr, rownnz, colind: Int32Array.from(cols), ancDescAdr, ancDescNum, ancDesc: Int32Array.from(desc),
    bodySameframe, geomSameframe, siteSameframe, dofQposadr, dofJntType, actuatorDof, actuatorQposadr, dofActuator,
    anyDamping, coupledVelocityActuators: Int32Array.from(coupledVelocityActuatorsOf(m)),
    dofSimple: dofSimpleOf(m, bodySameframe),
  };
}

/** The actuators of Plan.coupledVelocityActuators (read without building a plan). */
export function coupledVelocityActuatorsOf(m: Model): number[] {
  const out: number[] = [];
  for (let u = 0; u < m.nu; u++) {
    if ((m.actuatorTrntype[u] === TrnType.Tendon || m.actuatorTrntype[u] === TrnType.Site) && isVelocityDependent(m, u)) out.push(u);
  }
  return out;
}

/**
 * Whether qDeriv has entries off its diagonal (Data.qDerivOffdiag): a velocity-dependent tendon actuator or a
 * damped tendon couples the tendon's dofs, and the implicit integrator's bias-force derivative couples a dof with
 * its ancestors and descendants. Read without building a plan.
 */
export function hasCoupledVelocityDerivative(m: Model): boolean {
  if (m.opt.integrator === Integrator.Implicit || coupledVelocityActuatorsOf(m).length > 0) return true;
  for (let t = 0; t < m.ntendon; t++) if (m.tendonDamping[t] !== 0) return true;
  return false;
}

/** mjEPS: a joint axis component beyond it counts when MuJoCo asks whether the axis is a coordinate axis. */
const EPS = 1e-14;

/**
 * MuJoCo's body_simple (mjCModel::CopyObjects), per dof: a body is simple when its inertia frame is its body frame,
 * it is a root body (or the child of a world-fixed body without dofs), it has no child bodies, and its joints
 * sit at its origin, slides and hinges on a coordinate axis, no joint after a rotational one. (MuJoCo also demotes
 * bodies a tendon with armature wraps; sim-core has no tendon armature.)
 */
function dofSimpleOf(m: Model, bodySameframe: Uint8Array): Uint8Array {
  const simple = new Uint8Array(m.nbody);
  for (let b = 1; b < m.nbody; b++) {
    const p = m.bodyParentid[b]!;
    simple[b] = bodySameframe[b] === SameFrame.Body && (m.bodyRootid[b] === b || (m.bodyParentid[p] === 0 && m.bodyDofnum[p] === 0)) ? 1 : 0;
  }
  for (let b = 1; b < m.nbody; b++) {
    const p = m.bodyParentid[b]!;
    if (p > 0) simple[p] = 0;
  }
  for (let b = 1; b < m.nbody; b++) {
    let rotation = false;
    for (let j = m.bodyJntadr[b]!, end = j + m.bodyJntnum[b]!; j < end; j++) {
      const type = m.jntType[j]!;
      const a = m.jntAxis;
      const aligned = (Math.abs(a[3 * j]!) > EPS ? 1 : 0) + (Math.abs(a[3 * j + 1]!) > EPS ? 1 : 0) + (Math.abs(a[3 * j + 2]!) > EPS ? 1 : 0) === 1;
      const scalar = type === JointType.Hinge || type === JointType.Slide;
      if (rotation || !isNullPos(m.jntPos, 3 * j) || (scalar && !aligned)) simple[b] = 0;
      if (type === JointType.Ball || type === JointType.Hinge) rotation = true;
    }
  }
  const dofSimple = new Uint8Array(m.nv);
  for (let i = 0; i < m.nv; i++) dofSimple[i] = simple[m.dofBodyid[i]!]!;
  return dofSimple;
}

export function planOf(m: Model): Plan {
  let p = plans.get(m);
  if (!p) {
    p = buildPlan(m);
    plans.set(m, p);
  }
  return p;
}
