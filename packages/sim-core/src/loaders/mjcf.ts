/**
 * MJCF compiler: reads a MuJoCo XML file (with its includes) and compiles it to a Model exactly as MuJoCo's
 * compiler would for the features gsprof supports. Sections are processed in MuJoCo's order (compiler, option,
 * defaults, ..., worldbody last), defaults are resolved per element, and frames, units, limits and inertias
 * are resolved once here. Elements with no physical effect are skipped with a note in the log; anything else
 * that is not supported is an error naming the file, line and element.
 */
import { dirname, resolve } from 'node:path';
import {
  ConeType, EqType, GeomType, Integrator, JointType, SolverType, TrnType,
  type ModelOptions,
} from '../model/model.js';
import {
  buildModel, defaultOptions, findMasslessMovingBody, worldBody,
  type ActuatorSpec, type BodySpec, type EqualitySpec, type GeomSpec, type JointSpec, type KeySpec, type SiteSpec, type TendonSpec,
} from '../model/builder.js';
import {
  EPS, add3, combineInertials, composePose, normalize, rotate, normalized, principalInertia, quatFromAxisAngle, quatFromEuler,
  quatFromFrame, quatFromZ, cross3,
  type Quat, type Sym3, type Vec3,
} from '../model/frame-math.js';
import { ellipsoidFluidCoefs } from '../model/fluid-coefs.js';
import { geomInertia, geomRbound, geomVolume } from '../model/geom-props.js';
import type { PairSpec } from '../model/pairs.js';
import { Attrs } from './attrs.js';
import { HFieldAssets } from './hfield-asset.js';
import { ModelBudget, type ModelLimits } from './limits.js';
import { meshAssetsFor, readMeshDefaults, type MeshAssets } from './mesh-asset.js';
import { fitGeom, meshGeomInertia, meshGeomSize } from './mesh-process.js';
import {
  cloneClass, readActuator, readEqualityCommon, readGeom, readJoint, readOrientation, readPair, readSite, readTendon, rootDefaults,
  type ActuatorRaw, type AltOrientation, type DefaultClass, type GeomRaw, type JointRaw, type Limited, type PairRaw, type SiteRaw,
  type TendonRaw,
} from './mjcf-specs.js';
import { readSensorSection, resolveSensors, type SensorRaw } from './mjcf-sensors.js';
import { spatialPath, type SpatialPathRaw } from './mjcf-tendon.js';
import type { LoadedModel } from './types.js';
import { ModelFileError, fail, parseXmlFile, type XmlElement } from './xml.js';

interface CompilerSettings {
  degree: boolean;
  eulerseq: string;
  autolimits: boolean;
  inertiafromgeom: 'auto' | 'true' | 'false';
  inertiagrouprange: [number, number];
  boundmass: number;
  boundinertia: number;
  balanceinertia: boolean;
  /** Fit primitives with a mesh to its bounding box, not its inertia box. */
  fitaabb: boolean;
}

/** A <joint> equality names two joints; a <connect> or <weld> two bodies (body2 absent: the world), the anchor
 * (and a weld's relative pose and torquescale) in data as MuJoCo lays it out. */
interface EqualityRead {
  el: XmlElement; name: string; kind: 'joint' | 'connect' | 'weld'; obj1: string; obj2: string | null;
  active: boolean; solref: number[]; solimp: number[]; data: number[];
}

interface RawBody {
  el: XmlElement;
  name: string;
  parent: number;
  pos: number[]; quat: number[]; alt: AltOrientation | null;
  explicitInertial: boolean;
  ipos: number[]; iquat: number[]; ialt: AltOrientation | null;
  mass: number; inertia: number[]; fullinertia: number[] | null;
  joints: { el: XmlElement; spec: JointRaw }[];
  geoms: { el: XmlElement; spec: GeomRaw }[];
  sites: { el: XmlElement; spec: SiteRaw }[];
}

/** Top-level sections in the order MuJoCo's reader processes them. */
const SECTION_ORDER = [
  'compiler', 'option', 'size', 'visual', 'statistic', 'default', 'extension', 'custom', 'asset', 'contact',
  'deformable', 'equality', 'tendon', 'actuator', 'sensor', 'keyframe', 'worldbody',
];

/**
 * Flags whose non-default setting only affects things gsprof does not model (sensors, rendering). nativeccd
 * and multiccd are not among them: they change the general convex narrow phase, which follows MuJoCo's
 * default (native ccd, one contact per pair).
 */
const HARMLESS_FLAGS = new Set(['midphase', 'island', 'energy', 'fwdinv', 'invdiscrete', 'autoreset']);
const ENABLE_FLAGS = new Set(['override', 'energy', 'fwdinv', 'invdiscrete', 'multiccd', 'sleep']);
const DISABLE_FLAGS = new Set([
  'constraint', 'equality', 'frictionloss', 'limit', 'contact', 'spring', 'damper', 'gravity', 'clampctrl',
  'warmstart', 'filterparent', 'actuation', 'refsafe', 'sensor', 'midphase', 'eulerdamp', 'autoreset', 'nativeccd', 'island',
]);

/** Include limits: MuJoCo has none, but no real model comes near them (Menagerie nests 2 levels). */
const MAX_INCLUDE_DEPTH = 32;
const MAX_INCLUDES = 1000;

export interface MJCFOptions {
  /** Lower (or raise) the caps on what loading may read and allocate (limits.ts). */
  limits?: Partial<ModelLimits>;
}

export function loadMJCF(file: string, opts: MJCFOptions = {}): LoadedModel {
  return new MjcfCompiler(file, new ModelBudget(opts.limits)).compile();
}

/** An hfield geom's bounding radius: its half-extents and the larger of elevation and base (mjCGeom::GetRBound). */
function hfieldRbound(s: readonly number[]): number {
  return Math.sqrt(s[0]! * s[0]! + s[1]! * s[1]! + Math.max(s[2]! * s[2]!, s[3]! * s[3]!));
}

class MjcfCompiler {
  private readonly log: string[] = [];
  private readonly ignored = new Map<string, { where: string; count: number; why: string }>();
  private readonly options: Partial<ModelOptions> = {};
  private readonly compiler: CompilerSettings = {
    degree: true, eulerseq: 'xyz', autolimits: true, inertiafromgeom: 'auto', inertiagrouprange: [0, 5],
    boundmass: 0, boundinertia: 0, balanceinertia: false, fitaabb: false,
  };
  private readonly classes = new Map<string, DefaultClass>();
  private readonly bodies: RawBody[] = [];
  private readonly actuators: { el: XmlElement; spec: ActuatorRaw }[] = [];
  private readonly equalities: EqualityRead[] = [];
  private readonly tendons: Array<{
    el: XmlElement; spec: TendonRaw; joints: Array<{ el: XmlElement; joint: string; coef: number }>;
    /** A spatial tendon's path: sites by name, pulleys with their divisor. */
    path?: SpatialPathRaw;
  }> = [];
  private readonly excludes: { el: XmlElement; body1: string; body2: string }[] = [];
  private readonly pairs: { el: XmlElement; geom1: string; geom2: string; spec: PairRaw }[] = [];
  /** Geoms named by a <pair>: they collide whatever their contype, so none of them is dropped as visual. */
  private readonly pairGeoms = new Set<string>();
  private readonly sensors: SensorRaw[] = [];
  /** A `<flag sensor="disable">`: MuJoCo then leaves sensordata at zero, which sim-core does not model. */
  private sensorsDisabled: XmlElement | null = null;
  private readonly keys: { el: XmlElement; name: string; time: number; qpos?: number[]; qvel?: number[]; ctrl?: number[] }[] = [];

  private readonly meshes: MeshAssets;
  private readonly hfields: HFieldAssets;

  constructor(private readonly file: string, private readonly budget: ModelBudget) {
    this.classes.set('main', rootDefaults());
    this.meshes = meshAssetsFor(file, budget);
    this.hfields = new HFieldAssets(dirname(resolve(file)), this.meshes);
  }

  compile(): LoadedModel {
    const root = parseXmlFile(this.file, (f) => this.budget.readXml(f));
    if (root.name !== 'mujoco') fail(root, 'the root element of an MJCF file must be <mujoco>');
    const sections = this.expandIncludes(root, new Set([resolve(this.file)]));
    for (const s of sections) {
      if (!SECTION_ORDER.includes(s.name)) fail(s, 'unsupported element');
    }
    const rootAttrs = new Attrs(root);
    rootAttrs.ignore('model');
    rootAttrs.done();

    for (const name of SECTION_ORDER) {
      for (const s of sections.filter((x) => x.name === name)) this.section(s);
    }
    const model = this.build();
    for (const [name, { where, count, why }] of this.ignored) {
      this.log.push(`ignored <${name}>${count > 1 ? ` x${count}` : ''} (${why}; first at ${where})`);
    }
    return { model, options: this.options, log: this.log, sourceFile: this.file };
  }

  /**
   * Replaces every <include file=...> (relative to the including file) by the included file's sections. At most
   * MAX_INCLUDES files in all and MAX_INCLUDE_DEPTH levels: 26 levels of a file included twice would otherwise
   * expand to 2^26 copies.
   */
  private expandIncludes(root: XmlElement, seen: Set<string>, count = { files: 0 }): XmlElement[] {
    const out: XmlElement[] = [];
    for (const el of root.children) {
      if (el.name !== 'include') {
        out.push(el);
        continue;
      }
      const a = new Attrs(el);
      const rel = a.requiredStr('file');
      a.done();
      const path = resolve(dirname(el.file), rel);
      if (seen.has(path)) fail(el, `include cycle through "${rel}"`);
      if (seen.size > MAX_INCLUDE_DEPTH) fail(el, `includes nested deeper than ${MAX_INCLUDE_DEPTH} levels`);
      if (++count.files > MAX_INCLUDES) fail(el, `more than ${MAX_INCLUDES} included files (counting repeats)`);
      let sub: XmlElement;
      try {
        sub = parseXmlFile(path, (f) => this.budget.readXml(f));
      } catch (e) {
        if (e instanceof ModelFileError) throw e;
        fail(el, `cannot read included file "${rel}" (${(e as Error).message})`);
      }
      if (sub.name !== 'mujoco') fail(sub, 'an included file must have a <mujoco> root element');
      for (const x of this.expandIncludes(sub, new Set([...seen, path]), count)) out.push(x);
    }
    return out;
  }

  private ignore(el: XmlElement, why: string): void {
    const entry = this.ignored.get(el.name);
    if (entry) entry.count++;
    else this.ignored.set(el.name, { where: `${el.file}:${el.line}`, count: 1, why });
  }

  private section(s: XmlElement): void {
    switch (s.name) {
      case 'compiler': this.compilerSection(s); break;
      case 'option': this.optionSection(s); break;
      case 'size': this.ignore(s, 'memory sizing only'); break;
      case 'visual': this.ignore(s, 'visual only'); break;
      case 'statistic': {
        if ('meaninertia' in s.attrs) fail(s, "unsupported attribute 'meaninertia' (it would change the solver's scaling)");
        this.ignore(s, 'visual only');
        return;
      }
      case 'default': this.defaultSection(s, null); break;
      case 'custom': this.ignore(s, 'user data only'); break;
      case 'asset': {
        new Attrs(s).done();
        for (const c of s.children) {
          if (c.name === 'mesh') {
            const a = new Attrs(c);
            this.meshes.add(a, structuredClone(this.classOf(c, a, this.classes.get('main')!).mesh));
            a.done();
          } else if (c.name === 'hfield') {
            const a = new Attrs(c);
            this.hfields.add(a);
            a.done();
          } else if (['texture', 'material', 'skin', 'model'].includes(c.name)) {
            this.ignore(c, 'asset used only by visual elements or by unsupported geoms');
          } else {
            fail(c, 'unsupported element');
          }
        }
        return;
      }
      case 'contact': this.contactSection(s); break;
      case 'equality': this.equalitySection(s); break;
      case 'tendon': this.tendonSection(s); break;
      case 'actuator': this.actuatorSection(s); break;
      case 'sensor': for (const x of readSensorSection(s)) this.sensors.push(x); break;
      case 'keyframe': this.keyframeSection(s); break;
      case 'worldbody': this.worldbodySection(s); break;
      default: fail(s, 'unsupported element');
    }
  }

  private compilerSection(s: XmlElement): void {
    const a = new Attrs(s);
    const c = this.compiler;
    c.autolimits = a.bool('autolimits') ?? c.autolimits;
    c.boundmass = a.num('boundmass') ?? c.boundmass;
    c.boundinertia = a.num('boundinertia') ?? c.boundinertia;
    c.balanceinertia = a.bool('balanceinertia') ?? c.balanceinertia;
    const angle = a.keyword('angle', { degree: true, radian: false });
    if (angle !== undefined) c.degree = angle;
    const seq = a.str('eulerseq');
    if (seq !== undefined) {
      if (!/^[xyzXYZ]{3}$/.test(seq)) fail(s, `attribute 'eulerseq': expected three of x, y, z, X, Y, Z, got "${seq}"`);
      c.eulerseq = seq;
    }
    c.inertiafromgeom = a.keyword('inertiafromgeom', { auto: 'auto', true: 'true', false: 'false' } as const) ?? c.inertiafromgeom;
    const range = a.nums('inertiagrouprange', 2);
    if (range) c.inertiagrouprange = [range[0]!, range[1]!];
    if (a.keyword('coordinate', { local: 'local' }) === undefined && a.has('coordinate')) fail(s, 'global coordinates are not supported');
    for (const off of ['discardvisual', 'fusestatic', 'alignfree']) {
      if (a.bool(off)) fail(s, `unsupported attribute '${off}="true"'`);
    }
    if (a.has('settotalmass') && a.num('settotalmass')! > 0) fail(s, "unsupported attribute 'settotalmass'");
    // MuJoCo: assetdir sets the mesh folder, meshdir takes precedence
    this.meshes.meshdir = a.str('meshdir') ?? a.str('assetdir') ?? this.meshes.meshdir;
    this.meshes.strippath = a.bool('strippath') ?? this.meshes.strippath;
    c.fitaabb = a.bool('fitaabb') ?? c.fitaabb;
    a.ignore('texturedir', 'assetdir', 'usethread', 'saveinertial', 'exactmeshinertia');
    a.done();
    for (const child of s.children) {
      if (child.name === 'lengthrange') this.ignore(child, 'tendon/actuator length ranges are not used');
      else fail(child, 'unsupported element');
    }
  }

  private optionSection(s: XmlElement): void {
    const a = new Attrs(s);
    const o = this.options;
    const set = <K extends keyof ModelOptions>(k: K, v: ModelOptions[K] | undefined) => {
      if (v !== undefined) o[k] = v;
    };
    set('timestep', a.num('timestep'));
    const g = a.nums('gravity', 3);
    if (g) o.gravity = [g[0]!, g[1]!, g[2]!];
    set('integrator', a.keyword('integrator', {
      Euler: Integrator.Euler, implicitfast: Integrator.ImplicitFast, RK4: -1 as Integrator, implicit: Integrator.Implicit,
    }));
    if ((o.integrator as number) === -1) fail(s, `unsupported integrator "${s.attrs.integrator}" (supported: Euler, implicitfast, implicit)`);
    set('solver', a.keyword('solver', { Newton: SolverType.Newton, CG: SolverType.CG, PGS: -1 as SolverType }));
    if ((o.solver as number) === -1) fail(s, 'unsupported solver "PGS" (supported: Newton, CG)');
    set('iterations', a.int('iterations'));
    set('tolerance', a.num('tolerance'));
    set('lsIterations', a.int('ls_iterations'));
    set('lsTolerance', a.num('ls_tolerance'));
    set('cone', a.keyword('cone', { pyramidal: ConeType.Pyramidal, elliptic: ConeType.Elliptic }));
    set('impratio', a.num('impratio'));
    set('ccdTolerance', a.num('ccd_tolerance'));
    set('ccdIterations', a.int('ccd_iterations'));
    // the medium of fluid forces (MuJoCo's inertia-box model, or the ellipsoid model of geoms with fluidshape)
    for (const k of ['density', 'viscosity'] as const) {
      const v = a.num(k);
      if (v === undefined) continue;
      if (!(v >= 0)) fail(s, `attribute '${k}' must be a number >= 0, got "${s.attrs[k]}"`);
      o[k] = v;
    }
    const wind = a.nums('wind', 3);
    if (wind) o.wind = [wind[0]!, wind[1]!, wind[2]!];
    const noslip = a.int('noslip_iterations');
    if (noslip) fail(s, "unsupported attribute 'noslip_iterations'");
    if (a.int('actuatorgroupdisable')) fail(s, "unsupported attribute 'actuatorgroupdisable'");
    a.ignore('magnetic', 'jacobian', 'sdf_iterations', 'sdf_initpoints',
      'noslip_tolerance', 'apirate', 'o_margin', 'o_solref', 'o_solimp', 'o_friction');
    a.done();
    for (const f of s.children) {
      if (f.name !== 'flag') fail(f, 'unsupported element');
      const fa = new Attrs(f);
      for (const name of Object.keys(f.attrs)) {
        const value = fa.keyword(name, { enable: true, disable: false });
        if (!ENABLE_FLAGS.has(name) && !DISABLE_FLAGS.has(name)) fail(f, `unsupported flag '${name}'`);
        const isDefault = ENABLE_FLAGS.has(name) ? value === false : value === true;
        if (name === 'eulerdamp') o.disableEulerdamp = !value;
        else if (name === 'sensor') { if (!value) this.sensorsDisabled = f; }
        else if (name === 'contact') o.enableCollision = !!value;
        else if (name === 'limit') o.enableJointLimit = !!value;
        else if (!isDefault) {
          if (HARMLESS_FLAGS.has(name)) this.log.push(`${f.file}:${f.line}: flag ${name}="${f.attrs[name]}" has no effect in gsprof`);
          else fail(f, `unsupported flag setting ${name}="${f.attrs[name]}"`);
        }
      }
      fa.done();
    }
  }

  private defaultSection(el: XmlElement, parent: DefaultClass | null): void {
    const a = new Attrs(el);
    let name = a.str('class');
    a.done();
    if (name === undefined) {
      if (parent) fail(el, "missing required attribute 'class'");
      name = 'main';
    }
    let cls: DefaultClass;
    if (!parent) {
      cls = this.classes.get('main')!;
      if (name !== 'main') {
        cls = cloneClass(cls, name);
        this.classes.set(name, cls);
      }
    } else {
      if (this.classes.has(name)) fail(el, `repeated default class "${name}"`);
      cls = cloneClass(parent, name);
      this.classes.set(name, cls);
    }
    for (const c of el.children) {
      const ca = new Attrs(c);
      switch (c.name) {
        case 'default': this.defaultSection(c, cls); continue;
        case 'joint': readJoint(ca, cls.joint); break;
        case 'geom': readGeom(ca, cls.geom); break;
        case 'site': readSite(ca, cls.site); break;
        case 'general': case 'motor': case 'position': case 'velocity': readActuator(ca, cls.actuator, c.name); break;
        case 'equality': readEqualityCommon(ca, cls.equality); break;
        case 'tendon': readTendon(ca, cls.tendon); break;
        case 'mesh': readMeshDefaults(ca, cls.mesh); break;
        case 'pair': readPair(ca, cls.pair); break;
        case 'material': case 'camera': case 'light':
          this.ignore(c, 'default for elements gsprof does not use');
          continue;
        default: fail(c, 'unsupported element in <default>');
      }
      ca.done();
    }
  }

  private classOf(el: XmlElement, a: Attrs, inherited: DefaultClass): DefaultClass {
    const name = a.str('class');
    if (name === undefined) return inherited;
    const cls = this.classes.get(name);
    if (!cls) fail(el, `unknown default class "${name}"`);
    return cls;
  }

  private contactSection(s: XmlElement): void {
    new Attrs(s).done();
    for (const c of s.children) {
      if (c.name === 'pair') {
        this.pairSection(c);
        continue;
      }
      if (c.name !== 'exclude') fail(c, 'unsupported element (only <pair> and <exclude> are supported in <contact>)');
      const a = new Attrs(c);
      a.ignore('name');
      this.excludes.push({ el: c, body1: a.requiredStr('body1'), body2: a.requiredStr('body2') });
      a.done();
    }
  }

  /** One <pair>: its class's parameters (the main class unless given), overridden by its own attributes. */
  private pairSection(c: XmlElement): void {
    const a = new Attrs(c);
    const p = structuredClone(this.classOf(c, a, this.classes.get('main')!).pair);
    p.name = a.str('name') ?? '';
    const geom1 = a.requiredStr('geom1'), geom2 = a.requiredStr('geom2');
    readPair(a, p);
    a.done();
    if (![1, 3, 4, 6].includes(p.condim)) fail(c, 'invalid condim in contact pair');
    // MuJoCo uses solreffriction only on elliptic cones' frictional rows, which sim-core gives the contact's solref
    if (p.solreffriction[0] !== 0 || p.solreffriction[1] !== 0) {
      fail(c, 'unsupported attribute solreffriction (a nonzero one changes elliptic cones\' friction rows; leave it 0 0)');
    }
    this.pairs.push({ el: c, geom1, geom2, spec: p });
    this.pairGeoms.add(geom1).add(geom2);
  }

  private equalitySection(s: XmlElement): void {
    new Attrs(s).done();
    for (const c of s.children) {
      if (c.name !== 'joint' && c.name !== 'connect' && c.name !== 'weld') fail(c, 'unsupported element (only joint, connect and weld equalities are supported)');
      const a = new Attrs(c);
      const cls = this.classOf(c, a, this.classes.get('main')!);
      const e = structuredClone(cls.equality);
      readEqualityCommon(a, e);
      let obj1: string, obj2: string | null;
      if (c.name === 'joint') {
        const poly = a.nums('polycoef', 5, false);
        if (poly) poly.forEach((v, i) => { e.data[i] = v; });
        obj1 = a.requiredStr('joint1');
        obj2 = a.str('joint2') ?? null;
      } else if (c.name === 'connect') {
        if (a.has('site1') || a.has('site2')) fail(c, 'unsupported connect between sites (connect bodies: body1, body2, anchor)');
        obj1 = a.requiredStr('body1');
        obj2 = a.str('body2') ?? null;
        const anchor = a.nums('anchor', 3);
        if (!anchor) fail(c, "missing required attribute 'anchor'");
        anchor.forEach((v, i) => { e.data[i] = v; });
      } else {
        if (a.has('site1') || a.has('site2')) fail(c, 'unsupported weld between sites (weld bodies: body1, body2, anchor, relpose)');
        obj1 = a.requiredStr('body1');
        obj2 = a.str('body2') ?? null;
        // MuJoCo: the anchor (in body 2's frame) is zero unless given; relpose fills data 3-9 (a zero quaternion:
        // the relative pose at qpos0, set by setConst); torquescale is data 10.
        const anchor = a.nums('anchor', 3) ?? [0, 0, 0];
        anchor.forEach((v, i) => { e.data[i] = v; });
        a.nums('relpose', 7)?.forEach((v, i) => { e.data[3 + i] = v; });
        const torquescale = a.nums('torquescale', 1);
        if (torquescale) e.data[10] = torquescale[0]!;
      }
      a.done();
      this.equalities.push({ el: c, name: e.name, kind: c.name as 'joint' | 'connect' | 'weld', obj1, obj2, active: e.active, solref: e.solref, solimp: e.solimp, data: e.data });
    }
  }

  /** An actuator on a fixed tendon: its length is gear * the tendon's length, its force acts through gear * J. */
  private tendonActuator(el: XmlElement, u: ActuatorRaw, tendonId: Map<string, number>): ActuatorSpec {
    const t = tendonId.get(u.tendon!);
    if (t === undefined) fail(el, `unknown tendon "${u.tendon}"`);
    if (u.inheritrange > 0) fail(el, 'inheritrange can only be used with hinge and slide joints');
    return this.actuatorSpec(el, u, TrnType.Tendon, t, [...u.ctrlrange] as [number, number]);
  }

  /**
   * An actuator on a site (mjTRN_SITE): a wrench at the site, gear[0:3] a force and gear[3:6] a torque in the site's
   * frame; with a refsite, its length is the site's position and rotation relative to the refsite's (projected on
   * the gear) and its moment the difference of the two sites' Jacobians.
   */
  private siteActuator(el: XmlElement, u: ActuatorRaw, siteId: Map<string, number>): ActuatorSpec {
    const s = siteId.get(u.site!);
    if (s === undefined) fail(el, `unknown site "${u.site}"`);
    let refsite = -1;
    if (u.refsite !== null) {
      const r = siteId.get(u.refsite);
      if (r === undefined) fail(el, `unknown refsite "${u.refsite}"`);
      refsite = r;
    }
    if (u.inheritrange > 0) fail(el, 'inheritrange can only be used with hinge and slide joints');
    return { ...this.actuatorSpec(el, u, TrnType.Site, s, [...u.ctrlrange] as [number, number]), refsite };
  }

  /** The compiled actuator on its target (a joint or a tendon index), its ranges checked as MuJoCo does. */
  private actuatorSpec(el: XmlElement, u: ActuatorRaw, trntype: TrnType, target: number, ctrlrange: [number, number]): ActuatorSpec {
    const forcerange = [...u.forcerange] as [number, number];
    const forcelimited = this.isLimited(el, u.forcelimited, forcerange, 'force');
    const ctrllimited = this.isLimited(el, u.ctrllimited, ctrlrange, 'ctrl');
    if (forcelimited && forcerange[0] >= forcerange[1]) fail(el, 'invalid force range');
    if (ctrllimited && ctrlrange[0] >= ctrlrange[1]) fail(el, 'invalid control range');
    return {
      name: u.name, trntype, joint: target, dyntype: u.dyntype, gaintype: u.gaintype, biastype: u.biastype,
      ctrllimited, forcelimited, ctrlrange, forcerange, gear: [...u.gear], gainprm: [...u.gainprm], biasprm: [...u.biasprm],
    };
  }

  private tendonSection(s: XmlElement): void {
    new Attrs(s).done();
    for (const c of s.children) {
      if (c.name !== 'fixed' && c.name !== 'spatial') fail(c, 'unsupported tendon (fixed and spatial tendons are supported)');
      const a = new Attrs(c);
      const cls = this.classOf(c, a, this.classes.get('main')!);
      const t = structuredClone(cls.tendon);
      t.name = '';
      readTendon(a, t);
      a.done();
      if (c.name === 'spatial') {
        this.tendons.push({ el: c, spec: t, joints: [], path: spatialPath(c, t.name, this.tendons.length) });
        continue;
      }
      const joints = c.children.map((j) => {
        if (j.name !== 'joint') fail(j, 'unsupported element in a fixed tendon (only <joint joint coef>)');
        const ja = new Attrs(j);
        const joint = ja.requiredStr('joint');
        const coef = ja.num('coef') ?? 1;
        ja.done();
        return { el: j, joint, coef };
      });
      if (joints.length === 0) fail(c, 'a fixed tendon needs at least one <joint>');
      this.tendons.push({ el: c, spec: t, joints });
    }
  }

  private actuatorSection(s: XmlElement): void {
    new Attrs(s).done();
    for (const c of s.children) {
      if (!['general', 'motor', 'position', 'velocity'].includes(c.name)) {
        fail(c, 'unsupported actuator (supported: general, motor, position, velocity)');
      }
      const a = new Attrs(c);
      const cls = this.classOf(c, a, this.classes.get('main')!);
      const u = structuredClone(cls.actuator);
      u.name = '';
      readActuator(a, u, c.name);
      a.done();
      this.actuators.push({ el: c, spec: u });
    }
  }

  private keyframeSection(s: XmlElement): void {
    new Attrs(s).done();
    for (const c of s.children) {
      if (c.name !== 'key') fail(c, 'unsupported element');
      const a = new Attrs(c);
      const key = { el: c, name: a.str('name') ?? '', time: a.num('time') ?? 0, qpos: a.vector('qpos'), qvel: a.vector('qvel'), ctrl: a.vector('ctrl') };
      for (const stateless of ['act', 'mpos', 'mquat']) {
        const v = a.vector(stateless);
        if (v && v.length > 0) fail(c, `attribute '${stateless}': the model has no such state`);
      }
      a.done();
      this.keys.push(key);
    }
  }

  private worldbodySection(s: XmlElement): void {
    new Attrs(s).done();
    if (this.bodies.length === 0) {
      this.bodies.push({
        el: s, name: 'world', parent: -1, pos: [0, 0, 0], quat: [1, 0, 0, 0], alt: null, explicitInertial: false,
        ipos: [NaN, 0, 0], iquat: [1, 0, 0, 0], ialt: null, mass: 0, inertia: [0, 0, 0], fullinertia: null,
        joints: [], geoms: [], sites: [],
      });
    }
    // world elements keep body 0; nested bodies are appended depth-first, in document order. An explicit stack,
    // not recursion: a 20,000-deep chain overflowed the call stack.
    const pending: { el: XmlElement; parent: number; def: DefaultClass }[] = [];
    const queue = (children: XmlElement[], parent: number, def: DefaultClass): void => {
      for (let k = children.length - 1; k >= 0; k--) pending.push({ el: children[k]!, parent, def });
    };
    const main = this.classes.get('main')!;
    queue(this.bodyChildren(s, 0, main), 0, main);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const { index, def } = this.readBody(next.el, next.parent, next.def);
      queue(this.bodyChildren(next.el, index, def), index, def);
    }
  }

  /** Reads a body's joints, geoms, sites and inertial; returns its child bodies for the caller to read next. */
  private bodyChildren(el: XmlElement, bodyIndex: number, def: DefaultClass): XmlElement[] {
    const body = this.bodies[bodyIndex]!;
    const isWorld = bodyIndex === 0;
    // MuJoCo numbers a body's own elements before its children: collect child bodies, read after
    const childBodies: XmlElement[] = [];
    for (const c of el.children) {
      const a = new Attrs(c);
      switch (c.name) {
        case 'inertial': {
          if (isWorld) fail(c, 'the world body cannot have an inertial');
          body.explicitInertial = true;
          const ipos = a.nums('pos', 3);
          if (!ipos) fail(c, "missing required attribute 'pos'");
          body.ipos = ipos;
          const q = { quat: body.iquat, alt: null as AltOrientation | null };
          readOrientation(a, q);
          body.ialt = q.alt;
          const mass = a.num('mass');
          if (mass === undefined) fail(c, "missing required attribute 'mass'");
          body.mass = mass;
          a.into('diaginertia', body.inertia);
          body.fullinertia = a.nums('fullinertia', 6) ?? null;
          if (body.fullinertia && body.ialt) fail(c, 'fullinertia and inertial orientation cannot both be specified');
          break;
        }
        case 'joint': {
          if (isWorld) fail(c, 'joints cannot be attached to the world body');
          const spec = structuredClone(this.classOf(c, a, def).joint);
          spec.name = '';
          readJoint(a, spec);
          body.joints.push({ el: c, spec });
          break;
        }
        case 'freejoint': {
          if (isWorld) fail(c, 'joints cannot be attached to the world body');
          // a free joint takes no defaults, as in MuJoCo
          const spec = structuredClone(rootDefaults().joint);
          spec.type = JointType.Free;
          spec.name = a.str('name') ?? '';
          a.ignore('group');
          const align = a.keyword('align', { true: true, false: false, auto: false });
          if (align) fail(c, "unsupported attribute 'align'");
          body.joints.push({ el: c, spec });
          break;
        }
        case 'geom': {
          const spec = structuredClone(this.classOf(c, a, def).geom);
          spec.name = '';
          readGeom(a, spec);
          body.geoms.push({ el: c, spec });
          break;
        }
        case 'site': {
          const spec = structuredClone(this.classOf(c, a, def).site);
          spec.name = '';
          readSite(a, spec);
          body.sites.push({ el: c, spec });
          break;
        }
        case 'body':
          childBodies.push(c);
          continue;
        case 'camera': case 'light':
          this.ignore(c, 'visual only');
          continue;
        default:
          fail(c, 'unsupported element');
      }
      a.done();
    }
    return childBodies;
  }

  private readBody(el: XmlElement, parent: number, inherited: DefaultClass): { index: number; def: DefaultClass } {
    const a = new Attrs(el);
    const childclass = a.str('childclass');
    let def = inherited;
    if (childclass !== undefined) {
      const cls = this.classes.get(childclass);
      if (!cls) fail(el, `unknown default childclass "${childclass}"`);
      def = cls;
    }
    const frame = { quat: [1, 0, 0, 0], alt: null as AltOrientation | null };
    const pos = a.nums('pos', 3) ?? [0, 0, 0];
    readOrientation(a, frame);
    if (a.bool('mocap')) fail(el, "unsupported attribute 'mocap'");
    const gravcomp = a.num('gravcomp');
    if (gravcomp) fail(el, "unsupported attribute 'gravcomp'");
    const name = a.str('name') ?? '';
    a.ignore('user');
    a.done();
    const index = this.bodies.length;
    this.bodies.push({
      el, name, parent, pos, quat: frame.quat, alt: frame.alt, explicitInertial: false,
      ipos: [NaN, 0, 0], iquat: [1, 0, 0, 0], ialt: null, mass: 0, inertia: [0, 0, 0], fullinertia: null,
      joints: [], geoms: [], sites: [],
    });
    return { index, def };
  }

  // ------------------------------------------------------------------ compile

  private resolveAlt(el: XmlElement, alt: AltOrientation): Quat {
    const v = alt.values;
    const deg = this.compiler.degree ? Math.PI / 180 : 1;
    switch (alt.kind) {
      case 'axisangle': {
        const q = quatFromAxisAngle([v[0]!, v[1]!, v[2]!], v[3]! * deg);
        if (!q) fail(el, 'axisangle too small');
        return q;
      }
      case 'euler':
        return quatFromEuler([v[0]! * deg, v[1]! * deg, v[2]! * deg], this.compiler.eulerseq);
      case 'zaxis': {
        const z: Vec3 = [v[0]!, v[1]!, v[2]!];
        if (normalize(z) < EPS) fail(el, 'zaxis too small');
        return quatFromZ(z);
      }
      case 'xyaxes': {
        const x: Vec3 = [v[0]!, v[1]!, v[2]!];
        const y: Vec3 = [v[3]!, v[4]!, v[5]!];
        if (normalize(x) < EPS) fail(el, 'xaxis too small');
        const d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        y[0] -= x[0] * d; y[1] -= x[1] * d; y[2] -= x[2] * d;
        if (normalize(y) < EPS) fail(el, 'yaxis too small');
        const z = cross3(x, y);
        if (normalize(z) < EPS) fail(el, 'cross(xaxis, yaxis) too small');
        return quatFromFrame(x, y, z);
      }
    }
  }

  private isLimited(el: XmlElement, limited: Limited, range: number[], what: string): boolean {
    const hasRange = !(range[0] === 0 && range[1] === 0);
    if (limited === 'auto' && !this.compiler.autolimits && hasRange) {
      fail(el, `${what}range is set but ${what}limited is not; set compiler autolimits="true" or ${what}limited explicitly`);
    }
    return limited === true || (limited === 'auto' && range[0]! < range[1]!);
  }

  private compileGeom(el: XmlElement, g: GeomRaw, inferInertia: boolean, weld: number):
    { spec: GeomSpec; mass: number; inertia: Vec3 } {
    if (g.type === GeomType.Mesh && g.mesh === null) fail(el, 'a mesh geom needs a mesh attribute');
    if (g.mesh !== null && g.fromto) fail(el, 'fromto cannot be used with mesh geom');
    if (g.condim !== 1 && g.condim !== 3 && g.condim !== 4 && g.condim !== 6) fail(el, 'invalid condim');
    if (g.type === GeomType.Plane && weld !== 0) fail(el, 'plane only allowed in static bodies');
    if ((g.type === GeomType.HField) !== (g.hfield !== null)) fail(el, 'an hfield geom needs an hfield attribute, and only an hfield geom takes one');
    const size: Vec3 = [g.size[0]!, g.size[1]!, g.size[2]!];
    let pos: Vec3 = [g.pos[0]!, g.pos[1]!, g.pos[2]!];
    let quat = normalized(g.quat as Quat);
    if (g.fromto) {
      if (g.type !== GeomType.Capsule && g.type !== GeomType.Cylinder && g.type !== GeomType.Box && g.type !== GeomType.Ellipsoid) {
        fail(el, 'fromto requires capsule, cylinder, box or ellipsoid');
      }
      if (pos[0] || pos[1] || pos[2]) fail(el, 'both pos and fromto defined');
      const f = g.fromto;
      const vec: Vec3 = [f[0]! - f[3]!, f[1]! - f[4]!, f[2]! - f[5]!];
      size[1] = normalize(vec) / 2;
      if (size[1] < EPS) fail(el, 'fromto points too close');
      if (g.type === GeomType.Box || g.type === GeomType.Ellipsoid) {
        size[2] = size[1];
        size[1] = size[0];
      }
      pos = [(f[0]! + f[3]!) / 2, (f[1]! + f[4]!) / 2, (f[2]! + f[5]!) / 2];
      quat = quatFromZ(vec);
    } else if (g.alt) {
      quat = this.resolveAlt(el, g.alt);
    }
    // a mesh geom sits at its mesh's inertial frame and takes its size from the mesh; a primitive with a mesh
    // is fitted to it (its inertia box, or its bounding box under compiler fitaabb) and keeps no mesh
    const fitted = g.mesh !== null ? this.meshes.get(el, g.mesh) : null;
    const mesh = g.type === GeomType.Mesh ? fitted : null;
    if (fitted) {
      let center: Vec3 = [0, 0, 0];
      if (mesh) [size[0], size[1], size[2]] = meshGeomSize(mesh);
      else {
        if (g.type !== GeomType.Sphere && g.type !== GeomType.Capsule && g.type !== GeomType.Cylinder && g.type !== GeomType.Box && g.type !== GeomType.Ellipsoid) {
          fail(el, 'only sphere, capsule, cylinder, ellipsoid and box geoms can be fitted to a mesh');
        }
        const fit = fitGeom(fitted, g.type, this.compiler.fitaabb, g.fitscale);
        [size[0], size[1], size[2]] = fit.size;
        center = fit.center;
      }
      const meshPos = add3(rotate(fitted.quat, center), fitted.pos);
      ({ pos, quat } = composePose(pos, quat, meshPos, fitted.quat));
    }
    // an hfield geom's size is its field's, its inertia a box's of that size (MuJoCo's geom volume and inertia)
    const hfield = g.hfield !== null ? this.hfields.get(el, g.hfield) : null;
    if (hfield) {
      const [h0, h1, h2, h3] = hfield.size;
      size[0] = h0; size[1] = h1; size[2] = 0.25 * h2 + 0.5 * h3;
    }
    const shape = hfield ? GeomType.Box : g.type;
    const needed = mesh || hfield ? 0 : g.type === GeomType.Sphere ? 1 : g.type === GeomType.Box || g.type === GeomType.Ellipsoid ? 3 : g.type === GeomType.Plane ? 0 : 2;
    if (g.type === GeomType.Plane && !(size[2] > 0)) fail(el, 'plane size(3) must be positive');
    for (let i = 0; i < needed; i++) if (!(size[i]! > 0)) fail(el, `size ${i} must be positive`);

    let mass = 0;
    let inertia: Vec3 = [0, 0, 0];
    if (inferInertia) {
      const volume = mesh ? mesh.volume : geomVolume(shape, size);
      const inertiaOf = (m: number) => (mesh ? meshGeomInertia(mesh, m) : geomInertia(shape, size, m));
      if (!Number.isNaN(g.mass)) {
        if (g.mass !== 0 && volume > EPS) {
          mass = g.mass;
          inertia = inertiaOf(mass);
        }
      } else if (g.density !== 0) {
        mass = g.density * volume;
        inertia = inertiaOf(mass);
      }
      if (mass < 0 || inertia.some((x) => x < 0) || g.density < 0) fail(el, 'mass, inertia or density are negative');
    }
    return {
      spec: {
        name: g.name, type: g.type, size, rbound: mesh ? Math.hypot(size[0], size[1], size[2]) : hfield ? hfieldRbound(hfield.size) : geomRbound(g.type, size), pos, quat,
        contype: g.contype, conaffinity: g.conaffinity, condim: g.condim, priority: g.priority,
        friction: [g.friction[0]!, g.friction[1]!, g.friction[2]!], solmix: g.solmix,
        solref: [...g.solref], solimp: [...g.solimp], margin: g.margin, gap: g.gap,
        ...(mesh ? { mesh } : {}),
        ...(hfield ? { hfield } : {}),
        ...(g.fluidEllipsoid ? { fluid: ellipsoidFluidCoefs(g.type, size, g.fluidcoef) } : {}),
      },
      mass, inertia,
    };
  }

  private compileJoint(el: XmlElement, j: JointRaw): JointSpec {
    const free = j.type === JointType.Free;
    const ball = j.type === JointType.Ball;
    const range = [...j.range] as [number, number];
    const limited = free ? false : this.isLimited(el, j.limited, range, '');
    // a ball joint's limit is a cone: range[1] is the largest rotation angle
    if (limited && !ball && range[0] >= range[1]) fail(el, 'range[0] should be smaller than range[1]');
    if (limited && ball && range[0] !== 0) fail(el, 'range[0] should be 0 in ball joint');
    if (limited && this.compiler.degree && (j.type === JointType.Hinge || ball)) {
      if (range[0]) range[0] *= Math.PI / 180;
      if (range[1]) range[1] *= Math.PI / 180;
    }
    const actfrcrange = [...j.actfrcrange] as [number, number];
    const actfrclimited = free || ball ? false : this.isLimited(el, j.actfrclimited, actfrcrange, 'actuatorfrc');
    if (actfrclimited && actfrcrange[0] >= actfrcrange[1]) fail(el, 'actuatorfrcrange[0] should be smaller than actuatorfrcrange[1]');
    const axis: Vec3 = free ? [0, 0, 1] : [j.axis[0]!, j.axis[1]!, j.axis[2]!];
    if (normalize(axis) < EPS) fail(el, 'axis too small');
    const toRad = j.type === JointType.Hinge && this.compiler.degree ? Math.PI / 180 : 1;
    return {
      name: j.name, type: j.type, pos: free ? [0, 0, 0] : [j.pos[0]!, j.pos[1]!, j.pos[2]!], axis,
      limited, range, actfrclimited, actfrcrange,
      ref: j.ref * toRad, springref: j.springref * toRad, stiffness: j.stiffness, margin: j.margin,
      solrefLimit: [...j.solreflimit], solimpLimit: [...j.solimplimit],
      solrefFriction: [...j.solreffriction], solimpFriction: [...j.solimpfriction],
      armature: j.armature, damping: j.damping, frictionloss: j.frictionloss,
    };
  }

  private compileBody(raw: RawBody, id: number, weld: number): BodySpec {
    const el = raw.el;
    let quat = normalized(raw.quat as Quat);
    let iquat = normalized(raw.iquat as Quat);
    if (raw.alt) quat = this.resolveAlt(el, raw.alt);
    let inertia: Vec3 = [raw.inertia[0]!, raw.inertia[1]!, raw.inertia[2]!];
    if (raw.fullinertia) {
      if (inertia[0] || inertia[1] || inertia[2]) fail(el, 'fullinertia and diagonal inertia cannot both be specified');
      try {
        const p = principalInertia(raw.fullinertia as Sym3);
        iquat = p.quat;
        inertia = p.inertia;
      } catch (e) {
        fail(el, `error '${(e as Error).message}' in fullinertia`);
      }
    }
    if (raw.ialt) iquat = this.resolveAlt(el, raw.ialt);

    const ifg = this.compiler.inertiafromgeom;
    const [glo, ghi] = this.compiler.inertiagrouprange;
    const infers = (spec: GeomRaw) => id > 0 && (!raw.explicitInertial || ifg === 'true') && spec.group >= glo && spec.group <= ghi;
    // a mesh geom that neither collides nor adds mass only draws the robot: drop it (its mesh is not loaded)
    const physical = raw.geoms.filter(({ el: gel, spec }) => {
      const isMesh = spec.type === GeomType.Mesh || spec.mesh !== null;
      if (!isMesh || spec.contype !== 0 || spec.conaffinity !== 0 || infers(spec) || this.pairGeoms.has(spec.name) || spec.fluidEllipsoid) return true;
      this.ignore(gel, 'visual mesh geom: no contact, no mass; dropped');
      return false;
    });
    const geoms = physical.map(({ el: gel, spec }) => this.compileGeom(gel, spec, infers(spec), weld));

    let ipos: Vec3 = [raw.ipos[0]!, raw.ipos[1]!, raw.ipos[2]!];
    let mass = raw.mass;
    if (id > 0 && (ifg === 'true' || (!raw.explicitInertial && ifg === 'auto'))) {
      try {
        const combined = combineInertials(geoms.map((g) => ({ mass: g.mass, pos: g.spec.pos, quat: g.spec.quat, inertia: g.inertia })));
        if (combined) ({ mass, pos: ipos, quat: iquat, inertia } = combined);
      } catch (e) {
        fail(el, `error '${(e as Error).message}' in inertia computed from geoms`);
      }
    }
    const pos: Vec3 = [raw.pos[0]!, raw.pos[1]!, raw.pos[2]!];
    // no inertial frame at all: MuJoCo copies the body frame into it
    if (Number.isNaN(ipos[0])) {
      ipos = [...pos];
      iquat = [...quat];
    }
    if (id > 0) {
      mass = Math.max(mass, this.compiler.boundmass);
      inertia = inertia.map((x) => Math.max(x, this.compiler.boundinertia)) as Vec3;
      if (mass < 0 || inertia.some((x) => x < 0)) fail(el, 'mass and inertia cannot be negative');
      if (inertia[0] + inertia[1] < inertia[2] || inertia[0] + inertia[2] < inertia[1] || inertia[1] + inertia[2] < inertia[0]) {
        if (this.compiler.balanceinertia) {
          const mean = (inertia[0] + inertia[1] + inertia[2]) / 3;
          inertia = [mean, mean, mean];
        } else {
          fail(el, "inertia must satisfy A + B >= C; use compiler balanceinertia to fix");
        }
      }
    }

    const joints = raw.joints.map(({ el: jel, spec }) => this.compileJoint(jel, spec));
    if (joints.some((j) => j.type === JointType.Free) && joints.length > 1) fail(el, 'free joint can only appear by itself');
    if (joints.some((j) => j.type === JointType.Free) && raw.parent !== 0) fail(el, 'free joint can only be used on top level');
    const sites: SiteSpec[] = raw.sites.map(({ el: sel, spec }) => ({
      name: spec.name, pos: [spec.pos[0]!, spec.pos[1]!, spec.pos[2]!],
      quat: spec.alt ? this.resolveAlt(sel, spec.alt) : normalized(spec.quat as Quat),
    }));
    return {
      name: raw.name, parent: raw.parent, pos, quat, ipos, iquat, mass, inertia,
      joints, geoms: geoms.map((g) => g.spec), sites,
    };
  }

  private build() {
    if (this.bodies.length === 0) {
      this.bodies.push({
        el: { name: 'worldbody', attrs: {}, children: [], line: 1, file: this.file }, name: 'world', parent: -1,
        pos: [0, 0, 0], quat: [1, 0, 0, 0], alt: null, explicitInertial: false, ipos: [NaN, 0, 0], iquat: [1, 0, 0, 0],
        ialt: null, mass: 0, inertia: [0, 0, 0], fullinertia: null, joints: [], geoms: [], sites: [],
      });
    }
    // as MuJoCo, only meshes of colliding mesh geoms get a convex hull
    for (const raw of this.bodies) {
      for (const { spec } of raw.geoms) {
        const collides = spec.contype !== 0 || spec.conaffinity !== 0 || this.pairGeoms.has(spec.name);
        if (spec.type === GeomType.Mesh && spec.mesh !== null && collides) this.meshes.needHull.add(spec.mesh);
      }
    }
    const weld: number[] = [];
    const bodies: BodySpec[] = [];
    this.bodies.forEach((raw, id) => {
      weld[id] = id === 0 ? 0 : raw.joints.length > 0 ? id : weld[raw.parent]!;
      const b = this.compileBody(raw, id, weld[id]!);
      bodies.push(id === 0 ? { ...worldBody(), geoms: b.geoms, sites: b.sites, ipos: b.ipos, iquat: b.iquat } : b);
    });

    // names must be unique per kind
    const unique = <T>(items: { name: string; el: XmlElement }[], kind: string) => {
      const seen = new Set<string>();
      for (const { name, el } of items) {
        if (!name) continue;
        if (seen.has(name)) fail(el, `repeated ${kind} name "${name}"`);
        seen.add(name);
      }
      return undefined as T;
    };
    unique(this.bodies.map((b) => ({ name: b.name, el: b.el })), 'body');
    const jointEls = this.bodies.flatMap((b) => b.joints.map((j) => ({ name: j.spec.name, el: j.el })));
    unique(jointEls, 'joint');
    unique(this.bodies.flatMap((b) => b.geoms.map((g) => ({ name: g.spec.name, el: g.el }))), 'geom');
    unique(this.bodies.flatMap((b) => b.sites.map((s) => ({ name: s.spec.name, el: s.el }))), 'site');
    unique(this.actuators.map((u) => ({ name: u.spec.name, el: u.el })), 'actuator');

    const jointId = new Map<string, number>();
    jointEls.forEach((j, k) => { if (j.name) jointId.set(j.name, k); });
    const jointSpecs = bodies.flatMap((b) => b.joints);
    // sites are numbered body by body, as the model lays them out
    const siteId = new Map<string, number>();
    this.bodies.flatMap((b) => b.sites).forEach((x, k) => { if (x.spec.name) siteId.set(x.spec.name, k); });
    // the geoms spatial tendons wrap around, by name
    const geomSpecs = bodies.flatMap((b) => b.geoms);
    const wrapGeomId = new Map<string, number>();
    geomSpecs.forEach((g, k) => { if (g.name) wrapGeomId.set(g.name, k); });
    const bodyId = new Map<string, number>();
    this.bodies.forEach((b, k) => { if (b.name) bodyId.set(b.name, k); });
    bodyId.set('world', 0);

    // a moving body must have mass, or the mass matrix is singular
    const massless = findMasslessMovingBody(bodies);
    if (massless > 0) fail(this.bodies[massless]!.el, 'mass and inertia of moving bodies must be larger than 1e-15');

    const tendonId = new Map(this.tendons.map((t, k) => [t.spec.name, k]));
    const actuators: ActuatorSpec[] = this.actuators.map(({ el, spec: u }) => {
      if ([u.joint, u.tendon, u.site].filter((x) => x !== null).length > 1) fail(el, 'give one transmission target: joint, tendon or site');
      if (u.refsite !== null && u.site === null) fail(el, 'refsite needs a site transmission (site=)');
      if (u.tendon !== null) return this.tendonActuator(el, u, tendonId);
      if (u.site !== null) return this.siteActuator(el, u, siteId);
      if (u.joint === null) fail(el, 'missing transmission target (joint, tendon or site)');
      const j = jointId.get(u.joint);
      if (j === undefined) fail(el, `unknown joint "${u.joint}"`);
      const jt = jointSpecs[j]!.type;
      if (jt !== JointType.Hinge && jt !== JointType.Slide) {
        fail(el, `unsupported transmission on ${jt === JointType.Free ? 'free' : 'ball'} joint "${u.joint}" (actuators drive hinge and slide joints, and tendons)`);
      }
      const ctrlrange = [...u.ctrlrange] as [number, number];
      if (u.inheritrange > 0 && u.biastype === 1 && u.gainprm[0] === -u.biasprm[1]!) {
        const js = jointSpecs[j]!;
        if (js.type !== JointType.Hinge && js.type !== JointType.Slide) fail(el, 'inheritrange can only be used with hinge and slide joints');
        if (js.range[0] === js.range[1]) fail(el, `inheritrange used but joint "${u.joint}" has no range`);
        const mean = 0.5 * (js.range[1] + js.range[0]);
        const radius = 0.5 * (js.range[1] - js.range[0]) * u.inheritrange;
        ctrlrange[0] = mean - radius;
        ctrlrange[1] = mean + radius;
      }
      return this.actuatorSpec(el, u, TrnType.Joint, j, ctrlrange);
    });

    const equalities: EqualitySpec[] = this.equalities.map((e) => {
      const [ids, what] = e.kind === 'joint' ? [jointId, 'joint'] : [bodyId, 'body'];
      const obj1 = ids.get(e.obj1);
      if (obj1 === undefined) fail(e.el, `unknown ${what} "${e.obj1}"`);
      // a joint equality without joint2 fixes joint1; a connect without body2 ties body1 to the world
      let obj2 = e.kind === 'joint' ? -1 : 0;
      if (e.obj2 !== null) {
        const o2 = ids.get(e.obj2);
        if (o2 === undefined) fail(e.el, `unknown ${what} "${e.obj2}"`);
        obj2 = o2;
      }
      const type = e.kind === 'joint' ? EqType.Joint : e.kind === 'weld' ? EqType.Weld : EqType.Connect;
      return { name: e.name, type, obj1, obj2, active: e.active, solref: e.solref, solimp: e.solimp, data: e.data };
    });

    const tendons: TendonSpec[] = this.tendons.map(({ el, spec: t, joints, path }) => {
      const range: [number, number] = [t.range[0]!, t.range[1]!];
      const limited = this.isLimited(el, t.limited, range, '');
      if (limited && range[0] >= range[1]) fail(el, 'invalid tendon range');
      return {
        path: path?.map((p) => {
          if ('divisor' in p) return { divisor: p.divisor };
          const siteOf = (name: string): number => siteId.get(name) ?? fail(p.el, `unknown site "${name}"`);
          if ('site' in p) return { site: siteOf(p.site) };
          const geom = wrapGeomId.get(p.geom) ?? fail(p.el, `unknown geom "${p.geom}"`);
          const type = geomSpecs[geom]!.type;
          if (type !== GeomType.Sphere && type !== GeomType.Cylinder) fail(p.el, `geom "${p.geom}" is not a sphere or cylinder (tendons wrap those only)`);
          return { geom, sidesite: p.sidesite === null ? -1 : siteOf(p.sidesite) };
        }),
        name: t.name, limited, range, margin: t.margin, stiffness: t.stiffness, damping: t.damping, frictionloss: t.frictionloss,
        springlength: [t.springlength[0]!, t.springlength[1]!],
        solrefLimit: t.solreflimit, solimpLimit: t.solimplimit, solrefFriction: t.solreffriction, solimpFriction: t.solimpfriction,
        joints: joints.map(({ el: jel, joint, coef }) => {
          const j = jointId.get(joint);
          if (j === undefined) fail(jel, `unknown joint "${joint}"`);
          const type = jointSpecs[j]!.type;
          if (type !== JointType.Hinge && type !== JointType.Slide) fail(jel, 'a fixed tendon takes hinge and slide joints only');
          return { joint: j, coef };
        }),
      };
    });

    // the implicit integrators take the ellipsoid fluid model's velocity derivative (mjd_ellipsoidFluid), which
    // sim-core does not compute (the inertia-box model's it does)
    const fluid = (this.options.density ?? 0) > 0 || (this.options.viscosity ?? 0) > 0;
    const integrator = this.options.integrator ?? defaultOptions().integrator;
    const ellipsoidGeom = this.bodies.flatMap((b) => b.geoms).find((g) => g.spec.fluidEllipsoid);
    if (fluid && (integrator === Integrator.Implicit || integrator === Integrator.ImplicitFast) && ellipsoidGeom) {
      const name = integrator === Integrator.Implicit ? 'implicit' : 'implicitfast';
      fail(ellipsoidGeom.el, `the ellipsoid fluid model (fluidshape="ellipsoid") under the ${name} integrator is not supported (its velocity derivative is not computed; use Euler, or the inertia-box model)`);
    }

    const excludes: [number, number][] = this.excludes.map(({ el, body1, body2 }) => {
      const b1 = bodyId.get(body1), b2 = bodyId.get(body2);
      if (b1 === undefined) fail(el, `unknown body "${body1}"`);
      if (b2 === undefined) fail(el, `unknown body "${body2}"`);
      return [b1, b2];
    });

    const geomId = new Map<string, number>();
    bodies.flatMap((b) => b.geoms).forEach((g, k) => { if (g.name) geomId.set(g.name, k); });
    const pairs: PairSpec[] = this.pairs.map(({ el, geom1, geom2, spec: p }) => {
      const g1 = geomId.get(geom1), g2 = geomId.get(geom2);
      if (g1 === undefined) fail(el, `unknown geom "${geom1}"`);
      if (g2 === undefined) fail(el, `unknown geom "${geom2}"`);
      return {
        name: p.name, geom1: g1, geom2: g2, condim: p.condim, friction: p.friction, solref: p.solref,
        solreffriction: p.solreffriction, solimp: p.solimp, margin: p.margin, gap: p.gap,
      };
    });

    let nq = 0, nv = 0;
    for (const j of jointSpecs) {
      nq += j.type === JointType.Free ? 7 : j.type === JointType.Ball ? 4 : 1;
      nv += j.type === JointType.Free ? 6 : j.type === JointType.Ball ? 3 : 1;
    }
    const keys: KeySpec[] = this.keys.map((k) => {
      const check = (v: number[] | undefined, n: number, what: string) => {
        if (v && v.length > 0 && v.length !== n) fail(k.el, `invalid ${what} size, expected ${n}, got ${v.length}`);
        return v && v.length > 0 ? v : undefined;
      };
      const qpos = check(k.qpos, nq, 'qpos');
      if (qpos) normalizeKeyQuats(qpos, jointSpecs);
      return {
        name: k.name, time: k.time, qpos, qvel: check(k.qvel, nv, 'qvel'),
        ctrl: check(k.ctrl, actuators.length, 'ctrl'),
      };
    });

    const opt = { ...defaultOptions(), ...this.options };
    if (this.sensorsDisabled && this.sensors.length > 0) {
      fail(this.sensorsDisabled, 'unsupported flag sensor="disable" in a model with sensors (sim-core always computes them; remove the flag or the sensors)');
    }
    const actuatorId = new Map<string, number>();
    this.actuators.forEach((u, k) => { if (u.spec.name) actuatorId.set(u.spec.name, k); });
    const sensors = resolveSensors(this.sensors, {
      joint: jointId, actuator: actuatorId, site: siteId, body: bodyId, geom: wrapGeomId,
      scalarJoint: (j) => jointSpecs[j]!.type === JointType.Hinge || jointSpecs[j]!.type === JointType.Slide,
    });
    return buildModel({ bodies, actuators, equalities, tendons, excludes, pairs, sensors, keys, opt });
  }
}

/** MuJoCo normalizes the quaternions of free and ball joints in a keyframe's qpos (mju_normalize4). */
function normalizeKeyQuats(qpos: number[], joints: readonly JointSpec[]): void {
  let adr = 0;
  for (const j of joints) {
    const size = j.type === JointType.Free ? 7 : j.type === JointType.Ball ? 4 : 1;
    const q = j.type === JointType.Free ? adr + 3 : j.type === JointType.Ball ? adr : -1;
    if (q >= 0) {
      const norm = Math.hypot(qpos[q]!, qpos[q + 1]!, qpos[q + 2]!, qpos[q + 3]!);
      if (norm < 1e-15) qpos.splice(q, 4, 1, 0, 0, 0);
      else if (Math.abs(norm - 1) > 1e-15) for (let k = 0; k < 4; k++) qpos[q + k] = qpos[q + k]! / norm;
    }
    adr += size;
  }
}
