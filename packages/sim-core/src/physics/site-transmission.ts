/**
 * Site transmissions (MuJoCo's mj_transmission, case mjTRN_SITE), one env at a time: an actuator's length and its
 * dense moment row d(length)/d(qvel), from Data's site poses, body quaternions, subtree coms and cdof (kinematics
 * and com must have run).
 * - No refsite: the gear is a wrench at the site in the site's frame (gear[0:3] a force, gear[3:6] a torque); the
 *   length is 0 and the moment the site's translational and rotational Jacobians projected on that wrench in the
 *   world frame.
 * - With a refsite: the length is the site's position in the refsite's frame dotted with gear[0:3], plus the
 *   rotation from the refsite to the site (an axis-angle vector) dotted with gear[3:6]; the moment is the
 *   difference of the two sites' Jacobians (the dofs both hang from cleared) projected on the gear in the
 *   refsite's frame. As in MuJoCo 3.3, each site's quaternion is site_quat * xquat of its body, in that order.
 */
import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';
import { subQuat } from '../math/quat.js';
import { addPointJacobian, gatherCdof } from '../solver/jacobian.js';

export class SiteTransmission {
  /** The last computed actuator's moment row (nv). */
  readonly moment: Float64Array;
  length = 0;
  private readonly jac: Float64Array;
  private readonly jacS: Float64Array;
  private readonly refP: Float64Array;
  private readonly refR: Float64Array;
  private readonly cdof: Float64Array;
  private readonly q = new Float64Array(4);
  private readonly refq = new Float64Array(4);
  private readonly vec = new Float64Array(3);

  constructor(private readonly m: Model) {
    const nv = Math.max(1, m.nv);
    this.moment = new Float64Array(nv);
    this.jac = new Float64Array(3 * nv);
    this.jacS = new Float64Array(3 * nv);
    this.refP = new Float64Array(3 * nv);
    this.refR = new Float64Array(3 * nv);
    this.cdof = new Float64Array(6 * nv);
  }

  /** Computes actuator u (a site transmission) in env e: sets length, fills moment. */
  compute(d: Data, u: number, e: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs;
    const gear = m.actuatorGear, g = 6 * u;
    const id = m.actuatorTrnid[2 * u]!, refid = m.actuatorTrnid[2 * u + 1]!;
    const { jac, jacS, moment } = this;
    gatherCdof(d, this.m.nv, e, this.cdof);
    this.siteJacobian(d, e, id, jac, jacS);
    moment.fill(0);
    this.length = 0;
    const xm = d.siteXmat;
    if (refid === -1) {
      // wrench: the gear in the global frame, projected through the site's Jacobians
      const R = (s: number, r: number, c: number): number => xm[(9 * s + 3 * r + c) * n + e]!;
      for (let r = 0; r < 3; r++) {
        const f = R(id, r, 0) * gear[g]! + R(id, r, 1) * gear[g + 1]! + R(id, r, 2) * gear[g + 2]!;
        if (f !== 0) for (let i = 0; i < nv; i++) moment[i] = moment[i]! + jac[r * nv + i]! * f;
      }
      // the rotational part is summed on its own, then added (MuJoCo's order)
      const rot = this.refP;
      rot.fill(0, 0, nv);
      for (let r = 0; r < 3; r++) {
        const t = R(id, r, 0) * gear[g + 3]! + R(id, r, 1) * gear[g + 4]! + R(id, r, 2) * gear[g + 5]!;
        if (t !== 0) for (let i = 0; i < nv; i++) rot[i] = rot[i]! + jacS[r * nv + i]! * t;
      }
      for (let i = 0; i < nv; i++) moment[i] = moment[i]! + rot[i]!;
      return;
    }
    this.withRefsite(d, e, u, id, refid);
  }

  private withRefsite(d: Data, e: number, u: number, id: number, refid: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs;
    const gear = m.actuatorGear, g = 6 * u;
    const { jac, jacS, refP, refR, moment } = this;
    const xm = d.siteXmat, xp = d.siteXpos;
    const R = (s: number, r: number, c: number): number => xm[(9 * s + 3 * r + c) * n + e]!;
    const common = this.commonDof(id, refid);

    if (gear[g] !== 0 || gear[g + 1] !== 0 || gear[g + 2] !== 0) {
      // the site's position in the refsite's frame
      const dx = xp[3 * id * n + e]! - xp[3 * refid * n + e]!;
      const dy = xp[(3 * id + 1) * n + e]! - xp[(3 * refid + 1) * n + e]!;
      const dz = xp[(3 * id + 2) * n + e]! - xp[(3 * refid + 2) * n + e]!;
      const v0 = R(refid, 0, 0) * dx + R(refid, 1, 0) * dy + R(refid, 2, 0) * dz;
      const v1 = R(refid, 0, 1) * dx + R(refid, 1, 1) * dy + R(refid, 2, 1) * dz;
      const v2 = R(refid, 0, 2) * dx + R(refid, 1, 2) * dy + R(refid, 2, 2) * dz;
      this.length += v0 * gear[g]! + v1 * gear[g + 1]! + v2 * gear[g + 2]!;
      this.siteJacobian(d, e, refid, refP, null);
      for (let k = 0; k < 3 * nv; k++) jac[k] = jac[k]! - refP[k]!;
      for (let da = common; da >= 0; da = m.dofParentid[da]!) { jac[da] = 0; jac[nv + da] = 0; jac[2 * nv + da] = 0; }
      for (let r = 0; r < 3; r++) {
        const f = R(refid, r, 0) * gear[g]! + R(refid, r, 1) * gear[g + 1]! + R(refid, r, 2) * gear[g + 2]!;
        if (f !== 0) for (let i = 0; i < nv; i++) moment[i] = moment[i]! + jac[r * nv + i]! * f;
      }
    }

    if (gear[g + 3] !== 0 || gear[g + 4] !== 0 || gear[g + 5] !== 0) {
      const q = this.q, rq = this.refq;
      this.siteQuat(d, e, id, q);
      this.siteQuat(d, e, refid, rq);
      // the rotation vector from the refsite's quaternion to the site's
      const v = this.vec;
      subQuat(v, q[0]!, q[1]!, q[2]!, q[3]!, rq[0]!, rq[1]!, rq[2]!, rq[3]!);
      this.length += v[0]! * gear[g + 3]! + v[1]! * gear[g + 4]! + v[2]! * gear[g + 5]!;
      refR.fill(0);
      this.siteJacobian(d, e, refid, refP, refR);
      for (let k = 0; k < 3 * nv; k++) jacS[k] = jacS[k]! - refR[k]!;
      for (let da = common; da >= 0; da = m.dofParentid[da]!) { jacS[da] = 0; jacS[nv + da] = 0; jacS[2 * nv + da] = 0; }
      const rot = refP;
      rot.fill(0, 0, nv);
      for (let r = 0; r < 3; r++) {
        const t = R(refid, r, 0) * gear[g + 3]! + R(refid, r, 1) * gear[g + 4]! + R(refid, r, 2) * gear[g + 5]!;
        if (t !== 0) for (let i = 0; i < nv; i++) rot[i] = rot[i]! + jacS[r * nv + i]! * t;
      }
      for (let i = 0; i < nv; i++) moment[i] = moment[i]! + rot[i]!;
    }
  }

  /** The last dof both sites' bodies hang from (-1: none), found as MuJoCo does by walking up dof_parentid. */
  private commonDof(id: number, refid: number): number {
    const m = this.m;
    const b0 = m.bodyWeldid[m.siteBodyid[id]!]!, b1 = m.bodyWeldid[m.siteBodyid[refid]!]!;
    let d0 = m.bodyDofadr[b0]! + m.bodyDofnum[b0]! - 1;
    let d1 = m.bodyDofadr[b1]! + m.bodyDofnum[b1]! - 1;
    if (d0 < 0 || d1 < 0) return -1;
    while (d0 !== d1) {
      if (d0 < d1) d1 = m.dofParentid[d1]!;
      else d0 = m.dofParentid[d0]!;
      if (d0 === -1 || d1 === -1) break;
    }
    return d0 === d1 ? d0 : -1;
  }

  /** site_quat * xquat of the site's body (MuJoCo 3.3's order), into out. */
  private siteQuat(d: Data, e: number, s: number, out: Float64Array): void {
    const m = this.m, n = d.nEnvs, b = m.siteBodyid[s]!, xq = d.xquat;
    const aw = m.siteQuat[4 * s]!, ax = m.siteQuat[4 * s + 1]!, ay = m.siteQuat[4 * s + 2]!, az = m.siteQuat[4 * s + 3]!;
    const bw = xq[4 * b * n + e]!, bx = xq[(4 * b + 1) * n + e]!, by = xq[(4 * b + 2) * n + e]!, bz = xq[(4 * b + 3) * n + e]!;
    out[0] = aw * bw - ax * bx - ay * by - az * bz;
    out[1] = aw * bx + ax * bw + ay * bz - az * by;
    out[2] = aw * by - ax * bz + ay * bw + az * bx;
    out[3] = aw * bz + ax * by - ay * bx + az * bw;
  }

  /** MuJoCo's mj_jacSite: site s's translational Jacobian into jp, rotational into jr (each 3 x nv). */
  private siteJacobian(d: Data, e: number, s: number, jp: Float64Array, jr: Float64Array | null): void {
    const m = this.m, n = d.nEnvs, xp = d.siteXpos;
    jp.fill(0);
    jr?.fill(0);
    addPointJacobian(m, d.subtreeCom, n, e, this.cdof, m.siteBodyid[s]!,
      xp[3 * s * n + e]!, xp[(3 * s + 1) * n + e]!, xp[(3 * s + 2) * n + e]!, 1, jp, jr);
  }

}

const scratch = new WeakMap<Model, SiteTransmission>();

/** The model's SiteTransmission scratch (one per model and thread: stages run one env at a time). */
export function siteTransmissionOf(m: Model): SiteTransmission {
  let s = scratch.get(m);
  if (!s) { s = new SiteTransmission(m); scratch.set(m, s); }
  return s;
}
