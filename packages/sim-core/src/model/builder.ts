/**
 * Turns a resolved kinematic tree (bodies with their joints, geoms and sites, plus actuators, equalities,
 * excludes and keyframes) into the flat Model arrays, computing every address and derived index the way
 * MuJoCo's compiler lays them out: bodies in depth-first pre-order with the world first, joints, dofs,
 * geoms and sites numbered body by body.
 *
 * Loaders (MJCF, URDF, plane) resolve defaults, units and frames themselves and hand this module plain
 * numbers; it owns only the layout.
 */
import { NFLUID } from './fluid-coefs.js';
import {
  ConeType, Integrator, JointType, SolverType,
  type BiasType, type DynType, type EqType, type GainType, GeomType, type Model, type ModelOptions, type TrnType, WrapType,
} from './model.js';
import type { Quat, Vec3 } from './frame-math.js';
import { type HFieldSpec, layoutHFields } from './hfields.js';
import { layoutPairs, type PairSpec } from './pairs.js';
import { layoutSensors, type SensorSpec } from './sensors.js';

export interface BodySpec {
  name: string;
  /** Index into ModelSpec.bodies of the parent (0 = world). Parents must precede children. */
  parent: number;
  pos: Vec3; quat: Quat;
  ipos: Vec3; iquat: Quat;
  mass: number; inertia: Vec3;
  joints: JointSpec[];
  geoms: GeomSpec[];
  sites: SiteSpec[];
}

export interface JointSpec {
  name: string;
  type: JointType;
  pos: Vec3; axis: Vec3;
  limited: boolean; range: [number, number];
  /** MuJoCo's jnt_actfrclimited / jnt_actfrcrange: a clamp on the total actuator force at this joint. */
  actfrclimited: boolean; actfrcrange: [number, number];
  ref: number; springref: number; stiffness: number; margin: number;
  solrefLimit: number[]; solimpLimit: number[];
  solrefFriction: number[]; solimpFriction: number[];
  armature: number; damping: number; frictionloss: number;
}

export interface GeomSpec {
  name: string;
  type: GeomType;
  size: Vec3; rbound: number;
  pos: Vec3; quat: Quat;
  contype: number; conaffinity: number; condim: number; priority: number;
  friction: Vec3; solmix: number; solref: number[]; solimp: number[];
  margin: number; gap: number;
  /** A mesh geom's mesh (geoms may share one); absent for primitives. */
  mesh?: MeshSpec;
  /** An hfield geom's height field (geoms may share one). */
  hfield?: HFieldSpec;
  /** fluidshape="ellipsoid": the geom's geom_fluid (NFLUID values, fluid-coefs.ts); absent: 0s, not in the model. */
  fluid?: number[];
}

/** A compiled mesh as the Model holds it: vertices in its inertial frame and the hull graph (MuJoCo's layout). */
export interface MeshSpec { name: string; vert: Float64Array; graph: Int32Array | null }

export interface SiteSpec { name: string; pos: Vec3; quat: Quat }

export interface ActuatorSpec {
  name: string;
  trntype: TrnType;
  /** The transmission's target: a joint index in the global joint numbering (see jointIndex), or a tendon index
   *  when trntype is Tendon, a site index when it is Site (actuator_trnid[0]). */
  joint: number;
  /** A site transmission's reference site (actuator_trnid[1]); absent or -1: none. */
  refsite?: number;
  dyntype: DynType; gaintype: GainType; biastype: BiasType;
  ctrllimited: boolean; forcelimited: boolean;
  ctrlrange: [number, number]; forcerange: [number, number];
  gear: number[]; gainprm: number[]; biasprm: number[];
}

export interface EqualitySpec {
  name: string;
  type: EqType;
  obj1: number; obj2: number;
  active: boolean;
  solref: number[]; solimp: number[];
  data: number[];
}

export interface KeySpec { name: string; time: number; qpos?: number[]; qvel?: number[]; ctrl?: number[] }

/**
 * A tendon. Fixed: a linear combination of joint positions (joints in the global joint numbering). Spatial
 * (`path` given, `joints` empty): the path through sites (model site ids), a pulley dividing the branches after it.
 */
export interface TendonSpec {
  name: string;
  joints: Array<{ joint: number; coef: number }>;
  path?: TendonPathPoint[];
  limited: boolean; range: [number, number]; margin: number;
  stiffness: number; damping: number; frictionloss: number;
  /** -1 -1: the length at qpos_spring (setConst). */
  springlength: [number, number];
  solrefLimit: number[]; solimpLimit: number[]; solrefFriction: number[]; solimpFriction: number[];
}

/** One point of a spatial tendon's path: a site, a pulley with its divisor, or a sphere or cylinder geom to wrap
 *  around, with its side site (-1: none). */
export type TendonPathPoint = { site: number } | { divisor: number } | { geom: number; sidesite: number };

export interface ModelSpec {
  /** bodies[0] is the world. */
  bodies: BodySpec[];
  actuators: ActuatorSpec[];
  equalities: EqualitySpec[];
  tendons?: TendonSpec[];
  /** Body index pairs whose contacts are excluded. */
  excludes: [number, number][];
  /** Explicit contact pairs (<contact><pair>), geoms in the model's numbering. */
  pairs?: PairSpec[];
  /** Sensors in file order, objects in the model's numbering. */
  sensors?: SensorSpec[];
  keys: KeySpec[];
  opt: ModelOptions;
}

export const DEFAULT_SOLREF = [0.02, 1];
export const DEFAULT_SOLIMP = [0.9, 0.95, 0.001, 0.5, 2];

/** mjOption defaults, plus gsprof's own switches at their neutral values. */
export function defaultOptions(): ModelOptions {
  return {
    timestep: 0.002,
    gravity: [0, 0, -9.81],
    integrator: Integrator.Euler,
    solver: SolverType.Newton,
    iterations: 100,
    tolerance: 1e-8,
    lsIterations: 50,
    lsTolerance: 0.01,
    cone: ConeType.Pyramidal,
    impratio: 1,
    ccdTolerance: 1e-6,
    ccdIterations: 35,
    density: 0,
    viscosity: 0,
    wind: [0, 0, 0],
    disableEulerdamp: false,
    enableCollision: true,
    enableJointLimit: true,
    enableSelfCollision: true,
    substeps: 1,
  };
}

export function worldBody(): BodySpec {
  return {
    name: 'world', parent: -1, pos: [0, 0, 0], quat: [1, 0, 0, 0], ipos: [0, 0, 0], iquat: [1, 0, 0, 0],
    mass: 0, inertia: [0, 0, 0], joints: [], geoms: [], sites: [],
  };
}

export function jointNq(type: JointType): number {
  return type === JointType.Free ? 7 : type === JointType.Ball ? 4 : 1;
}

export function jointNv(type: JointType): number {
  return type === JointType.Free ? 6 : type === JointType.Ball ? 3 : 1;
}

/** Global joint index of each (body, joint-in-body), in Model order. */
export function jointIndex(bodies: BodySpec[]): Map<JointSpec, number> {
  const out = new Map<JointSpec, number>();
  for (const b of bodies) for (const j of b.joints) out.set(j, out.size);
  return out;
}

/**
 * MuJoCo's rule for moving bodies: a body with joints needs mass and all three moments >= 1e-15, or a
 * jointless descendant (welded to it) that has them. Returns the first offending body index, or -1.
 */
export function findMasslessMovingBody(bodies: BodySpec[]): number {
  const children = bodies.map(() => [] as number[]);
  bodies.forEach((b, i) => { if (i > 0) children[b.parent]!.push(i); });
  const valid = (i: number): boolean => {
    const b = bodies[i]!;
    if (b.mass >= 1e-15 && b.inertia.every((x) => x >= 1e-15)) return true;
    return children[i]!.some((c) => bodies[c]!.joints.length === 0 && valid(c));
  };
  for (let i = 1; i < bodies.length; i++) if (bodies[i]!.joints.length > 0 && !valid(i)) return i;
  return -1;
}

function put(dst: Float64Array, at: number, src: ArrayLike<number>, n: number): void {
  for (let k = 0; k < n; k++) dst[at + k] = src[k] ?? 0;
}

/** Lays out `spec` as a Model. setConst fields (invweight0, meaninertia) are left zero. */
export function buildModel(spec: ModelSpec): Model {
  const bodies = spec.bodies;
  const nbody = bodies.length;
  for (let i = 1; i < nbody; i++) {
    const p = bodies[i]!.parent;
    if (p < 0 || p >= i) throw new Error(`body '${bodies[i]!.name}': parent must precede it`);
  }
  let njnt = 0, nq = 0, nv = 0, ngeom = 0, nsite = 0;
  for (const b of bodies) {
    njnt += b.joints.length;
    for (const j of b.joints) { nq += jointNq(j.type); nv += jointNv(j.type); }
    ngeom += b.geoms.length;
    nsite += b.sites.length;
  }
  const nu = spec.actuators.length, neq = spec.equalities.length, nkey = spec.keys.length;
  const nexclude = spec.excludes.length;
  const tendons = spec.tendons ?? [];
  const ntendon = tendons.length;
  const nwrap = tendons.reduce((a, t) => a + (t.path?.length ?? t.joints.length), 0);
  const f = (n: number) => new Float64Array(n);
  const i32 = (n: number) => new Int32Array(n);
  const u8 = (n: number) => new Uint8Array(n);

  const m: Model = {
    nq, nv, nu, nbody, njnt, ngeom, nsite, neq, nkey, nexclude, ntendon, nwrap,
    opt: { ...spec.opt, gravity: [...spec.opt.gravity] },
    statMeaninertia: 0,
    qpos0: f(nq), qposSpring: f(nq),
    bodyParentid: i32(nbody), bodyRootid: i32(nbody), bodyWeldid: i32(nbody),
    bodyJntnum: i32(nbody), bodyJntadr: i32(nbody), bodyDofnum: i32(nbody), bodyDofadr: i32(nbody),
    bodyGeomnum: i32(nbody), bodyGeomadr: i32(nbody),
    bodyPos: f(3 * nbody), bodyQuat: f(4 * nbody), bodyIpos: f(3 * nbody), bodyIquat: f(4 * nbody),
    bodyMass: f(nbody), bodySubtreemass: f(nbody), bodyInertia: f(3 * nbody), bodyInvweight0: f(2 * nbody),
    bodyName: [],
    jntType: i32(njnt), jntQposadr: i32(njnt), jntDofadr: i32(njnt), jntBodyid: i32(njnt),
    jntLimited: u8(njnt), jntSolref: f(2 * njnt), jntSolimp: f(5 * njnt),
    jntPos: f(3 * njnt), jntAxis: f(3 * njnt), jntStiffness: f(njnt), jntRange: f(2 * njnt), jntMargin: f(njnt),
    jntName: [],
    dofBodyid: i32(nv), dofJntid: i32(nv), dofParentid: i32(nv),
    dofArmature: f(nv), dofDamping: f(nv), dofFrictionloss: f(nv),
    dofSolref: f(2 * nv), dofSolimp: f(5 * nv), dofInvweight0: f(nv),
    geomType: i32(ngeom), geomContype: i32(ngeom), geomConaffinity: i32(ngeom), geomCondim: i32(ngeom),
    geomBodyid: i32(ngeom), geomPriority: i32(ngeom),
    geomSolmix: f(ngeom), geomSolref: f(2 * ngeom), geomSolimp: f(5 * ngeom),
    geomSize: f(3 * ngeom), geomRbound: f(ngeom), geomPos: f(3 * ngeom), geomQuat: f(4 * ngeom),
    geomFriction: f(3 * ngeom), geomMargin: f(ngeom), geomGap: f(ngeom),
    geomName: [],
    siteBodyid: i32(nsite), sitePos: f(3 * nsite), siteQuat: f(4 * nsite), siteName: [],
    actuatorTrntype: i32(nu), actuatorDyntype: i32(nu), actuatorGaintype: i32(nu), actuatorBiastype: i32(nu),
    actuatorTrnid: i32(2 * nu), actuatorCtrllimited: u8(nu), actuatorForcelimited: u8(nu),
    actuatorCtrlrange: f(2 * nu), actuatorForcerange: f(2 * nu), actuatorGear: f(6 * nu),
    actuatorGainprm: f(10 * nu), actuatorBiasprm: f(10 * nu), actuatorName: [],
    eqType: i32(neq), eqObj1id: i32(neq), eqObj2id: i32(neq), eqActive0: u8(neq),
    eqSolref: f(2 * neq), eqSolimp: f(5 * neq), eqData: f(11 * neq),
    tendonAdr: i32(ntendon), tendonNum: i32(ntendon), tendonLimited: u8(ntendon), tendonRange: f(2 * ntendon),
    tendonMargin: f(ntendon), tendonStiffness: f(ntendon), tendonDamping: f(ntendon), tendonFrictionloss: f(ntendon),
    tendonLengthspring: f(2 * ntendon), tendonSolrefLim: f(2 * ntendon), tendonSolimpLim: f(5 * ntendon),
    tendonSolrefFri: f(2 * ntendon), tendonSolimpFri: f(5 * ntendon), tendonInvweight0: f(ntendon), tendonName: [],
    wrapType: i32(nwrap), wrapObjid: i32(nwrap), wrapPrm: f(nwrap),
    excludeSignature: i32(nexclude),
    keyTime: f(nkey), keyQpos: f(nkey * nq), keyQvel: f(nkey * nv), keyCtrl: f(nkey * nu), keyName: [],
    jntActfrclimited: u8(njnt), jntActfrcrange: f(2 * njnt),
  };

  let jid = 0, dof = 0, qadr = 0, gid = 0, sid = 0;
  const lastDof = new Int32Array(nbody).fill(-1);
  for (let i = 0; i < nbody; i++) {
    const b = bodies[i]!;
    const parent = i === 0 ? 0 : b.parent;
    m.bodyParentid[i] = parent;
    m.bodyRootid[i] = i === 0 || parent === 0 ? i : m.bodyRootid[parent]!;
    m.bodyWeldid[i] = i === 0 ? 0 : b.joints.length > 0 ? i : m.bodyWeldid[parent]!;
    m.bodyJntnum[i] = b.joints.length;
    m.bodyJntadr[i] = b.joints.length ? jid : -1;
    let dofnum = 0;
    for (const j of b.joints) dofnum += jointNv(j.type);
    m.bodyDofnum[i] = dofnum;
    m.bodyDofadr[i] = dofnum ? dof : -1;
    m.bodyGeomnum[i] = b.geoms.length;
    m.bodyGeomadr[i] = b.geoms.length ? gid : -1;
    put(m.bodyPos, 3 * i, b.pos, 3);
    put(m.bodyQuat, 4 * i, b.quat, 4);
    put(m.bodyIpos, 3 * i, b.ipos, 3);
    put(m.bodyIquat, 4 * i, b.iquat, 4);
    m.bodyMass[i] = b.mass;
    put(m.bodyInertia, 3 * i, b.inertia, 3);
    m.bodyName.push(b.name);

    let last = i === 0 ? -1 : lastDof[parent]!;
    for (const j of b.joints) {
      m.jntType[jid] = j.type;
      m.jntQposadr[jid] = qadr;
      m.jntDofadr[jid] = dof;
      m.jntBodyid[jid] = i;
      m.jntLimited[jid] = j.limited ? 1 : 0;
      put(m.jntSolref, 2 * jid, j.solrefLimit, 2);
      put(m.jntSolimp, 5 * jid, j.solimpLimit, 5);
      put(m.jntPos, 3 * jid, j.pos, 3);
      put(m.jntAxis, 3 * jid, j.axis, 3);
      m.jntStiffness[jid] = j.stiffness;
      put(m.jntRange, 2 * jid, j.range, 2);
      m.jntMargin[jid] = j.margin;
      m.jntActfrclimited![jid] = j.actfrclimited ? 1 : 0;
      put(m.jntActfrcrange!, 2 * jid, j.actfrcrange, 2);
      m.jntName.push(j.name);
      if (j.type === JointType.Free) {
        put(m.qpos0, qadr, [...b.pos, ...b.quat], 7);
        put(m.qposSpring, qadr, [...b.pos, ...b.quat], 7);
      } else if (j.type === JointType.Ball) {
        put(m.qpos0, qadr, [1, 0, 0, 0], 4);
        put(m.qposSpring, qadr, [1, 0, 0, 0], 4);
      } else {
        m.qpos0[qadr] = j.ref;
        m.qposSpring[qadr] = j.springref;
      }
      for (let k = 0; k < jointNv(j.type); k++) {
        m.dofBodyid[dof] = i;
        m.dofJntid[dof] = jid;
        m.dofParentid[dof] = last;
        last = dof;
        m.dofArmature[dof] = j.armature;
        m.dofDamping[dof] = j.damping;
        m.dofFrictionloss[dof] = j.frictionloss;
        put(m.dofSolref, 2 * dof, j.solrefFriction, 2);
        put(m.dofSolimp, 5 * dof, j.solimpFriction, 5);
        dof++;
      }
      qadr += jointNq(j.type);
      jid++;
    }
    lastDof[i] = last;

    for (const g of b.geoms) {
      m.geomType[gid] = g.type;
      m.geomContype[gid] = g.contype;
      m.geomConaffinity[gid] = g.conaffinity;
      m.geomCondim[gid] = g.condim;
      m.geomBodyid[gid] = i;
      m.geomPriority[gid] = g.priority;
      m.geomSolmix[gid] = g.solmix;
      put(m.geomSolref, 2 * gid, g.solref, 2);
      put(m.geomSolimp, 5 * gid, g.solimp, 5);
      put(m.geomSize, 3 * gid, g.size, 3);
      m.geomRbound[gid] = g.rbound;
      put(m.geomPos, 3 * gid, g.pos, 3);
      put(m.geomQuat, 4 * gid, g.quat, 4);
      put(m.geomFriction, 3 * gid, g.friction, 3);
      m.geomMargin[gid] = g.margin;
      m.geomGap[gid] = g.gap;
      m.geomName.push(g.name);
      gid++;
    }
    for (const s of b.sites) {
      m.siteBodyid[sid] = i;
      put(m.sitePos, 3 * sid, s.pos, 3);
      put(m.siteQuat, 4 * sid, s.quat, 4);
      m.siteName.push(s.name);
      sid++;
    }
  }

  // subtree masses: children come after their parents, so one backward pass accumulates them
  for (let i = 0; i < nbody; i++) m.bodySubtreemass[i] = m.bodyMass[i]!;
  for (let i = nbody - 1; i > 0; i--) m.bodySubtreemass[m.bodyParentid[i]!]! += m.bodySubtreemass[i]!;

  spec.actuators.forEach((a, u) => {
    m.actuatorTrntype[u] = a.trntype;
    m.actuatorDyntype[u] = a.dyntype;
    m.actuatorGaintype[u] = a.gaintype;
    m.actuatorBiastype[u] = a.biastype;
    m.actuatorTrnid[2 * u] = a.joint;
    m.actuatorTrnid[2 * u + 1] = a.refsite ?? -1;
    m.actuatorCtrllimited[u] = a.ctrllimited ? 1 : 0;
    m.actuatorForcelimited[u] = a.forcelimited ? 1 : 0;
    put(m.actuatorCtrlrange, 2 * u, a.ctrlrange, 2);
    put(m.actuatorForcerange, 2 * u, a.forcerange, 2);
    put(m.actuatorGear, 6 * u, a.gear, 6);
    put(m.actuatorGainprm, 10 * u, a.gainprm, 10);
    put(m.actuatorBiasprm, 10 * u, a.biasprm, 10);
    m.actuatorName.push(a.name);
  });

  spec.equalities.forEach((e, k) => {
    m.eqType[k] = e.type;
    m.eqObj1id[k] = e.obj1;
    m.eqObj2id[k] = e.obj2;
    m.eqActive0[k] = e.active ? 1 : 0;
    put(m.eqSolref, 2 * k, e.solref, 2);
    put(m.eqSolimp, 5 * k, e.solimp, 5);
    put(m.eqData, 11 * k, e.data, 11);
  });

  let wrap = 0;
  tendons.forEach((t, k) => {
    m.tendonAdr[k] = wrap;
    m.tendonNum[k] = t.path?.length ?? t.joints.length;
    for (const p of t.path ?? []) {
      if ('site' in p) {
        m.wrapType[wrap] = WrapType.Site; m.wrapObjid[wrap] = p.site; m.wrapPrm[wrap] = 0;
      } else if ('geom' in p) {
        m.wrapType[wrap] = m.geomType[p.geom] === GeomType.Cylinder ? WrapType.Cylinder : WrapType.Sphere;
        m.wrapObjid[wrap] = p.geom; m.wrapPrm[wrap] = p.sidesite;
      } else {
        m.wrapType[wrap] = WrapType.Pulley; m.wrapObjid[wrap] = -1; m.wrapPrm[wrap] = p.divisor;
      }
      wrap++;
    }
    for (const { joint, coef } of t.path ? [] : t.joints) {
      m.wrapType[wrap] = WrapType.Joint;
      m.wrapObjid[wrap] = joint;
      m.wrapPrm[wrap] = coef;
      wrap++;
    }
    m.tendonLimited[k] = t.limited ? 1 : 0;
    put(m.tendonRange, 2 * k, t.range, 2);
    m.tendonMargin[k] = t.margin;
    m.tendonStiffness[k] = t.stiffness;
    m.tendonDamping[k] = t.damping;
    m.tendonFrictionloss[k] = t.frictionloss;
    put(m.tendonLengthspring, 2 * k, t.springlength, 2);
    put(m.tendonSolrefLim, 2 * k, t.solrefLimit, 2);
    put(m.tendonSolimpLim, 5 * k, t.solimpLimit, 5);
    put(m.tendonSolrefFri, 2 * k, t.solrefFriction, 2);
    put(m.tendonSolimpFri, 5 * k, t.solimpFriction, 5);
    m.tendonName.push(t.name);
  });

  // MuJoCo keeps excludes sorted by signature (the collision filter searches them)
  const signatures = spec.excludes.map(([a, b]) => (Math.min(a, b) << 16) + Math.max(a, b));
  signatures.sort((x, y) => x - y).forEach((sig, k) => { m.excludeSignature[k] = sig; });

  spec.keys.forEach((key, k) => {
    m.keyTime[k] = key.time;
    put(m.keyQpos, k * nq, key.qpos ?? m.qpos0, nq);
    if (key.qvel) put(m.keyQvel, k * nv, key.qvel, nv);
    if (key.ctrl) put(m.keyCtrl, k * nu, key.ctrl, nu);
    m.keyName.push(key.name);
    // free-joint quaternions in keyframes are normalised, as MuJoCo does
    for (let j = 0; j < njnt; j++) {
      if (m.jntType[j] !== JointType.Free) continue;
      const a = k * nq + m.jntQposadr[j]! + 3;
      const q = [m.keyQpos[a]!, m.keyQpos[a + 1]!, m.keyQpos[a + 2]!, m.keyQpos[a + 3]!];
      const n = Math.hypot(...q);
      if (n >= 1e-14 && Math.abs(n - 1) > 1e-14) for (let c = 0; c < 4; c++) m.keyQpos[a + c] = q[c]! / n;
    }
  });

  layoutGeomFluid(m, bodies.flatMap((b) => b.geoms));
  layoutMeshes(m, bodies);
  layoutHFields(m, bodies.flatMap((b) => b.geoms.map((g) => g.hfield)));
  layoutPairs(m, spec.pairs ?? []);
  layoutSensors(m, spec.sensors ?? []);
  return m;
}

/** Meshes in order of first use by a geom, each stored once however many geoms share it. */
function layoutMeshes(m: Model, bodies: BodySpec[]): void {
  const meshes: MeshSpec[] = [];
  const id = new Map<MeshSpec, number>();
  const dataid = new Int32Array(m.ngeom).fill(-1);
  let g = 0;
  for (const b of bodies) {
    for (const geom of b.geoms) {
      if (geom.mesh) {
        if (!id.has(geom.mesh)) { id.set(geom.mesh, meshes.length); meshes.push(geom.mesh); }
        dataid[g] = id.get(geom.mesh)!;
      }
      g++;
    }
  }
  if (meshes.length === 0) return;
  const nvert = meshes.reduce((a, x) => a + x.vert.length / 3, 0);
  const ngraph = meshes.reduce((a, x) => a + (x.graph?.length ?? 0), 0);
  m.nmesh = meshes.length;
  m.geomDataid = dataid;
  m.meshVertadr = new Int32Array(meshes.length);
  m.meshVertnum = new Int32Array(meshes.length);
  m.meshVert = new Float64Array(3 * nvert);
  m.meshGraphadr = new Int32Array(meshes.length);
  m.meshGraph = new Int32Array(ngraph);
  m.meshName = meshes.map((x) => x.name);
  let vadr = 0, gadr = 0;
  meshes.forEach((x, k) => {
    m.meshVertadr![k] = vadr;
    m.meshVertnum![k] = x.vert.length / 3;
    m.meshVert!.set(x.vert, 3 * vadr);
    vadr += x.vert.length / 3;
    if (x.graph) {
      m.meshGraphadr![k] = gadr;
      m.meshGraph!.set(x.graph, gadr);
      gadr += x.graph.length;
    } else {
      m.meshGraphadr![k] = -1;
    }
  });
}

/** geom_fluid, only when a geom uses the ellipsoid fluid model (the others' rows stay 0, as MuJoCo's). */
function layoutGeomFluid(m: Model, geoms: readonly GeomSpec[]): void {
  if (!geoms.some((g) => g.fluid)) return;
  m.geomFluid = new Float64Array(NFLUID * geoms.length);
  geoms.forEach((g, k) => { if (g.fluid) m.geomFluid!.set(g.fluid, NFLUID * k); });
}
