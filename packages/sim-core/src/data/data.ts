/**
 * Batched simulation state: MuJoCo's `mjData` for nEnvs environments at once.
 *
 * Contract shared by every stage, the CPU and GPU backends and the public API.
 * Layout is structure-of-arrays with the env index innermost: element k of env e of a field whose per-env
 * size is K lives at `field[k * nEnvs + e]`. (A matrix per env, e.g. qM of nv x nv, has k = i * nv + j.)
 * Field names and meanings follow mjData in camelCase (`qfrc_bias` -> `qfrcBias`, `xmat` -> `xmat`).
 * `precision` decides Float32Array or Float64Array for every real field; the model is always f64.
 * nEnvs = 0 (no batch dimension, as in Genesis) is stored as one env; the public API hides the dimension.
 */

export type Real = Float32Array | Float64Array;
export type Precision = '32' | '64';

/** Per-(dof, env) control mode set by controlDofsPosition/Velocity/Force (Genesis semantics). */
export const enum DofCtrlMode {
  /** Only MuJoCo actuators act on this dof (through `ctrl`). The default at build and after reset. */
  None = 0,
  /** kp*(target - q) - kv*(qdot - targetVel), clamped to the dof's force range. */
  Position = 1,
  /** kv*(targetVel - qdot), clamped to the dof's force range. */
  Velocity = 2,
  /** The given force, clamped to the dof's force range. */
  Force = 3,
}

export const TIMER_SLOTS = 10;

export interface Data {
  readonly nEnvs: number;        // >= 1 (1 when the scene is unbatched)
  readonly batched: boolean;     // false when built with nEnvs = 0
  readonly precision: Precision;

  time: Float64Array;            // per env

  // state and inputs
  qpos: Real; qvel: Real; qacc: Real; qaccWarmstart: Real; ctrl: Real; qfrcApplied: Real;

  // Genesis-style dof controller (actuation stage). A dof in a mode other than None ignores the MuJoCo
  // actuator that drives it, so one dof never gets two controllers. At build, dofKp/dofKv/dofForceRange are
  // initialised from a position-like actuator on that dof (gain kp, bias [0, -kp, -kv], forcerange) or a
  // velocity-like one (gain kv, bias [0, 0, -kv]: kv only); dofs
  // without an actuator get kp = kv = 0 for MJCF and Genesis' URDF defaults kp 100, kv 10 for URDF.
  dofCtrlMode: Uint8Array;       // nv
  dofCtrlPos: Real; dofCtrlVel: Real; dofCtrlForce: Real;  // nv
  dofKp: Real; dofKv: Real;      // nv
  dofForceRange: Real;           // 2*nv: lower, upper (+-Infinity when unlimited)

  // position-dependent (kinematics, com, crb, factor_m)
  xpos: Real; xquat: Real; xmat: Real;        // nbody * 3 / 4 / 9
  xipos: Real; ximat: Real;                   // nbody * 3 / 9
  xanchor: Real; xaxis: Real;                 // njnt * 3
  geomXpos: Real; geomXmat: Real;             // ngeom * 3 / 9
  siteXpos: Real; siteXmat: Real;             // nsite * 3 / 9
  subtreeCom: Real;                           // nbody * 3
  cdof: Real;                                 // nv * 6
  cinert: Real;                               // nbody * 10
  crb: Real;                                  // nbody * 10
  qM: Real;                                   // nv * nv, dense symmetric (MuJoCo's qM expanded)
  qLD: Real;                                  // nv * nv, L'DL factor: strict lower part holds L, diagonal holds D
  qLDiagInv: Real;                            // nv

  // velocity-dependent and forces (passive, actuation, rne, smooth_acc)
  cvel: Real; cdofDot: Real;                  // nbody * 6, nv * 6
  actuatorLength: Real; actuatorVelocity: Real; actuatorForce: Real;  // nu
  qfrcBias: Real; qfrcPassive: Real; qfrcActuator: Real; qfrcSmooth: Real; qaccSmooth: Real;  // nv
  /** d(qfrcActuator + qfrcPassive)/d(qvel), its diagonal, for implicit(fast) and eulerdamp. */
  qDeriv: Real;                               // nv
  /**
   * qDeriv off the diagonal, dense like qM: (i, j) for j an ancestor or a descendant of i (MuJoCo's D sparsity;
   * other entries stay 0). Only a model with a velocity-dependent actuator on a tendon, a damped tendon, or the
   * implicit integrator (whose bias-force derivative fills it, not symmetric) has it (nv * nv); else empty.
   */
  qDerivOffdiag: Real;                        // nv * nv or 0

  // constraints (collision, make_constraint, solve). Capacities are fixed at build.
  readonly maxContacts: number;               // per env
  readonly maxEfc: number;                    // constraint rows per env
  ncon: Int32Array;                           // per env
  contactPos: Real; contactFrame: Real;       // maxContacts * 3 / 9 (normal first row, as MuJoCo)
  contactDist: Real; contactIncludemargin: Real; // maxContacts
  contactFriction: Real; contactSolref: Real; contactSolimp: Real;  // maxContacts * 5 / 2 / 5
  contactGeom: Int32Array;                    // maxContacts * 2
  /** mjContact.dim: the contact's condim (mixed from its geoms, or an explicit pair's own). */
  contactDim: Int32Array;                     // maxContacts
  nefc: Int32Array;                           // per env
  efcType: Int32Array;                        // maxEfc (mjtConstraint values)
  efcId: Int32Array;                          // maxEfc
  efcJ: Real;                                 // maxEfc * nv
  efcPos: Real; efcMargin: Real; efcD: Real; efcR: Real; efcAref: Real; efcFrictionloss: Real;  // maxEfc
  efcForce: Real; efcState: Int32Array;       // maxEfc
  qfrcConstraint: Real;                       // nv

  /** MuJoCo's sensordata (stage `sensor`): nsensordata values per env, sensor i's from sensorAdr[i]. */
  sensordata: Real;                           // nsensordata

  /** scene.rigidSolver.constraintSolver.timers: TIMER_SLOTS x nEnvs, slot-major ([slot * nEnvs + e]). */
  timers: Float64Array;
  /** Genesis-errno-like flags per env: bit 0 NaN/Inf in state, bit 1 blow-up, bit 2 contact/efc overflow. */
  errFlags: Uint32Array;
}
