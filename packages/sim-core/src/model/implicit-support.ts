/**
 * What the implicit integrators (implicit, implicitfast) would take into their velocity derivative qDeriv and
 * sim-core does not compute, refused at build: tendon damping (-damping J' J). The loader refuses them with file and line when the model file chooses the
 * integrator; this catches a scene whose options choose it (fluid forces: refuseFluidUnderImplicitFast).
 */
import { BiasType, GainType, Integrator, type Model } from './model.js';

export function refuseUncomputedVelocityDerivatives(m: Model): void {
  const integrator = m.opt.integrator === Integrator.Implicit ? 'implicit' : m.opt.integrator === Integrator.ImplicitFast ? 'implicitfast' : null;
  if (integrator === null) return;
  for (let t = 0; t < m.ntendon; t++) {
    if (m.tendonDamping[t] !== 0) {
      throw new Error(`tendon damping under the ${integrator} integrator is not supported: tendon '${m.tendonName[t] || t}' has damping ${m.tendonDamping[t]}; use integrator euler, or joint damping`);
    }
  }
}

/** An actuator whose force depends on its velocity: an affine bias with biasprm[2], or an affine gain with gainprm[2]. */
export function isVelocityDependent(m: Model, u: number): boolean {
  return (m.actuatorBiastype[u] === BiasType.Affine && m.actuatorBiasprm[10 * u + 2] !== 0)
    || (m.actuatorGaintype[u] === GainType.Affine && m.actuatorGainprm[10 * u + 2] !== 0);
}
