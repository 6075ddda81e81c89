/**
 * The compiled model: immutable, flat typed arrays, one per MuJoCo `mjModel` field.
 *
 * Contract shared by the loaders (MJCF/URDF -> Model), the stages (which only read it) and the test helper
 * that converts a `mujoco-js` MjModel into this shape. Every field has exactly the meaning, units, sizes and
 * frame conventions of the MuJoCo 3.3 `mjModel` field of the same name written in camelCase
 * (`body_parentid` -> `bodyParentid`, `actuator_gainprm` -> `actuatorGainprm`). Quaternions are (w, x, y, z).
 * Per-element arrays are flattened row-major: `bodyPos[3*b + k]`, `actuatorGainprm[10*u + k]`.
 * Body 0 is the world. Everything a stage needs is resolved here once (defaults, units, frames, inertias).
 */

export const enum JointType { Free = 0, Ball = 1, Slide = 2, Hinge = 3 }
export const enum GeomType { Plane = 0, HField = 1, Sphere = 2, Capsule = 3, Ellipsoid = 4, Cylinder = 5, Box = 6, Mesh = 7 }
/** mjtTrn: a joint, a tendon, or a site (a wrench at the site; with a refsite, its pose relative to the refsite's). */
export const enum TrnType { Joint = 0, Tendon = 3, Site = 4 }
/** MuJoCo's mjtWrap values: a fixed tendon's joints; a spatial tendon's sites, pulleys between branches, and the
 *  spheres and cylinders it wraps around. */
export const enum WrapType { Joint = 1, Pulley = 2, Site = 3, Sphere = 4, Cylinder = 5 }
export const enum DynType { None = 0 }
export const enum GainType { Fixed = 0, Affine = 1 }
export const enum BiasType { None = 0, Affine = 1 }
export const enum EqType { Connect = 0, Weld = 1, Joint = 2 }
export const enum Integrator { Euler = 0, RK4 = 1, Implicit = 2, ImplicitFast = 3 }
export const enum SolverType { PGS = 0, CG = 1, Newton = 2 }
export const enum ConeType { Pyramidal = 0, Elliptic = 1 }

/** mjOption subset. `disableEulerdamp` is mjDSBL_EULERDAMP; the enable* flags are gsprof's own switches. */
export interface ModelOptions {
  timestep: number;
  gravity: [number, number, number];
  integrator: Integrator;
  solver: SolverType;
  iterations: number;
  tolerance: number;
  lsIterations: number;
  lsTolerance: number;
  cone: ConeType;
  impratio: number;
  disableEulerdamp: boolean;
  enableCollision: boolean;
  enableJointLimit: boolean;
  enableSelfCollision: boolean;
  /** Substeps per scene.step() (Genesis' sim_options.substeps); MuJoCo has none, so 1 reproduces it. */
  substeps: number;
  /** mjOption ccd_tolerance and ccd_iterations of the general convex narrow phase (MuJoCo's 1e-6 and 35 when absent). */
  ccdTolerance?: number;
  ccdIterations?: number;
  /** mjOption density, viscosity and wind of the medium fluid forces act in (MuJoCo's 0, 0 and 0 0 0 when absent):
   *  mj_fluid runs when density or viscosity is positive. */
  density?: number;
  viscosity?: number;
  wind?: [number, number, number];
}

export interface Model {
  nq: number; nv: number; nu: number; nbody: number; njnt: number; ngeom: number; nsite: number;
  neq: number; nkey: number; nexclude: number; ntendon: number; nwrap: number;
  opt: ModelOptions;

  /** mjStatistic.meaninertia (used by the solver's tolerance scaling); filled by setConst. */
  statMeaninertia: number;

  qpos0: Float64Array;        // nq
  qposSpring: Float64Array;   // nq

  bodyParentid: Int32Array; bodyRootid: Int32Array; bodyWeldid: Int32Array;
  bodyJntnum: Int32Array; bodyJntadr: Int32Array; bodyDofnum: Int32Array; bodyDofadr: Int32Array;
  bodyGeomnum: Int32Array; bodyGeomadr: Int32Array;
  bodyPos: Float64Array; bodyQuat: Float64Array;      // 3, 4: frame relative to parent
  bodyIpos: Float64Array; bodyIquat: Float64Array;    // 3, 4: inertial frame relative to body frame
  bodyMass: Float64Array; bodySubtreemass: Float64Array;
  bodyInertia: Float64Array;                          // 3: principal moments in the inertial frame
  bodyInvweight0: Float64Array;                       // 2: filled by setConst
  bodyName: string[];

  jntType: Int32Array; jntQposadr: Int32Array; jntDofadr: Int32Array; jntBodyid: Int32Array;
  jntLimited: Uint8Array; jntSolref: Float64Array /* 2 */; jntSolimp: Float64Array /* 5 */;
  jntPos: Float64Array /* 3, body frame */; jntAxis: Float64Array /* 3, body frame */;
  jntStiffness: Float64Array; jntRange: Float64Array /* 2 */; jntMargin: Float64Array;
  jntName: string[];

  dofBodyid: Int32Array; dofJntid: Int32Array; dofParentid: Int32Array;
  dofArmature: Float64Array; dofDamping: Float64Array; dofFrictionloss: Float64Array;
  dofSolref: Float64Array /* 2 */; dofSolimp: Float64Array /* 5 */;
  dofInvweight0: Float64Array;                        // filled by setConst

  geomType: Int32Array; geomContype: Int32Array; geomConaffinity: Int32Array; geomCondim: Int32Array;
  geomBodyid: Int32Array; geomPriority: Int32Array;
  geomSolmix: Float64Array; geomSolref: Float64Array /* 2 */; geomSolimp: Float64Array /* 5 */;
  geomSize: Float64Array /* 3 */; geomRbound: Float64Array;
  geomPos: Float64Array /* 3 */; geomQuat: Float64Array /* 4 */;
  geomFriction: Float64Array /* 3 */; geomMargin: Float64Array; geomGap: Float64Array;
  geomName: string[];

  siteBodyid: Int32Array; sitePos: Float64Array /* 3 */; siteQuat: Float64Array /* 4 */;
  siteName: string[];

  actuatorTrntype: Int32Array; actuatorDyntype: Int32Array; actuatorGaintype: Int32Array;
  actuatorBiastype: Int32Array; actuatorTrnid: Int32Array /* 2: the target; a site transmission's refsite or -1 */;
  actuatorCtrllimited: Uint8Array; actuatorForcelimited: Uint8Array;
  actuatorCtrlrange: Float64Array /* 2 */; actuatorForcerange: Float64Array /* 2 */;
  actuatorGear: Float64Array /* 6 */; actuatorGainprm: Float64Array /* 10 */; actuatorBiasprm: Float64Array /* 10 */;
  actuatorName: string[];

  eqType: Int32Array; eqObj1id: Int32Array; eqObj2id: Int32Array; eqActive0: Uint8Array;
  eqSolref: Float64Array /* 2 */; eqSolimp: Float64Array /* 5 */; eqData: Float64Array /* 11 */;

  /** Tendons: fixed (every wrap a joint, mjWRAP_JOINT: length sum(coef * qpos) over its joints) or spatial (wraps are
   *  sites, objid the site, and pulleys, prm the divisor of the branches after it: MuJoCo's mj_tendon). */
  tendonAdr: Int32Array; tendonNum: Int32Array; tendonLimited: Uint8Array; tendonRange: Float64Array /* 2 */;
  tendonMargin: Float64Array; tendonStiffness: Float64Array; tendonDamping: Float64Array; tendonFrictionloss: Float64Array;
  tendonLengthspring: Float64Array /* 2; -1 -1: the length at qpos_spring, set by setConst */;
  tendonSolrefLim: Float64Array /* 2 */; tendonSolimpLim: Float64Array /* 5 */;
  tendonSolrefFri: Float64Array /* 2 */; tendonSolimpFri: Float64Array /* 5 */;
  tendonInvweight0: Float64Array;                     // filled by setConst
  tendonName: string[];
  wrapType: Int32Array; wrapObjid: Int32Array; wrapPrm: Float64Array;

  /** (body1 << 16) + body2, as mjModel.exclude_signature. */
  excludeSignature: Int32Array;

  keyTime: Float64Array; keyQpos: Float64Array /* nq */; keyQvel: Float64Array /* nv */; keyCtrl: Float64Array /* nu */;
  keyName: string[];

  /**
   * Appended by the loaders (issue 2): MuJoCo's jnt_actfrclimited / jnt_actfrcrange (2 per joint), the clamp on
   * the total actuator force at a joint. URDF `effort` limits land here (Genesis' dofs force range). Optional
   * because a Model copied from MuJoCo by the test helper may leave them out; absent means unlimited.
   */
  jntActfrclimited?: Uint8Array; jntActfrcrange?: Float64Array;

  /**
   * Mesh geoms (issue 13), as MuJoCo's fields: geom_dataid (the geom's mesh or height field, -1 for others), mesh_vertadr /
   * mesh_vertnum / mesh_vert (every vertex in the mesh's inertial frame, float32-rounded as MuJoCo stores
   * them), mesh_graphadr / mesh_graph (the convex hull collision uses; -1 when no colliding geom needs it).
   * Absent in a model without meshes.
   */
  nmesh?: number;
  geomDataid?: Int32Array;
  meshVertadr?: Int32Array; meshVertnum?: Int32Array; meshVert?: Float64Array;
  meshGraphadr?: Int32Array; meshGraph?: Int32Array;
  meshName?: string[];

  /**
   * MuJoCo's geom_fluid (12 per geom, model/fluid-coefs.ts): nonzero rows for the geoms with fluidshape="ellipsoid",
   * whose bodies then take the ellipsoid fluid model instead of the inertia box. Absent when no geom has one.
   */
  geomFluid?: Float64Array;

  /**
   * Height fields (issue 13), as MuJoCo's fields: hfield_size (x and y half-extents, elevation scale, base depth),
   * nrow, ncol, adr into hfield_data (row-major from -y to +y, normalised to [0, 1], float32 values as MuJoCo
   * stores them). An hfield geom's geom_dataid is its height field. Absent in a model without height fields.
   */
  nhfield?: number;
  hfieldSize?: Float64Array; hfieldNrow?: Int32Array; hfieldNcol?: Int32Array; hfieldAdr?: Int32Array;
  hfieldData?: Float64Array;
  hfieldName?: string[];

  /**
   * Explicit contact pairs, <contact><pair> (issue 13), as MuJoCo's pair_* fields: geom1 on the body with the
   * lower id, signature (body1 << 16) + body2, sorted by signature; dim, friction (5), solref, solreffriction,
   * solimp, margin and gap as the pair's contacts get them. Absent in a model without pairs.
   */
  npair?: number;
  pairGeom1?: Int32Array; pairGeom2?: Int32Array; pairSignature?: Int32Array; pairDim?: Int32Array;
  pairFriction?: Float64Array; pairSolref?: Float64Array; pairSolreffriction?: Float64Array; pairSolimp?: Float64Array;
  pairMargin?: Float64Array; pairGap?: Float64Array;
  pairName?: string[];

  /**
   * Sensors (<sensor>), as MuJoCo's sensor_* fields (types in sim-core's SensorType numbering, objects in
   * mjtObj's): sensordata holds sensor i's sensorDim[i] values from sensorAdr[i]. Absent in a model without
   * sensors.
   */
  nsensor?: number;
  nsensordata?: number;
  sensorType?: Int32Array; sensorObjtype?: Int32Array; sensorObjid?: Int32Array;
  sensorReftype?: Int32Array; sensorRefid?: Int32Array; sensorDim?: Int32Array; sensorAdr?: Int32Array;
  sensorCutoff?: Float64Array; sensorNoise?: Float64Array;
  sensorName?: string[];
}
