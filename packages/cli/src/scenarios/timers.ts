/**
 * examples/speed_benchmark/timers.py with our ANYmal in place of the Go2: 128 envs, 500 steps, dt 0.02 with 2
 * substeps, 1 solver iteration, no self-collision. Each step adds noise x0.3 to the position targets:
 * mode 0 none, mode 1 one uniform vector shared by every env, mode 2 a different vector per env.
 */
import { initSim } from './sim.js';
import { legDofs, ANYMAL_FILE } from './anymal.js';
import { disposer, type Scenario, type ScenarioOptions } from './types.js';

export const TIMERS_DEFAULTS = { nEnvs: 128, steps: 500, dt: 0.02, substeps: 2, iterations: 1, noiseScale: 0.3, kp: 1000 } as const;

/** A small deterministic generator, so mode 1 and 2 runs are reproducible for a given seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fills the per-env targets for one step: rows = nEnvs, cols = dofs; values in [-0.5, 0.5) x scale. */
export function noiseTargets(mode: 0 | 1 | 2, nEnvs: number, nDofs: number, rand: () => number, scale: number, out = new Float64Array(nEnvs * nDofs)): Float64Array {
  if (mode === 0) return out.fill(0);
  if (mode === 1) {
    for (let d = 0; d < nDofs; d++) {
      const v = (rand() - 0.5) * scale;
      for (let e = 0; e < nEnvs; e++) out[e * nDofs + d] = v;
    }
    return out;
  }
  for (let i = 0; i < out.length; i++) out[i] = (rand() - 0.5) * scale;
  return out;
}

export async function buildTimers(options: ScenarioOptions): Promise<Scenario> {
  const gs = await initSim(options);
  const dt = options.dt ?? TIMERS_DEFAULTS.dt;
  const scene = new gs.Scene({
    simOptions: { dt, substeps: TIMERS_DEFAULTS.substeps },
    // One solver iteration and stiff noisy targets can blow an env up; like a training loop, reset it and go on
    // (the trace keeps the per-env timers of every step either way).
    rigidOptions: { dt, iterations: TIMERS_DEFAULTS.iterations, enableSelfCollision: false, resetOnError: true },
    profilingOptions: { showFPS: options.showFPS },
  });
  scene.addEntity(gs.morphs.Plane());
  const robot = scene.addEntity(gs.morphs.URDF({ file: ANYMAL_FILE, pos: [0, 0, 0.8] }));
  const nEnvs = options.nEnvs ?? TIMERS_DEFAULTS.nEnvs;
  await scene.build({ nEnvs, envSpacing: [1, 1] });
  const dofs = legDofs(robot);
  robot.setDofsKp(new Float64Array(dofs.length).fill(TIMERS_DEFAULTS.kp), { dofsIdx: dofs });
  const mode = options.noiseMode ?? 2;
  const rand = mulberry32(options.seed ?? 0);
  const rows = Math.max(1, nEnvs);
  const buffer = new Float64Array(rows * dofs.length);
  const beforeStep = (): void => {
    noiseTargets(mode, rows, dofs.length, rand, TIMERS_DEFAULTS.noiseScale, buffer);
    robot.controlDofsPosition(nEnvs === 0 ? buffer : new gs.Tensor(buffer, [nEnvs, dofs.length]), { dofsIdx: dofs });
  };
  return {
    name: 'timers', gs, scene, nEnvs, defaultSteps: TIMERS_DEFAULTS.steps, beforeStep, dispose: disposer(gs, scene),
    facts: { example: 'timers', robot: 'anymal_c', dt, substeps: TIMERS_DEFAULTS.substeps, iterations: 1, selfCollision: false, noiseMode: mode, nEnvs },
  };
}
