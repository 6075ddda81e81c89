/**
 * A tendon's state. Fixed: length sum(coef * qpos) and velocity sum(coef * qvel) over its joints. Spatial
 * (MuJoCo's mj_tendon): the length of its path through sites, each branch after a pulley divided by the
 * pulley's divisor, and its Jacobian: per segment between sites on different bodies, the difference of the two
 * sites' point Jacobians projected on the segment's unit direction, divided by the divisor.
 */
import type { Data, Real } from '../data/data.js';
import { type Model, WrapType } from '../model/model.js';
import { addPointJacobian } from '../solver/jacobian.js';

const MINVAL = 1e-15;
const PULLEY: number = WrapType.Pulley;

/** Writes fixed tendon t's [length, velocity] in env e of SoA arrays with n envs into out. */
export function tendonState(m: Model, t: number, qpos: Real, qvel: Real, n: number, e: number, out: Float64Array): void {
  let length = 0, velocity = 0;
  for (let w = m.tendonAdr[t]!; w < m.tendonAdr[t]! + m.tendonNum[t]!; w++) {
    const j = m.wrapObjid[w]!, c = m.wrapPrm[w]!;
    length += c * qpos[m.jntQposadr[j]! * n + e]!;
    velocity += c * qvel[m.jntDofadr[j]! * n + e]!;
  }
  out[0] = length;
  out[1] = velocity;
}

/** True when tendon t is spatial (its wraps are sites and pulleys, not joints). */
export function isSpatial(m: Model, t: number): boolean {
  return m.tendonNum[t]! > 0 && m.wrapType[m.tendonAdr[t]!] !== WrapType.Joint;
}

/** True when the model has a spatial tendon. */
export function hasSpatialTendons(m: Model): boolean {
  for (let t = 0; t < m.ntendon; t++) if (isSpatial(m, t)) return true;
  return false;
}

/**
 * Spatial tendons of one env at a time: `length` and the dense Jacobian `J` (nv) of the last tendon computed,
 * from Data's site positions, subtree coms and cdof (kinematics and com must have run).
 */
export class SpatialTendons {
  /** The last computed tendon's Jacobian d(length)/d(qvel). */
  readonly J: Float64Array;
  length = 0;
  private readonly jp: Float64Array;
  private readonly cdof: Float64Array;

  constructor(private readonly m: Model) {
    const nv = Math.max(1, m.nv);
    this.J = new Float64Array(nv);
    this.jp = new Float64Array(3 * nv);
    this.cdof = new Float64Array(6 * nv);
  }

  /** Computes spatial tendon t in env e: sets length, fills J. */
  compute(d: Data, t: number, e: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs, J = this.J, jp = this.jp, xpos = d.siteXpos;
    this.gather(d, e);
    J.fill(0);
    const adr = m.tendonAdr[t]!, num = m.tendonNum[t]!;
    let length = 0, divisor = 1;
    for (let j = 0; j < num - 1; j++) {
      const w = adr + j;
      if (m.wrapType[w] === PULLEY) { divisor = m.wrapPrm[w]!; continue; }
      if (m.wrapType[w + 1] === PULLEY) continue;
      const s0 = m.wrapObjid[w]!, s1 = m.wrapObjid[w + 1]!;
      const ax = xpos[3 * s0 * n + e]!, ay = xpos[(3 * s0 + 1) * n + e]!, az = xpos[(3 * s0 + 2) * n + e]!;
      const bx = xpos[3 * s1 * n + e]!, by = xpos[(3 * s1 + 1) * n + e]!, bz = xpos[(3 * s1 + 2) * n + e]!;
      let dx = bx - ax, dy = by - ay, dz = bz - az;
      const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
      length += dist / divisor;
      const b0 = m.siteBodyid[s0]!, b1 = m.siteBodyid[s1]!;
      // sites on one body keep their distance: no Jacobian
      if (b0 === b1) continue;
      if (dist < MINVAL) { dx = 1; dy = 0; dz = 0; }
      else { const inv = 1 / dist; dx *= inv; dy *= inv; dz *= inv; }
      jp.fill(0);
      addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b1, bx, by, bz, 1, jp, null);
      addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b0, ax, ay, az, -1, jp, null);
      const scale = 1 / divisor;
      for (let i = 0; i < nv; i++) J[i] = J[i]! + scale * (jp[i]! * dx + jp[nv + i]! * dy + jp[2 * nv + i]! * dz);
    }
    this.length = length;
  }

  /** J . qvel of env e for the last computed tendon: its velocity. */
  velocity(d: Data, e: number): number {
    const nv = this.m.nv, n = d.nEnvs, q = d.qvel, J = this.J;
    let v = 0;
    for (let i = 0; i < nv; i++) v += J[i]! * q[i * n + e]!;
    return v;
  }

  private gather(d: Data, e: number): void {
    const n = d.nEnvs, len = 6 * this.m.nv, src = d.cdof, dst = this.cdof;
    for (let k = 0; k < len; k++) dst[k] = src[k * n + e]!;
  }
}

const scratch = new WeakMap<Model, SpatialTendons>();

/** The model's SpatialTendons scratch (one per model and thread: stages run one env at a time). */
export function spatialTendonsOf(m: Model): SpatialTendons {
  let s = scratch.get(m);
  if (!s) { s = new SpatialTendons(m); scratch.set(m, s); }
  return s;
}
