/**
 * A tendon's state. Fixed: length sum(coef * qpos) and velocity sum(coef * qvel) over its joints. Spatial
 * (MuJoCo's mj_tendon): the length of its path through sites, around the geoms it wraps (tendon-wrap.ts), each
 * branch after a pulley divided by the pulley's divisor, and its Jacobian: per straight piece between points on
 * different bodies (a tangent point moves with its geom), the difference of the two points' Jacobians
 * projected on the piece's unit direction, divided by the divisor.
 */
import type { Data, Real } from '../data/data.js';
import { type Model, WrapType } from '../model/model.js';
import { addPointJacobian, gatherCdof } from '../solver/jacobian.js';
import { type WrapGeom, wrapGeom } from './tendon-wrap.js';

const MINVAL = 1e-15;
const PULLEY: number = WrapType.Pulley;
const SPHERE: number = WrapType.Sphere;
const CYLINDER: number = WrapType.Cylinder;

function dist(p: Float64Array, a: number, b: number): number {
  const dx = p[a]! - p[b]!, dy = p[a + 1]! - p[b + 1]!, dz = p[a + 2]! - p[b + 2]!;
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

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
  /** The path points of one step: site, up to two tangent points, site (4 x 3), then the side site (3). */
  private readonly pts = new Float64Array(15);
  private readonly wbody = new Int32Array(4);
  private readonly wpnt = new Float64Array(6);
  private readonly geom: WrapGeom;

  constructor(private readonly m: Model) {
    const nv = Math.max(1, m.nv);
    this.J = new Float64Array(nv);
    this.jp = new Float64Array(3 * nv);
    this.cdof = new Float64Array(6 * nv);
    // the wrapped geom, its Data fields and env bound in compute
    this.geom = { xpos: this.cdof, xmat: this.cdof, n: 1, e: 0, geom: 0, radius: 0, cylinder: false };
  }

  /** Computes spatial tendon t in env e: sets length, fills J. */
  compute(d: Data, t: number, e: number): void {
    const m = this.m, n = d.nEnvs, pts = this.pts, wbody = this.wbody, geom = this.geom;
    gatherCdof(d, m.nv, e, this.cdof);
    this.J.fill(0);
    geom.xpos = d.geomXpos; geom.xmat = d.geomXmat; geom.n = n; geom.e = e;
    const adr = m.tendonAdr[t]!, num = m.tendonNum[t]!;
    let length = 0, divisor = 1, j = 0;
    while (j < num - 1) {
      const w = adr + j;
      const type0 = m.wrapType[w]!, type1 = m.wrapType[w + 1]!;
      if (type0 === PULLEY || type1 === PULLEY) {
        if (type0 === PULLEY) divisor = m.wrapPrm[w]!;
        j++;
        continue;
      }
      const s0 = m.wrapObjid[w]!;
      this.site(d, e, s0, 0);
      wbody[0] = m.siteBodyid[s0]!;
      const wrapped = type1 === SPHERE || type1 === CYLINDER;
      const s1 = m.wrapObjid[w + (wrapped ? 2 : 1)]!;
      let wlen = -1;
      if (wrapped) {
        // site, geom, site: possibly two tangent points between them
        const g = m.wrapObjid[w + 1]!, sideid = Math.round(m.wrapPrm[w + 1]!);
        this.site(d, e, s1, 9);
        if (sideid >= 0) this.site(d, e, sideid, 12);
        geom.geom = g; geom.radius = m.geomSize[3 * g]!; geom.cylinder = type1 === CYLINDER;
        wlen = wrapGeom(this.wpnt, pts, 0, 9, sideid >= 0 ? 12 : -1, geom);
        if (wlen >= 0) {
          pts.set(this.wpnt, 3);
          wbody[1] = m.geomBodyid[g]!; wbody[2] = wbody[1]!; wbody[3] = m.siteBodyid[s1]!;
        }
      }
      if (wlen < 0) {
        this.site(d, e, s1, 3);
        wbody[1] = m.siteBodyid[s1]!;
        length += dist(pts, 0, 3) / divisor;
      } else {
        length += (dist(pts, 0, 3) + wlen + dist(pts, 6, 9)) / divisor;
      }
      // points on one body keep their distance: no Jacobian
      for (let k = 0; k < (wlen < 0 ? 1 : 3); k++) if (wbody[k] !== wbody[k + 1]) this.segment(d, e, 3 * k, wbody[k]!, wbody[k + 1]!, divisor);
      j += wrapped ? 2 : 1;
    }
    this.length = length;
  }

  /** Copies site s's position in env e to pts[at..at+3]. */
  private site(d: Data, e: number, s: number, at: number): void {
    const n = d.nEnvs, sx = d.siteXpos, pts = this.pts;
    for (let k = 0; k < 3; k++) pts[at + k] = sx[(3 * s + k) * n + e]!;
  }

  /** Adds the segment pts[a..a+3] (on body b0) to pts[a+3..a+6] (on body b1) to J, over the divisor. */
  private segment(d: Data, e: number, a: number, b0: number, b1: number, divisor: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs, pts = this.pts, jp = this.jp, J = this.J;
    const ax = pts[a]!, ay = pts[a + 1]!, az = pts[a + 2]!, bx = pts[a + 3]!, by = pts[a + 4]!, bz = pts[a + 5]!;
    let dx = bx - ax, dy = by - ay, dz = bz - az;
    const norm = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (norm < MINVAL) { dx = 1; dy = 0; dz = 0; }
    else { const inv = 1 / norm; dx *= inv; dy *= inv; dz *= inv; }
    jp.fill(0);
    addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b1, bx, by, bz, 1, jp, null);
    addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b0, ax, ay, az, -1, jp, null);
    const scale = 1 / divisor;
    for (let i = 0; i < nv; i++) J[i] = J[i]! + scale * (jp[i]! * dx + jp[nv + i]! * dy + jp[2 * nv + i]! * dz);
  }

  /** J . qvel of env e for the last computed tendon: its velocity. */
  velocity(d: Data, e: number): number {
    const nv = this.m.nv, n = d.nEnvs, q = d.qvel, J = this.J;
    let v = 0;
    for (let i = 0; i < nv; i++) v += J[i]! * q[i * n + e]!;
    return v;
  }
}

const scratch = new WeakMap<Model, SpatialTendons>();

/** The model's SpatialTendons scratch (one per model and thread: stages run one env at a time). */
export function spatialTendonsOf(m: Model): SpatialTendons {
  let s = scratch.get(m);
  if (!s) { s = new SpatialTendons(m); scratch.set(m, s); }
  return s;
}
