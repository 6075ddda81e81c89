/**
 * gs.morphs: what an entity is made from. Called like Genesis' classes, without `new`:
 * `gs.morphs.Plane()`, `gs.morphs.MJCF({ file })`, `gs.morphs.URDF({ file, pos, quat, fixed })`.
 * `file` is a path, or a bundled asset name such as 'xml/franka_emika_panda/panda.xml'.
 */

export type Vec3 = readonly [number, number, number];
export type Quat = readonly [number, number, number, number];

export interface PlaneMorph {
  readonly kind: 'plane';
}

export interface MJCFMorph {
  readonly kind: 'mjcf';
  readonly file: string;
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

export const morphs = {
  Plane(): PlaneMorph {
    return Object.freeze({ kind: 'plane' });
  },
  MJCF(options: { file: string }): MJCFMorph {
    return Object.freeze({ kind: 'mjcf', file: fileOf(options, 'MJCF') });
  },
  URDF(options: { file: string; pos?: Vec3; quat?: Quat; fixed?: boolean; defaultArmature?: number }): URDFMorph {
    const file = fileOf(options, 'URDF');
    const pos = options.pos === undefined ? [0, 0, 0] : vec(options.pos, 3, 'gs.morphs.URDF: pos');
    const quat = options.quat === undefined ? [1, 0, 0, 0] : vec(options.quat, 4, 'gs.morphs.URDF: quat');
    const norm = Math.hypot(...quat);
    if (!(norm > 0)) throw new Error('gs.morphs.URDF: quat must not be zero');
    return Object.freeze({
      kind: 'urdf', file,
      pos: pos as unknown as Vec3,
      quat: quat.map((q) => q / norm) as unknown as Quat,
      fixed: options.fixed ?? false,
      defaultArmature: options.defaultArmature ?? 0,
    });
  },
};
