/**
 * The narrow phase's output buffer and input poses.
 *
 * A narrow-phase function writes up to MAX_CONTACT_PAIR contacts of one geom pair into a flat Float64Array,
 * STRIDE numbers per contact: dist, pos (3), frame (9, the normal first, as mjContact.frame). Tangent rows left
 * at zero are completed by makeFrame, as mj_setContact does. The driver then copies them into Data.
 */

/** Largest number of contacts one pair produces (MuJoCo's mjMAXCONPAIR, which a height field pair can reach). */
export const MAX_CONTACT_PAIR = 50;
export const DIST = 0;
export const POS = 1;
export const FRAME = 4;
export const STRIDE = 13;

/** Pose and size of one geom in one env, gathered out of the SoA Data so the math reads plain arrays. */
export interface GeomPose {
  pos: Float64Array;   // 3
  mat: Float64Array;   // 9, row-major (columns are the geom's axes)
  size: Float64Array;  // 3
  /** A mesh geom's vertices and hull (set where poses are gathered); absent or null for other geoms. */
  mesh?: MeshHull | null;
}

/**
 * A mesh geom's mesh as MuJoCo's model holds it: every vertex in the geom frame (mesh_vert, float32 values),
 * the convex hull graph (mesh_graph: numvert, numface, vert_edgeadr, vert_globalid, edge_localid, face_globalid;
 * null when the mesh has none), and the geom's bounding radius. vertindex and meshindex are the support search's
 * warm start within one pair (MuJoCo's mjCCDObj fields of the same names; -1 at the start of a pair).
 */
export interface MeshHull { vert: Float64Array; graph: Int32Array | null; rbound: number; vertindex: number; meshindex: number }

export function makeGeomPose(): GeomPose {
  return { pos: new Float64Array(3), mat: new Float64Array(9), size: new Float64Array(3) };
}

/** mjMINVAL */
export const MINVAL = 1e-15;

export type NarrowPhase = (out: Float64Array, g1: GeomPose, g2: GeomPose, margin: number) => number;

/** Writes contact k: dist, pos, normal; clears the tangent rows. */
export function setContact(
  out: Float64Array, k: number, dist: number,
  px: number, py: number, pz: number, nx: number, ny: number, nz: number,
): void {
  const o = k * STRIDE;
  out[o + DIST] = dist;
  out[o + POS] = px; out[o + POS + 1] = py; out[o + POS + 2] = pz;
  out[o + FRAME] = nx; out[o + FRAME + 1] = ny; out[o + FRAME + 2] = nz;
  for (let i = 3; i < 9; i++) out[o + FRAME + i] = 0;
}

/** Sets the first tangent row of contact k (made orthogonal to the normal later by makeFrame). */
export function setTangent(out: Float64Array, k: number, tx: number, ty: number, tz: number): void {
  const o = k * STRIDE + FRAME + 3;
  out[o] = tx; out[o + 1] = ty; out[o + 2] = tz;
}

/**
 * Completes a contact frame in place (mju_makeFrame): normalise the normal; if the first tangent is unset,
 * use world y, or world z when the normal is close to y; orthogonalise it; the third row is normal x tangent.
 */
export function makeFrame(f: Float64Array, o: number): void {
  let nx = f[o]!, ny = f[o + 1]!, nz = f[o + 2]!;
  const nn = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nn < MINVAL) { nx = 1; ny = 0; nz = 0; } else { nx /= nn; ny /= nn; nz /= nn; }
  let tx = f[o + 3]!, ty = f[o + 4]!, tz = f[o + 5]!;
  if (tx * tx + ty * ty + tz * tz < 0.25) {
    tx = 0; ty = 0; tz = 0;
    if (ny < 0.5 && ny > -0.5) ty = 1; else tz = 1;
  }
  const dot = nx * tx + ny * ty + nz * tz;
  tx -= nx * dot; ty -= ny * dot; tz -= nz * dot;
  const tn = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (tn < MINVAL) { tx = 1; ty = 0; tz = 0; } else { tx /= tn; ty /= tn; tz /= tn; }
  f[o] = nx; f[o + 1] = ny; f[o + 2] = nz;
  f[o + 3] = tx; f[o + 4] = ty; f[o + 5] = tz;
  f[o + 6] = ny * tz - nz * ty;
  f[o + 7] = nz * tx - nx * tz;
  f[o + 8] = nx * ty - ny * tx;
}
