/**
 * examples/speed_benchmark/timers.py with our ANYmal in place of the Go2: 128 envs, 500 steps, dt 0.02 with 2
 * substeps, no self-collision. As timers.py, the standing pose is set first (set_qpos) and each step's position
 * targets are that pose + 0.3 x noise in [0, 1): mode 0 none, mode 1 one vector shared by every env, mode 2 a
 * different vector per env. The PD gains are the defaults (timers.py sets none), the joints get Genesis' default
 * rotor inertia (0.1), and the solver runs 10 iterations, not timers.py's 1.
 *
 * Why (measured on 16 envs x 500 steps, CPU backend): the former setup dropped the robot from 0.8 m with straight
 * legs, kp 1000 and no rotor inertia. Without armature a kp-1000 PD on a light shank is unstable at a 0.01 s
 * substep even with a converged solver (the robot hops, contacts flicker 0-4); and with 1-3 solver iterations
 * the unconverged contact solve adds energy at every foot impact (a noiseless standing robot climbs metres),
 * so envs diverged and were reset. MuJoCo 3.3.8 diverges the same way on the ANYmal MJCF with implicitfast,
 * dt 0.01 and 1 iteration (docs/profiling.md). With the pose, the armature and 10 iterations no env is reset
 * and ~4 feet stay on the ground.
 */
import { traceStats } from '@gsprof/profiler';
import { initSim } from './sim.js';
import { legDofs, ANYMAL_FILE } from './anymal.js';
import { disposer, type Scenario, type ScenarioOptions } from './types.js';

export const TIMERS_DEFAULTS = { nEnvs: 128, steps: 500, dt: 0.02, substeps: 2, iterations: 10, lsIterations: 10, noiseScale: 0.3, armature: 0.1 } as const;

/** ANYmal C standing: hips 0, thighs +-0.4, knees -+0.8 (front legs bent one way, hind legs the other), in
 * ANYMAL_LEG_JOINTS order; base height where the feet just touch the plane in that pose. */
export const ANYMAL_STANDING_POSE = [0, 0.4, -0.8, 0, 0.4, -0.8, 0, -0.4, 0.8, 0, -0.4, 0.8] as const;
export const ANYMAL_STANDING_HEIGHT = 0.56;

/** The profiler's seeded generator, so mode 1 and 2 runs are reproducible for a given seed. */
export const { mulberry32 } = traceStats;

/** Fills the per-env targets for one step: rows = nEnvs, cols = dofs; base[d] + scale x noise in [0, 1) (as
 * timers.py's torch.rand, not centred). */
export function noiseTargets(mode: 0 | 1 | 2, nEnvs: number, nDofs: number, rand: () => number, scale: number, out = new Float64Array(nEnvs * nDofs), base: readonly number[] = []): Float64Array {
  const at = (d: number): number => base[d] ?? 0;
  if (mode === 0) {
    for (let e = 0; e < nEnvs; e++) for (let d = 0; d < nDofs; d++) out[e * nDofs + d] = at(d);
    return out;
  }
  if (mode === 1) {
    for (let d = 0; d < nDofs; d++) {
      const v = at(d) + rand() * scale;
      for (let e = 0; e < nEnvs; e++) out[e * nDofs + d] = v;
    }
    return out;
  }
  for (let e = 0; e < nEnvs; e++) for (let d = 0; d < nDofs; d++) out[e * nDofs + d] = at(d) + rand() * scale;
  return out;
}

export async function buildTimers(options: ScenarioOptions): Promise<Scenario> {
  const gs = await initSim(options);
  const dt = options.dt ?? TIMERS_DEFAULTS.dt;
  const scene = new gs.Scene({
    simOptions: { dt, substeps: TIMERS_DEFAULTS.substeps },
    // No reset on error unless asked (--reset-on-error): an env that blows up fails the run instead of feeding
    // diverged timings to the plots.
    rigidOptions: {
      dt, iterations: TIMERS_DEFAULTS.iterations, lsIterations: TIMERS_DEFAULTS.lsIterations, enableSelfCollision: false,
      resetOnError: options.resetOnError ?? false,
    },
    profilingOptions: { showFPS: options.showFPS },
  });
  scene.addEntity(gs.morphs.Plane());
  const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL_FILE, pos: [0, 0, ANYMAL_STANDING_HEIGHT], defaultArmature: TIMERS_DEFAULTS.armature }));
  const nEnvs = options.nEnvs ?? TIMERS_DEFAULTS.nEnvs;
  await scene.build({ nEnvs, envSpacing: [1, 1] });
  const dofs = legDofs(robot);
  // timers.py: set_qpos(standing pose) before the first step, then the pose as the first targets.
  robot.setDofsPosition(Float64Array.from(ANYMAL_STANDING_POSE), { dofsIdx: dofs });
  robot.controlDofsPosition(Float64Array.from(ANYMAL_STANDING_POSE), { dofsIdx: dofs });
  const mode = options.noiseMode ?? 2;
  const rand = mulberry32(options.seed ?? 0);
  const rows = Math.max(1, nEnvs);
  const buffer = new Float64Array(rows * dofs.length);
  const beforeStep = (): void => {
    noiseTargets(mode, rows, dofs.length, rand, TIMERS_DEFAULTS.noiseScale, buffer, ANYMAL_STANDING_POSE);
    robot.controlDofsPosition(nEnvs === 0 ? buffer : new gs.Tensor(buffer, [nEnvs, dofs.length]), { dofsIdx: dofs });
  };
  return {
    name: 'timers', gs, scene, nEnvs, defaultSteps: TIMERS_DEFAULTS.steps, beforeStep, dispose: disposer(gs, scene),
    facts: { example: 'timers', robot: 'anymal_c', dt, substeps: TIMERS_DEFAULTS.substeps, iterations: TIMERS_DEFAULTS.iterations, lsIterations: TIMERS_DEFAULTS.lsIterations, armature: TIMERS_DEFAULTS.armature, standingPose: true, selfCollision: false, noiseMode: mode, nEnvs },
  };
}
