/**
 * Entity: one robot (or the plane) in a scene, with Genesis' per-dof control and state API.
 * Indices are entity-local (`dofsIdx` 0..nDofs-1, `qsIdx` 0..nQs-1); envsIdx follows indices.ts.
 *
 * Dof positions: a hinge or slide dof's position is its qpos; a free joint's first three dofs are its
 * position. The rotational dofs of a ball or free joint have no coordinate of their own: their "position"
 * is the rotation vector (axis * angle) of the joint's quaternion, and they can only be set all three at once.
 */
import { rejectUnknownKeys } from './keys.js';
import type { SimInstance, ValueBlock } from '../backend/backend.js';
import { DofCtrlMode, type Data } from '../data/data.js';
import { currentLinkState } from './link-state.js';
import { logger } from './logger.js';
import { JointType, type Model } from '../model/model.js';
import {
  parseEnvsIdx, parseIndex, readShape, shapeValues, type IndexInput, type Selection, type ValueInput,
} from './indices.js';
import type { Morph } from './morphs.js';
import { readSensorData, sensorInfo, type SensorInfo } from './sensors.js';
import { Tensor } from './tensor.js';

/** Where an entity's elements sit in the scene's merged model. */
export interface EntityLayout {
  readonly bodyAdr: number; readonly nBody: number;
  readonly jntAdr: number; readonly nJnt: number;
  readonly dofAdr: number; readonly nDof: number;
  readonly qAdr: number; readonly nQ: number;
  readonly uAdr: number; readonly nU: number;
  /** Geoms on the entity's bodies (contiguous), and those it attaches to the world body. */
  readonly geomAdr: number; readonly nGeom: number; readonly worldGeoms: readonly number[];
  /** The entity's sensors (contiguous, in file order). */
  readonly sensorAdr: number; readonly nSensor: number;
}

export type JointKind = 'free' | 'ball' | 'slide' | 'hinge';
const KIND: Record<number, JointKind> = {
  [JointType.Free]: 'free', [JointType.Ball]: 'ball', [JointType.Slide]: 'slide', [JointType.Hinge]: 'hinge',
};

export class Joint {
  constructor(
    readonly name: string,
    readonly type: JointKind,
    /** Index of the joint in the scene's model. */
    readonly idx: number,
    /** Dofs of this joint, entity-local (what the control, set and get methods take as dofsIdx). */
    readonly dofsIdxLocal: readonly number[],
    /** Dofs of this joint in the scene's model. */
    readonly dofsIdx: readonly number[],
    readonly qsIdxLocal: readonly number[],
    readonly qsIdx: readonly number[],
  ) {}

  /** Genesis' single-dof shorthand; -1 for a multi-dof joint. */
  get dofIdxLocal(): number {
    return this.dofsIdxLocal.length === 1 ? this.dofsIdxLocal[0]! : -1;
  }
}

export interface DofsArgs {
  dofsIdx?: IndexInput;
  envsIdx?: IndexInput;
}

export interface LinksArgs {
  linksIdx?: IndexInput;
  envsIdx?: IndexInput;
}

/**
 * Genesis' positional form (`controlDofsPosition(pos, dofsIdx, envsIdx)`, `getLinksPos(linksIdx, envsIdx)`)
 * or our options object `{ dofsIdx | linksIdx, envsIdx }`: an index (number, array, typed array, Tensor) in
 * the options' place is the entity-local index.
 */
function positional<K extends 'dofsIdx' | 'linksIdx'>(
  key: K, args: Partial<Record<K | 'envsIdx', IndexInput>> | IndexInput, envsIdx: IndexInput | undefined,
): Partial<Record<K | 'envsIdx', IndexInput>> {
  const isIndex = typeof args === 'number' || args instanceof Tensor || Array.isArray(args) || ArrayBuffer.isView(args);
  if (isIndex) {
    const out = { [key]: args as IndexInput } as Partial<Record<K | 'envsIdx', IndexInput>>;
    if (envsIdx !== undefined) out.envsIdx = envsIdx;
    return out;
  }
  if (envsIdx !== undefined) throw new Error('envsIdx given both positionally and in the options object');
  return args as Partial<Record<K | 'envsIdx', IndexInput>>;
}

const dofsArgs = (args: DofsArgs | IndexInput, envsIdx: IndexInput | undefined): DofsArgs => positional('dofsIdx', args, envsIdx);
const linksArgs = (args: LinksArgs | IndexInput, envsIdx: IndexInput | undefined): LinksArgs => positional('linksIdx', args, envsIdx);

/** One contact that involves an entity, as getContacts gives it (scene-wide geom and link indices). */
export interface Contact {
  /** The geom pair as MuJoCo orders it (the lower geom type first), and the links they belong to. */
  readonly geomA: number;
  readonly geomB: number;
  readonly linkA: number;
  readonly linkB: number;
  /** World position, midway between the two surfaces. */
  readonly position: readonly [number, number, number];
  /** Unit normal from geom A into geom B. */
  readonly normal: readonly [number, number, number];
  /** How deep the geoms overlap (minus MuJoCo's contact distance; negative inside the margin only). */
  readonly penetration: number;
  /** World-frame force on link A and on link B in the last step (N; forceA = -forceB), as Genesis' force_a/force_b:
   *  the contact's constraint force, decoded as MuJoCo's mj_contactForce does. */
  readonly forceA: readonly [number, number, number];
  readonly forceB: readonly [number, number, number];
}

/** Where getLinksVel measures a link's linear velocity: at the link frame's origin, or at its centre of mass. */
export type VelocityRef = 'linkOrigin' | 'linkCom';

export interface QsArgs {
  qsIdx?: IndexInput;
  envsIdx?: IndexInput;
}

/** How an Entity reaches its scene; Scene implements it. */
export interface EntityHost {
  readonly nEnvs: number;
  readonly isBuilt: boolean;
  requireSim(): SimInstance;
}

/** How one dof's position maps to qpos. */
interface DofPos {
  /** qpos address for a scalar dof, else -1. */
  q: number;
  /** For a rotational dof: qpos address of the joint's quaternion, and which rotation-vector component. */
  quat: number;
  axis: number;
  joint: number;
}

/** Marks dofs whose new gain is nonzero in some env; a gain set to 0 in every env marks the dof idle again. */
function noteNonzero(flags: Uint8Array, dofs: Int32Array, block: ValueBlock, everyEnv: boolean): void {
  const w = dofs.length;
  dofs.forEach((d, k) => {
    let any = 0;
    for (let r = 0; r < block.rows && !any; r++) if (block.data[r * w + k] !== 0) any = 1;
    flags[d] = everyEnv ? any : flags[d]! | any;
  });
}

export class Entity {
  private layout: EntityLayout | null = null;
  private model: Model | null = null;
  private jointList: Joint[] = [];
  private dofPos: DofPos[] = [];
  /** Per local dof: whether kp (kv) may be nonzero in some env, from the build and every setDofsKp (Kv). */
  private kpNonzero = new Uint8Array(0);
  private kvNonzero = new Uint8Array(0);
  private warnedNoGain = new Set<string>();

  constructor(
    private readonly host: EntityHost,
    /** Position of the entity in scene.entities. */
    readonly idx: number,
    readonly morph: Morph,
    /** Default PD gains this entity's dofs get at build (Genesis' URDF defaults), or null. */
    readonly defaultGains: { kp: number; kv: number } | null,
  ) {}

  /** Called by the scene once the entity's model is known (at addEntity, in the scene's numbering). */
  attach(model: Model, layout: EntityLayout): void {
    this.model = model;
    this.layout = layout;
    const joints: Joint[] = [];
    const dofPos: DofPos[] = [];
    for (let j = layout.jntAdr; j < layout.jntAdr + layout.nJnt; j++) {
      const type = model.jntType[j]!;
      const d0 = model.jntDofadr[j]!;
      const q0 = model.jntQposadr[j]!;
      const nd = type === JointType.Free ? 6 : type === JointType.Ball ? 3 : 1;
      const nq = type === JointType.Free ? 7 : type === JointType.Ball ? 4 : 1;
      const range = (start: number, n: number): number[] => Array.from({ length: n }, (_, i) => start + i);
      joints.push(new Joint(
        model.jntName[j] ?? '', KIND[type] ?? 'hinge', j,
        range(d0 - layout.dofAdr, nd), range(d0, nd), range(q0 - layout.qAdr, nq), range(q0, nq),
      ));
      for (let k = 0; k < nd; k++) {
        if (type === JointType.Free && k < 3) dofPos.push({ q: q0 + k, quat: -1, axis: -1, joint: j });
        else if (type === JointType.Free) dofPos.push({ q: -1, quat: q0 + 3, axis: k - 3, joint: j });
        else if (type === JointType.Ball) dofPos.push({ q: -1, quat: q0, axis: k, joint: j });
        else dofPos.push({ q: q0, quat: -1, axis: -1, joint: j });
      }
    }
    this.jointList = joints;
    this.dofPos = dofPos;
  }

  /** The build-time gains of this entity's dofs (local order). */
  noteGains(kp: ArrayLike<number>, kv: ArrayLike<number>): void {
    this.kpNonzero = Uint8Array.from(kp, (x) => (x !== 0 ? 1 : 0));
    this.kvNonzero = Uint8Array.from(kv, (x) => (x !== 0 ? 1 : 0));
    this.warnedNoGain.clear();
  }

  /**
   * A position (velocity) target on a dof whose kp (kv) is 0 everywhere does nothing: MJCF gives gains only to
   * dofs driven by a position or velocity actuator. Say so once per entity and control, naming the joints.
   */
  private warnIfNoGain(mode: DofCtrlMode, dofs: Int32Array): void {
    const [gain, nonzero, call] = mode === DofCtrlMode.Position
      ? ['kp', this.kpNonzero, 'controlDofsPosition'] as const
      : ['kv', this.kvNonzero, 'controlDofsVelocity'] as const;
    if (this.warnedNoGain.has(gain)) return;
    const idle = Array.from(dofs).filter((d) => nonzero[d] === 0);
    if (idle.length === 0) return;
    this.warnedNoGain.add(gain);
    const joints = [...new Set(idle.map((d) => this.jointList.find((j) => j.dofsIdxLocal.includes(d))?.name || `dof ${d}`))];
    logger.warning(`${call} on entity ${this.idx}: dofs [${idle.join(', ')}] (${joints.join(', ')}) have ${gain} = 0 ` +
      `(no ${mode === DofCtrlMode.Position ? 'position' : 'position or velocity'} actuator drives them and set${gain === 'kp' ? 'DofsKp' : 'DofsKv'} was not called), ` +
      `so ${mode === DofCtrlMode.Position ? 'they will not move toward the target' : 'the target velocity has no effect'}. Set gains with entity.set${gain === 'kp' ? 'DofsKp' : 'DofsKv'}().`);
  }

  /** @internal the entity's place in the scene's model (for another entity's getContacts) */
  requireLayout(): EntityLayout {
    if (!this.layout) throw new Error('This entity has no model yet.');
    return this.layout;
  }

  get nDofs(): number { return this.requireLayout().nDof; }
  get nQs(): number { return this.requireLayout().nQ; }
  get nLinks(): number { return this.requireLayout().nBody; }
  /** First dof / qpos of this entity in the scene's model. */
  get dofStart(): number { return this.requireLayout().dofAdr; }
  get qStart(): number { return this.requireLayout().qAdr; }
  get joints(): readonly Joint[] { return this.jointList; }

  getJoint(name: string): Joint {
    const j = this.jointList.find((x) => x.name === name);
    if (!j) {
      const names = this.jointList.map((x) => x.name).filter((n) => n).join(', ');
      throw new Error(`Joint '${name}' not found in entity ${this.idx} (joints: ${names || 'none'}).`);
    }
    return j;
  }

  // ---- selection helpers

  /** The envs and the entity-local dofs or links selected, and the latter's indices in the scene's model. */
  private select(kind: 'dofs' | 'links', args: DofsArgs & LinksArgs): { envs: Selection; sel: Selection; global: Int32Array } {
    const key = kind === 'dofs' ? 'dofsIdx' : 'linksIdx';
    rejectUnknownKeys(args, [key, 'envsIdx'], `${kind} arguments`, { [`${kind}_idx_local`]: key });
    this.host.requireSim();
    const l = this.requireLayout();
    const envs = parseEnvsIdx(args.envsIdx, this.host.nEnvs);
    const [count, adr] = kind === 'dofs' ? [l.nDof, l.dofAdr] : [l.nBody, l.bodyAdr];
    const sel = parseIndex(args[key], count, `${kind}_idx`, `n_${kind}`);
    return { envs, sel, global: sel.idx.map((i) => i + adr) };
  }

  private selectDofs(args: DofsArgs): { envs: Selection; dofs: Selection; global: Int32Array } {
    const { envs, sel, global } = this.select('dofs', args);
    return { envs, dofs: sel, global };
  }

  private selectLinks(args: LinksArgs): { envs: Selection; links: Selection; global: Int32Array } {
    const { envs, sel, global } = this.select('links', args);
    return { envs, links: sel, global };
  }

  private selectQs(args: QsArgs): { envs: Selection; qs: Selection; global: Int32Array } {
    this.host.requireSim();
    const l = this.requireLayout();
    const envs = parseEnvsIdx(args.envsIdx, this.host.nEnvs);
    const qs = parseIndex(args.qsIdx, l.nQ, 'qs_idx', 'n_qs');
    return { envs, qs, global: qs.idx.map((i) => i + l.qAdr) };
  }

  private control(field: 'dofCtrlPos' | 'dofCtrlVel' | 'dofCtrlForce', mode: DofCtrlMode, values: ValueInput, args: DofsArgs): void {
    const { envs, dofs, global } = this.selectDofs(args);
    const block = shapeValues(values, envs, dofs, 'dofs_idx');
    if (mode === DofCtrlMode.Position || mode === DofCtrlMode.Velocity) this.warnIfNoGain(mode, dofs.idx);
    const sim = this.host.requireSim();
    sim.writeDofs(field, global, envs.idx, block);
    if (mode === DofCtrlMode.Position) sim.writeDofs('dofCtrlVel', global, envs.idx, zeros(global.length));
    sim.writeDofCtrlMode(global, envs.idx, mode);
  }

  private async readDofs(field: 'qvel' | 'dofKp' | 'dofKv', args: DofsArgs): Promise<Tensor> {
    const { envs, dofs, global } = this.selectDofs(args);
    const data = await this.host.requireSim().readDofs(field, global, envs.idx);
    return new Tensor(data, readShape(envs, dofs));
  }

  // ---- control (persistent mode per dof and env)

  /** PD control to target positions: kp*(target - q) - kv*qdot, clamped to the dof's force range. */
  controlDofsPosition(position: ValueInput, args: DofsArgs | IndexInput = {}, envsIdx?: IndexInput): void {
    this.control('dofCtrlPos', DofCtrlMode.Position, position, dofsArgs(args, envsIdx));
  }

  /** Velocity control: kv*(target - qdot), clamped to the dof's force range. */
  controlDofsVelocity(velocity: ValueInput, args: DofsArgs | IndexInput = {}, envsIdx?: IndexInput): void {
    this.control('dofCtrlVel', DofCtrlMode.Velocity, velocity, dofsArgs(args, envsIdx));
  }

  /** Direct force (torque for a hinge), clamped to the dof's force range. */
  controlDofsForce(force: ValueInput, args: DofsArgs | IndexInput = {}, envsIdx?: IndexInput): void {
    this.control('dofCtrlForce', DofCtrlMode.Force, force, dofsArgs(args, envsIdx));
  }

  setDofsKp(kp: ValueInput, args: DofsArgs = {}): void {
    const { envs, dofs, global } = this.selectDofs(args);
    const block = shapeValues(kp, envs, dofs, 'dofs_idx');
    this.host.requireSim().writeDofs('dofKp', global, envs.idx, block);
    noteNonzero(this.kpNonzero, dofs.idx, block, envs.idx.length === Math.max(1, this.host.nEnvs));
  }

  setDofsKv(kv: ValueInput, args: DofsArgs = {}): void {
    const { envs, dofs, global } = this.selectDofs(args);
    const block = shapeValues(kv, envs, dofs, 'dofs_idx');
    this.host.requireSim().writeDofs('dofKv', global, envs.idx, block);
    noteNonzero(this.kvNonzero, dofs.idx, block, envs.idx.length === Math.max(1, this.host.nEnvs));
  }

  setDofsForceRange(lower: ValueInput, upper: ValueInput, args: DofsArgs = {}): void {
    const { envs, dofs, global } = this.selectDofs(args);
    const lo = shapeValues(lower, envs, dofs, 'dofs_idx');
    const hi = shapeValues(upper, envs, dofs, 'dofs_idx');
    this.host.requireSim().writeDofForceRange(global, envs.idx, lo, hi);
  }

  getDofsKp(args: DofsArgs = {}): Promise<Tensor> { return this.readDofs('dofKp', args); }
  getDofsKv(args: DofsArgs = {}): Promise<Tensor> { return this.readDofs('dofKv', args); }

  // ---- state

  /** Sets dof positions (zeroing those dofs' velocities unless zeroVelocity is false). */
  setDofsPosition(position: ValueInput, args: DofsArgs & { zeroVelocity?: boolean } = {}): void {
    const { envs, dofs, global } = this.selectDofs(args);
    const block = shapeValues(position, envs, dofs, 'dofs_idx');
    const sim = this.host.requireSim();
    const w = global.length;
    const scalarCols: number[] = [];
    const quatJoints = new Map<number, { quat: number; cols: number[] }>();
    for (let c = 0; c < w; c++) {
      const p = this.dofPos[dofs.idx[c]!]!;
      if (p.q >= 0) { scalarCols.push(c); continue; }
      const g = quatJoints.get(p.joint) ?? { quat: p.quat, cols: [-1, -1, -1] };
      g.cols[p.axis] = c;
      quatJoints.set(p.joint, g);
    }
    if (scalarCols.length > 0) {
      const qs = Int32Array.from(scalarCols, (c) => this.dofPos[dofs.idx[c]!]!.q);
      sim.writeQpos(qs, envs.idx, pickColumns(block, w, scalarCols));
    }
    for (const [joint, g] of quatJoints) {
      if (g.cols.some((c) => c < 0)) {
        throw new Error(`setDofsPosition: the rotational dofs of joint '${this.model!.jntName[joint]}' must be set all three at once (or use setQpos).`);
      }
      const rows = block.rows;
      const quat = new Float64Array(rows * 4);
      for (let r = 0; r < rows; r++) {
        const v = [0, 1, 2].map((a) => block.data[r * w + g.cols[a]!]!);
        quat.set(quatFromRotvec(v[0]!, v[1]!, v[2]!), r * 4);
      }
      const qs = Int32Array.of(g.quat, g.quat + 1, g.quat + 2, g.quat + 3);
      sim.writeQpos(qs, envs.idx, { data: quat, rows });
    }
    if (args.zeroVelocity ?? true) sim.writeDofs('qvel', global, envs.idx, zeros(w));
  }

  setDofsVelocity(velocity: ValueInput, args: DofsArgs = {}): void {
    const { envs, dofs, global } = this.selectDofs(args);
    this.host.requireSim().writeDofs('qvel', global, envs.idx, shapeValues(velocity, envs, dofs, 'dofs_idx'));
  }

  /** Sets generalized coordinates; by default also zeroes every dof velocity of this entity in those envs. */
  setQpos(qpos: ValueInput, args: QsArgs & { zeroVelocity?: boolean } = {}): void {
    const { envs, qs, global } = this.selectQs(args);
    const sim = this.host.requireSim();
    sim.writeQpos(global, envs.idx, shapeValues(qpos, envs, qs, 'qs_idx'));
    if (args.zeroVelocity ?? true) {
      const l = this.requireLayout();
      const all = Int32Array.from({ length: l.nDof }, (_, i) => l.dofAdr + i);
      sim.writeDofs('qvel', all, envs.idx, zeros(l.nDof));
    }
  }

  async getDofsPosition(args: DofsArgs = {}): Promise<Tensor> {
    const { envs, dofs } = this.selectDofs(args);
    const sim = this.host.requireSim();
    const w = dofs.idx.length;
    const nE = envs.idx.length;
    const out = sim.precision === '32' ? new Float32Array(nE * w) : new Float64Array(nE * w);
    const scalarCols: number[] = [];
    const rotCols: number[] = [];
    for (let c = 0; c < w; c++) (this.dofPos[dofs.idx[c]!]!.q >= 0 ? scalarCols : rotCols).push(c);
    if (scalarCols.length > 0) {
      const qs = Int32Array.from(scalarCols, (c) => this.dofPos[dofs.idx[c]!]!.q);
      const got = await sim.readQpos(qs, envs.idx);
      for (let t = 0; t < nE; t++) scalarCols.forEach((c, k) => { out[t * w + c] = got[t * qs.length + k]!; });
    }
    for (const c of rotCols) {
      const p = this.dofPos[dofs.idx[c]!]!;
      const got = await sim.readQpos(Int32Array.of(p.quat, p.quat + 1, p.quat + 2, p.quat + 3), envs.idx);
      for (let t = 0; t < nE; t++) {
        out[t * w + c] = rotvecFromQuat(got[t * 4]!, got[t * 4 + 1]!, got[t * 4 + 2]!, got[t * 4 + 3]!)[p.axis]!;
      }
    }
    return new Tensor(out, readShape(envs, dofs));
  }

  getDofsVelocity(args: DofsArgs = {}): Promise<Tensor> {
    return this.readDofs('qvel', args);
  }

  // ---- links (bodies): from the current state; forces: of the last step

  /**
   * `width` numbers per link from the current state (see link-state.ts), as a [envs, links, width] tensor:
   * `pick(d, body, t, out, o)` writes link `body` of host env t at out[o..o+width).
   */
  private async readLinks(
    args: LinksArgs, width: number, velocities: boolean,
    pick: (d: Data, body: number, t: number, out: Float32Array | Float64Array, o: number) => void,
  ): Promise<Tensor> {
    const { envs, links, global } = this.selectLinks(args);
    const sim = this.host.requireSim();
    const d = await currentLinkState(sim, this.model!, envs.idx, velocities);
    const nL = global.length;
    const out = sim.precision === '32' ? new Float32Array(envs.idx.length * nL * width) : new Float64Array(envs.idx.length * nL * width);
    for (let t = 0; t < envs.idx.length; t++) for (let j = 0; j < nL; j++) pick(d, global[j]!, t, out, (t * nL + j) * width);
    return new Tensor(out, [...readShape(envs, links), width]);
  }

  /** World position of each link frame: [nEnvs, nLinks, 3] (no env dimension when unbatched). */
  getLinksPos(args: LinksArgs | IndexInput = {}, envsIdx?: IndexInput): Promise<Tensor> {
    return this.readLinks(linksArgs(args, envsIdx), 3, false, (d, b, t, out, o) => {
      for (let k = 0; k < 3; k++) out[o + k] = d.xpos[(3 * b + k) * d.nEnvs + t]!;
    });
  }

  /** World orientation of each link frame, (w, x, y, z): [nEnvs, nLinks, 4]. */
  getLinksQuat(args: LinksArgs | IndexInput = {}, envsIdx?: IndexInput): Promise<Tensor> {
    return this.readLinks(linksArgs(args, envsIdx), 4, false, (d, b, t, out, o) => {
      for (let k = 0; k < 4; k++) out[o + k] = d.xquat[(4 * b + k) * d.nEnvs + t]!;
    });
  }

  /**
   * World linear velocity of each link: [nEnvs, nLinks, 3], at the link frame's origin (Genesis' default) or,
   * with `ref: 'linkCom'`, at its centre of mass. MuJoCo keeps the spatial velocity about its tree's centre
   * of mass (cvel); the point's velocity is v + w x (point - tree com), as mj_objectVelocity computes it.
   */
  getLinksVel(args: LinksArgs & { ref?: VelocityRef } = {}): Promise<Tensor> {
    const { ref = 'linkOrigin', ...rest } = args;
    if (ref !== 'linkOrigin' && ref !== 'linkCom') throw new Error(`getLinksVel: ref must be 'linkOrigin' or 'linkCom', got '${String(ref)}'`);
    const model = this.model!;
    return this.readLinks(linksArgs(rest, undefined), 3, true, (d, b, t, out, o) => {
      const n = d.nEnvs;
      const point = ref === 'linkCom' ? d.xipos : d.xpos;
      const root = model.bodyRootid[b]!;
      const c = (k: number) => d.cvel[(6 * b + k) * n + t]!;
      const r = (k: number) => point[(3 * b + k) * n + t]! - d.subtreeCom[(3 * root + k) * n + t]!;
      out[o] = c(3) + (c(1) * r(2) - c(2) * r(1));
      out[o + 1] = c(4) + (c(2) * r(0) - c(0) * r(2));
      out[o + 2] = c(5) + (c(0) * r(1) - c(1) * r(0));
    });
  }

  /** World angular velocity of each link: [nEnvs, nLinks, 3]. */
  getLinksAngVel(args: LinksArgs | IndexInput = {}, envsIdx?: IndexInput): Promise<Tensor> {
    return this.readLinks(linksArgs(args, envsIdx), 3, true, (d, b, t, out, o) => {
      for (let k = 0; k < 3; k++) out[o + k] = d.cvel[(6 * b + k) * d.nEnvs + t]!;
    });
  }

  /**
   * The contacts that involve this entity (with `withEntity`, only those with that entity too), per env, as
   * the last step's collision stage found them; an array of envs, or one list in an unbatched scene.
   */
  async getContacts(args: { envsIdx?: IndexInput; withEntity?: Entity } = {}): Promise<Contact[][] | Contact[]> {
    rejectUnknownKeys(args, ['envsIdx', 'withEntity'], 'getContacts', { envs_idx: 'envsIdx', with_entity: 'withEntity' });
    const sim = this.host.requireSim();
    const model = this.model!;
    const envs = parseEnvsIdx(args.envsIdx, this.host.nEnvs);
    const mine = (g: number, l: EntityLayout): boolean => (g >= l.geomAdr && g < l.geomAdr + l.nGeom) || l.worldGeoms.includes(g);
    const own = this.requireLayout();
    const other = args.withEntity?.requireLayout();
    const perEnv = (await sim.readContacts(envs.idx)).map((c) => {
      const out: Contact[] = [];
      for (let k = 0; k < c.dist.length; k++) {
        const ga = c.geom[2 * k]!, gb = c.geom[2 * k + 1]!;
        if (!mine(ga, own) && !mine(gb, own)) continue;
        if (other && !((mine(ga, own) && mine(gb, other)) || (mine(gb, own) && mine(ga, other)))) continue;
        const la = model.geomBodyid[ga]!, lb = model.geomBodyid[gb]!;
        const v = (a: Float64Array): [number, number, number] => [a[3 * k]!, a[3 * k + 1]!, a[3 * k + 2]!];
        const fb = v(c.force);
        out.push({
          geomA: ga, geomB: gb, linkA: la, linkB: lb, position: v(c.pos), normal: v(c.normal), penetration: -c.dist[k]!,
          forceA: [-fb[0] || 0, -fb[1] || 0, -fb[2] || 0], forceB: fb,
        });
      }
      return out;
    });
    return envs.scalar ? perEnv[0]! : perEnv;
  }

  /**
   * The net contact force on each of the entity's links in the last step: the world-frame sum of its contacts'
   * forces (with every other entity and itself), as Genesis' get_links_net_contact_force. [envs, links, 3].
   */
  async getLinksNetContactForce(args: { envsIdx?: IndexInput } | IndexInput = {}): Promise<Tensor> {
    const given = Array.isArray(args) || typeof args === 'number' || ArrayBuffer.isView(args) ? { envsIdx: args as IndexInput } : args as { envsIdx?: IndexInput };
    rejectUnknownKeys(given, ['envsIdx'], 'getLinksNetContactForce', { envs_idx: 'envsIdx' });
    const sim = this.host.requireSim();
    const l = this.requireLayout();
    const envs = parseEnvsIdx(given.envsIdx, this.host.nEnvs);
    const model = this.model!;
    const perEnv = await sim.readContacts(envs.idx);
    const out = sim.precision === '32' ? new Float32Array(envs.idx.length * l.nBody * 3) : new Float64Array(envs.idx.length * l.nBody * 3);
    perEnv.forEach((c, t) => {
      const add = (geom: number, k: number, sign: number): void => {
        const link = model.geomBodyid[geom]! - l.bodyAdr;
        if (link < 0 || link >= l.nBody) return;
        for (let j = 0; j < 3; j++) out[(t * l.nBody + link) * 3 + j]! += sign * c.force[3 * k + j]!;
      };
      for (let k = 0; k < c.dist.length; k++) {
        add(c.geom[2 * k]!, k, -1);
        add(c.geom[2 * k + 1]!, k, 1);
      }
    });
    return new Tensor(out, envs.scalar ? [l.nBody, 3] : [envs.idx.length, l.nBody, 3]);
  }

  /** The generalized force of the actuators and dof controllers on each dof in the last step (qfrc_actuator). */
  async getDofsControlForce(args: DofsArgs | IndexInput = {}, envsIdx?: IndexInput): Promise<Tensor> {
    const { envs, dofs, global } = this.selectDofs(dofsArgs(args, envsIdx));
    return new Tensor(await this.host.requireSim().readState('qfrcActuator', global, envs.idx), readShape(envs, dofs));
  }

  /**
   * The force each dof felt in the last step besides gravity, Coriolis and constraints: actuation plus springs
   * and dampers plus applied force (qfrc_actuator + qfrc_passive + qfrc_applied), as Genesis' dofs force.
   */
  async getDofsForce(args: DofsArgs | IndexInput = {}, envsIdx?: IndexInput): Promise<Tensor> {
    const { envs, dofs, global } = this.selectDofs(dofsArgs(args, envsIdx));
    const sim = this.host.requireSim();
    const [act, pas, app] = await Promise.all([
      sim.readState('qfrcActuator', global, envs.idx), sim.readState('qfrcPassive', global, envs.idx),
      sim.readState('qfrcApplied', global, envs.idx),
    ]);
    for (let k = 0; k < act.length; k++) act[k] = act[k]! + pas[k]! + app[k]!;
    return new Tensor(act, readShape(envs, dofs));
  }

  /** The entity's sensors in file order: name, MuJoCo type, size, columns in scene.getSensorData, noise, cutoff. */
  get sensors(): SensorInfo[] {
    const l = this.requireLayout();
    return sensorInfo(this.model!, l.sensorAdr, l.nSensor);
  }

  /**
   * One sensor's values of the last step, by its name in the model file: [envs, dim], or [dim] for an unbatched
   * scene or a scalar envsIdx (MuJoCo's sensordata, as after mj_step). CPU backend only.
   */
  async getSensor(name: string, envsIdx?: IndexInput): Promise<Tensor> {
    const found = this.sensors.find((x) => x.name === name);
    if (!found) {
      const named = this.sensors.filter((x) => x.name).map((x) => `'${x.name}'`);
      throw new Error(`entity ${this.idx} has no sensor named '${name}' (${named.length > 0 ? `its named sensors: ${named.join(', ')}` : 'it has no named sensors'})`);
    }
    return readSensorData(this.host.requireSim(), this.host.nEnvs, found.adr, found.dim, envsIdx);
  }

  async getQpos(args: QsArgs = {}): Promise<Tensor> {
    const { envs, qs, global } = this.selectQs(args);
    const data = await this.host.requireSim().readQpos(global, envs.idx);
    return new Tensor(data, readShape(envs, qs));
  }
}

function zeros(n: number): ValueBlock {
  return { data: new Float64Array(n), rows: 1 };
}

function pickColumns(block: ValueBlock, w: number, cols: number[]): ValueBlock {
  const out = new Float64Array(block.rows * cols.length);
  for (let r = 0; r < block.rows; r++) cols.forEach((c, k) => { out[r * cols.length + k] = block.data[r * w + c]!; });
  return { data: out, rows: block.rows };
}

function quatFromRotvec(x: number, y: number, z: number): [number, number, number, number] {
  const angle = Math.hypot(x, y, z);
  if (angle < 1e-15) return [1, 0, 0, 0];
  const s = Math.sin(angle / 2) / angle;
  return [Math.cos(angle / 2), x * s, y * s, z * s];
}

function rotvecFromQuat(w: number, x: number, y: number, z: number): [number, number, number] {
  if (w < 0) { w = -w; x = -x; y = -y; z = -z; }
  const sinHalf = Math.hypot(x, y, z);
  if (sinHalf < 1e-15) return [0, 0, 0];
  const angle = 2 * Math.atan2(sinHalf, w);
  return [x / sinHalf * angle, y / sinHalf * angle, z / sinHalf * angle];
}
