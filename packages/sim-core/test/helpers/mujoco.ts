/**
 * The physics reference: MuJoCo 3.3.8 (mujoco-js, WebAssembly) loaded beside sim-core.
 * `loadMujoco` compiles an MJCF file (with the files it includes) in MuJoCo; `modelFromMujoco` copies
 * MuJoCo's compiled mjModel into sim-core's Model, field for field, so stages can be tested against MuJoCo
 * independently of sim-core's own loaders.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import loadMujocoModule from 'mujoco-js';
import type { Model } from '../../src/model/model.js';

// biome-ignore lint/suspicious/noExplicitAny: mujoco-js ships no typings; its module is an untyped Emscripten object
export type Mj = any;

let modulePromise: Promise<Mj> | null = null;

export function mujoco(): Promise<Mj> {
  modulePromise ??= loadMujocoModule();
  return modulePromise;
}

let dirCounter = 0;

/** Loads `file` into MuJoCo; every file in its folder is copied into MuJoCo's virtual FS so includes resolve. */
export async function loadMujoco(file: string): Promise<{ mj: Mj; m: Mj; d: Mj }> {
  const mj = await mujoco();
  const dir = `/m${dirCounter++}`;
  mj.FS.mkdir(dir);
  const src = dirname(file);
  for (const name of readdirSync(src)) {
    const p = join(src, name);
    if (statSync(p).isFile()) mj.FS.writeFile(`${dir}/${name}`, readFileSync(p, 'utf8'));
  }
  const m = mj.MjModel.loadFromXML(`${dir}/${basename(file)}`);
  if (!m) throw new Error(`MuJoCo could not load ${file}`);
  const d = new mj.MjData(m);
  return { mj, m, d };
}

/** Frees a model and its data; the WASM heap holds only ~150 loaded models per process. */
export function disposeMujoco(loaded: { m: Mj; d: Mj }): void {
  loaded.d.delete();
  loaded.m.delete();
}

/** Loads MJCF text (no includes) into MuJoCo. */
export async function loadMujocoXml(xml: string): Promise<{ mj: Mj; m: Mj; d: Mj }> {
  const mj = await mujoco();
  const dir = `/m${dirCounter++}`;
  mj.FS.mkdir(dir);
  mj.FS.writeFile(`${dir}/model.xml`, xml);
  const m = mj.MjModel.loadFromXML(`${dir}/model.xml`);
  if (!m) throw new Error('MuJoCo could not load the XML');
  return { mj, m, d: new mj.MjData(m) };
}

const f64 = (a: ArrayLike<number>): Float64Array => Float64Array.from(a);
const i32 = (a: ArrayLike<number>): Int32Array => Int32Array.from(a);
const u8 = (a: ArrayLike<number>): Uint8Array => Uint8Array.from(a);

/** Names from MuJoCo's packed `names` buffer (mj_id2name returns junk for unnamed elements in mujoco-js). */
function names(m: Mj, adrField: string, n: number): string[] {
  const buf: Uint8Array = Uint8Array.from(m.names);
  const adr: ArrayLike<number> = m[adrField];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let end = adr[i]!;
    while (end < buf.length && buf[end] !== 0) end++;
    out.push(new TextDecoder().decode(buf.subarray(adr[i]!, end)));
  }
  return out;
}

/** Copies MuJoCo's compiled model into sim-core's Model (all arrays are copies: WASM heap views go stale). */
export function modelFromMujoco(_mj: Mj, m: Mj): Model {
  const opt = m.opt;
  const DSBL_EULERDAMP = 1 << 15; // mjDSBL_EULERDAMP in MuJoCo 3.3
  const DSBL_CONTACT = 1 << 4;
  const DSBL_LIMIT = 1 << 3;
  return {
    nq: m.nq, nv: m.nv, nu: m.nu, nbody: m.nbody, njnt: m.njnt, ngeom: m.ngeom, nsite: m.nsite,
    neq: m.neq, nkey: m.nkey, nexclude: m.nexclude, ntendon: m.ntendon, nwrap: m.nwrap,
    opt: {
      timestep: opt.timestep,
      gravity: [opt.gravity[0], opt.gravity[1], opt.gravity[2]],
      integrator: opt.integrator, solver: opt.solver, iterations: opt.iterations, tolerance: opt.tolerance,
      lsIterations: opt.ls_iterations, lsTolerance: opt.ls_tolerance, cone: opt.cone, impratio: opt.impratio,
      ccdTolerance: opt.ccd_tolerance, ccdIterations: opt.ccd_iterations,
      disableEulerdamp: (opt.disableflags & DSBL_EULERDAMP) !== 0,
      enableCollision: (opt.disableflags & DSBL_CONTACT) === 0,
      enableJointLimit: (opt.disableflags & DSBL_LIMIT) === 0,
      enableSelfCollision: true,
      substeps: 1,
      density: opt.density, viscosity: opt.viscosity, wind: [opt.wind[0], opt.wind[1], opt.wind[2]],
    },
    statMeaninertia: m.stat.meaninertia,
    qpos0: f64(m.qpos0), qposSpring: f64(m.qpos_spring),
    bodyParentid: i32(m.body_parentid), bodyRootid: i32(m.body_rootid), bodyWeldid: i32(m.body_weldid),
    bodyJntnum: i32(m.body_jntnum), bodyJntadr: i32(m.body_jntadr), bodyDofnum: i32(m.body_dofnum),
    bodyDofadr: i32(m.body_dofadr), bodyGeomnum: i32(m.body_geomnum), bodyGeomadr: i32(m.body_geomadr),
    bodyPos: f64(m.body_pos), bodyQuat: f64(m.body_quat), bodyIpos: f64(m.body_ipos), bodyIquat: f64(m.body_iquat),
    bodyMass: f64(m.body_mass), bodySubtreemass: f64(m.body_subtreemass), bodyInertia: f64(m.body_inertia),
    bodyInvweight0: f64(m.body_invweight0), bodyName: names(m, 'name_bodyadr', m.nbody),
    jntType: i32(m.jnt_type), jntQposadr: i32(m.jnt_qposadr), jntDofadr: i32(m.jnt_dofadr), jntBodyid: i32(m.jnt_bodyid),
    jntLimited: u8(m.jnt_limited), jntSolref: f64(m.jnt_solref), jntSolimp: f64(m.jnt_solimp),
    jntPos: f64(m.jnt_pos), jntAxis: f64(m.jnt_axis), jntStiffness: f64(m.jnt_stiffness), jntRange: f64(m.jnt_range),
    jntMargin: f64(m.jnt_margin),
    jntActfrclimited: u8(m.jnt_actfrclimited), jntActfrcrange: f64(m.jnt_actfrcrange), jntName: names(m, 'name_jntadr', m.njnt),
    dofBodyid: i32(m.dof_bodyid), dofJntid: i32(m.dof_jntid), dofParentid: i32(m.dof_parentid),
    dofArmature: f64(m.dof_armature), dofDamping: f64(m.dof_damping), dofFrictionloss: f64(m.dof_frictionloss),
    dofSolref: f64(m.dof_solref), dofSolimp: f64(m.dof_solimp), dofInvweight0: f64(m.dof_invweight0),
    geomType: i32(m.geom_type), geomContype: i32(m.geom_contype), geomConaffinity: i32(m.geom_conaffinity),
    geomCondim: i32(m.geom_condim), geomBodyid: i32(m.geom_bodyid), geomPriority: i32(m.geom_priority),
    geomSolmix: f64(m.geom_solmix), geomSolref: f64(m.geom_solref), geomSolimp: f64(m.geom_solimp),
    geomSize: f64(m.geom_size), geomRbound: f64(m.geom_rbound), geomPos: f64(m.geom_pos), geomQuat: f64(m.geom_quat),
    geomFriction: f64(m.geom_friction), geomMargin: f64(m.geom_margin), geomGap: f64(m.geom_gap),
    geomName: names(m, 'name_geomadr', m.ngeom),
    siteBodyid: i32(m.site_bodyid), sitePos: f64(m.site_pos), siteQuat: f64(m.site_quat),
    siteName: names(m, 'name_siteadr', m.nsite),
    actuatorTrntype: i32(m.actuator_trntype), actuatorDyntype: i32(m.actuator_dyntype),
    actuatorGaintype: i32(m.actuator_gaintype), actuatorBiastype: i32(m.actuator_biastype),
    actuatorTrnid: i32(m.actuator_trnid), actuatorCtrllimited: u8(m.actuator_ctrllimited),
    actuatorForcelimited: u8(m.actuator_forcelimited), actuatorCtrlrange: f64(m.actuator_ctrlrange),
    actuatorForcerange: f64(m.actuator_forcerange), actuatorGear: f64(m.actuator_gear),
    actuatorGainprm: f64(m.actuator_gainprm), actuatorBiasprm: f64(m.actuator_biasprm),
    actuatorName: names(m, 'name_actuatoradr', m.nu),
    eqType: i32(m.eq_type), eqObj1id: i32(m.eq_obj1id), eqObj2id: i32(m.eq_obj2id), eqActive0: u8(m.eq_active0),
    eqSolref: f64(m.eq_solref), eqSolimp: f64(m.eq_solimp), eqData: f64(m.eq_data),
    tendonAdr: i32(m.tendon_adr), tendonNum: i32(m.tendon_num), tendonLimited: u8(m.tendon_limited),
    tendonRange: f64(m.tendon_range), tendonMargin: f64(m.tendon_margin), tendonStiffness: f64(m.tendon_stiffness),
    tendonDamping: f64(m.tendon_damping), tendonFrictionloss: f64(m.tendon_frictionloss),
    tendonLengthspring: f64(m.tendon_lengthspring), tendonSolrefLim: f64(m.tendon_solref_lim),
    tendonSolimpLim: f64(m.tendon_solimp_lim), tendonSolrefFri: f64(m.tendon_solref_fri), tendonSolimpFri: f64(m.tendon_solimp_fri),
    tendonInvweight0: f64(m.tendon_invweight0), tendonName: names(m, 'name_tendonadr', m.ntendon),
    wrapType: i32(m.wrap_type), wrapObjid: i32(m.wrap_objid), wrapPrm: f64(m.wrap_prm),
    excludeSignature: i32(m.exclude_signature),
    keyTime: f64(m.key_time), keyQpos: f64(m.key_qpos), keyQvel: f64(m.key_qvel), keyCtrl: f64(m.key_ctrl),
    keyName: names(m, 'name_keyadr', m.nkey),
    ...meshFields(m),
    ...pairFields(m),
  };
}

/** Explicit contact pairs' fields (only when the model has pairs, as sim-core's loaders leave them out otherwise). */
function pairFields(m: Mj): Partial<Model> {
  if (!m.npair) return {};
  return {
    npair: m.npair, pairGeom1: i32(m.pair_geom1), pairGeom2: i32(m.pair_geom2), pairSignature: i32(m.pair_signature),
    pairDim: i32(m.pair_dim), pairFriction: f64(m.pair_friction), pairSolref: f64(m.pair_solref),
    pairSolreffriction: f64(m.pair_solreffriction), pairSolimp: f64(m.pair_solimp), pairMargin: f64(m.pair_margin),
    pairGap: f64(m.pair_gap), pairName: names(m, 'name_pairadr', m.npair),
  };
}

/** Mesh geoms' fields (only when the model has meshes, as sim-core's loaders leave them out otherwise). */
function meshFields(m: Mj): Partial<Model> {
  if (!m.nmesh) return {};
  return {
    nmesh: m.nmesh, geomDataid: i32(m.geom_dataid), meshVertadr: i32(m.mesh_vertadr), meshVertnum: i32(m.mesh_vertnum),
    meshVert: f64(m.mesh_vert), meshGraphadr: i32(m.mesh_graphadr), meshGraph: i32(m.mesh_graph),
    meshName: names(m, 'name_meshadr', m.nmesh),
  };
}

/** MuJoCo's dense mass matrix (nv x nv, row-major) for the current mjData. */
export function fullM(mj: Mj, m: Mj, d: Mj): Float64Array {
  const nv = m.nv;
  const out = new mj.DoubleBuffer(nv * nv);
  mj.mj_fullM(m, out, d.qM);
  const res = Float64Array.from(out.GetView());
  out.delete();
  return res;
}

/** Puts MuJoCo at keyframe 0 and a one-env sim-core Data in the same state (qpos, qvel, ctrl). */
export function startAtKeyframe(ref: { mj: Mj; m: Mj; d: Mj }, d: { qpos: Float32Array | Float64Array; qvel: Float32Array | Float64Array; ctrl: Float32Array | Float64Array }): void {
  ref.mj.mj_resetDataKeyframe(ref.m, ref.d, 0);
  d.qpos.set(ref.d.qpos as ArrayLike<number>);
  d.qvel.set(ref.d.qvel as ArrayLike<number>);
  d.ctrl.set(ref.d.ctrl as ArrayLike<number>);
}
