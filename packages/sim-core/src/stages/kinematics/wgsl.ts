/**
 * WGSL twin of stage `kinematics` (cpu.ts beside it), under the same kernel name: one invocation steps one env
 * through the stage serially over bodies and dofs, exactly as the CPU stage does for that env, so per-kernel GPU
 * time compares one to one with the CPU kernel spans.
 * Joint types: 0 free, 1 ball, 2 slide, 3 hinge.
 */
import type { KernelDef } from '../../gpu/runtime.js';
import { SMOOTH_HELPERS } from '../../gpu/kernels/ldl.js';

export const kinematicsKernel: KernelDef = {
  name: 'kinematics',
  helpers: SMOOTH_HELPERS,
  body: /* wgsl */ `
  let ident = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
  st3(D_XPOS, 0, e, vec3<f32>(0.0)); st4(D_XQUAT, 0, e, vec4<f32>(1.0, 0.0, 0.0, 0.0)); stmat(D_XMAT, 0, e, ident);
  st3(D_XIPOS, 0, e, vec3<f32>(0.0)); stmat(D_XIMAT, 0, e, ident);
  for (var b = 1; b < NBODY; b++) {
    let pid = mn(M_BODY_PARENTID, b);
    let jadr = mn(M_BODY_JNTADR, b);
    let jnum = mn(M_BODY_JNTNUM, b);
    var pos: vec3<f32>;
    var quat: vec4<f32>;
    if (jnum > 0 && mn(M_JNT_TYPE, jadr) == 0) {
      let qa = mn(M_JNT_QPOSADR, jadr);
      pos = vec3<f32>(dget(D_QPOS, qa, e), dget(D_QPOS, qa + 1, e), dget(D_QPOS, qa + 2, e));
      quat = quat_normalize(vec4<f32>(dget(D_QPOS, qa + 3, e), dget(D_QPOS, qa + 4, e), dget(D_QPOS, qa + 5, e), dget(D_QPOS, qa + 6, e)));
      st3(D_XANCHOR, jadr, e, pos);
      st3(D_XAXIS, jadr, e, m3(M_JNT_AXIS, jadr));
    } else {
      let pquat = ld4(D_XQUAT, pid, e);
      pos = ld3(D_XPOS, pid, e) + quat_rotate(pquat, m3(M_BODY_POS, b));
      quat = quat_mul(pquat, m4(M_BODY_QUAT, b));
      for (var j = jadr; j < jadr + jnum; j++) {
        let qa = mn(M_JNT_QPOSADR, j);
        let jtype = mn(M_JNT_TYPE, j);
        let axis = m3(M_JNT_AXIS, j);
        let jpos = m3(M_JNT_POS, j);
        let anchor = quat_rotate(quat, jpos) + pos;
        let xaxis = quat_rotate(quat, axis);
        st3(D_XANCHOR, j, e, anchor);
        st3(D_XAXIS, j, e, xaxis);
        if (jtype == 2) {
          pos += xaxis * (dget(D_QPOS, qa, e) - mr(M_QPOS0, qa));
        } else if (jtype == 3) {
          quat = quat_mul(quat, axis_angle_quat(axis, dget(D_QPOS, qa, e) - mr(M_QPOS0, qa)));
          pos = anchor - quat_rotate(quat, jpos);
        } else if (jtype == 1) {
          quat = quat_mul(quat, quat_normalize(vec4<f32>(dget(D_QPOS, qa, e), dget(D_QPOS, qa + 1, e), dget(D_QPOS, qa + 2, e), dget(D_QPOS, qa + 3, e))));
          pos = anchor - quat_rotate(quat, jpos);
        }
      }
    }
    quat = quat_normalize(quat);
    st3(D_XPOS, b, e, pos);
    st4(D_XQUAT, b, e, quat);
    stmat(D_XMAT, b, e, quat_to_mat(quat));
    st3(D_XIPOS, b, e, pos + quat_rotate(quat, m3(M_BODY_IPOS, b)));
    stmat(D_XIMAT, b, e, quat_to_mat(quat_mul(quat, m4(M_BODY_IQUAT, b))));
  }
  for (var g = 0; g < NGEOM; g++) {
    let b = mn(M_GEOM_BODYID, g);
    let q = ld4(D_XQUAT, b, e);
    st3(D_GEOM_XPOS, g, e, ld3(D_XPOS, b, e) + quat_rotate(q, m3(M_GEOM_POS, g)));
    stmat(D_GEOM_XMAT, g, e, quat_to_mat(quat_mul(q, m4(M_GEOM_QUAT, g))));
  }
  for (var s = 0; s < NSITE; s++) {
    let b = mn(M_SITE_BODYID, s);
    let q = ld4(D_XQUAT, b, e);
    st3(D_SITE_XPOS, s, e, ld3(D_XPOS, b, e) + quat_rotate(q, m3(M_SITE_POS, s)));
    stmat(D_SITE_XMAT, s, e, quat_to_mat(quat_mul(q, m4(M_SITE_QUAT, s))));
  }`,
};
