/**
 * MJCF element specs as read from XML, before compilation: the values a default class holds and an element
 * starts from. Reading an element = copying its class's spec, then applying the element's own attributes with
 * the same reader the `<default>` used. This is MuJoCo's scheme, and it is what makes the shared actuator
 * slot work: `<general>` and `<position>` in one class write into the same ActuatorSpec, in file order.
 */
import {
  BiasType, DynType, GainType, GeomType, JointType,
} from '../model/model.js';
import { DEFAULT_SOLIMP, DEFAULT_SOLREF } from '../model/builder.js';
import { DEFAULT_FLUIDCOEF } from '../model/fluid-coefs.js';
import type { Attrs } from './attrs.js';
import { rootMeshDefaults, type MeshDefaults } from './mesh-asset.js';
import { fail } from './xml.js';

export type Limited = 'auto' | boolean;

/** An orientation given by one of MJCF's alternatives to `quat`. */
export interface AltOrientation { kind: 'axisangle' | 'xyaxes' | 'zaxis' | 'euler'; values: number[] }

export interface JointRaw {
  name: string; type: JointType;
  pos: number[]; axis: number[];
  limited: Limited; range: number[];
  actfrclimited: Limited; actfrcrange: number[];
  ref: number; springref: number; stiffness: number; margin: number;
  solreflimit: number[]; solimplimit: number[]; solreffriction: number[]; solimpfriction: number[];
  armature: number; damping: number; frictionloss: number;
}

export interface GeomRaw {
  name: string; type: GeomType; size: number[];
  contype: number; conaffinity: number; condim: number; group: number; priority: number;
  friction: number[]; solmix: number; solref: number[]; solimp: number[]; margin: number; gap: number;
  pos: number[]; quat: number[]; alt: AltOrientation | null; fromto: number[] | null;
  /** NaN when not given (density is used then). */
  mass: number; density: number;
  mesh: string | null;
  /** An hfield geom's height field. */
  hfield: string | null;
  /** Scale of a primitive fitted to its mesh. */
  fitscale: number;
  /** fluidshape="ellipsoid": the geom takes part in MuJoCo's ellipsoid fluid model, with these fluidcoef values. */
  fluidEllipsoid: boolean; fluidcoef: number[];
}

export interface SiteRaw { name: string; pos: number[]; quat: number[]; alt: AltOrientation | null }

export interface ActuatorRaw {
  name: string; joint: string | null; tendon: string | null;
  /** A site transmission's site, and the reference site its length and moment are measured from (or null). */
  site: string | null; refsite: string | null;
  ctrllimited: Limited; forcelimited: Limited; ctrlrange: number[]; forcerange: number[];
  gear: number[];
  dyntype: DynType; gaintype: GainType; biastype: BiasType;
  dynprm: number[]; gainprm: number[]; biasprm: number[];
  inheritrange: number;
}

export interface EqualityRaw { name: string; active: boolean; solref: number[]; solimp: number[]; data: number[] }

/** A <fixed> or <spatial> tendon's attributes (the mjsTendon fields sim-core uses). */
export interface TendonRaw {
  name: string; limited: Limited; range: number[]; margin: number;
  stiffness: number; damping: number; frictionloss: number; springlength: number[];
  solreflimit: number[]; solimplimit: number[]; solreffriction: number[]; solimpfriction: number[];
}

/**
 * A <contact><pair>'s parameters (mjsPair). MuJoCo's compiler would fill undefined ones from the two geoms, but
 * mjs_defaultPair defines every field, so what a pair does not say comes from its default class, not its geoms.
 */
export interface PairRaw {
  name: string; condim: number; friction: number[]; solref: number[]; solreffriction: number[]; solimp: number[];
  margin: number; gap: number;
}

export interface DefaultClass {
  name: string;
  joint: JointRaw; geom: GeomRaw; site: SiteRaw; actuator: ActuatorRaw; equality: EqualityRaw; tendon: TendonRaw;
  mesh: MeshDefaults; pair: PairRaw;
}

export function rootDefaults(): DefaultClass {
  return {
    name: 'main',
    joint: {
      name: '', type: JointType.Hinge, pos: [0, 0, 0], axis: [0, 0, 1],
      limited: 'auto', range: [0, 0], actfrclimited: 'auto', actfrcrange: [0, 0],
      ref: 0, springref: 0, stiffness: 0, margin: 0,
      solreflimit: [...DEFAULT_SOLREF], solimplimit: [...DEFAULT_SOLIMP],
      solreffriction: [...DEFAULT_SOLREF], solimpfriction: [...DEFAULT_SOLIMP],
      armature: 0, damping: 0, frictionloss: 0,
    },
    geom: {
      name: '', type: GeomType.Sphere, size: [0, 0, 0],
      contype: 1, conaffinity: 1, condim: 3, group: 0, priority: 0,
      friction: [1, 0.005, 0.0001], solmix: 1, solref: [...DEFAULT_SOLREF], solimp: [...DEFAULT_SOLIMP],
      margin: 0, gap: 0, pos: [0, 0, 0], quat: [1, 0, 0, 0], alt: null, fromto: null,
      mass: NaN, density: 1000, mesh: null, hfield: null, fitscale: 1, fluidEllipsoid: false, fluidcoef: [...DEFAULT_FLUIDCOEF],
    },
    site: { name: '', pos: [0, 0, 0], quat: [1, 0, 0, 0], alt: null },
    actuator: {
      name: '', joint: null, tendon: null, site: null, refsite: null, ctrllimited: 'auto', forcelimited: 'auto', ctrlrange: [0, 0], forcerange: [0, 0],
      gear: [1, 0, 0, 0, 0, 0], dyntype: DynType.None, gaintype: GainType.Fixed, biastype: BiasType.None,
      dynprm: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], gainprm: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      biasprm: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], inheritrange: 0,
    },
    equality: {
      name: '', active: true, solref: [...DEFAULT_SOLREF], solimp: [...DEFAULT_SOLIMP],
      data: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    },
    mesh: rootMeshDefaults(),
    pair: {
      name: '', condim: 3, friction: [1, 1, 0.005, 0.0001, 0.0001], solref: [...DEFAULT_SOLREF], solreffriction: [0, 0],
      solimp: [...DEFAULT_SOLIMP], margin: 0, gap: 0,
    },
    tendon: {
      name: '', limited: 'auto', range: [0, 0], margin: 0, stiffness: 0, damping: 0, frictionloss: 0, springlength: [-1, -1],
      solreflimit: [...DEFAULT_SOLREF], solimplimit: [...DEFAULT_SOLIMP], solreffriction: [...DEFAULT_SOLREF], solimpfriction: [...DEFAULT_SOLIMP],
    },
  };
}

/** The attributes of a <fixed> or <spatial> tendon (or a <default><tendon>); others (armature, actuatorfrcrange) are
 *  refused by Attrs.done. */
export function readTendon(a: Attrs, t: TendonRaw): void {
  t.name = a.str('name') ?? t.name;
  t.limited = a.tfauto('limited') ?? t.limited;
  a.into('range', t.range);
  t.margin = a.num('margin') ?? t.margin;
  t.stiffness = a.num('stiffness') ?? t.stiffness;
  t.damping = a.num('damping') ?? t.damping;
  t.frictionloss = a.num('frictionloss') ?? t.frictionloss;
  const spring = a.nums('springlength', 2, false);
  // one number is both ends of the dead band
  if (spring) t.springlength = spring.length === 1 ? [spring[0]!, spring[0]!] : spring;
  a.into('solreflimit', t.solreflimit, false);
  a.into('solimplimit', t.solimplimit, false);
  a.into('solreffriction', t.solreffriction, false);
  a.into('solimpfriction', t.solimpfriction, false);
  // drawing only
  a.str('class'); a.str('rgba'); a.str('width'); a.str('group'); a.str('material');
}

/** A <pair>'s (or <default><pair>'s) parameters; friction, solref and solimp may give only their first numbers. */
export function readPair(a: Attrs, p: PairRaw): void {
  p.condim = a.int('condim') ?? p.condim;
  a.into('friction', p.friction, false);
  a.into('solref', p.solref, false);
  a.into('solreffriction', p.solreffriction, false);
  a.into('solimp', p.solimp, false);
  p.margin = a.num('margin') ?? p.margin;
  p.gap = a.num('gap') ?? p.gap;
}

export function cloneClass(c: DefaultClass, name: string): DefaultClass {
  return { ...structuredClone(c), name };
}

const JOINT_TYPES: Record<string, JointType> = {
  free: JointType.Free, ball: JointType.Ball, slide: JointType.Slide, hinge: JointType.Hinge,
};
const GEOM_TYPES: Record<string, GeomType> = {
  plane: GeomType.Plane, sphere: GeomType.Sphere, capsule: GeomType.Capsule, cylinder: GeomType.Cylinder,
  box: GeomType.Box, ellipsoid: GeomType.Ellipsoid, mesh: GeomType.Mesh, hfield: GeomType.HField,
};

/** Reads `quat` and the alternative orientations into a spec's quat/alt. */
export function readOrientation(a: Attrs, spec: { quat: number[]; alt: AltOrientation | null }): void {
  if (a.into('quat', spec.quat)) spec.alt = null;
  const alts: [AltOrientation['kind'], number][] = [['axisangle', 4], ['xyaxes', 6], ['zaxis', 3], ['euler', 3]];
  let found = 0;
  for (const [kind, n] of alts) {
    const v = a.nums(kind, n);
    if (v) {
      spec.alt = { kind, values: v };
      found++;
    }
  }
  if (found > 1) fail(a.el, 'more than one orientation specifier');
}

export function readJoint(a: Attrs, j: JointRaw): void {
  j.name = a.str('name') ?? j.name;
  const type = a.str('type');
  if (type !== undefined) {
    j.type = a.keyword('type', JOINT_TYPES)!;
  }
  j.limited = a.tfauto('limited') ?? j.limited;
  j.actfrclimited = a.tfauto('actuatorfrclimited') ?? j.actfrclimited;
  a.into('solreflimit', j.solreflimit, false);
  a.into('solimplimit', j.solimplimit, false);
  a.into('solreffriction', j.solreffriction, false);
  a.into('solimpfriction', j.solimpfriction, false);
  a.into('pos', j.pos);
  a.into('axis', j.axis);
  const sd = a.nums('springdamper', 2);
  if (sd && (sd[0] !== 0 || sd[1] !== 0)) fail(a.el, "unsupported attribute 'springdamper'");
  j.stiffness = a.num('stiffness') ?? j.stiffness;
  a.into('range', j.range);
  a.into('actuatorfrcrange', j.actfrcrange);
  j.margin = a.num('margin') ?? j.margin;
  j.ref = a.num('ref') ?? j.ref;
  j.springref = a.num('springref') ?? j.springref;
  j.armature = a.num('armature') ?? j.armature;
  j.damping = a.num('damping') ?? j.damping;
  j.frictionloss = a.num('frictionloss') ?? j.frictionloss;
  if (a.bool('actuatorgravcomp')) fail(a.el, "unsupported attribute 'actuatorgravcomp'");
  a.ignore('group', 'user');
}

export function readGeom(a: Attrs, g: GeomRaw): void {
  g.name = a.str('name') ?? g.name;
  const type = a.keyword('type', { ...GEOM_TYPES, sdf: -1 });
  if (type === -1) fail(a.el, `unsupported geom type "${a.el.attrs.type}"`);
  if (type !== undefined) g.type = type;
  a.into('size', g.size, false);
  g.contype = a.int('contype') ?? g.contype;
  g.conaffinity = a.int('conaffinity') ?? g.conaffinity;
  g.condim = a.int('condim') ?? g.condim;
  g.group = a.int('group') ?? g.group;
  g.priority = a.int('priority') ?? g.priority;
  a.into('friction', g.friction, false);
  g.solmix = a.num('solmix') ?? g.solmix;
  a.into('solref', g.solref, false);
  a.into('solimp', g.solimp, false);
  g.margin = a.num('margin') ?? g.margin;
  g.gap = a.num('gap') ?? g.gap;
  g.hfield = a.str('hfield') ?? g.hfield;
  g.mesh = a.str('mesh') ?? g.mesh;
  const fromto = a.nums('fromto', 6);
  if (fromto) g.fromto = fromto;
  g.mass = a.num('mass') ?? g.mass;
  g.density = a.num('density') ?? g.density;
  a.into('pos', g.pos);
  readOrientation(a, g);
  if (a.keyword('shellinertia', { true: true, false: false })) fail(a.el, "unsupported attribute 'shellinertia'");
  g.fluidEllipsoid = a.keyword('fluidshape', { none: false, ellipsoid: true }) ?? g.fluidEllipsoid;
  a.into('fluidcoef', g.fluidcoef, false);
  g.fitscale = a.num('fitscale') ?? g.fitscale;
  a.ignore('material', 'rgba', 'user');
}

export function readSite(a: Attrs, s: SiteRaw): void {
  s.name = a.str('name') ?? s.name;
  a.into('pos', s.pos);
  readOrientation(a, s);
  if (a.has('fromto')) fail(a.el, "unsupported attribute 'fromto' on a site");
  a.ignore('type', 'size', 'group', 'material', 'rgba', 'user');
}

/** `<general>`, `<motor>`, `<position>` and `<velocity>`: the shortcuts rewrite the shared spec like MuJoCo's. */
export function readActuator(a: Attrs, u: ActuatorRaw, kind: string): void {
  u.name = a.str('name') ?? u.name;
  u.ctrllimited = a.tfauto('ctrllimited') ?? u.ctrllimited;
  u.forcelimited = a.tfauto('forcelimited') ?? u.forcelimited;
  a.into('ctrlrange', u.ctrlrange);
  a.into('forcerange', u.forcerange);
  a.into('gear', u.gear, false);
  for (const t of ['body', 'jointinparent', 'cranksite', 'slidersite']) {
    if (a.has(t)) fail(a.el, `unsupported attribute '${t}' (only joint, tendon and site transmissions are supported)`);
  }
  const actlimited = a.tfauto('actlimited');
  if (actlimited === true) fail(a.el, "unsupported attribute 'actlimited'");
  a.nums('actrange', 2);
  a.nums('lengthrange', 2);
  u.joint = a.str('joint') ?? u.joint;
  u.tendon = a.str('tendon') ?? u.tendon;
  u.site = a.str('site') ?? u.site;
  u.refsite = a.str('refsite') ?? u.refsite;
  a.ignore('group', 'user', 'class');

  if (kind === 'general') {
    const dyn = a.keyword('dyntype', { none: DynType.None, integrator: -1, filter: -1, filterexact: -1, muscle: -1, user: -1 });
    if (dyn === -1) fail(a.el, `unsupported dyntype "${a.el.attrs.dyntype}" (supported: none)`);
    if (dyn !== undefined) u.dyntype = dyn;
    const gain = a.keyword('gaintype', { fixed: GainType.Fixed, affine: GainType.Affine, muscle: -1, user: -1 });
    if (gain === -1) fail(a.el, `unsupported gaintype "${a.el.attrs.gaintype}" (supported: fixed, affine)`);
    if (gain !== undefined) u.gaintype = gain;
    const bias = a.keyword('biastype', { none: BiasType.None, affine: BiasType.Affine, muscle: -1, user: -1 });
    if (bias === -1) fail(a.el, `unsupported biastype "${a.el.attrs.biastype}" (supported: none, affine)`);
    if (bias !== undefined) u.biastype = bias;
    a.into('dynprm', u.dynprm, false);
    a.into('gainprm', u.gainprm, false);
    a.into('biasprm', u.biasprm, false);
    if (a.bool('actearly')) fail(a.el, "unsupported attribute 'actearly'");
    const actdim = a.int('actdim');
    if (actdim !== undefined && actdim > 0) fail(a.el, "unsupported attribute 'actdim'");
  } else if (kind === 'motor') {
    // like MuJoCo, the motor shortcut leaves the other gain and bias parameters as they were
    u.gainprm[0] = 1;
    u.dyntype = DynType.None; u.gaintype = GainType.Fixed; u.biastype = BiasType.None;
  } else if (kind === 'position') {
    const kp = a.num('kp') ?? u.gainprm[0]!;
    const kv = a.num('kv');
    if (a.has('dampratio')) fail(a.el, "unsupported attribute 'dampratio'");
    const timeconst = a.num('timeconst');
    if (timeconst !== undefined && timeconst !== 0) fail(a.el, "unsupported attribute 'timeconst' (activation dynamics)");
    if (kv !== undefined && kv < 0) fail(a.el, 'kv cannot be negative');
    u.inheritrange = a.num('inheritrange') ?? u.inheritrange;
    if (u.inheritrange > 0 && (u.ctrlrange[0] || u.ctrlrange[1])) fail(a.el, 'ctrlrange and inheritrange cannot both be defined');
    u.gainprm[0] = kp;
    u.biasprm[1] = -kp;
    if (kv !== undefined) u.biasprm[2] = -kv;
    u.gaintype = GainType.Fixed; u.biastype = BiasType.Affine;
  } else if (kind === 'velocity') {
    const kv = a.num('kv') ?? u.gainprm[0]!;
    u.biasprm.fill(0);
    u.gainprm[0] = kv;
    u.biasprm[2] = -kv;
    u.dyntype = DynType.None; u.gaintype = GainType.Fixed; u.biastype = BiasType.Affine;
  }
}

export function readEqualityCommon(a: Attrs, e: EqualityRaw): void {
  e.name = a.str('name') ?? e.name;
  e.active = a.bool('active') ?? e.active;
  a.into('solref', e.solref, false);
  a.into('solimp', e.solimp, false);
}
