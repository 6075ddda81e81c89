import { afterEach, describe, expect, it } from 'vitest';
import { buildScenario, type Scenario } from '../src/scenarios/index.js';
import { mulberry32, noiseTargets, TIMERS_DEFAULTS } from '../src/scenarios/timers.js';
import { FRANKA_TARGET } from '../src/scenarios/franka.js';

let open: Scenario | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});

describe('timers noise (timers.py modes)', () => {
  const rand = (): (() => number) => mulberry32(7);
  it('mode 0 adds nothing', () => {
    expect(Array.from(noiseTargets(0, 3, 2, rand(), 0.3))).toEqual([0, 0, 0, 0, 0, 0]);
  });
  it('mode 1 gives every env the same vector', () => {
    const v = noiseTargets(1, 3, 2, rand(), 0.3);
    expect([v[0], v[1]]).toEqual([v[2], v[3]]);
    expect([v[0], v[1]]).toEqual([v[4], v[5]]);
    expect(v[0]).not.toBe(v[1]);
  });
  it('mode 2 gives each env its own vector, within +-0.15', () => {
    const v = noiseTargets(2, 64, 12, rand(), TIMERS_DEFAULTS.noiseScale);
    expect(new Set(v).size).toBe(v.length);
    for (const x of v) expect(Math.abs(x)).toBeLessThanOrEqual(0.15);
  });
  it('is reproducible for a seed', () => {
    expect(Array.from(noiseTargets(2, 2, 2, mulberry32(3), 0.3))).toEqual(Array.from(noiseTargets(2, 2, 2, mulberry32(3), 0.3)));
  });
});

describe('scenario builders on the CPU backend', () => {
  it('franka: the seed target on every env, dt 0.01', async () => {
    open = await buildScenario('franka', { backend: 'cpu', nEnvs: 3, performanceMode: false, showFPS: false, quiet: true });
    expect(open.nEnvs).toBe(3);
    expect(open.facts).toMatchObject({ example: 'franka', dt: 0.01, nEnvs: 3 });
    open.scene.step();
    const timers = open.scene.rigidSolver.constraintSolver.timers;
    expect(timers.shape).toEqual([10, 3]);
    expect(FRANKA_TARGET).toHaveLength(9);
  });

  it('timers: 128 envs by default, dt 0.02 with 2 substeps, 1 iteration, per-step noise', async () => {
    open = await buildScenario('timers', { backend: 'cpu', nEnvs: 4, performanceMode: false, showFPS: false, quiet: true, noiseMode: 2 });
    expect(open.defaultSteps).toBe(500);
    expect(open.facts).toMatchObject({ robot: 'anymal_c', dt: 0.02, substeps: 2, iterations: 1, selfCollision: false, noiseMode: 2 });
    expect(open.scene.rigidOptions).toMatchObject({ iterations: 1, enableSelfCollision: false });
    open.beforeStep?.(0);
    open.scene.step();
    expect(open.scene.stepCount).toBe(1);
  });

  it('rejects an unknown example by name', async () => {
    await expect(buildScenario('cartpole', { backend: 'cpu', performanceMode: false, showFPS: false })).rejects.toThrow(/--example: unknown example 'cartpole'/);
  });
});
