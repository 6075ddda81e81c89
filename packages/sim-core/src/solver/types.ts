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
