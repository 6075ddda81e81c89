/**
 * Fluid forces, MuJoCo's inertia-box model (mj_fluid / mj_inertiaBoxFluidModel), one env at a time. Each body with
 * mass is the box of uniform density with its inertia; its com velocity in its inertial frame, less the wind,
 * gives viscous drag (Stokes: a sphere of the box's mean side, when viscosity > 0) and quadratic drag on the box's
 * faces (when density > 0), applied at the com through the body's Jacobians (mj_applyFT). Needs Data's cvel
 * (mj_comVel), xipos, ximat, subtree coms and cdof.
 */
import type { Data } from '../data/data.js';
import { Integrator, type Model, type ModelOptions } from '../model/model.js';
import { addPointJacobian, gatherCdof } from '../solver/jacobian.js';

const MINVAL = 1e-15;

/** True when the model's options make MuJoCo run mj_fluid (density or viscosity positive). */
export function hasFluid(m: Model): boolean {
  return (m.opt.density ?? 0) > 0 || (m.opt.viscosity ?? 0) > 0;
}

/**
 * Under implicitfast MuJoCo adds the fluid forces' velocity derivative (mjd_inertiaBoxFluid, which couples a body's
 * dofs) to qDeriv; sim-core's qDeriv is diagonal, so the pair is refused rather than integrated differently. The
 * loader refuses it with file and line when the file sets both; this catches a scene whose options choose it.
 */
export function refuseFluidUnderImplicitFast(opt: ModelOptions): void {
  if (((opt.density ?? 0) > 0 || (opt.viscosity ?? 0) > 0) && opt.integrator === Integrator.ImplicitFast) {
    throw new Error('fluid forces (<option density> or <option viscosity>) under the implicitfast integrator are not supported (their velocity derivative couples dofs); use integrator euler');
  }
}

/** The fluid options for the build log line, e.g. "density=1.225, viscosity=1.8e-05, wind=[0, 0, 0]". */
export function describeFluid(opt: ModelOptions): string {
  const w = opt.wind ?? [0, 0, 0];
  return `density=${opt.density ?? 0}, viscosity=${opt.viscosity ?? 0}, wind=[${w.join(', ')}]`;
}

export class InertiaBoxFluid {
  /** qfrc_fluid of the last computed env (nv). */
  readonly qfrc: Float64Array;
  private readonly jp: Float64Array;
  private readonly jr: Float64Array;
  private readonly cdof: Float64Array;
  /** Each body's box sides (3 per body; unused for massless bodies). */
  private readonly box: Float64Array;

  constructor(private readonly m: Model) {
    const nv = Math.max(1, m.nv);
    this.qfrc = new Float64Array(nv);
    this.jp = new Float64Array(3 * nv);
    this.jr = new Float64Array(3 * nv);
    this.cdof = new Float64Array(6 * nv);
    this.box = new Float64Array(3 * m.nbody);
    for (let b = 1; b < m.nbody; b++) {
      const mass = m.bodyMass[b]!, I = m.bodyInertia;
      const i0 = I[3 * b]!, i1 = I[3 * b + 1]!, i2 = I[3 * b + 2]!;
      this.box[3 * b] = Math.sqrt(Math.max(MINVAL, i1 + i2 - i0) / mass * 6.0);
      this.box[3 * b + 1] = Math.sqrt(Math.max(MINVAL, i0 + i2 - i1) / mass * 6.0);
      this.box[3 * b + 2] = Math.sqrt(Math.max(MINVAL, i0 + i1 - i2) / mass * 6.0);
    }
  }

  /** Fills qfrc with env e's fluid forces. */
  compute(d: Data, e: number): void {
    const m = this.m, nv = m.nv, n = d.nEnvs, qfrc = this.qfrc;
    const density = m.opt.density ?? 0, viscosity = m.opt.viscosity ?? 0;
    const wind = m.opt.wind ?? [0, 0, 0];
    const { cvel, xipos, ximat, subtreeCom } = d;
    qfrc.fill(0);
    gatherCdof(d, nv, e, this.cdof);
    for (let b = 1; b < m.nbody; b++) {
      if (m.bodyMass[b]! < MINVAL) continue;
      const b0 = this.box[3 * b]!, b1 = this.box[3 * b + 1]!, b2 = this.box[3 * b + 2]!;
      const X = (r: number, c: number): number => ximat[(9 * b + 3 * r + c) * n + e]!;
      // mj_objectVelocity(mjOBJ_BODY, local): cvel moved from the root's subtree com to the com, in the inertial frame
      const root = m.bodyRootid[b]!;
      const px = xipos[3 * b * n + e]!, py = xipos[(3 * b + 1) * n + e]!, pz = xipos[(3 * b + 2) * n + e]!;
      const dx = px - subtreeCom[3 * root * n + e]!, dy = py - subtreeCom[(3 * root + 1) * n + e]!, dz = pz - subtreeCom[(3 * root + 2) * n + e]!;
      const w0 = cvel[6 * b * n + e]!, w1 = cvel[(6 * b + 1) * n + e]!, w2 = cvel[(6 * b + 2) * n + e]!;
      const l0 = cvel[(6 * b + 3) * n + e]! - (dy * w2 - dz * w1);
      const l1 = cvel[(6 * b + 4) * n + e]! - (dz * w0 - dx * w2);
      const l2 = cvel[(6 * b + 5) * n + e]! - (dx * w1 - dy * w0);
      const a0 = X(0, 0) * w0 + X(1, 0) * w1 + X(2, 0) * w2;
      const a1 = X(0, 1) * w0 + X(1, 1) * w1 + X(2, 1) * w2;
      const a2 = X(0, 2) * w0 + X(1, 2) * w1 + X(2, 2) * w2;
      // less the wind, in the same frame
      const v0 = (X(0, 0) * l0 + X(1, 0) * l1 + X(2, 0) * l2) - (X(0, 0) * wind[0] + X(1, 0) * wind[1] + X(2, 0) * wind[2]);
      const v1 = (X(0, 1) * l0 + X(1, 1) * l1 + X(2, 1) * l2) - (X(0, 1) * wind[0] + X(1, 1) * wind[1] + X(2, 1) * wind[2]);
      const v2 = (X(0, 2) * l0 + X(1, 2) * l1 + X(2, 2) * l2) - (X(0, 2) * wind[0] + X(1, 2) * wind[1] + X(2, 2) * wind[2]);

      let t0 = 0, t1 = 0, t2 = 0, f0 = 0, f1 = 0, f2 = 0;
      if (viscosity > 0) {
        // a sphere of the box's mean side: Stokes drag and its rotational counterpart
        const diam = (b0 + b1 + b2) / 3.0;
        const sa = -Math.PI * diam * diam * diam * viscosity;
        const sl = -3.0 * Math.PI * diam * viscosity;
        t0 = a0 * sa; t1 = a1 * sa; t2 = a2 * sa;
        f0 = v0 * sl; f1 = v1 * sl; f2 = v2 * sl;
      }
      if (density > 0) {
        // quadratic drag on the faces the motion sweeps
        f0 -= 0.5 * density * b1 * b2 * Math.abs(v0) * v0;
        f1 -= 0.5 * density * b0 * b2 * Math.abs(v1) * v1;
        f2 -= 0.5 * density * b0 * b1 * Math.abs(v2) * v2;
        t0 -= density * b0 * (b1 * b1 * b1 * b1 + b2 * b2 * b2 * b2) * Math.abs(a0) * a0 / 64.0;
        t1 -= density * b1 * (b0 * b0 * b0 * b0 + b2 * b2 * b2 * b2) * Math.abs(a1) * a1 / 64.0;
        t2 -= density * b2 * (b0 * b0 * b0 * b0 + b1 * b1 * b1 * b1) * Math.abs(a2) * a2 / 64.0;
      }
      // to the world frame, applied at the com (mj_applyFT: J_p' force, then J_r' torque)
      const F0 = X(0, 0) * f0 + X(0, 1) * f1 + X(0, 2) * f2;
      const F1 = X(1, 0) * f0 + X(1, 1) * f1 + X(1, 2) * f2;
      const F2 = X(2, 0) * f0 + X(2, 1) * f1 + X(2, 2) * f2;
      const T0 = X(0, 0) * t0 + X(0, 1) * t1 + X(0, 2) * t2;
      const T1 = X(1, 0) * t0 + X(1, 1) * t1 + X(1, 2) * t2;
      const T2 = X(2, 0) * t0 + X(2, 1) * t1 + X(2, 2) * t2;
      this.applyFT(d, e, b, px, py, pz, F0, F1, F2, T0, T1, T2);
    }
  }

  private applyFT(
    d: Data, e: number, b: number, px: number, py: number, pz: number,
    F0: number, F1: number, F2: number, T0: number, T1: number, T2: number,
  ): void {
    const m = this.m, nv = m.nv, jp = this.jp, jr = this.jr, qfrc = this.qfrc;
    jp.fill(0);
    jr.fill(0);
    addPointJacobian(m, d.subtreeCom, d.nEnvs, e, this.cdof, b, px, py, pz, 1, jp, jr);
    for (let i = 0; i < nv; i++) {
      // MuJoCo's mju_mulMatTVec skips zero entries of the vector
      let q = 0;
      if (F0 !== 0) q += jp[i]! * F0;
      if (F1 !== 0) q += jp[nv + i]! * F1;
      if (F2 !== 0) q += jp[2 * nv + i]! * F2;
      qfrc[i] = qfrc[i]! + q;
    }
    for (let i = 0; i < nv; i++) {
      let q = 0;
      if (T0 !== 0) q += jr[i]! * T0;
      if (T1 !== 0) q += jr[nv + i]! * T1;
      if (T2 !== 0) q += jr[2 * nv + i]! * T2;
      qfrc[i] = qfrc[i]! + q;
    }
  }
}

const scratch = new WeakMap<Model, InertiaBoxFluid>();

/** The model's InertiaBoxFluid scratch (one per model and thread: stages run one env at a time). */
export function inertiaBoxFluidOf(m: Model): InertiaBoxFluid {
  let s = scratch.get(m);
  if (!s) { s = new InertiaBoxFluid(m); scratch.set(m, s); }
  return s;
}
