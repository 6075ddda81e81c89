/**
 * How Model and Data live on the GPU: every real field of Data in one f32 storage buffer and every integer
 * field in one i32 buffer, each field a block of K*nEnvs elements with the env index innermost (the same
 * SoA layout as the CPU's Data). Model arrays are packed the same way without the env dimension.
 * Kernels address a field through its base constant: element k of env e of field F is `df[(D_F + k) * N + e]`.
 */
import type { Model } from '../model/model.js';
import { hasSpatialTendons } from '../physics/tendon.js';

export interface FieldSpec {
  /** Data field name (as in data.ts). */
  name: string;
  /** Elements per env. */
  size: number;
  kind: 'f32' | 'i32';
}

export interface Capacities {
  maxContacts: number;
  maxEfc: number;
}

/** Data fields the GPU pipeline keeps, in buffer order. */
export function dataFields(m: Model, cap: Capacities): FieldSpec[] {
  const { nq, nv, nu, nbody, njnt, ngeom, nsite } = m;
  const C = cap.maxContacts;
  const E = cap.maxEfc;
  const spatial = hasSpatialTendons(m);
  const r = (name: string, size: number): FieldSpec => ({ name, size, kind: 'f32' });
  const i = (name: string, size: number): FieldSpec => ({ name, size, kind: 'i32' });
  return [
    r('time', 1), r('qpos', nq), r('qvel', nv), r('qacc', nv), r('qaccWarmstart', nv), r('ctrl', nu), r('qfrcApplied', nv),
    i('dofCtrlMode', nv), r('dofCtrlPos', nv), r('dofCtrlVel', nv), r('dofCtrlForce', nv), r('dofKp', nv), r('dofKv', nv),
    r('dofForceRange', 2 * nv),
    r('xpos', 3 * nbody), r('xquat', 4 * nbody), r('xmat', 9 * nbody), r('xipos', 3 * nbody), r('ximat', 9 * nbody),
    r('xanchor', 3 * njnt), r('xaxis', 3 * njnt), r('geomXpos', 3 * ngeom), r('geomXmat', 9 * ngeom),
    r('siteXpos', 3 * nsite), r('siteXmat', 9 * nsite), r('subtreeCom', 3 * nbody), r('cdof', 6 * nv),
    r('cinert', 10 * nbody), r('crb', 10 * nbody), r('qM', nv * nv), r('qLD', nv * nv), r('qLDiagInv', nv),
    r('cvel', 6 * nbody), r('cdofDot', 6 * nv), r('cacc', 6 * nbody), r('cfrcBody', 6 * nbody), r('actuatorLength', nu), r('actuatorVelocity', nu), r('actuatorForce', nu),
    r('qfrcBias', nv), r('qfrcPassive', nv), r('qfrcActuator', nv), r('qfrcSmooth', nv), r('qaccSmooth', nv), r('qDeriv', nv),
    i('ncon', 1), r('contactPos', 3 * C), r('contactFrame', 9 * C), r('contactDist', C), r('contactIncludemargin', C),
    r('contactFriction', 5 * C), r('contactSolref', 2 * C), r('contactSolimp', 5 * C), i('contactGeom', 2 * C),
    i('contactDim', C),
    i('nefc', 1), i('efcType', E), i('efcId', E), r('efcJ', E * nv), r('efcPos', E), r('efcMargin', E), r('efcD', E),
    r('efcR', E), r('efcAref', E), r('efcFrictionloss', E), r('efcForce', E), i('efcState', E), r('qfrcConstraint', nv),
    i('timerIterations', 1), i('timerActive', 1), i('timerContacts', 1), i('timerLsIterations', 1), i('errFlags', 1),
    // The solve's last improvement and whether it stopped unconverged (timer slots 6, 7), and whether the step
    // counters' reduction (gpu/step-stats.ts) has reported this env's NaN already (cleared by reset and clearErrors).
    r('timerImprovement', 1), i('timerNotConverged', 1), i('errSeen', 1),
    // Solver scratch per env (Newton): Hessian factor, gradient, search direction, Ma, Jaref, Jv.
    r('solH', nv * nv), r('solGrad', nv), r('solMgrad', nv), r('solSearch', nv), r('solMa', nv), r('solMv', nv),
    r('solJaref', E), r('solJv', E), r('solQfrc', nv),
    // Appended by the constraint kernels (issue 3): make_constraint's point Jacobian difference of one contact
    // (per dof: 3 translational, 3 rotational); the CG solver's previous gradients; Newton's previous row
    // states (refactor only when the quadratic set changes); the constrained-tree marks of the warm start.
    r('conJac', 6 * nv), r('solGradOld', nv), r('solMgradOld', nv), i('solOldState', E), i('solTouched', nv),
    // Constraint islands (solve): union-find parent and label per tree, island of each dof and of each row.
    i('solIslRoot', nv), i('solIslLabel', nv), i('solDofIsland', nv), i('solRowIsland', E),
    // Spatial tendons' length and Jacobian (kernels/tendon.ts, set in com); empty without spatial tendons.
    r('tenLength', spatial ? m.ntendon : 0), r('tenJ', spatial ? m.ntendon * nv : 0),
  ];
}

export interface PackedLayout {
  fields: FieldSpec[];
  /** Field name -> its spec (looked up on every control write). */
  spec: Map<string, FieldSpec>;
  /** Field name -> base (in units of per-env elements) inside its buffer. */
  base: Map<string, number>;
  /** Per-env elements in the f32 and the i32 buffer. */
  realsPerEnv: number;
  intsPerEnv: number;
}

export function packLayout(fields: FieldSpec[]): PackedLayout {
  const base = new Map<string, number>();
  let f = 0;
  let n = 0;
  for (const spec of fields) {
    if (spec.kind === 'f32') { base.set(spec.name, f); f += spec.size; } else { base.set(spec.name, n); n += spec.size; }
  }
  // A zero-sized buffer cannot be bound.
  return { fields, spec: new Map(fields.map((x) => [x.name, x])), base, realsPerEnv: Math.max(f, 1), intsPerEnv: Math.max(n, 1) };
}

/** Bytes of GPU state per env (both buffers), for the benchmark and the buffer-limit check. */
export function bytesPerEnv(layout: PackedLayout): number {
  return 4 * (layout.realsPerEnv + layout.intsPerEnv);
}

/**
 * The largest nEnvs whose biggest buffer fits the device's binding and buffer limits.
 */
export function maxEnvsFor(layout: PackedLayout, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): number {
  const cap = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  const perEnv = 4 * Math.max(layout.realsPerEnv, layout.intsPerEnv);
  return Math.floor(cap / perEnv);
}

export const MODEL_REAL_FIELDS = [
  'bodyPos', 'bodyQuat', 'bodyIpos', 'bodyIquat', 'bodyMass', 'bodySubtreemass', 'bodyInertia', 'bodyInvweight0',
  'jntSolref', 'jntSolimp', 'jntPos', 'jntAxis', 'jntStiffness', 'jntRange', 'jntMargin',
  'dofArmature', 'dofDamping', 'dofFrictionloss', 'dofSolref', 'dofSolimp', 'dofInvweight0',
  'geomSolmix', 'geomSolref', 'geomSolimp', 'geomSize', 'geomRbound', 'geomPos', 'geomQuat', 'geomFriction',
  'geomMargin', 'geomGap', 'sitePos', 'siteQuat',
  'actuatorCtrlrange', 'actuatorForcerange', 'actuatorGear', 'actuatorGainprm', 'actuatorBiasprm',
  'eqSolref', 'eqSolimp', 'eqData', 'qpos0', 'qposSpring', 'jntActfrcrange',
  'tendonRange', 'tendonMargin', 'tendonStiffness', 'tendonDamping', 'tendonFrictionloss', 'tendonLengthspring',
  'tendonSolrefLim', 'tendonSolimpLim', 'tendonSolrefFri', 'tendonSolimpFri', 'tendonInvweight0', 'wrapPrm',
  'pairFriction', 'pairSolref', 'pairSolimp', 'pairMargin', 'pairGap', 'meshVert',
] as const;

export const MODEL_INT_FIELDS = [
  'wrapType', // spatial tendons: a path's sites, pulleys and wrapped geoms
  'bodyParentid', 'bodyRootid', 'bodyWeldid', 'bodyJntnum', 'bodyJntadr', 'bodyDofnum', 'bodyDofadr',
  'bodyGeomnum', 'bodyGeomadr', 'jntType', 'jntQposadr', 'jntDofadr', 'jntBodyid', 'jntLimited',
  'dofBodyid', 'dofJntid', 'dofParentid', 'geomType', 'geomContype', 'geomConaffinity', 'geomCondim',
  'geomBodyid', 'geomPriority', 'siteBodyid', 'actuatorTrntype', 'actuatorDyntype', 'actuatorGaintype',
  'actuatorBiastype', 'actuatorTrnid', 'actuatorCtrllimited', 'actuatorForcelimited',
  'eqType', 'eqObj1id', 'eqObj2id', 'eqActive0', 'excludeSignature', 'jntActfrclimited',
  'tendonAdr', 'tendonNum', 'tendonLimited', 'wrapObjid', 'pairGeom1', 'pairGeom2', 'pairSignature', 'pairDim',
  'geomDataid', 'meshVertadr', 'meshVertnum', 'meshGraphadr', 'meshGraph',
] as const;

export interface PackedModel {
  reals: Float32Array;
  ints: Int32Array;
  base: Map<string, number>;
}

/** Packs the model arrays the kernels read into one f32 and one i32 array. */
export function packModel(m: Model): PackedModel {
  const base = new Map<string, number>();
  // jntActfrclimited / jntActfrcrange are optional in Model: absent means no joint is limited; so are the
  // explicit pairs' fields: absent means none; and the mesh fields (vertices, hull graphs): absent without meshes
  const none = new Float64Array(0);
  const rec = {
    jntActfrclimited: new Uint8Array(m.njnt), jntActfrcrange: new Float64Array(2 * m.njnt),
    pairFriction: none, pairSolref: none, pairSolimp: none, pairMargin: none, pairGap: none,
    pairGeom1: none, pairGeom2: none, pairSignature: none, pairDim: none,
    meshVert: none, geomDataid: none, meshVertadr: none, meshVertnum: none, meshGraphadr: none, meshGraph: none,
    ...(m as unknown as Record<string, ArrayLike<number>>),
  } as Record<string, ArrayLike<number>>;
  let nr = 0;
  for (const f of MODEL_REAL_FIELDS) { base.set(f, nr); nr += rec[f]!.length; }
  let ni = 0;
  for (const f of MODEL_INT_FIELDS) { base.set(f, ni); ni += rec[f]!.length; }
  const reals = new Float32Array(Math.max(nr, 1));
  const ints = new Int32Array(Math.max(ni, 1));
  for (const f of MODEL_REAL_FIELDS) reals.set(Array.from(rec[f]!), base.get(f)!);
  for (const f of MODEL_INT_FIELDS) ints.set(Array.from(rec[f]!), base.get(f)!);
  return { reals, ints, base };
}
