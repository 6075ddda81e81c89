/** Constraint row kinds and solver states, with MuJoCo's numeric values (mjtConstraint, mjtConstraintState). */

export const enum ConstraintType {
  Equality = 0,
  FrictionDof = 1,
  FrictionTendon = 2,
  LimitJoint = 3,
  LimitTendon = 4,
  ContactFrictionless = 5,
  ContactPyramidal = 6,
  ContactElliptic = 7,
}

export const enum ConstraintState {
  /** Inequality not violated: no force, no cost. */
  Satisfied = 0,
  Quadratic = 1,
  /** Friction loss saturated on the negative / positive side: constant force, linear cost. */
  LinearNeg = 2,
  LinearPos = 3,
  Cone = 4,
}

/** mjMINVAL, mjMINIMP, mjMAXIMP */
export const MINVAL = 1e-15;
export const MINIMP = 0.0001;
export const MAXIMP = 0.9999;

/** One env's constraint problem, gathered contiguously (built by makeProblem in problem.ts). */
export interface Problem {
  nv: number;
  nefc: number;
  // inputs (gathered)
  M: Float64Array;            // nv x nv
  J: Float64Array;            // nefc x nv
  /** Non-zero columns of each row: row r has rownnz[r] of them in colind[r*nv ...]. */
  rownnz: Int32Array; colind: Int32Array;
  D: Float64Array; R: Float64Array; aref: Float64Array; floss: Float64Array;
  type: Int32Array;
  /**
   * Elliptic contacts (rows of type ContactElliptic, dim of them in a row): on the first row, coneMu is the
   * contact's regularised mu (MuJoCo's mjContact.mu) and coneDim its dim; on row first+j, coneMu is its
   * friction coefficient j-1. Unread for other rows.
   */
  coneMu: Float64Array; coneDim: Int32Array;
  qfrcSmooth: Float64Array; qaccSmooth: Float64Array;
  /** 1 / (inertia of the constrained trees): scales improvement, gradient and line-search tolerances. */
  scale: number;
  // solution and state
  qacc: Float64Array;
  force: Float64Array; state: Int32Array; oldState: Int32Array;
  qfrcConstraint: Float64Array;
  cost: number;
  nactive: number;
  /** Elliptic contacts in the cone (middle) zone after the last update. */
  ncone: number;
  // work
  Jaref: Float64Array; Jv: Float64Array; quad: Float64Array;  // nefc, nefc, 3 nefc
  Ma: Float64Array; Mv: Float64Array; grad: Float64Array; Mgrad: Float64Array; search: Float64Array;
  gradOld: Float64Array; MgradOld: Float64Array;
  quadGauss: Float64Array;    // 3
  L: Float64Array;            // nv x nv: factor of the Hessian (Newton) or of M (CG)
  /** L updated with the cone blocks of the contacts in the cone zone (Newton, when ncone > 0). */
  Lcone: Float64Array;
  /** Each cone-zone contact's dim x dim Hessian block, at 6 * (its first row). */
  coneH: Float64Array;
  lsIterations: number;       // line-search evaluations of the last search
}
