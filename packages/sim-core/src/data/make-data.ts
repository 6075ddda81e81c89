/**
 * Allocates a batched Data for a Model (every array on one SharedArrayBuffer, so worker threads can step
 * disjoint env ranges of it) and resets envs to the model's initial state, as mj_makeData / mj_resetData.
 */
import { BiasType, GainType, type Model } from '../model/model.js';
import { TIMER_SLOTS, type Data, type Precision, type Real } from './data.js';
import { fluidInQDeriv } from '../physics/fluid.js';
import { hasCoupledVelocityDerivative, planOf } from './plan.js';

export interface DataOptions {
  /** Contacts per env (default: see defaultMaxContacts). */
  maxContacts?: number;
  /** Constraint rows per env (default: see defaultMaxEfc). */
  maxEfc?: number;
}

type Kind = 'real' | 'f64' | 'i32' | 'u32' | 'u8';
interface FieldSpec { name: keyof Data; kind: Kind; size: number }

/**
 * The most contacts MuJoCo's narrow phase makes between a geom of each type and a plane or a box (box-box 8,
 * plane-box 4, plane-cylinder 4, plane-mesh 3, capsules 2, round geoms 1), by GeomType; planes and height fields
 * are counted through the geoms that touch them.
 */
const MOST_CONTACTS_PER_GEOM = [0, 0, 1, 2, 1, 4, 8, 3];

/**
 * Contacts per env when not given: what each geom that can collide makes at most against a plane or a box, summed,
 * and the same for each explicit <pair>, or two per geom if that is more (a pile of spheres touches several
 * neighbours each); at least 8 and at most 64. Three boxes stacked on a floor make 12 contacts and get room for
 * 24, where two per geom gave them 8.
 */
export function defaultMaxContacts(m: Model): number {
  const most = (g: number): number => MOST_CONTACTS_PER_GEOM[m.geomType[g]!] ?? 1;
  let n = 0;
  for (let g = 0; g < m.ngeom; g++) if (m.geomContype[g] !== 0 || m.geomConaffinity[g] !== 0) n += most(g);
  for (let k = 0; k < (m.npair ?? 0); k++) n += Math.max(most(m.pairGeom1![k]!), most(m.pairGeom2![k]!));
  return Math.min(64, Math.max(8, 2 * m.ngeom, n));
}

/**
 * Constraint rows per env when not given: every contact as a pyramidal cone of the largest condim, one
 * limit row per joint (two for a slide or hinge is never needed: only one side can be active), six rows
 * per equality, and one friction-loss row per dof.
 */
export function defaultMaxEfc(m: Model, maxContacts: number): number {
  let condim = 1;
  for (let g = 0; g < m.ngeom; g++) condim = Math.max(condim, m.geomCondim[g]!);
  for (let k = 0; k < (m.npair ?? 0); k++) condim = Math.max(condim, m.pairDim![k]!);
  const rowsPerContact = condim === 1 ? 1 : 2 * (condim - 1);
  // a fixed tendon: a friction row and one limit row (a limit's two sides cannot both be violated)
  return rowsPerContact * maxContacts + m.njnt + 6 * m.neq + m.nv + 2 * m.ntendon;
}

function fieldSpecs(m: Model, C: number, E: number): FieldSpec[] {
  const { nq, nv, nu, nbody, njnt, ngeom, nsite } = m;
  const r = (name: keyof Data, size: number): FieldSpec => ({ name, kind: 'real', size });
  return [
    { name: 'time', kind: 'f64', size: 1 },
    r('qpos', nq), r('qvel', nv), r('qacc', nv), r('qaccWarmstart', nv), r('ctrl', nu), r('qfrcApplied', nv),
    { name: 'dofCtrlMode', kind: 'u8', size: nv },
    r('dofCtrlPos', nv), r('dofCtrlVel', nv), r('dofCtrlForce', nv), r('dofKp', nv), r('dofKv', nv), r('dofForceRange', 2 * nv),
    r('xpos', 3 * nbody), r('xquat', 4 * nbody), r('xmat', 9 * nbody), r('xipos', 3 * nbody), r('ximat', 9 * nbody),
    r('xanchor', 3 * njnt), r('xaxis', 3 * njnt), r('geomXpos', 3 * ngeom), r('geomXmat', 9 * ngeom),
    r('siteXpos', 3 * nsite), r('siteXmat', 9 * nsite), r('subtreeCom', 3 * nbody), r('cdof', 6 * nv),
    r('cinert', 10 * nbody), r('crb', 10 * nbody), r('qM', nv * nv), r('qLD', nv * nv), r('qLDiagInv', nv),
    r('cvel', 6 * nbody), r('cdofDot', 6 * nv),
    r('actuatorLength', nu), r('actuatorVelocity', nu), r('actuatorForce', nu),
    r('qfrcBias', nv), r('qfrcPassive', nv), r('qfrcActuator', nv), r('qfrcSmooth', nv), r('qaccSmooth', nv), r('qDeriv', nv),
    r('qDerivOffdiag', hasCoupledVelocityDerivative(m) || fluidInQDeriv(m) ? nv * nv : 0),
    { name: 'ncon', kind: 'i32', size: 1 },
    r('contactPos', 3 * C), r('contactFrame', 9 * C), r('contactDist', C), r('contactIncludemargin', C),
    r('contactFriction', 5 * C), r('contactSolref', 2 * C), r('contactSolimp', 5 * C),
    { name: 'contactGeom', kind: 'i32', size: 2 * C }, { name: 'contactDim', kind: 'i32', size: C },
    { name: 'nefc', kind: 'i32', size: 1 },
    { name: 'efcType', kind: 'i32', size: E }, { name: 'efcId', kind: 'i32', size: E },
    r('efcJ', E * nv), r('efcPos', E), r('efcMargin', E), r('efcD', E), r('efcR', E), r('efcAref', E), r('efcFrictionloss', E),
    r('efcForce', E), { name: 'efcState', kind: 'i32', size: E },
    r('qfrcConstraint', nv), r('sensordata', m.nsensordata ?? 0),
    { name: 'timers', kind: 'f64', size: TIMER_SLOTS },
    { name: 'errFlags', kind: 'u32', size: 1 },
  ];
}

const specCache = new WeakMap<Data, FieldSpec[]>();

/**
 * Most bytes of simulation state makeData allocates (all envs together). Past it the allocation either fails
 * with V8's bare `Array buffer allocation failed` or pushes the machine into swap; a model with thousands of
 * dofs reaches it in one env (qM, qLD and efcJ are dense in nv).
 */
export const MAX_STATE_BYTES = 4 * 1024 ** 3;

function bytesPer(kind: Kind, precision: Precision): number {
  if (kind === 'real') return precision === '32' ? 4 : 8;
  return kind === 'f64' ? 8 : kind === 'u8' ? 1 : 4;
}

/** Field offsets (cache-line aligned: two fields never share a line) and the total byte size. */
function layoutOf(specs: FieldSpec[], n: number, precision: Precision): { offsets: number[]; bytes: number } {
  let bytes = 0;
  const offsets: number[] = [];
  for (const s of specs) {
    bytes = Math.ceil(bytes / 64) * 64;
    offsets.push(bytes);
    bytes += s.size * n * bytesPer(s.kind, precision);
  }
  return { offsets, bytes };
}

function formatBytes(b: number): string {
  return b >= 1024 ** 3 ? `${(b / 1024 ** 3).toFixed(1)} GiB` : b >= 1024 ** 2 ? `${(b / 1024 ** 2).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`;
}

/** Bytes of state makeData would allocate for `nEnvs` envs (0 = unbatched, one env). */
export function stateBytes(m: Model, nEnvs: number, precision: Precision, opts: DataOptions = {}): number {
  const maxContacts = opts.maxContacts ?? defaultMaxContacts(m);
  const maxEfc = opts.maxEfc ?? defaultMaxEfc(m, maxContacts);
  return layoutOf(fieldSpecs(m, maxContacts, maxEfc), Math.max(1, nEnvs), precision).bytes;
}

/**
 * Throws a one-line error naming the size when a build for `nEnvs` envs would allocate more than MAX_STATE_BYTES;
 * called before anything model-sized is allocated. Counted: the state (this file), the per-env f64 factor of
 * M + h*B (scratch.ts) and one solver problem's dense nv x nv matrices and Jacobian (solver/problem.ts), so the
 * figure is a lower bound of what the build allocates.
 */
export function checkStateFits(m: Model, nEnvs: number, precision: Precision, opts: DataOptions = {}): void {
  const maxContacts = opts.maxContacts ?? defaultMaxContacts(m);
  const maxEfc = opts.maxEfc ?? defaultMaxEfc(m, maxContacts);
  const perEnv = stateBytes(m, 0, precision, opts) + 8 * m.nv * m.nv;
  const solver = 16 * m.nv * m.nv + 12 * maxEfc * m.nv;
  const n = Math.max(1, nEnvs);
  const total = perEnv * n + solver;
  if (total <= MAX_STATE_BYTES) return;
  const envs = `${n} env${n === 1 ? '' : 's'} x ${formatBytes(perEnv)}`;
  const fits = Math.max(0, Math.floor((MAX_STATE_BYTES - solver) / perEnv));
  throw new Error(
    `the simulation would need at least ${formatBytes(total)} (${envs}, plus ${formatBytes(solver)} of solver; nv ${m.nv}, ` +
    `with dense ${m.nv} x ${m.nv} matrices), over the ${formatBytes(MAX_STATE_BYTES)} limit: the largest nEnvs that fits is ${fits}`,
  );
}

/**
 * A Data for `nEnvs` envs (0 = unbatched, stored as one env) in f32 or f64, every env at qpos0 with zero
 * velocity, and the Genesis dof gains taken from position-like actuators (see data.ts).
 */
export function makeData(m: Model, nEnvs: number, precision: Precision, opts: DataOptions = {}): Data {
  if (!Number.isInteger(nEnvs) || nEnvs < 0) throw new Error(`makeData: nEnvs must be a non-negative integer, got ${nEnvs}`);
  if (precision !== '32' && precision !== '64') throw new Error(`makeData: precision must be '32' or '64', got ${String(precision)}`);
  checkStateFits(m, nEnvs, precision, opts); // before planOf, whose sparse structure grows with nv x depth
  planOf(m); // validates the model's transmissions once, before anything runs
  const n = Math.max(1, nEnvs);
  const maxContacts = opts.maxContacts ?? defaultMaxContacts(m);
  const maxEfc = opts.maxEfc ?? defaultMaxEfc(m, maxContacts);
  const specs = fieldSpecs(m, maxContacts, maxEfc);
  const { offsets, bytes } = layoutOf(specs, n, precision);
  const buffer = new SharedArrayBuffer(Math.max(8, bytes));
  const d: Record<string, unknown> = { nEnvs: n, batched: nEnvs > 0, precision, maxContacts, maxEfc };
  specs.forEach((s, i) => {
    const len = s.size * n;
    const off = offsets[i]!;
    switch (s.kind) {
      case 'real': d[s.name] = precision === '32' ? new Float32Array(buffer, off, len) : new Float64Array(buffer, off, len); break;
      case 'f64': d[s.name] = new Float64Array(buffer, off, len); break;
      case 'i32': d[s.name] = new Int32Array(buffer, off, len); break;
      case 'u32': d[s.name] = new Uint32Array(buffer, off, len); break;
      case 'u8': d[s.name] = new Uint8Array(buffer, off, len); break;
    }
  });
  const data = fastData(d as unknown as Data);
  specCache.set(data, specs);
  initDofGains(m, data);
  resetData(m, data);
  return data;
}

/** Per-dof PD gains and force range, in joint space. */
export interface DofGains { kp: Float64Array; kv: Float64Array; lower: Float64Array; upper: Float64Array }

/**
 * Genesis' per-dof PD gains at build, from the actuator on the dof mapped through its gear to joint space: a
 * position-like actuator (gain kp, bias [0, -kp, -kv]) gives kp and kv; a velocity-like one (gain kv, bias
 * [0, 0, -kv]) gives kv, so controlDofsVelocity drives it. 0 without one (the API may set URDF defaults).
 */
export function buildDofGains(m: Model): DofGains {
  const plan = planOf(m);
  const gains: DofGains = {
    kp: new Float64Array(m.nv), kv: new Float64Array(m.nv),
    lower: new Float64Array(m.nv).fill(-Infinity), upper: new Float64Array(m.nv).fill(Infinity),
  };
  for (let i = 0; i < m.nv; i++) {
    const u = plan.dofActuator[i]!;
    if (u < 0 || m.actuatorGaintype[u] !== GainType.Fixed || m.actuatorBiastype[u] !== BiasType.Affine) continue;
    const gain = m.actuatorGainprm[10 * u]!, b0 = m.actuatorBiasprm[10 * u]!;
    const b1 = m.actuatorBiasprm[10 * u + 1]!, b2 = m.actuatorBiasprm[10 * u + 2]!;
    const g = m.actuatorGear[6 * u]!;
    const positionLike = gain === -b1;
    const velocityLike = b0 === 0 && b1 === 0 && gain === -b2;
    if (!positionLike && !velocityLike) continue;
    gains.kp[i] = positionLike ? gain * g * g : 0;
    gains.kv[i] = (0 - b2) * g * g; // +0, not -0, for kv 0
    if (m.actuatorForcelimited[u]) {
      const a = m.actuatorForcerange[2 * u]! * g, b = m.actuatorForcerange[2 * u + 1]! * g;
      gains.lower[i] = Math.min(a, b); gains.upper[i] = Math.max(a, b);
    }
  }
  return gains;
}

function initDofGains(m: Model, d: Data): void {
  const n = d.nEnvs;
  const { kp, kv, lower, upper } = buildDofGains(m);
  for (let i = 0; i < m.nv; i++) {
    d.dofKp.fill(kp[i]!, i * n, (i + 1) * n);
    d.dofKv.fill(kv[i]!, i * n, (i + 1) * n);
    d.dofForceRange.fill(lower[i]!, 2 * i * n, (2 * i + 1) * n);
    d.dofForceRange.fill(upper[i]!, (2 * i + 1) * n, (2 * i + 2) * n);
  }
}

/** Fields a reset keeps: the dof gains are settings (setDofsKp/Kv), not state. */
const KEEP_ON_RESET = new Set<keyof Data>(['dofKp', 'dofKv', 'dofForceRange']);

/**
 * Resets envs (all when `envs` is omitted) as mj_resetData: qpos = qpos0, time and every other state and
 * derived quantity zero, controls zero and every dof back to DofCtrlMode.None (0). Dof gains are kept.
 */
export function resetData(m: Model, d: Data, envs?: ArrayLike<number>): void {
  const n = d.nEnvs;
  const specs = specCache.get(d) ?? fieldSpecs(m, d.maxContacts, d.maxEfc);
  const all = envs === undefined;
  const count = all ? n : envs.length;
  for (let t = 0; t < count; t++) {
    const e = all ? t : envs[t]!;
    if (!Number.isInteger(e) || e < 0 || e >= n) throw new Error(`resetData: env index ${e} out of range [0, ${n})`);
  }
  for (const s of specs) {
    if (KEEP_ON_RESET.has(s.name)) continue;
    const a = d[s.name] as Real | Int32Array | Uint32Array | Uint8Array;
    if (all) { a.fill(0); continue; }
    for (let k = 0; k < s.size; k++) for (let t = 0; t < count; t++) a[k * n + envs[t]!] = 0;
  }
  for (let k = 0; k < m.nq; k++) {
    const v = m.qpos0[k]!;
    if (all) d.qpos.fill(v, k * n, (k + 1) * n);
    else for (let t = 0; t < count; t++) d.qpos[k * n + envs[t]!] = v;
  }
}

/** Bytes of state one env holds in `d` (every array, divided by nEnvs). */
export function bytesPerEnv(d: Data): number {
  let bytes = 0;
  for (const v of Object.values(d as unknown as Record<string, unknown>)) {
    if (ArrayBuffer.isView(v)) bytes += v.byteLength;
  }
  return bytes / d.nEnvs;
}

/**
 * The same Data as one object literal, so V8 keeps it in fast-property mode. An object that gets its ~70
 * fields one by one (by computed key, as makeData and a worker's attach do) falls back to dictionary mode,
 * where every field read is a hash lookup. Arrays are shared, not copied.
 */
export function fastData(d: Data): Data {
  return {
    nEnvs: d.nEnvs, batched: d.batched, precision: d.precision, time: d.time, qpos: d.qpos, qvel: d.qvel,
    qacc: d.qacc, qaccWarmstart: d.qaccWarmstart, ctrl: d.ctrl, qfrcApplied: d.qfrcApplied,
    dofCtrlMode: d.dofCtrlMode, dofCtrlPos: d.dofCtrlPos, dofCtrlVel: d.dofCtrlVel, dofCtrlForce: d.dofCtrlForce,
    dofKp: d.dofKp, dofKv: d.dofKv, dofForceRange: d.dofForceRange, xpos: d.xpos, xquat: d.xquat, xmat: d.xmat,
    xipos: d.xipos, ximat: d.ximat, xanchor: d.xanchor, xaxis: d.xaxis, geomXpos: d.geomXpos, geomXmat: d.geomXmat,
    siteXpos: d.siteXpos, siteXmat: d.siteXmat, subtreeCom: d.subtreeCom, cdof: d.cdof, cinert: d.cinert,
    crb: d.crb, qM: d.qM, qLD: d.qLD, qLDiagInv: d.qLDiagInv, cvel: d.cvel, cdofDot: d.cdofDot,
    actuatorLength: d.actuatorLength, actuatorVelocity: d.actuatorVelocity, actuatorForce: d.actuatorForce,
    qfrcBias: d.qfrcBias, qfrcPassive: d.qfrcPassive, qfrcActuator: d.qfrcActuator, qfrcSmooth: d.qfrcSmooth,
    qaccSmooth: d.qaccSmooth, qDeriv: d.qDeriv, qDerivOffdiag: d.qDerivOffdiag, maxContacts: d.maxContacts, maxEfc: d.maxEfc, ncon: d.ncon,
    contactPos: d.contactPos, contactFrame: d.contactFrame, contactDist: d.contactDist,
    contactIncludemargin: d.contactIncludemargin, contactFriction: d.contactFriction,
    contactSolref: d.contactSolref, contactSolimp: d.contactSolimp, contactGeom: d.contactGeom,
    contactDim: d.contactDim, nefc: d.nefc,
    efcType: d.efcType, efcId: d.efcId, efcJ: d.efcJ, efcPos: d.efcPos, efcMargin: d.efcMargin, efcD: d.efcD,
    efcR: d.efcR, efcAref: d.efcAref, efcFrictionloss: d.efcFrictionloss, efcForce: d.efcForce,
    efcState: d.efcState, qfrcConstraint: d.qfrcConstraint, sensordata: d.sensordata, timers: d.timers, errFlags: d.errFlags,
  };
}
