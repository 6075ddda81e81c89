/**
 * The WGSL routines shared by the smooth (constraint-free) stages' kernels (stages/<name>/wgsl.ts): the math
 * prelude and the tree-sparse L'DL factorisation and solve (factor_m factors, smooth_acc and integrate solve).
 */
import { WGSL_MATH } from '../wgsl-math.js';

const LDL = /* wgsl */ `
// In-place L'DL factorisation of the nv x nv matrix at 'base' (MuJoCo's tree-sparse order: rows follow
// dof_parentid chains). Afterwards the strict lower part holds L and the diagonal holds D.
fn ldl_factor(base: u32, e: u32) {
  for (var k = NV - 1; k >= 0; k--) {
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) {
      let tmp = dget(base, k * NV + i, e) / dget(base, k * NV + k, e);
      var j = i;
      while (j >= 0) {
        dset(base, i * NV + j, e, dget(base, i * NV + j, e) - tmp * dget(base, k * NV + j, e));
        j = mn(M_DOF_PARENTID, j);
      }
      dset(base, k * NV + i, e, tmp);
      i = mn(M_DOF_PARENTID, i);
    }
  }
}
// x <- (L'DL)^-1 x for the factor at 'ld' and the nv-vector field at 'x'.
fn ldl_solve(ld: u32, x: u32, e: u32) {
  for (var k = NV - 1; k >= 0; k--) {
    let xk = dget(x, k, e);
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) { dset(x, i, e, dget(x, i, e) - dget(ld, k * NV + i, e) * xk); i = mn(M_DOF_PARENTID, i); }
  }
  for (var k = 0; k < NV; k++) { dset(x, k, e, dget(x, k, e) / dget(ld, k * NV + k, e)); }
  for (var k = 0; k < NV; k++) {
    var s = dget(x, k, e);
    var i = mn(M_DOF_PARENTID, k);
    while (i >= 0) { s -= dget(ld, k * NV + i, e) * dget(x, i, e); i = mn(M_DOF_PARENTID, i); }
    dset(x, k, e, s);
  }
}
`;

/** The helpers every smooth stage kernel compiles with. */
export const SMOOTH_HELPERS = WGSL_MATH + LDL;
