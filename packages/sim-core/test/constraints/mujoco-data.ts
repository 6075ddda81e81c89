/**
 * Stage-isolated testing of the constraint stages: a batched Data filled from MuJoCo's own mjData, so
 * collision, make_constraint and solve are checked against MuJoCo without sim-core's smooth stages.
 * Env e of the Data is a copy of `envs[e]` (each an mjData after mj_forward).
 */
import type { Data } from '../../src/data/data.js';
import type { Model } from '../../src/model/model.js';
import { fullM, modelFromMujoco, type Mj } from '../helpers/mujoco.js';

export interface Capacity { maxContacts?: number; maxEfc?: number }

/** A zeroed f64 Data sized for `m` (this test's own allocator, independent of makeData). */
export function allocData(m: Model, nEnvs: number, cap: Capacity = {}): Data {
  const n = nEnvs;
  const f = (k: number): Float64Array => new Float64Array(Math.max(1, k) * n);
  const maxContacts = cap.maxContacts ?? 64;
  const maxEfc = cap.maxEfc ?? 6 * maxContacts + 2 * m.njnt + m.neq + m.nv;
  return {
    nEnvs: n, batched: true, precision: '64', time: new Float64Array(n),
    qpos: f(m.nq), qvel: f(m.nv), qacc: f(m.nv), qaccWarmstart: f(m.nv), ctrl: f(m.nu), qfrcApplied: f(m.nv),
    dofCtrlMode: new Uint8Array(m.nv * n), dofCtrlPos: f(m.nv), dofCtrlVel: f(m.nv), dofCtrlForce: f(m.nv),
    dofKp: f(m.nv), dofKv: f(m.nv), dofForceRange: f(2 * m.nv),
    xpos: f(3 * m.nbody), xquat: f(4 * m.nbody), xmat: f(9 * m.nbody), xipos: f(3 * m.nbody), ximat: f(9 * m.nbody),
    xanchor: f(3 * m.njnt), xaxis: f(3 * m.njnt), geomXpos: f(3 * m.ngeom), geomXmat: f(9 * m.ngeom),
    siteXpos: f(3 * m.nsite), siteXmat: f(9 * m.nsite), subtreeCom: f(3 * m.nbody), cdof: f(6 * m.nv),
    cinert: f(10 * m.nbody), crb: f(10 * m.nbody), qM: f(m.nv * m.nv), qLD: f(m.nv * m.nv), qLDiagInv: f(m.nv),
    cvel: f(6 * m.nbody), cdofDot: f(6 * m.nv), actuatorLength: f(m.nu), actuatorVelocity: f(m.nu),
    actuatorForce: f(m.nu), qfrcBias: f(m.nv), qfrcPassive: f(m.nv), qfrcActuator: f(m.nv), qfrcSmooth: f(m.nv),
    qaccSmooth: f(m.nv), qDeriv: f(m.nv), qDerivOffdiag: f(0),
    maxContacts, maxEfc, ncon: new Int32Array(n),
    contactPos: f(3 * maxContacts), contactFrame: f(9 * maxContacts), contactDist: f(maxContacts),
    contactIncludemargin: f(maxContacts), contactFriction: f(5 * maxContacts), contactSolref: f(2 * maxContacts),
    contactSolimp: f(5 * maxContacts), contactGeom: new Int32Array(2 * maxContacts * n),
    contactDim: new Int32Array(maxContacts * n),
    nefc: new Int32Array(n), efcType: new Int32Array(maxEfc * n), efcId: new Int32Array(maxEfc * n),
    efcJ: f(maxEfc * m.nv), efcPos: f(maxEfc), efcMargin: f(maxEfc), efcD: f(maxEfc), efcR: f(maxEfc),
    efcAref: f(maxEfc), efcFrictionloss: f(maxEfc), efcForce: f(maxEfc), efcState: new Int32Array(maxEfc * n),
    qfrcConstraint: f(m.nv), sensordata: f(0),
    timers: new Float64Array(10 * n), errFlags: new Uint32Array(n),
  };
}

function put(dst: Float64Array | Float32Array, src: ArrayLike<number>, count: number, n: number, e: number): void {
  for (let k = 0; k < count; k++) dst[k * n + e] = src[k]!;
}

/** Copies what the constraint stages read from each MuJoCo mjData into env e of `d`. */
export function copyFromMujoco(mj: Mj, mjm: Mj, m: Model, d: Data, envs: Mj[]): void {
  const n = d.nEnvs;
  envs.forEach((md, e) => {
    put(d.qpos, md.qpos, m.nq, n, e);
    put(d.qvel, md.qvel, m.nv, n, e);
    put(d.qaccWarmstart, md.qacc_warmstart, m.nv, n, e);
    put(d.xpos, md.xpos, 3 * m.nbody, n, e);
    put(d.xmat, md.xmat, 9 * m.nbody, n, e);
    put(d.geomXpos, md.geom_xpos, 3 * m.ngeom, n, e);
    put(d.geomXmat, md.geom_xmat, 9 * m.ngeom, n, e);
    put(d.subtreeCom, md.subtree_com, 3 * m.nbody, n, e);
    put(d.cdof, md.cdof, 6 * m.nv, n, e);
    put(d.qM, fullM(mj, mjm, md), m.nv * m.nv, n, e);
    put(d.qfrcSmooth, md.qfrc_smooth, m.nv, n, e);
    put(d.qaccSmooth, md.qacc_smooth, m.nv, n, e);
  });
}

/**
 * Prepares `count` envs with MuJoCo (configure each, then `warmSteps` mj_step calls so qacc_warmstart is
 * realistic, then mj_forward) and a Data holding a copy of each, ready for the constraint stages.
 */
export async function envsFromMujoco(
  load: Promise<{ mj: Mj; m: Mj }>, count: number, configure: (md: Mj, i: number, mj: Mj, mjm: Mj) => void,
  warmSteps = 0,
): Promise<{ mj: Mj; mjm: Mj; model: Model; d: Data; envs: Mj[] }> {
  const { mj, m: mjm } = await load;
  const model = modelFromMujoco(mj, mjm);
  const envs: Mj[] = [];
  for (let i = 0; i < count; i++) {
    const md = new mj.MjData(mjm);
    configure(md, i, mj, mjm);
    for (let k = 0; k < warmSteps; k++) mj.mj_step(mjm, md);
    mj.mj_forward(mjm, md);
    envs.push(md);
  }
  const d = allocData(model, count);
  copyFromMujoco(mj, mjm, model, d, envs);
  return { mj, mjm, model, d, envs };
}

export interface MjContactView {
  dist: number; pos: number[]; frame: number[]; geom: [number, number]; dim: number; includemargin: number;
  friction: number[]; solref: number[]; solimp: number[]; exclude: number;
}

/** MuJoCo's contact list as plain objects. */
export function mujocoContacts(md: Mj): MjContactView[] {
  const out: MjContactView[] = [];
  for (let i = 0; i < md.ncon; i++) {
    const c = md.contact.get(i);
    out.push({
      dist: c.dist, pos: Array.from(c.pos as ArrayLike<number>), frame: Array.from(c.frame as ArrayLike<number>),
      geom: [c.geom[0], c.geom[1]], dim: c.dim, includemargin: c.includemargin,
      friction: Array.from(c.friction as ArrayLike<number>), solref: Array.from(c.solref as ArrayLike<number>),
      solimp: Array.from(c.solimp as ArrayLike<number>), exclude: c.exclude,
    });
    c.delete?.();
  }
  return out;
}

/** Env e's value k of a per-env field of size K. */
export function envSlice(a: ArrayLike<number>, count: number, n: number, e: number, offset = 0): number[] {
  const out: number[] = [];
  for (let k = 0; k < count; k++) out.push(a[(offset + k) * n + e]!);
  return out;
}
