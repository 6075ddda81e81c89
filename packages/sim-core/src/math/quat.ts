/** Quaternion helpers shared by the stages (w, x, y, z order, as MuJoCo). */

const MINVAL = 1e-15;

/**
 * MuJoCo's mju_subQuat: the rotation vector (axis x angle, the angle in (-pi, pi]) taking quaternion r to q,
 * i.e. mju_quat2Vel(conj(r) * q, 1), written to out[0..3].
 */
export function subQuat(
  out: Float64Array, qw: number, qx: number, qy: number, qz: number, rw: number, rx: number, ry: number, rz: number,
): void {
  const sx = -rx, sy = -ry, sz = -rz;
  const dw = rw * qw - sx * qx - sy * qy - sz * qz;
  let dx = rw * qx + sx * qw + sy * qz - sz * qy;
  let dy = rw * qy - sx * qz + sy * qw + sz * qx;
  let dz = rw * qz + sx * qy - sy * qx + sz * qw;
  const sinHalf = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (sinHalf < MINVAL) { dx = 1; dy = 0; dz = 0; }
  else { const inv = 1 / sinHalf; dx *= inv; dy *= inv; dz *= inv; }
  let angle = 2 * Math.atan2(sinHalf, dw);
  if (angle > Math.PI) angle -= 2 * Math.PI;
  out[0] = dx * angle; out[1] = dy * angle; out[2] = dz * angle;
}
