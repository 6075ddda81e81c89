/**
 * Field-by-field comparison of two compiled Models (ours against MuJoCo's). Integers and names must match
 * exactly, reals to 1e-9 relative. Inertial frames are compared as the tensor R*diag(I)*R^T, so two valid
 * principal frames that differ only in the signs of their axes still agree. setConst fields are skipped.
 */
import type { Model } from '../../src/model/model.js';
import { rotatedInertia, type Quat, type Vec3 } from '../../src/model/frame-math.js';
import { modelFromMujoco, type Mj } from '../helpers/mujoco.js';

const SKIP = new Set(['bodyInvweight0', 'dofInvweight0', 'tendonInvweight0', 'statMeaninertia']);

const close = (a: number, b: number, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)) + 1e-15;

/** Names read straight from mjModel.names (mujoco-js' mj_id2name returns junk for unnamed elements). */
function namesFrom(m: Mj, adr: ArrayLike<number>): string[] {
  const bytes = m.names as ArrayLike<number>;
  return Array.from(adr, (start) => {
    let s = '';
    for (let i = start; bytes[i] !== 0; i++) s += String.fromCharCode(bytes[i]!);
    return s;
  });
}

/** MuJoCo's model as a Model, plus the joint actuator-force fields the test helper does not copy. */
export function mujocoModel(mj: Mj, m: Mj): Model {
  const model = modelFromMujoco(mj, m);
  // the helper's disable-bit constants for contact are off: read the bits from MuJoCo's own enum
  const bit = (name: string): number => mj.mjtDisableBit[name].value;
  model.opt.enableCollision = (m.opt.disableflags & bit('mjDSBL_CONTACT')) === 0;
  model.opt.enableJointLimit = (m.opt.disableflags & bit('mjDSBL_LIMIT')) === 0;
  model.opt.disableEulerdamp = (m.opt.disableflags & bit('mjDSBL_EULERDAMP')) !== 0;
  model.jntActfrclimited = Uint8Array.from(m.jnt_actfrclimited);
  model.jntActfrcrange = Float64Array.from(m.jnt_actfrcrange);
  model.bodyName = namesFrom(m, m.name_bodyadr);
  model.jntName = namesFrom(m, m.name_jntadr);
  model.geomName = namesFrom(m, m.name_geomadr);
  model.siteName = namesFrom(m, m.name_siteadr);
  model.actuatorName = namesFrom(m, m.name_actuatoradr);
  model.keyName = namesFrom(m, m.name_keyadr);
  model.tendonName = namesFrom(m, m.name_tendonadr);
  return model;
}

function inertialMismatch(ours: Model, ref: Model, b: number): string | null {
  const tensor = (m: Model) => rotatedInertia(
    Array.from(m.bodyInertia.subarray(3 * b, 3 * b + 3)) as Vec3,
    Array.from(m.bodyIquat.subarray(4 * b, 4 * b + 4)) as Quat,
  );
  const t1 = tensor(ours), t2 = tensor(ref);
  const scale = t2.map(Math.abs).reduce((m, x) => Math.max(m, x), -Infinity);
  for (let k = 0; k < 6; k++) {
    if (Math.abs(t1[k]! - t2[k]!) > 1e-9 * scale + 1e-15) return `body ${b} inertia tensor [${t1}] vs [${t2}]`;
  }
  return null;
}

/** Returns a list of differences (empty when the models agree). */
export function diffModels(ours: Model, ref: Model): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(ref), ...Object.keys(ours)]);
  for (const key of keys) {
    if (SKIP.has(key) || key === 'bodyIquat' || key === 'bodyInertia') continue;
    const a = (ours as unknown as Record<string, unknown>)[key];
    const b = (ref as unknown as Record<string, unknown>)[key];
    if (key === 'opt') {
      for (const [k, v] of Object.entries(b as object)) {
        const w = (a as Record<string, unknown>)[k];
        if (JSON.stringify(w) !== JSON.stringify(v)) out.push(`opt.${k}: ${JSON.stringify(w)} vs ${JSON.stringify(v)}`);
      }
      continue;
    }
    if (typeof b === 'number' || typeof b === 'string') {
      if (a !== b) out.push(`${key}: ${String(a)} vs ${String(b)}`);
      continue;
    }
    if (Array.isArray(b)) {
      if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${key}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      continue;
    }
    const av = a as ArrayLike<number> | undefined, bv = b as ArrayLike<number>;
    if (!av) { out.push(`${key}: missing`); continue; }
    if (av.length !== bv.length) { out.push(`${key}: length ${av.length} vs ${bv.length}`); continue; }
    const isInt = !(bv instanceof Float64Array);
    for (let i = 0; i < bv.length; i++) {
      const ok = isInt ? av[i] === bv[i] : close(av[i]!, bv[i]!);
      if (!ok) { out.push(`${key}[${i}]: ${av[i]} vs ${bv[i]}`); break; }
    }
  }
  // inertial frames: exact principal moments and quaternion (up to sign), else the same tensor
  for (let b = 0; b < ref.nbody; b++) {
    const q1 = ours.bodyIquat.subarray(4 * b, 4 * b + 4), q2 = ref.bodyIquat.subarray(4 * b, 4 * b + 4);
    const same = (s: number) => [0, 1, 2, 3].every((k) => close(s * q1[k]!, q2[k]!));
    const moments = [0, 1, 2].every((k) => close(ours.bodyInertia[3 * b + k]!, ref.bodyInertia[3 * b + k]!));
    if (moments && (same(1) || same(-1))) continue;
    const why = inertialMismatch(ours, ref, b);
    if (why) out.push(why);
  }
  return out;
}
