/**
 * Gathers the contacts of some envs out of the structure-of-arrays contact fields ([k * nEnvs + e]), for both
 * backends: the CPU hands its Data, the GPU the fields it read back. Each contact's force comes from the last
 * step's constraint forces, as MuJoCo's mj_contactForce decodes them (mju_decodePyramid), turned into the world
 * frame as mj_rnePostConstraint does: geom 2 receives it, geom 1 its opposite.
 */
import type { EnvContacts } from './backend.js';

export interface ContactFields {
  ncon: ArrayLike<number>;
  contactGeom: ArrayLike<number>;
  contactPos: ArrayLike<number>;
  contactFrame: ArrayLike<number>;
  contactDist: ArrayLike<number>;
  contactFriction: ArrayLike<number>;
  nefc: ArrayLike<number>;
  efcType: ArrayLike<number>;
  efcId: ArrayLike<number>;
  efcForce: ArrayLike<number>;
}

/** mjtConstraint: the contact rows. */
const CONTACT_FRICTIONLESS = 5;
const CONTACT_PYRAMIDAL = 6;
const CONTACT_ELLIPTIC = 7;

/**
 * The force and torque of each contact of env e in its contact frame (normal, tangent 1, tangent 2, then the
 * torsional and two rolling torques), 6 per contact: MuJoCo's mj_contactForce.
 */
export function contactWrenches(f: ContactFields, n: number, e: number, count: number): Float64Array {
  const first = new Int32Array(count).fill(-1);
  const rows = new Int32Array(count);
  const kind = new Int32Array(count);
  for (let r = 0; r < f.nefc[e]!; r++) {
    const type = f.efcType[r * n + e]!;
    if (type !== CONTACT_FRICTIONLESS && type !== CONTACT_PYRAMIDAL && type !== CONTACT_ELLIPTIC) continue;
    const c = f.efcId[r * n + e]!;
    if (c < 0 || c >= count) continue;
    if (first[c] === -1) first[c] = r;
    rows[c]! += 1;
    kind[c] = type;
  }
  const out = new Float64Array(6 * count);
  const force = (r: number): number => f.efcForce[r * n + e]!;
  for (let c = 0; c < count; c++) {
    const r0 = first[c]!;
    if (r0 < 0) continue; // excluded: no rows, no force
    if (kind[c] === CONTACT_PYRAMIDAL) {
      // dim - 1 pairs of pyramid edges: the normal force is their sum, component i their difference times mu_i
      const pairs = rows[c]! >> 1;
      let normal = 0;
      for (let k = 0; k < 2 * pairs; k++) normal += force(r0 + k);
      out[6 * c] = normal;
      for (let i = 0; i < pairs; i++) {
        out[6 * c + 1 + i] = (force(r0 + 2 * i) - force(r0 + 2 * i + 1)) * f.contactFriction[(5 * c + i) * n + e]!;
      }
    } else {
      for (let i = 0; i < Math.min(rows[c]!, 6); i++) out[6 * c + i] = force(r0 + i);
    }
  }
  return out;
}

export function gatherContacts(f: ContactFields, nEnvs: number, envs: Int32Array): EnvContacts[] {
  const n = nEnvs;
  return Array.from(envs, (e) => {
    const count = f.ncon[e]!;
    const geom = new Int32Array(2 * count), pos = new Float64Array(3 * count);
    const normal = new Float64Array(3 * count), dist = new Float64Array(count), force = new Float64Array(3 * count);
    const local = contactWrenches(f, n, e, count);
    for (let c = 0; c < count; c++) {
      geom[2 * c] = f.contactGeom[2 * c * n + e]!;
      geom[2 * c + 1] = f.contactGeom[(2 * c + 1) * n + e]!;
      for (let k = 0; k < 3; k++) {
        pos[3 * c + k] = f.contactPos[(3 * c + k) * n + e]!;
        normal[3 * c + k] = f.contactFrame[(9 * c + k) * n + e]!; // the frame's first row is the normal
      }
      dist[c] = f.contactDist[c * n + e]!;
      // world = frame^T * local: the frame's rows are the normal and the two tangents
      for (let j = 0; j < 3; j++) {
        let w = 0;
        for (let i = 0; i < 3; i++) w += local[6 * c + i]! * f.contactFrame[(9 * c + 3 * i + j) * n + e]!;
        force[3 * c + j] = w;
      }
    }
    return { geom, pos, normal, dist, force };
  });
}
