/**
 * URDF loader (gs.morphs.URDF): links become bodies and joints become MuJoCo joints, with MuJoCo semantics
 * for everything it compiles (inertias are diagonalised like <inertial fullinertia>). Links attached by fixed
 * joints are merged into their parent, combining mass, centre of mass and inertia, and carrying their
 * collision geometry and child joints along, as Genesis and MuJoCo do. The root link gets a free joint unless
 * the robot is `fixed`. Collision geometry: box, cylinder, sphere, the common capsule extension, and meshes (OBJ,
 * STL), compiled as MuJoCo compiles a mesh geom (mesh-process.ts); visuals are skipped.
 */
import { EqType, GeomType, JointType } from '../model/model.js';
import {
  DEFAULT_SOLIMP, DEFAULT_SOLREF, buildModel, defaultOptions, findMasslessMovingBody, worldBody,
  type BodySpec, type EqualitySpec, type GeomSpec, type JointSpec,
} from '../model/builder.js';
import {
  EPS, addSym, composePose, normalize, normalized, pointInertia, principalInertia, quatFromRpy, rotateSym,
  type Quat, type Sym3, type Vec3,
} from '../model/frame-math.js';
import { geomInertia, geomRbound, geomVolume } from '../model/geom-props.js';
import { Attrs } from './attrs.js';
import { ModelBudget, type ModelLimits } from './limits.js';
import { urdfMesh, urdfMeshes, type UrdfMeshes } from './mesh-urdf.js';
import { meshGeomInertia, type CompiledMesh } from './mesh-process.js';
import type { LoadedModel } from './types.js';
import { fail, parseXmlFile, type XmlElement } from './xml.js';

export interface URDFOptions {
  /** Base position in the world (default origin). */
  pos?: readonly number[];
  /** Base orientation (w, x, y, z) (default identity). */
  quat?: readonly number[];
  /** Weld the base to the world instead of giving it a free joint. */
  fixed?: boolean;
  /** Rotor inertia added to every joint dof but the free base (URDF has no such field; Genesis' URDF morph
   * defaults it to 0.1). Without it a stiff PD gain on a light limb is unstable at usual time steps. */
  armature?: number;
  /** Lower (or raise) the caps on what loading may read and allocate (limits.ts). */
  limits?: Partial<ModelLimits>;
}

/** Mass properties about the link frame's origin-independent centre of mass, in the link frame. */
interface Inertial { mass: number; com: Vec3; tensor: Sym3 }

interface Link {
  el: XmlElement;
  name: string;
  inertial: Inertial;
  geoms: GeomSpec[];
}

interface Joint {
  el: XmlElement;
  name: string;
  type: 'revolute' | 'continuous' | 'prismatic' | 'fixed' | 'floating';
  parent: string; child: string;
  pos: Vec3; quat: Quat; axis: Vec3;
  lower: number; upper: number; hasLimit: boolean;
  effort: number; velocity: number;
  damping: number; friction: number;
  mimic: { joint: string; multiplier: number; offset: number; el: XmlElement } | null;
}

const JOINT_TYPES = ['revolute', 'continuous', 'prismatic', 'fixed', 'floating'] as const;

export function loadURDF(file: string, opts: URDFOptions = {}): LoadedModel {
  if (opts.armature !== undefined && !(opts.armature >= 0 && Number.isFinite(opts.armature))) throw new Error(`${file}: armature must be a finite number >= 0, got ${opts.armature}`);
  const log: string[] = [];
  const budget = new ModelBudget(opts.limits);
  const root = parseXmlFile(file, (f) => budget.readXml(f));
  if (root.name !== 'robot') fail(root, 'the root element of a URDF file must be <robot>');
  const links = new Map<string, Link>();
  const joints: Joint[] = [];
  const skipped = new Map<string, number>();
  const meshes = urdfMeshes(budget);
  for (const el of root.children) {
    if (el.name === 'link') {
      const link = readLink(el, skipped, meshes);
      if (links.has(link.name)) fail(el, `repeated link name "${link.name}"`);
      links.set(link.name, link);
    } else if (el.name === 'joint') {
      joints.push(readJoint(el));
    } else if (['material', 'gazebo', 'transmission', 'ros2_control'].includes(el.name)) {
      skipped.set(el.name, (skipped.get(el.name) ?? 0) + 1);
    } else {
      fail(el, 'unsupported element');
    }
  }
  for (const [name, count] of skipped) log.push(`ignored <${name}>${count > 1 ? ` x${count}` : ''} (no physical effect)`);

  // A link without <inertial> gets its mass from its collision geometry, as MuJoCo's URDF import does
  // (inertiafromgeom "auto", density 1000); before, such links were massless.
  const noInertial = [...links.values()].filter((l) => l.geoms.length > 0 && !l.el.children.some((c) => c.name === 'inertial'));
  for (const l of noInertial) l.inertial = inertialFromGeoms(l.geoms);
  if (noInertial.length > 0) {
    log.push(`links without <inertial> take their mass from their collision geometry (density ${GEOM_DENSITY}): ${noInertial.map((l) => l.name).join(', ')}`);
  }

  // tree structure: every joint's links exist, each link has at most one parent joint, one root
  const parentJoint = new Map<string, Joint>();
  const childJoints = new Map<string, Joint[]>();
  for (const j of joints) {
    if (!links.has(j.parent)) fail(j.el, `unknown parent link "${j.parent}"`);
    if (!links.has(j.child)) fail(j.el, `unknown child link "${j.child}"`);
    if (parentJoint.has(j.child)) fail(j.el, `link "${j.child}" has two parent joints`);
    parentJoint.set(j.child, j);
    if (!childJoints.has(j.parent)) childJoints.set(j.parent, []);
    childJoints.get(j.parent)!.push(j);
  }
  const roots = [...links.values()].filter((l) => !parentJoint.has(l.name));
  if (roots.length !== 1) fail(root, `expected exactly one root link, found ${roots.length}`);
  const rootLink = roots[0]!;

  // merge links attached by fixed joints into their parents, from the root down (a loop, not recursion: a
  // 5,000-link chain would overflow the stack)
  let merged = 0;
  const mergeFixed = (linkName: string): Joint[] => {
    const link = links.get(linkName)!;
    const queue = [...(childJoints.get(linkName) ?? [])];
    const kept: Joint[] = [];
    while (queue.length > 0) {
      const j = queue.shift()!;
      if (j.type !== 'fixed') {
        kept.push(j);
        continue;
      }
      const child = links.get(j.child)!;
      merged++;
      link.inertial = combine(link.inertial, transformInertial(child.inertial, j.pos, j.quat));
      for (const g of child.geoms) {
        const p = composePose(j.pos, j.quat, g.pos, g.quat);
        link.geoms.push({ ...g, pos: p.pos, quat: p.quat });
      }
      // the child's own joints now hang from this link, their frames composed with the fixed joint's
      for (const cj of childJoints.get(child.name) ?? []) {
        const p = composePose(j.pos, j.quat, cj.pos, cj.quat);
        queue.push({ ...cj, parent: linkName, pos: p.pos, quat: p.quat });
      }
      childJoints.delete(child.name);
      links.delete(child.name);
    }
    childJoints.set(linkName, kept);
    return kept;
  };
  for (const pending = [rootLink.name]; pending.length > 0;) {
    for (const j of mergeFixed(pending.pop()!)) pending.push(j.child);
  }
  if (merged > 0) log.push(`merged ${merged} link${merged > 1 ? 's' : ''} attached by fixed joints into their parents`);

  // bodies in depth-first order
  const bodies: BodySpec[] = [worldBody()];
  const jointIds = new Map<string, number>();
  let njnt = 0;
  const mimics: { joint: Joint; index: number }[] = [];
  let velocityLimits = 0;
  const addBody = (linkName: string, parent: number, via: Joint | null): number => {
    const link = links.get(linkName)!;
    const { ipos, iquat, mass, inertia } = principal(link);
    const body: BodySpec = {
      name: link.name, parent, pos: [0, 0, 0], quat: [1, 0, 0, 0], ipos, iquat, mass, inertia,
      joints: [], geoms: link.geoms, sites: [],
    };
    if (via === null) {
      const pos = opts.pos ?? [0, 0, 0];
      const quat = normalized((opts.quat ?? [1, 0, 0, 0]).slice() as Quat);
      if (pos.length !== 3) throw new Error(`${file}: pos must have 3 values, got ${pos.length}`);
      if (quat.length !== 4) throw new Error(`${file}: quat must have 4 values (w, x, y, z), got ${quat.length}`);
      body.pos = [pos[0]!, pos[1]!, pos[2]!];
      body.quat = quat;
      if (!opts.fixed) body.joints.push(freeJoint('root_joint'));
    } else {
      body.pos = via.pos;
      body.quat = via.quat;
      if (via.type === 'floating') fail(via.el, 'a floating joint is only supported on the root link');
      body.joints.push(compileJoint(via, opts.armature ?? 0));
      if (via.velocity > 0) velocityLimits++;
      jointIds.set(via.name, njnt);
      if (via.mimic) mimics.push({ joint: via, index: njnt });
    }
    njnt += body.joints.length;
    const index = bodies.length;
    bodies.push(body);
    return index;
  };
  // depth-first preorder, as a loop (see mergeFixed): children pushed in reverse pop in document order
  const toAdd: Array<{ link: string; parent: number; via: Joint | null }> = [{ link: rootLink.name, parent: 0, via: null }];
  while (toAdd.length > 0) {
    const { link, parent, via } = toAdd.pop()!;
    const index = addBody(link, parent, via);
    const children = childJoints.get(link) ?? [];
    for (let k = children.length - 1; k >= 0; k--) toAdd.push({ link: children[k]!.child, parent: index, via: children[k]! });
  }
  const massless = findMasslessMovingBody(bodies);
  if (massless > 0) fail(links.get(bodies[massless]!.name)!.el, `link "${bodies[massless]!.name}" moves but has no mass or inertia`);
  if (velocityLimits > 0) log.push(`velocity limits of ${velocityLimits} joints are read but not enforced (as in Genesis' rigid solver)`);

  const equalities: EqualitySpec[] = mimics.map(({ joint, index }) => {
    const m = joint.mimic!;
    const target = jointIds.get(m.joint);
    if (target === undefined) fail(m.el, `unknown mimic joint "${m.joint}"`);
    return {
      name: `${joint.name}_mimic`, type: EqType.Joint, obj1: index, obj2: target, active: true,
      solref: [...DEFAULT_SOLREF], solimp: [...DEFAULT_SOLIMP], data: [m.offset, m.multiplier, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    };
  });

  const model = buildModel({ bodies, actuators: [], equalities, excludes: [], keys: [], opt: defaultOptions() });
  return { model, options: {}, log, sourceFile: file };
}

function freeJoint(name: string): JointSpec {
  return {
    name, type: JointType.Free, pos: [0, 0, 0], axis: [0, 0, 1], limited: false, range: [0, 0],
    actfrclimited: false, actfrcrange: [0, 0], ref: 0, springref: 0, stiffness: 0, margin: 0,
    solrefLimit: [...DEFAULT_SOLREF], solimpLimit: [...DEFAULT_SOLIMP],
    solrefFriction: [...DEFAULT_SOLREF], solimpFriction: [...DEFAULT_SOLIMP],
    armature: 0, damping: 0, frictionloss: 0,
  };
}

function compileJoint(j: Joint, armature: number): JointSpec {
  const axis: Vec3 = [...j.axis];
  if (normalize(axis) < EPS) fail(j.el, 'axis too small');
  const limited = j.type !== 'continuous' && j.hasLimit;
  if (limited && j.lower >= j.upper) fail(j.el, 'limit lower must be smaller than upper');
  return {
    ...freeJoint(j.name),
    type: j.type === 'prismatic' ? JointType.Slide : JointType.Hinge,
    axis,
    limited,
    range: limited ? [j.lower, j.upper] : [0, 0],
    actfrclimited: j.effort > 0,
    actfrcrange: j.effort > 0 ? [-j.effort, j.effort] : [0, 0],
    damping: j.damping,
    frictionloss: j.friction,
    armature,
  };
}

function readOrigin(parent: XmlElement): { pos: Vec3; quat: Quat } {
  const el = parent.children.find((c) => c.name === 'origin');
  if (!el) return { pos: [0, 0, 0], quat: [1, 0, 0, 0] };
  const a = new Attrs(el);
  const xyz = a.nums('xyz', 3) ?? [0, 0, 0];
  const rpy = a.nums('rpy', 3) ?? [0, 0, 0];
  a.done();
  return { pos: [xyz[0]!, xyz[1]!, xyz[2]!], quat: quatFromRpy([rpy[0]!, rpy[1]!, rpy[2]!]) };
}

function readLink(el: XmlElement, skipped: Map<string, number>, meshes: UrdfMeshes): Link {
  const a = new Attrs(el);
  const name = a.requiredStr('name');
  a.done();
  const link: Link = { el, name, inertial: { mass: 0, com: [0, 0, 0], tensor: [0, 0, 0, 0, 0, 0] }, geoms: [] };
  for (const c of el.children) {
    if (c.name === 'inertial') {
      link.inertial = readInertial(c);
    } else if (c.name === 'collision') {
      link.geoms.push(readCollision(c, meshes));
    } else if (c.name === 'visual') {
      skipped.set('visual', (skipped.get('visual') ?? 0) + 1);
    } else {
      fail(c, 'unsupported element');
    }
  }
  return link;
}

function readInertial(el: XmlElement): Inertial {
  const { pos, quat } = readOrigin(el);
  let mass = 0;
  let tensor: Sym3 = [0, 0, 0, 0, 0, 0];
  for (const c of el.children) {
    const a = new Attrs(c);
    if (c.name === 'mass') {
      mass = a.num('value') ?? fail(c, "missing required attribute 'value'");
    } else if (c.name === 'inertia') {
      const v = (k: string) => a.num(k) ?? 0;
      tensor = [v('ixx'), v('iyy'), v('izz'), v('ixy'), v('ixz'), v('iyz')];
    } else if (c.name !== 'origin') {
      fail(c, 'unsupported element');
    }
    if (c.name !== 'origin') a.done();
  }
  if (mass < 0) fail(el, 'mass cannot be negative');
  // the tensor is given in the inertial frame; keep it in the link frame
  return { mass, com: pos, tensor: rotateSym(tensor, quat) };
}

function readCollision(el: XmlElement, meshes: UrdfMeshes): GeomSpec {
  const a = new Attrs(el);
  const name = a.str('name') ?? '';
  a.done();
  const origin = readOrigin(el);
  const geometry = el.children.find((c) => c.name === 'geometry');
  if (!geometry) fail(el, 'missing <geometry>');
  const shape = geometry.children[0];
  if (!shape || geometry.children.length !== 1) fail(geometry, 'expected exactly one shape');
  const g = shape.name === 'mesh' ? urdfMesh(shape, origin.pos, origin.quat, meshes) : primitive(shape, origin.pos, origin.quat);
  return {
    name, ...g,
    contype: 1, conaffinity: 1, condim: 3, priority: 0, friction: [1, 0.005, 0.0001], solmix: 1,
    solref: [...DEFAULT_SOLREF], solimp: [...DEFAULT_SOLIMP], margin: 0, gap: 0,
  };
}

/** A box, cylinder, capsule or sphere at pos/quat in the link frame. */
function primitive(shape: XmlElement, pos: Vec3, quat: Quat): Pick<GeomSpec, 'type' | 'size' | 'rbound' | 'pos' | 'quat'> {
  const s = new Attrs(shape);
  let type: GeomType;
  let size: Vec3;
  const positive = (k: string): number => {
    const v = s.num(k);
    if (v === undefined) fail(shape, `missing required attribute '${k}'`);
    if (!(v > 0)) fail(shape, `attribute '${k}' must be positive`);
    return v;
  };
  switch (shape.name) {
    case 'box': {
      const v = s.nums('size', 3);
      if (!v) fail(shape, "missing required attribute 'size'");
      if (!v.every((x) => x > 0)) fail(shape, "attribute 'size' must be positive");
      type = GeomType.Box;
      size = [v[0]! / 2, v[1]! / 2, v[2]! / 2];
      break;
    }
    case 'cylinder': type = GeomType.Cylinder; size = [positive('radius'), positive('length') / 2, 0]; break;
    case 'capsule': type = GeomType.Capsule; size = [positive('radius'), positive('length') / 2, 0]; break;
    case 'sphere': type = GeomType.Sphere; size = [positive('radius'), 0, 0]; break;
    default: fail(shape, 'unsupported collision geometry (supported: box, cylinder, sphere, capsule, mesh)');
  }
  s.done();
  return { type, size, rbound: geomRbound(type, size), pos, quat };
}

function readJoint(el: XmlElement): Joint {
  const a = new Attrs(el);
  const name = a.requiredStr('name');
  const typeName = a.requiredStr('type');
  if (!(JOINT_TYPES as readonly string[]).includes(typeName)) {
    fail(el, `unsupported joint type "${typeName}" (supported: ${JOINT_TYPES.join(', ')})`);
  }
  a.done();
  const { pos, quat } = readOrigin(el);
  const j: Joint = {
    el, name, type: typeName as Joint['type'], parent: '', child: '', pos, quat, axis: [1, 0, 0],
    lower: 0, upper: 0, hasLimit: false, effort: 0, velocity: 0, damping: 0, friction: 0, mimic: null,
  };
  for (const c of el.children) {
    const ca = new Attrs(c);
    switch (c.name) {
      case 'origin': continue;
      case 'parent': j.parent = ca.requiredStr('link'); break;
      case 'child': j.child = ca.requiredStr('link'); break;
      case 'axis': {
        const v = ca.nums('xyz', 3);
        if (v) j.axis = [v[0]!, v[1]!, v[2]!];
        break;
      }
      case 'limit':
        j.hasLimit = true;
        j.lower = ca.num('lower') ?? 0;
        j.upper = ca.num('upper') ?? 0;
        j.effort = ca.num('effort') ?? 0;
        j.velocity = ca.num('velocity') ?? 0;
        break;
      case 'dynamics':
        j.damping = ca.num('damping') ?? 0;
        j.friction = ca.num('friction') ?? 0;
        break;
      case 'mimic':
        j.mimic = { joint: ca.requiredStr('joint'), multiplier: ca.num('multiplier') ?? 1, offset: ca.num('offset') ?? 0, el: c };
        break;
      case 'calibration': case 'safety_controller':
        ca.ignore(...Object.keys(c.attrs));
        break;
      default: fail(c, 'unsupported element');
    }
    ca.done();
  }
  if (!j.parent) fail(el, 'missing <parent link=...>');
  if (!j.child) fail(el, 'missing <child link=...>');
  if ((j.type === 'revolute' || j.type === 'prismatic') && !j.hasLimit) fail(el, `a ${j.type} joint needs a <limit>`);
  return j;
}

/** MuJoCo's default geom density (kg/m^3), which its URDF import uses for links without <inertial>. */
const GEOM_DENSITY = 1000;

/** Solid geoms of uniform density, as one inertial in the link frame. */
function inertialFromGeoms(geoms: readonly GeomSpec[]): Inertial {
  let out: Inertial = { mass: 0, com: [0, 0, 0], tensor: [0, 0, 0, 0, 0, 0] };
  for (const g of geoms) {
    const mesh = g.mesh as CompiledMesh | undefined;
    const mass = GEOM_DENSITY * (mesh ? mesh.volume : geomVolume(g.type, g.size));
    const [ix, iy, iz] = mesh ? meshGeomInertia(mesh, mass) : geomInertia(g.type, g.size, mass);
    out = combine(out, transformInertial({ mass, com: [0, 0, 0], tensor: [ix, iy, iz, 0, 0, 0] }, g.pos, g.quat));
  }
  return out;
}

/** The inertial of a child link, expressed in its parent's frame given the child's pose there. */
function transformInertial(i: Inertial, pos: Vec3, quat: Quat): Inertial {
  return { mass: i.mass, com: composePose(pos, quat, i.com, [1, 0, 0, 0]).pos, tensor: rotateSym(i.tensor, quat) };
}

/** Two rigidly attached inertials as one: total mass, combined centre of mass, parallel-axis tensor. */
function combine(a: Inertial, b: Inertial): Inertial {
  const mass = a.mass + b.mass;
  if (mass <= 0) return { mass: 0, com: [0, 0, 0], tensor: addSym(a.tensor, b.tensor) };
  const com: Vec3 = [0, 1, 2].map((k) => (a.mass * a.com[k as 0]! + b.mass * b.com[k as 0]!) / mass) as Vec3;
  const shift = (i: Inertial): Sym3 => addSym(i.tensor, pointInertia(i.mass, [i.com[0] - com[0], i.com[1] - com[1], i.com[2] - com[2]]));
  return { mass, com, tensor: addSym(shift(a), shift(b)) };
}

/** Principal frame of a link's inertia, as MuJoCo compiles <inertial fullinertia=...>. */
function principal(link: Link): { ipos: Vec3; iquat: Quat; mass: number; inertia: Vec3 } {
  const { mass, com, tensor } = link.inertial;
  if (mass <= 0) return { ipos: [0, 0, 0], iquat: [1, 0, 0, 0], mass: 0, inertia: [0, 0, 0] };
  try {
    const p = principalInertia(tensor);
    return { ipos: [...com], iquat: p.quat, mass, inertia: p.inertia };
  } catch (e) {
    fail(link.el, `inertia of link "${link.name}": ${(e as Error).message}`);
  }
}
