/**
 * Point Jacobians of one env (MuJoCo's mj_jac), from the com-based motion dofs `cdof` (angular, then linear,
 * about the subtree com of the body's root) gathered contiguously for that env by the caller.
 */
import type { Data, Real } from '../data/data.js';
import type { Model } from '../model/model.js';

/**
 * out = xmat(body) * local + xpos(body) for env e of SoA Data fields (n envs; n = 1, e = 0 for one env):
 * a point given in a body's frame, in the world (MuJoCo's mj_local2Global for a point).
 */
export function bodyPointToWorld(
  out: Float64Array, xpos: Real, xmat: Real, n: number, e: number, body: number, local: ArrayLike<number>, at: number,
): void {
  for (let r = 0; r < 3; r++) {
    let v = 0;
    for (let k = 0; k < 3; k++) v += xmat[(9 * body + 3 * r + k) * n + e]! * local[at + k]!;
    out[r] = v + xpos[(3 * body + r) * n + e]!;
  }
}

/**
 * Adds sign * (translational Jacobian of the point p on `body`) to jp (3 x nv, row-major), and the rotational
 * Jacobian to jr when given. Bodies welded to the world contribute nothing.
 */
export function addPointJacobian(
  m: Model, subtreeCom: Real, n: number, e: number, cdof: Float64Array, body: number,
  px: number, py: number, pz: number, sign: number, jp: Float64Array, jr: Float64Array | null,
): void {
  const nv = m.nv;
  const root = m.bodyRootid[body]!;
  const ox = px - subtreeCom[(3 * root) * n + e]!;
  const oy = py - subtreeCom[(3 * root + 1) * n + e]!;
  const oz = pz - subtreeCom[(3 * root + 2) * n + e]!;
  let b = body;
  while (b !== 0 && m.bodyDofnum[b] === 0) b = m.bodyParentid[b]!;
  if (b === 0) return;
  let i = m.bodyDofadr[b]! + m.bodyDofnum[b]! - 1;
  while (i >= 0) {
    const c = 6 * i;
    const wx = cdof[c]!, wy = cdof[c + 1]!, wz = cdof[c + 2]!;
    jp[i] = jp[i]! + sign * (cdof[c + 3]! + (wy * oz - wz * oy));
    jp[nv + i] = jp[nv + i]! + sign * (cdof[c + 4]! + (wz * ox - wx * oz));
    jp[2 * nv + i] = jp[2 * nv + i]! + sign * (cdof[c + 5]! + (wx * oy - wy * ox));
    if (jr) {
      jr[i] = jr[i]! + sign * wx;
      jr[nv + i] = jr[nv + i]! + sign * wy;
      jr[2 * nv + i] = jr[2 * nv + i]! + sign * wz;
    }
    i = m.dofParentid[i]!;
  }
}

/** True when the body or one of its ancestors has a dof. */
export function bodyMoves(m: Model, body: number): boolean {
  let b = body;
  while (b !== 0 && m.bodyDofnum[b] === 0) b = m.bodyParentid[b]!;
  return b !== 0;
}

/** Copies env e's cdof (6 x nv) out of SoA Data into dst, contiguous, as addPointJacobian takes it. */
export function gatherCdof(d: Data, nv: number, e: number, dst: Float64Array): void {
  const n = d.nEnvs, len = 6 * nv, src = d.cdof;
  for (let k = 0; k < len; k++) dst[k] = src[k * n + e]!;
}
