/**
 * Gathers the contacts of some envs out of the structure-of-arrays contact fields ([k * nEnvs + e]), for both
 * backends: the CPU hands its Data, the GPU the fields it read back.
 */
import type { EnvContacts } from './backend.js';

export interface ContactFields {
  ncon: ArrayLike<number>;
  contactGeom: ArrayLike<number>;
  contactPos: ArrayLike<number>;
  contactFrame: ArrayLike<number>;
  contactDist: ArrayLike<number>;
}

export function gatherContacts(f: ContactFields, nEnvs: number, envs: Int32Array): EnvContacts[] {
  const n = nEnvs;
  return Array.from(envs, (e) => {
    const count = f.ncon[e]!;
    const geom = new Int32Array(2 * count), pos = new Float64Array(3 * count);
    const normal = new Float64Array(3 * count), dist = new Float64Array(count);
    for (let c = 0; c < count; c++) {
      geom[2 * c] = f.contactGeom[2 * c * n + e]!;
      geom[2 * c + 1] = f.contactGeom[(2 * c + 1) * n + e]!;
      for (let k = 0; k < 3; k++) {
        pos[3 * c + k] = f.contactPos[(3 * c + k) * n + e]!;
        normal[3 * c + k] = f.contactFrame[(9 * c + k) * n + e]!; // the frame's first row is the normal
      }
      dist[c] = f.contactDist[c * n + e]!;
    }
    return { geom, pos, normal, dist };
  });
}
