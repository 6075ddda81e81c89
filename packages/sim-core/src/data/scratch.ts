/**
 * Per-thread working memory of the CPU stages, allocated once per Data and reused every step, so the hot
 * loops allocate nothing. It is kept outside Data (keyed by the Data object) because Data is shared between
 * worker threads while scratch must not be: each worker's attached Data gets its own.
 * Layout is SoA with the env innermost, like Data, and always f64.
 */
import type { Data, Real } from './data.js';
import type { Model } from '../model/model.js';

export interface Scratch {
  /** Per env (rne): body spatial accelerations and forces, 6 * nbody. */
  cacc: Float64Array;
  cfrc: Float64Array;
  /** Per env: an inverse pivot and a multiplier (factorizations). */
  invd: Float64Array;
  tmp: Float64Array;
  /** Per env: L'DL factor of M + h*B (integrate), nv * nv, and its inverse diagonal, nv. */
  qH: Float64Array;
  qHDiagInv: Float64Array;
  /** Per env: nv-vector (integrate's qacc). */
  vecNv: Float64Array;
  /** Per env flag (actuation: some ctrl is NaN/Inf). */
  flag: Uint8Array;
  /** Data's body-frame arrays bound once (a Data rebuilt in a worker may be a slow dictionary-mode object). */
  frames: Frames;
}

export interface Frames {
  n: number;
  xpos: Real; xquat: Real; xmat: Real; xipos: Real; ximat: Real;
}

const scratches = new WeakMap<Data, Scratch>();

export function scratchOf(m: Model, d: Data): Scratch {
  let s = scratches.get(d);
  if (!s) {
    const n = d.nEnvs;
    s = {
      cacc: new Float64Array(6 * m.nbody * n),
      cfrc: new Float64Array(6 * m.nbody * n),
      invd: new Float64Array(n),
      tmp: new Float64Array(n),
      qH: new Float64Array(m.nv * m.nv * n),
      qHDiagInv: new Float64Array(m.nv * n),
      vecNv: new Float64Array(m.nv * n),
      flag: new Uint8Array(n),
      frames: { n, xpos: d.xpos, xquat: d.xquat, xmat: d.xmat, xipos: d.xipos, ximat: d.ximat },
    };
    scratches.set(d, s);
  }
  return s;
}
