/**
 * WGSL twin of stage `com` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';
import { SPATIAL_TENDON_STUB_WGSL, SPATIAL_TENDON_WGSL } from '../../gpu/kernels/tendon.js';

/** `com`, with the spatial tendons' paths and wraps or (`spatial` false) without them. */
export function comKernelWith(spatial: boolean): KernelDef {
  return {
    name: 'com',
    helpers: SMOOTH_HELPERS + (spatial ? SPATIAL_TENDON_WGSL : SPATIAL_TENDON_STUB_WGSL),
    body: /* wgsl */ `
  for (var b = 0; b < NBODY; b++) { st3(D_SUBTREE_COM, b, e, mr(M_BODY_MASS, b) * ld3(D_XIPOS, b, e)); }
  for (var b = NBODY - 1; b > 0; b--) {
    let p = mn(M_BODY_PARENTID, b);
    st3(D_SUBTREE_COM, p, e, ld3(D_SUBTREE_COM, p, e) + ld3(D_SUBTREE_COM, b, e));
  }
  for (var b = 0; b < NBODY; b++) {
    let sm = mr(M_BODY_SUBTREEMASS, b);
    if (sm >= 1e-15) { st3(D_SUBTREE_COM, b, e, ld3(D_SUBTREE_COM, b, e) / sm); } else { st3(D_SUBTREE_COM, b, e, ld3(D_XIPOS, b, e)); }
  }
  for (var k = 0; k < 10; k++) { dset(D_CINERT, k, e, 0.0); }
  for (var b = 1; b < NBODY; b++) {
    let mass = mr(M_BODY_MASS, b);
    let R = ldmat(D_XIMAT, b, e);
    let I = m3(M_BODY_INERTIA, b);
    let t = R * mat3x3<f32>(vec3<f32>(I.x, 0.0, 0.0), vec3<f32>(0.0, I.y, 0.0), vec3<f32>(0.0, 0.0, I.z)) * transpose(R);
    let d = ld3(D_XIPOS, b, e) - ld3(D_SUBTREE_COM, mn(M_BODY_ROOTID, b), e);
    let o = 10 * b;
    dset(D_CINERT, o + 0, e, t[0][0] + mass * (d.y * d.y + d.z * d.z));
    dset(D_CINERT, o + 1, e, t[1][1] + mass * (d.x * d.x + d.z * d.z));
    dset(D_CINERT, o + 2, e, t[2][2] + mass * (d.x * d.x + d.y * d.y));
    dset(D_CINERT, o + 3, e, t[1][0] - mass * d.x * d.y);
    dset(D_CINERT, o + 4, e, t[2][0] - mass * d.x * d.z);
    dset(D_CINERT, o + 5, e, t[2][1] - mass * d.y * d.z);
    dset(D_CINERT, o + 6, e, mass * d.x);
    dset(D_CINERT, o + 7, e, mass * d.y);
    dset(D_CINERT, o + 8, e, mass * d.z);
    dset(D_CINERT, o + 9, e, mass);
    let jadr = mn(M_BODY_JNTADR, b);
    for (var j = jadr; j < jadr + mn(M_BODY_JNTNUM, b); j++) {
      let da = mn(M_JNT_DOFADR, j);
      let jtype = mn(M_JNT_TYPE, j);
      let offset = ld3(D_SUBTREE_COM, mn(M_BODY_ROOTID, b), e) - ld3(D_XANCHOR, j, e);
      var rot0 = da;
      if (jtype == 0) {
        for (var k = 0; k < 3; k++) {
          // Explicitly zeroed: lavapipe reused the previous iteration's array for a bare declaration.
          var v = array<f32, 6>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
          v[3 + k] = 1.0;
          st6(D_CDOF, da + k, e, v);
        }
        rot0 = da + 3;
      }
      if (jtype == 0 || jtype == 1) {
        let xm = ldmat(D_XMAT, b, e);
        for (var k = 0; k < 3; k++) {
          let axis = xm[k];
          let lin = cross(axis, offset);
          st6(D_CDOF, rot0 + k, e, array<f32, 6>(axis.x, axis.y, axis.z, lin.x, lin.y, lin.z));
        }
      } else if (jtype == 2) {
        let axis = ld3(D_XAXIS, j, e);
        st6(D_CDOF, da, e, array<f32, 6>(0.0, 0.0, 0.0, axis.x, axis.y, axis.z));
      } else {
        let axis = ld3(D_XAXIS, j, e);
        let lin = cross(axis, offset);
        st6(D_CDOF, da, e, array<f32, 6>(axis.x, axis.y, axis.z, lin.x, lin.y, lin.z));
      }
    }
  }
  spatial_tendons(e);`,
};
}

/** `com` with the spatial tendons compiled in. */
export const comKernel: KernelDef = comKernelWith(true);
