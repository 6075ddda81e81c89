/**
 * Fluid forces as MuJoCo computes them (mj_fluid), one env at a time. The inertia-box model
 * (mj_inertiaBoxFluidModel): each body with mass is the box of uniform density with its inertia; its com velocity
 * in its inertial frame, less the wind, gives viscous drag (Stokes: a sphere of the box's mean side, when
 * viscosity > 0) and quadratic drag on the box's faces (when density > 0), applied at the com through the body's
 * Jacobians (mj_applyFT). A body with a fluidshape="ellipsoid" geom takes the ellipsoid model instead, per such
 * geom at its frame. Needs Data's cvel (mj_comVel), xipos, ximat, geom poses, subtree coms and cdof.
 */
import type { Data, Real } from '../data/data.js';
import { NFLUID, geomSemiAxes } from '../model/fluid-coefs.js';
import { Integrator, type Model, type ModelOptions } from '../model/model.js';
import { addPointJacobian, gatherCdof } from '../solver/jacobian.js';

const MINVAL = 1e-15;

/** True when the model's options make MuJoCo run mj_fluid (density or viscosity positive). */
export function hasFluid(m: Model): boolean {
  return (m.opt.density ?? 0) > 0 || (m.opt.viscosity ?? 0) > 0;
}

/** True when some geom takes MuJoCo's ellipsoid fluid model (fluidshape="ellipsoid"). */
function hasEllipsoidFluid(m: Model): boolean {
  const gf = m.geomFluid;
  if (!gf) return false;
  for (let g = 0; g < m.ngeom; g++) if (gf[NFLUID * g]! > 0) return true;
  return false;
}

/**
 * Under implicitfast and implicit MuJoCo adds the fluid forces' velocity derivative to qDeriv: sim-core computes
 * the inertia-box model's (mjd_inertiaBoxFluid), not the ellipsoid model's (mjd_ellipsoidFluid), so that pair is
 * refused rather than integrated differently. The loader refuses it with file and line when the file sets both;
 * this catches a scene whose options choose the integrator.
 */
export function refuseFluidUnderImplicit(m: Model): void {
  const opt = m.opt;
  const implicit = opt.integrator === Integrator.Implicit ? 'implicit' : opt.integrator === Integrator.ImplicitFast ? 'implicitfast' : null;
  if (implicit !== null && hasFluid(m) && hasEllipsoidFluid(m)) {
    throw new Error(`the ellipsoid fluid model (a geom's fluidshape="ellipsoid") under the ${implicit} integrator is not supported (its velocity derivative is not computed); use integrator euler`);
  }
}

/** True when the integrator takes the fluid forces' velocity derivative into qDeriv (implicit and implicitfast). */
export function fluidInQDeriv(m: Model): boolean {
  return hasFluid(m) && (m.opt.integrator === Integrator.Implicit || m.opt.integrator === Integrator.ImplicitFast);
}

/** Adds B * row' * row to qDeriv for env e (row dense over nv, dofs its non-zero columns in ascending order). */
export type AddRowDerivative = (row: Float64Array, dofs: Int32Array, count: number, B: number) => void;

/** The fluid options for the build log line, e.g. "density=1.225, viscosity=1.8e-05, wind=[0, 0, 0]". */
export function describeFluid(opt: ModelOptions): string {
  const w = opt.wind ?? [0, 0, 0];
  return `density=${opt.density ?? 0}, viscosity=${opt.viscosity ?? 0}, wind=[${w.join(', ')}]`;
}

/**
 * Fluid forces of one env at a time: each body with mass takes the inertia-box model, or, when one of its geoms
 * has fluidshape="ellipsoid", the ellipsoid model on those geoms (mj_ellipsoidFluidModel: added-mass forces,
 * Magnus and Kutta lift, blunt, slender and angular drag, each geom's scaled by its interaction coefficient).
 */
export class Fluid {
  /** qfrc_fluid of the last computed env (nv). */
  readonly qfrc: Float64Array;
  private readonly jp: Float64Array;
  private readonly jr: Float64Array;
  private readonly cdof: Float64Array;
  /** Each body's box sides (3 per body; unused for massless bodies). */
  private readonly box: Float64Array;
  /** 1 for a body whose geoms take the ellipsoid model. */
  private readonly ellipsoid: Uint8Array;
  /** The frame's local velocity less the wind [angular, linear], its local force, a geom's semi-axes. */
  private readonly lvel = new Float64Array(6);
  private readonly lfrc = new Float64Array(6);
  private readonly axes = new Float64Array(3);
  /** The derivative's scratch: six local Jacobian rows, one row, its non-zero dofs, up to 12 (row, B) pairs. */
  private readonly rows: Float64Array;
  private readonly row: Float64Array;
  private readonly dofs: Int32Array;
  private readonly rowB = new Float64Array(12);
  private readonly rowOf = new Int32Array(12);

  constructor(private readonly m: Model) {
    const nv = Math.max(1, m.nv);
    this.qfrc = new Float64Array(nv);
    this.jp = new Float64Array(3 * nv);
    this.jr = new Float64Array(3 * nv);
    this.cdof = new Float64Array(6 * nv);
    this.rows = new Float64Array(6 * nv);
    this.row = new Float64Array(nv);
    this.dofs = new Int32Array(nv);
    this.box = new Float64Array(3 * m.nbody);
    this.ellipsoid = new Uint8Array(m.nbody);
    for (let b = 1; b < m.nbody; b++) {
      const mass = m.bodyMass[b]!, I = m.bodyInertia;
      const i0 = I[3 * b]!, i1 = I[3 * b + 1]!, i2 = I[3 * b + 2]!;
      this.box[3 * b] = Math.sqrt(Math.max(MINVAL, i1 + i2 - i0) / mass * 6.0);
      this.box[3 * b + 1] = Math.sqrt(Math.max(MINVAL, i0 + i2 - i1) / mass * 6.0);
      this.box[3 * b + 2] = Math.sqrt(Math.max(MINVAL, i0 + i1 - i2) / mass * 6.0);
      const gf = m.geomFluid;
      if (!gf) continue;
      for (let g = m.bodyGeomadr[b]!; g < m.bodyGeomadr[b]! + m.bodyGeomnum[b]!; g++) if (gf[NFLUID * g]! > 0) this.ellipsoid[b] = 1;
    }
  }

  /** Fills qfrc with env e's fluid forces. */
  compute(d: Data, e: number): void {
    const m = this.m, n = d.nEnvs;
    this.qfrc.fill(0);
    gatherCdof(d, m.nv, e, this.cdof);
    for (let b = 1; b < m.nbody; b++) {
      if (m.bodyMass[b]! < MINVAL) continue;
      if (this.ellipsoid[b] === 0) {
        this.inertiaBox(d, e, b);
        continue;
      }
      for (let g = m.bodyGeomadr[b]!; g < m.bodyGeomadr[b]! + m.bodyGeomnum[b]!; g++) {
        const coef = m.geomFluid![NFLUID * g]!;
        if (coef === 0) continue;
        this.localVelocity(d, e, b, d.geomXpos, d.geomXmat, g);
        this.ellipsoidForce(g);
        const f = this.lfrc;
        for (let k = 0; k < 6; k++) f[k] = f[k]! * coef;
        this.apply(d, e, b, d.geomXpos, d.geomXmat, g, n);
      }
    }
  }

  /**
   * mjd_inertiaBoxFluid of every inertia-box body in env e: the body's com Jacobian in its inertial frame, each of
   * its six rows r adding B_r * row' * row (viscous: the drag's linear coefficients; density: the quadratic drag's
   * 2 |v_r| slope), in MuJoCo's order.
   */
  addDerivative(d: Data, e: number, add: AddRowDerivative): void {
    const m = this.m, nv = m.nv, n = d.nEnvs, v = this.lvel, rows = this.rows, dofs = this.dofs, jp = this.jp, jr = this.jr;
    const density = m.opt.density ?? 0, viscosity = m.opt.viscosity ?? 0;
    gatherCdof(d, nv, e, this.cdof);
    const B = this.rowB;
    for (let b = 1; b < m.nbody; b++) {
      if (m.bodyMass[b]! < MINVAL || this.ellipsoid[b] !== 0) continue;
      const b0 = this.box[3 * b]!, b1 = this.box[3 * b + 1]!, b2 = this.box[3 * b + 2]!;
      this.localVelocity(d, e, b, d.xipos, d.ximat, b);
      jp.fill(0);
      jr.fill(0);
      addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b, d.xipos[3 * b * n + e]!, d.xipos[(3 * b + 1) * n + e]!, d.xipos[(3 * b + 2) * n + e]!, 1, jp, jr);
      // rows 0-2: the rotational Jacobian in the inertial frame, 3-5 the translational (mju_mulMatTMat's order)
      const X = (r: number, c: number): number => d.ximat[(9 * b + 3 * r + c) * n + e]!;
      rows.fill(0);
      for (let k = 0; k < 3; k++) {
        for (let j = 0; j < 3; j++) {
          const x = X(k, j);
          if (x === 0) continue;
          for (let i = 0; i < nv; i++) {
            rows[j * nv + i] = rows[j * nv + i]! + jr[k * nv + i]! * x;
            rows[(3 + j) * nv + i] = rows[(3 + j) * nv + i]! + jp[k * nv + i]! * x;
          }
        }
      }
      let nb = 0;
      if (viscosity > 0) {
        const diam = (b0 + b1 + b2) / 3.0;
        const sa = -Math.PI * diam * diam * diam * viscosity, sl = -3.0 * Math.PI * diam * viscosity;
        for (let r = 0; r < 6; r++) { B[nb] = r < 3 ? sa : sl; this.rowOf[nb++] = r; }
      }
      if (density > 0) {
        B[nb] = -density * b0 * (b1 * b1 * b1 * b1 + b2 * b2 * b2 * b2) * 2 * Math.abs(v[0]!) / 64.0; this.rowOf[nb++] = 0;
        B[nb] = -density * b1 * (b0 * b0 * b0 * b0 + b2 * b2 * b2 * b2) * 2 * Math.abs(v[1]!) / 64.0; this.rowOf[nb++] = 1;
        B[nb] = -density * b2 * (b0 * b0 * b0 * b0 + b1 * b1 * b1 * b1) * 2 * Math.abs(v[2]!) / 64.0; this.rowOf[nb++] = 2;
        B[nb] = -0.5 * density * b1 * b2 * 2 * Math.abs(v[3]!); this.rowOf[nb++] = 3;
        B[nb] = -0.5 * density * b0 * b2 * 2 * Math.abs(v[4]!); this.rowOf[nb++] = 4;
        B[nb] = -0.5 * density * b0 * b1 * 2 * Math.abs(v[5]!); this.rowOf[nb++] = 5;
      }
      for (let k = 0; k < nb; k++) {
        if (B[k] === 0) continue;
        const r = this.rowOf[k]!, row = this.row;
        let count = 0;
        for (let i = 0; i < nv; i++) {
          row[i] = rows[r * nv + i]!;
          if (row[i] !== 0) dofs[count++] = i;
        }
        add(row, dofs, count, B[k]!);
      }
    }
  }

  /** mj_inertiaBoxFluidModel for body b, its frame the inertial one. */
  private inertiaBox(d: Data, e: number, b: number): void {
    const m = this.m, v = this.lvel, f = this.lfrc;
    const density = m.opt.density ?? 0, viscosity = m.opt.viscosity ?? 0;
    const b0 = this.box[3 * b]!, b1 = this.box[3 * b + 1]!, b2 = this.box[3 * b + 2]!;
    this.localVelocity(d, e, b, d.xipos, d.ximat, b);
    f.fill(0);
    if (viscosity > 0) {
      // a sphere of the box's mean side: Stokes drag and its rotational counterpart
      const diam = (b0 + b1 + b2) / 3.0;
      const sa = -Math.PI * diam * diam * diam * viscosity;
      const sl = -3.0 * Math.PI * diam * viscosity;
      for (let k = 0; k < 3; k++) { f[k] = v[k]! * sa; f[3 + k] = v[3 + k]! * sl; }
    }
    if (density > 0) {
      // quadratic drag on the faces the motion sweeps
      f[3] = f[3]! - 0.5 * density * b1 * b2 * Math.abs(v[3]!) * v[3]!;
      f[4] = f[4]! - 0.5 * density * b0 * b2 * Math.abs(v[4]!) * v[4]!;
      f[5] = f[5]! - 0.5 * density * b0 * b1 * Math.abs(v[5]!) * v[5]!;
      f[0] = f[0]! - density * b0 * (b1 * b1 * b1 * b1 + b2 * b2 * b2 * b2) * Math.abs(v[0]!) * v[0]! / 64.0;
      f[1] = f[1]! - density * b1 * (b0 * b0 * b0 * b0 + b2 * b2 * b2 * b2) * Math.abs(v[1]!) * v[1]! / 64.0;
      f[2] = f[2]! - density * b2 * (b0 * b0 * b0 * b0 + b1 * b1 * b1 * b1) * Math.abs(v[2]!) * v[2]! / 64.0;
    }
    this.apply(d, e, b, d.xipos, d.ximat, b, d.nEnvs);
  }

  /** mj_addedMassForces (without the acceleration term, as MuJoCo) and mj_viscousForces for geom g, into lfrc. */
  private ellipsoidForce(g: number): void {
    const m = this.m, gf = m.geomFluid!, o = NFLUID * g, f = this.lfrc, v = this.lvel, s = this.axes;
    const rho = m.opt.density ?? 0, mu = m.opt.viscosity ?? 0;
    const blunt = gf[o + 1]!, slender = gf[o + 2]!, angDrag = gf[o + 3]!, kutta = gf[o + 4]!, magnus = gf[o + 5]!;
    geomSemiAxes(m.geomType[g]!, m.geomSize[3 * g]!, m.geomSize[3 * g + 1]!, m.geomSize[3 * g + 2]!, s);
    const w0 = v[0]!, w1 = v[1]!, w2 = v[2]!, l0 = v[3]!, l1 = v[4]!, l2 = v[5]!;
    const s0 = s[0]!, s1 = s[1]!, s2 = s[2]!;

    // added mass: the fluid's momentum carried with the geom
    const p0 = rho * gf[o + 6]! * l0, p1 = rho * gf[o + 7]! * l1, p2 = rho * gf[o + 8]! * l2;
    const h0 = rho * gf[o + 9]! * w0, h1 = rho * gf[o + 10]! * w1, h2 = rho * gf[o + 11]! * w2;
    f[0] = 0 + (p1 * l2 - p2 * l1); f[1] = 0 + (p2 * l0 - p0 * l2); f[2] = 0 + (p0 * l1 - p1 * l0);
    f[0] = f[0]! + (h1 * w2 - h2 * w1); f[1] = f[1]! + (h2 * w0 - h0 * w2); f[2] = f[2]! + (h0 * w1 - h1 * w0);
    f[3] = 0 + (p1 * w2 - p2 * w1); f[4] = 0 + (p2 * w0 - p0 * w2); f[5] = 0 + (p0 * w1 - p1 * w0);

    const volume = 4.0 / 3.0 * Math.PI * s0 * s1 * s2;
    const dMax = Math.max(Math.max(s0, s1), s2), dMin = Math.min(Math.min(s0, s1), s2);
    const dMid = s0 + s1 + s2 - dMax - dMin;
    const aMax = Math.PI * dMax * dMid;

    // Magnus lift of the spinning geom
    const mc = magnus * rho * volume;
    const mf0 = (w1 * l2 - w2 * l1) * mc, mf1 = (w2 * l0 - w0 * l2) * mc, mf2 = (w0 * l1 - w1 * l0) * mc;

    // the projection of the ellipsoid along the velocity: its area, and the normal to it
    const q12 = s1 * s2, q20 = s2 * s0, q01 = s0 * s1;
    const projDenom = pow4(q12) * (l0 * l0) + pow4(q20) * (l1 * l1) + pow4(q01) * (l2 * l2);
    const projNum = pow2(q12 * l0) + pow2(q20 * l1) + pow2(q01 * l2);
    const aProj = Math.PI * Math.sqrt(projDenom / Math.max(MINVAL, projNum));
    const n0 = pow2(q12) * l0, n1 = pow2(q20) * l1, n2 = pow2(q01) * l2;
    const speed = Math.sqrt(l0 * l0 + l1 * l1 + l2 * l2);
    const cosAlpha = projNum / Math.max(MINVAL, speed * projDenom);
    // Kutta-Joukowski lift: circulation normal x velocity, force circulation x velocity
    const kc = kutta * rho * cosAlpha * aProj;
    const c0 = (n1 * l2 - n2 * l1) * kc, c1 = (n2 * l0 - n0 * l2) * kc, c2 = (n0 * l1 - n1 * l0) * kc;
    const kf0 = c1 * l2 - c2 * l1, kf1 = c2 * l0 - c0 * l2, kf2 = c0 * l1 - c1 * l0;

    // Stokes drag of the equivalent sphere, and quadratic drag (blunt, slender, angular)
    const eqD = 2.0 / 3.0 * (s0 + s1 + s2);
    const linViscForce = 3.0 * Math.PI * eqD;
    const linViscTorque = Math.PI * eqD * eqD * eqD;
    const iMax = 8.0 / 15.0 * Math.PI * dMid * pow4(dMax);
    const ii0 = maxMoment(s0, s1, s2), ii1 = maxMoment(s1, s2, s0), ii2 = maxMoment(s2, s0, s1);
    const mv0 = w0 * (angDrag * ii0 + slender * (iMax - ii0));
    const mv1 = w1 * (angDrag * ii1 + slender * (iMax - ii1));
    const mv2 = w2 * (angDrag * ii2 + slender * (iMax - ii2));
    const dragLin = mu * linViscForce + rho * speed * (aProj * blunt + slender * (aMax - aProj));
    const dragAng = mu * linViscTorque + rho * Math.sqrt(mv0 * mv0 + mv1 * mv1 + mv2 * mv2);

    f[0] = f[0]! - dragAng * w0; f[1] = f[1]! - dragAng * w1; f[2] = f[2]! - dragAng * w2;
    f[3] = f[3]! + (mf0 + kf0 - dragLin * l0);
    f[4] = f[4]! + (mf1 + kf1 - dragLin * l1);
    f[5] = f[5]! + (mf2 + kf2 - dragLin * l2);
  }

  /**
   * mj_objectVelocity in a frame on body b (position pos[obj], rotation xmat[obj]; local), less the wind in that
   * frame (mju_transformSpatial of (0, wind)), into lvel.
   */
  private localVelocity(d: Data, e: number, b: number, pos: Real, xmat: Real, obj: number): void {
    const m = this.m, n = d.nEnvs, v = this.lvel, cvel = d.cvel, sc = d.subtreeCom;
    const wind = m.opt.wind ?? ZERO3;
    const X = (r: number, c: number): number => xmat[(9 * obj + 3 * r + c) * n + e]!;
    const root = m.bodyRootid[b]!;
    const dx = pos[3 * obj * n + e]! - sc[3 * root * n + e]!;
    const dy = pos[(3 * obj + 1) * n + e]! - sc[(3 * root + 1) * n + e]!;
    const dz = pos[(3 * obj + 2) * n + e]! - sc[(3 * root + 2) * n + e]!;
    const w0 = cvel[6 * b * n + e]!, w1 = cvel[(6 * b + 1) * n + e]!, w2 = cvel[(6 * b + 2) * n + e]!;
    const l0 = cvel[(6 * b + 3) * n + e]! - (dy * w2 - dz * w1);
    const l1 = cvel[(6 * b + 4) * n + e]! - (dz * w0 - dx * w2);
    const l2 = cvel[(6 * b + 5) * n + e]! - (dx * w1 - dy * w0);
    for (let c = 0; c < 3; c++) {
      v[c] = X(0, c) * w0 + X(1, c) * w1 + X(2, c) * w2;
      v[3 + c] = (X(0, c) * l0 + X(1, c) * l1 + X(2, c) * l2) - (X(0, c) * wind[0] + X(1, c) * wind[1] + X(2, c) * wind[2]);
    }
  }

  /** lfrc rotated to the world by xmat[obj] and applied at pos[obj] on body b (mj_applyFT: J_p' force, then J_r' torque). */
  private apply(d: Data, e: number, b: number, pos: Real, xmat: Real, obj: number, n: number): void {
    const m = this.m, nv = m.nv, jp = this.jp, jr = this.jr, qfrc = this.qfrc, f = this.lfrc;
    const X = (r: number, c: number): number => xmat[(9 * obj + 3 * r + c) * n + e]!;
    const T0 = X(0, 0) * f[0]! + X(0, 1) * f[1]! + X(0, 2) * f[2]!;
    const T1 = X(1, 0) * f[0]! + X(1, 1) * f[1]! + X(1, 2) * f[2]!;
    const T2 = X(2, 0) * f[0]! + X(2, 1) * f[1]! + X(2, 2) * f[2]!;
    const F0 = X(0, 0) * f[3]! + X(0, 1) * f[4]! + X(0, 2) * f[5]!;
    const F1 = X(1, 0) * f[3]! + X(1, 1) * f[4]! + X(1, 2) * f[5]!;
    const F2 = X(2, 0) * f[3]! + X(2, 1) * f[4]! + X(2, 2) * f[5]!;
    jp.fill(0);
    jr.fill(0);
    addPointJacobian(m, d.subtreeCom, n, e, this.cdof, b, pos[3 * obj * n + e]!, pos[(3 * obj + 1) * n + e]!, pos[(3 * obj + 2) * n + e]!, 1, jp, jr);
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

const ZERO3: readonly [number, number, number] = [0, 0, 0];
const pow2 = (x: number): number => x * x;
const pow4 = (x: number): number => (x * x) * (x * x);
/** The largest moment of inertia (per unit density) of an ellipsoid about axis d0 (MuJoCo's mji_ellipsoid_max_moment). */
const maxMoment = (d0: number, d1: number, d2: number): number => 8.0 / 15.0 * Math.PI * d0 * pow4(Math.max(d1, d2));

const scratch = new WeakMap<Model, Fluid>();

/** The model's Fluid scratch (one per model and thread: stages run one env at a time). */
export function fluidOf(m: Model): Fluid {
  let s = scratch.get(m);
  if (!s) { s = new Fluid(m); scratch.set(m, s); }
  return s;
}
