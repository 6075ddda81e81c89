/**
 * MuJoCo's soft-constraint model (computation chapter, "Solver parameters"; mj_makeImpedance).
 *
 * A row with distance `pos`, margin, solref (timeconst, dampratio or direct -stiffness, -damping) and solimp
 * (dmin, dmax, width, midpoint, power) gets an impedance imp in [dmin, dmax], a regulariser
 * R = (1 - imp) / imp * diagApprox, D = 1 / R, and a reference acceleration aref = -B*vel - K*imp*(pos - margin)
 * with K = 1 / (dmax^2 timeconst^2 dampratio^2) and B = 2 / (dmax timeconst) in the standard format.
 */
import { MAXIMP, MINIMP, MINVAL } from './types.js';

/** Clamps solimp in place as MuJoCo does before use. */
export function clampSolimp(solimp: Float64Array): void {
  solimp[0] = Math.min(MAXIMP, Math.max(MINIMP, solimp[0]!));
  solimp[1] = Math.min(MAXIMP, Math.max(MINIMP, solimp[1]!));
  solimp[2] = Math.max(0, solimp[2]!);
  solimp[3] = Math.min(MAXIMP, Math.max(MINIMP, solimp[3]!));
  solimp[4] = Math.max(1, solimp[4]!);
}

/**
 * Checks solref in place: a mixed-sign pair falls back to MuJoCo's default (0.02, 1); the standard format's
 * time constant is raised to at least 2 * timestep (MuJoCo's "refsafe"), so the integrator can resolve it.
 */
export function safeSolref(solref: Float64Array, timestep: number): void {
  if ((solref[0]! > 0) !== (solref[1]! > 0)) { solref[0] = 0.02; solref[1] = 1; }
  if (solref[0]! > 0) solref[0] = Math.max(solref[0]!, 2 * timestep);
}

function power(a: number, b: number): number {
  return b === 1 ? a : b === 2 ? a * a : a ** b;
}

/** Impedance at distance pos from the margin: a sigmoid from dmin to dmax over `width` (getimpedance). */
export function impedance(solimp: Float64Array, pos: number, margin: number): number {
  const dmin = solimp[0]!, dmax = solimp[1]!, width = solimp[2]!, mid = solimp[3]!, p = solimp[4]!;
  if (dmin === dmax || width <= MINVAL) return 0.5 * (dmin + dmax);
  let x = (pos - margin) / width;
  if (x < 0) x = -x;
  if (x >= 1 || x <= 0) return x >= 1 ? dmax : dmin;
  let y: number;
  if (p === 1) y = x;
  else if (x <= mid) y = (1 / power(mid, p - 1)) * power(x, p);
  else y = 1 - (1 / power(1 - mid, p - 1)) * power(1 - x, p);
  return dmin + y * (dmax - dmin);
}

/** Stiffness K of the reference acceleration (0 for friction rows, which have no position error). */
export function refStiffness(solref: Float64Array, solimp: Float64Array): number {
  const dmax = solimp[1]!;
  if (solref[0]! > 0) {
    return 1 / Math.max(MINVAL, dmax * dmax * solref[0]! * solref[0]! * solref[1]! * solref[1]!);
  }
  return -solref[0]! / Math.max(MINVAL, dmax * dmax);
}

/** Damping B of the reference acceleration. */
export function refDamping(solref: Float64Array, solimp: Float64Array): number {
  const dmax = solimp[1]!;
  if (solref[1]! > 0) return 2 / Math.max(MINVAL, dmax * solref[0]!);
  return -solref[1]! / Math.max(MINVAL, dmax);
}

/** R = (1 - imp) / imp * diagApprox, kept positive. */
export function regularizer(imp: number, diagApprox: number): number {
  return Math.max(MINVAL, ((1 - imp) * diagApprox) / imp);
}
