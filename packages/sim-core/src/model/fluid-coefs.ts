/**
 * A geom's coefficients for MuJoCo's ellipsoid fluid model (mjCGeom::SetFluidCoefs), laid out as mjModel's
 * geom_fluid (mjNFLUID = 12): [interaction (1), blunt drag, slender drag, angular drag, Kutta lift, Magnus lift,
 * virtual mass (3), virtual inertia (3)]. The virtual mass and inertia come from the added-mass integrals (kappa)
 * of the geom's equivalent ellipsoid, computed by 15-point Gauss-Kronrod quadrature as MuJoCo does.
 */
import { GeomType } from './model.js';

export const NFLUID = 12;
const EPS = 1e-14;

/** MuJoCo's fluidcoef default: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift. */
export const DEFAULT_FLUIDCOEF: readonly number[] = [0.5, 0.25, 1.5, 1.0, 1.0];

// 15-point Gauss-Kronrod weights on [0, 1], and the points and slopes of the change of variable l = x^3 / (1 - x)^2
// that maps them onto [0, inf) (MuJoCo's tables)
const KRONROD_W = [
  0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236, 0.09517529, 0.10221647, 0.10474107, 0.10221647,
  0.09517529, 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766];
const KRONROD_L = [
  7.865151709349917e-08, 1.7347976913907274e-05, 0.0003548008144506193, 0.002846636252924549, 0.014094260903596077,
  0.053063261727396636, 0.17041978741317773, 0.5, 1.4036301548686991, 3.9353484827022642, 11.644841677041734,
  39.53187807410903, 177.5711362220801, 1429.4772912937397, 54087.416549217705];
const KRONROD_D = [
  5.538677720489877e-05, 0.002080868285293228, 0.016514126520723166, 0.07261900344370877, 0.23985243401862602,
  0.6868318249020725, 1.8551129519182894, 5.0, 14.060031152313941, 43.28941239611009, 156.58546376397112,
  747.9826085305024, 5827.4042950027115, 116754.0197944512, 25482945.327264845];

/** The integral over l in [0, inf) of dx dy dz / sqrt((dx^2 + l)^3 (dy^2 + l) (dz^2 + l)), over dx^2 (kappa). */
function addedMassKappa(dx: number, dy: number, dz: number): number {
  const invdx2 = 1.0 / (dx * dx), invdy2 = 1.0 / (dy * dy), invdz2 = 1.0 / (dz * dz);
  // l scaled by the geom's size, for numerical stability
  const scale = (dx * dx * dx * dy * dz) ** 0.4;
  let kappa = 0.0;
  for (let i = 0; i < 15; i++) {
    const lambda = scale * KRONROD_L[i]!;
    const denom = (1 + lambda * invdx2) * Math.sqrt((1 + lambda * invdx2) * (1 + lambda * invdy2) * (1 + lambda * invdz2));
    kappa += scale * KRONROD_D[i]! / denom * KRONROD_W[i]!;
  }
  return kappa * invdx2;
}

/** mju_geomSemiAxes: the semi-axes of the ellipsoid standing in for a geom of this type and size. */
export function geomSemiAxes(type: number, s0: number, s1: number, s2: number, out: Float64Array | number[]): void {
  if (type === GeomType.Sphere) { out[0] = s0; out[1] = s0; out[2] = s0; }
  else if (type === GeomType.Capsule) { out[0] = s0; out[1] = s0; out[2] = s1 + s0; }
  else if (type === GeomType.Cylinder) { out[0] = s0; out[1] = s0; out[2] = s1; }
  else { out[0] = s0; out[1] = s1; out[2] = s2; }
}

/** geom_fluid of a geom with fluidshape="ellipsoid" and these fluidcoef values. */
export function ellipsoidFluidCoefs(type: GeomType, size: readonly number[], fluidcoef: readonly number[]): number[] {
  const ax = [0, 0, 0];
  geomSemiAxes(type, size[0]!, size[1]!, size[2]!, ax);
  const [dx, dy, dz] = ax as [number, number, number];
  const volume = 4.0 / 3.0 * Math.PI * dx * dy * dz;
  // kappa is invariant to swapping its last two arguments
  const kx = addedMassKappa(dx, dy, dz), ky = addedMassKappa(dy, dz, dx), kz = addedMassKappa(dz, dx, dy);
  const pow2 = (v: number): number => v * v;
  // if (kz - ky) is negative so is the denominator: both taken absolute, the denominator at least EPS
  const ixfac = pow2(dy * dy - dz * dz) * Math.abs(kz - ky) / Math.max(EPS, Math.abs(2 * (dy * dy - dz * dz) + (dy * dy + dz * dz) * (ky - kz)));
  const iyfac = pow2(dz * dz - dx * dx) * Math.abs(kx - kz) / Math.max(EPS, Math.abs(2 * (dz * dz - dx * dx) + (dz * dz + dx * dx) * (kz - kx)));
  const izfac = pow2(dx * dx - dy * dy) * Math.abs(ky - kx) / Math.max(EPS, Math.abs(2 * (dx * dx - dy * dy) + (dx * dx + dy * dy) * (kx - ky)));
  return [
    1, fluidcoef[0]!, fluidcoef[1]!, fluidcoef[2]!, fluidcoef[3]!, fluidcoef[4]!,
    volume * kx / Math.max(EPS, 2 - kx), volume * ky / Math.max(EPS, 2 - ky), volume * kz / Math.max(EPS, 2 - kz),
    volume * ixfac / 5, volume * iyfac / 5, volume * izfac / 5,
  ];
}
