/**
 * gs.morphs: what an entity is made from. Called like Genesis' classes, without `new`:
 * `gs.morphs.Plane()`, `gs.morphs.MJCF({ file, pos, euler })`, `gs.morphs.URDF({ file, pos, quat, fixed })`.
 * `file` is a path, or a bundled asset name such as 'xml/franka_emika_panda/panda.xml'. `pos` places the
 * entity, `euler` (degrees, roll-pitch-yaw about fixed x, y, z, as Genesis) or `quat` (w, x, y, z) turns it.
 * Any other key is refused, so a Genesis option gsprof lacks (`scale`) is never silently ignored.
 */
import { quatFromRpy } from '../model/frame-math.js';
import { rejectUnknownKeys } from './keys.js';

export type Vec3 = readonly [number, number, number];
export type Quat = readonly [number, number, number, number];

export interface PlaneMorph {
  readonly kind: 'plane';
}

export interface MJCFMorph {
  readonly kind: 'mjcf';
  readonly file: string;
  /** Where the file's world frame goes: every top-level body, world geom and free-joint pose is moved by it. */
  readonly pos: Vec3;
  readonly quat: Quat;
}

export interface URDFMorph {
  readonly kind: 'urdf';
  readonly file: string;
  /** Base position in the world. */
  readonly pos: Vec3;
  /** Base orientation (w, x, y, z). */
  readonly quat: Quat;
  /** Weld the base to the world instead of giving it a free joint. */
  readonly fixed: boolean;
  /** Rotor inertia on every joint dof but the free base (Genesis' default_armature; 0 here unless given). */
  readonly defaultArmature: number;
}

export type Morph = PlaneMorph | MJCFMorph | URDFMorph;

function vec(v: unknown, n: number, name: string): number[] {
  if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new Error(`${name} must be ${n} finite numbers, got ${JSON.stringify(v)}`);
  }
  return v as number[];
}

function fileOf(o: { file?: unknown } | undefined, morph: string): string {
  if (!o || typeof o.file !== 'string' || o.file.length === 0) throw new Error(`gs.morphs.${morph}: 'file' is required`);
  return o.file;
}

interface PoseOptions { pos?: Vec3; euler?: Vec3; quat?: Quat }

/** pos, and the orientation from euler (degrees) or quat, normalized; both given is an error. */
function poseOf(o: PoseOptions, morph: string): { pos: Vec3; quat: Quat } {
  const pos = o.pos === undefined ? [0, 0, 0] : vec(o.pos, 3, `gs.morphs.${morph}: pos`);
  if (o.euler !== undefined && o.quat !== undefined) throw new Error(`gs.morphs.${morph}: give euler or quat, not both`);
  let quat: number[] = [1, 0, 0, 0];
  if (o.euler !== undefined) {
    const e = vec(o.euler, 3, `gs.morphs.${morph}: euler`).map((d) => (d * Math.PI) / 180);
    quat = [...quatFromRpy([e[0]!, e[1]!, e[2]!])];
  } else if (o.quat !== undefined) {
    quat = vec(o.quat, 4, `gs.morphs.${morph}: quat`);
  }
  const norm = Math.hypot(...quat);
  if (!(norm > 0)) throw new Error(`gs.morphs.${morph}: quat must not be zero`);
  return { pos: pos as unknown as Vec3, quat: quat.map((q) => q / norm) as unknown as Quat };
}

export const morphs = {
  Plane(): PlaneMorph {
    return Object.freeze({ kind: 'plane' });
  },
  MJCF(options: { file: string } & PoseOptions): MJCFMorph {
    const file = fileOf(options, 'MJCF');
    rejectUnknownKeys(options, ['file', 'pos', 'euler', 'quat'], 'gs.morphs.MJCF');
    return Object.freeze({ kind: 'mjcf', file, ...poseOf(options, 'MJCF') });
  },
  URDF(options: { file: string; fixed?: boolean; defaultArmature?: number } & PoseOptions): URDFMorph {
    const file = fileOf(options, 'URDF');
    rejectUnknownKeys(options, ['file', 'pos', 'euler', 'quat', 'fixed', 'defaultArmature'], 'gs.morphs.URDF');
    return Object.freeze({
      kind: 'urdf', file,
      ...poseOf(options, 'URDF'),
      fixed: options.fixed ?? false,
      defaultArmature: options.defaultArmature ?? 0,
    });
  },
};
