/** Which actuators the implicit integrators' velocity derivative (qDeriv) takes a term from. */
import { BiasType, GainType, type Model } from './model.js';

/** An actuator whose force depends on its velocity: an affine bias with biasprm[2], or an affine gain with gainprm[2]. */
export function isVelocityDependent(m: Model, u: number): boolean {
  return (m.actuatorBiastype[u] === BiasType.Affine && m.actuatorBiasprm[10 * u + 2] !== 0)
    || (m.actuatorGaintype[u] === GainType.Affine && m.actuatorGainprm[10 * u + 2] !== 0);
}
