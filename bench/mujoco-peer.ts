/**
 * The mujoco-js side of the speed benchmarks (bench/sim.ts, bench/sim-gpu.ts): MuJoCo set up to solve what
 * sim-core solves, so the two are compared on equal terms.
 */
import type { ResolvedOptions } from '@gsprof/sim-core';

// biome-ignore lint/suspicious/noExplicitAny: mujoco-js ships no typings; its module is an untyped Emscripten object
export type Mj = any;

/** Sets MuJoCo's `opt` to exactly what sim-core resolved: step, solver, line search, tolerances, integrator, cone. */
export function matchSimCoreOptions(mj: Mj, m: Mj, o: ResolvedOptions): void {
  m.opt.timestep = o.dt / o.substeps;
  m.opt.iterations = o.iterations;
  m.opt.ls_iterations = o.lsIterations;
  m.opt.tolerance = o.tolerance;
  m.opt.ls_tolerance = o.lsTolerance;
  m.opt.impratio = o.impratio;
  m.opt.integrator = o.integrator === 'euler' ? mj.mjtIntegrator.mjINT_EULER.value : mj.mjtIntegrator.mjINT_IMPLICITFAST.value;
  m.opt.solver = o.constraintSolver === 'newton' ? mj.mjtSolver.mjSOL_NEWTON.value : mj.mjtSolver.mjSOL_CG.value;
  m.opt.cone = o.cone === 'elliptic' ? mj.mjtCone.mjCONE_ELLIPTIC.value : mj.mjtCone.mjCONE_PYRAMIDAL.value;
}

/** One MjData per env, each holding `ctrl` (MuJoCo steps them round-robin on one thread). */
export function makeEnvs(mj: Mj, m: Mj, nEnvs: number, ctrl: readonly number[]): Mj[] {
  const datas: Mj[] = [];
  for (let e = 0; e < nEnvs; e++) {
    const d = new mj.MjData(m);
    const c = d.ctrl;
    for (let u = 0; u < ctrl.length; u++) c[u] = ctrl[u];
    datas.push(d);
  }
  return datas;
}
