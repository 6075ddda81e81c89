import { afterEach, describe, expect, it } from 'vitest';
import { buildScenario, type Scenario } from '../src/scenarios/index.js';
import { mulberry32, noiseTargets, TIMERS_DEFAULTS } from '../src/scenarios/timers.js';
import { FRANKA_TARGET } from '../src/scenarios/franka.js';
import { buildSceneFile, type ControlChoice, parseControl } from '../src/scenarios/scene-file.js';

let open: Scenario | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});

describe('timers noise (timers.py modes)', () => {
  const rand = (): (() => number) => mulberry32(7);
  it('mode 0 adds nothing to the pose', () => {
    expect(Array.from(noiseTargets(0, 3, 2, rand(), 0.3))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Array.from(noiseTargets(0, 2, 2, rand(), 0.3, undefined, [0.4, -0.8]))).toEqual([0.4, -0.8, 0.4, -0.8]);
  });
  it('mode 1 gives every env the same vector', () => {
    const v = noiseTargets(1, 3, 2, rand(), 0.3);
    expect([v[0], v[1]]).toEqual([v[2], v[3]]);
    expect([v[0], v[1]]).toEqual([v[4], v[5]]);
    expect(v[0]).not.toBe(v[1]);
  });
  it('mode 2 gives each env its own vector: pose + 0.3 x [0, 1), as torch.rand in timers.py', () => {
    const pose = Array.from({ length: 12 }, (_, d) => d / 10);
    const v = noiseTargets(2, 64, 12, rand(), TIMERS_DEFAULTS.noiseScale, undefined, pose);
    expect(new Set(v).size).toBe(v.length);
    for (let i = 0; i < v.length; i++) {
      const noise = v[i]! - pose[i % 12]!;
      expect(noise >= 0 && noise < 0.3 + 1e-12).toBe(true);
    }
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

  it('timers: 128 envs by default, dt 0.02 with 2 substeps, standing pose, per-step noise', async () => {
    open = await buildScenario('timers', { backend: 'cpu', nEnvs: 4, performanceMode: false, showFPS: false, quiet: true, noiseMode: 2 });
    expect(open.defaultSteps).toBe(500);
    expect(open.facts).toMatchObject({ robot: 'anymal_c', dt: 0.02, substeps: 2, iterations: 10, standingPose: true, selfCollision: false, noiseMode: 2 });
    expect(open.scene.rigidOptions).toMatchObject({ iterations: 10, enableSelfCollision: false, resetOnError: false });
    open.beforeStep?.(0);
    open.scene.step();
    expect(open.scene.stepCount).toBe(1);
  });

  // The former scenario (dropped from 0.8 m, straight legs, kp 1000, 1 iteration) reset 389 of 128 x 500 envs
  // and averaged 0.28 contacts per env. resetOnError is off: a blow-up throws and fails this test.
  it.each([1, 2] as const)('timers mode %i: 500 steps with no env blowing up, ~4 feet on the ground', async (noiseMode) => {
    const nEnvs = 16;
    open = await buildScenario('timers', { backend: 'cpu', nEnvs, performanceMode: false, showFPS: false, quiet: true, noiseMode });
    const labels = open.gs.TIMER_LABELS as readonly string[];
    const contactsSlot = labels.indexOf('contacts');
    expect(contactsSlot).toBeGreaterThanOrEqual(0);
    let contacts = 0;
    let samples = 0;
    for (let i = 0; i < 500; i++) {
      open.beforeStep?.(i);
      open.scene.step();
      if (i < 50) continue; // past the first second: the robot has settled on its feet
      const t = open.scene.rigidSolver.constraintSolver.timers.data;
      for (let e = 0; e < nEnvs; e++) { contacts += t[contactsSlot * nEnvs + e]!; samples++; }
    }
    const perEnv = contacts / samples;
    // Measured 3.97 (mode 2, 128 envs); a quadruped standing has 4 feet down, 3.5 leaves room for lifted feet.
    expect(perEnv >= 3.5 && perEnv <= 4).toBe(true);
    const q = await open.scene.entities[1]!.getQpos();
    for (let e = 0; e < nEnvs; e++) expect(Number.isFinite(q.data[e * q.shape[1]! + 2])).toBe(true);
  }, 60_000);

  it('rejects an unknown example by name', async () => {
    await expect(buildScenario('cartpole', { backend: 'cpu', performanceMode: false, showFPS: false })).rejects.toThrow(/--example: unknown example 'cartpole'/);
  });
});

describe('record --scene: a model file with a control around its initial pose', () => {
  const MJCF = new URL('../../sim-core/assets/xml/franka_emika_panda/scene.xml', import.meta.url).pathname;
  const URDF = new URL('../../sim-core/assets/urdf/anymal_c/urdf/anymal_c.urdf', import.meta.url).pathname;
  const base = { backend: 'cpu' as const, nEnvs: 4, performanceMode: false, showFPS: false, quiet: true };

  /** What the scene's joints were told before the first step: per env, the position targets (or forces). */
  async function commands(file: string, control: ControlChoice, seed = 0): Promise<{ home: number[]; targets: number[][]; forces: number[][]; dofs: number[] }> {
    const s = await buildSceneFile(file, control, { ...base, seed });
    try {
      const entity = s.scene.entities[s.scene.entities.length - 1]!;
      const dofs = entity.joints.filter((j) => j.type === 'hinge' || j.type === 'slide').map((j) => j.dofsIdx[0]!);
      const d = s.scene.requireSim().hostData!;
      const n = s.nEnvs;
      const home = dofs.map((g) => d.qpos[(s.scene.compiledModel.jntQposadr[s.scene.compiledModel.dofJntid[g]!]!) * n]!);
      const per = (field: 'dofCtrlPos' | 'dofCtrlForce'): number[][] => Array.from({ length: n }, (_, e) => dofs.map((g) => d[field][g * n + e]!));
      return { home, targets: per('dofCtrlPos'), forces: per('dofCtrlForce'), dofs };
    } finally {
      await s.dispose();
    }
  }

  it('an MJCF brings its own world and options, and hold targets every joint at its initial position', async () => {
    const s = await buildSceneFile(MJCF, { kind: 'hold' }, base);
    open = s;
    expect(s.nEnvs).toBe(4);
    expect(s.facts).toMatchObject({ scene: 'scene.xml', control: 'hold', controlledDofs: 9 });
    expect(s.scene.options?.dt).toBe(0.005); // the file's <option timestep>, not a default
    // what the file leaves out is MuJoCo's default, not Genesis' (tolerance 1e-6)
    expect(s.scene.options).toMatchObject({ iterations: 5, tolerance: 1e-8, integrator: 'implicitfast' });
    await s.dispose();
    // --dt replaces the timestep only: the rest still comes from the file
    const withDt = await buildSceneFile(MJCF, { kind: 'hold' }, { ...base, dt: 0.01 });
    expect(withDt.scene.options).toMatchObject({ dt: 0.01, iterations: 5, tolerance: 1e-8 });
    await withDt.dispose();
    open = null;
    const c = await commands(MJCF, { kind: 'hold' });
    expect(c.dofs).toHaveLength(9);
    for (const row of c.targets) expect(row).toEqual(c.home);
  });

  it('zero drives no joint: zero force on each', async () => {
    const c = await commands(MJCF, { kind: 'zero' });
    for (const row of c.forces) expect(row).toEqual(c.dofs.map(() => 0));
  });

  it('a URDF gets a ground plane; random targets stay within the amplitude, per env, reproducible for a seed', async () => {
    const s = await buildSceneFile(URDF, { kind: 'random', amplitude: 0.2 }, { ...base, seed: 1 });
    open = s;
    expect(s.scene.entities).toHaveLength(2); // the plane, then the robot
    await s.dispose();
    open = null;
    const a = await commands(URDF, { kind: 'random', amplitude: 0.2 }, 1);
    const b = await commands(URDF, { kind: 'random', amplitude: 0.2 }, 1);
    const c = await commands(URDF, { kind: 'random', amplitude: 0.2 }, 2);
    expect(a.dofs).toHaveLength(12); // the legs; the floating base is never driven
    expect(b.targets).toEqual(a.targets);
    expect(c.targets).not.toEqual(a.targets);
    expect(a.targets[0]).not.toEqual(a.targets[1]);
    for (const row of a.targets) {
      row.forEach((t, k) => {
        const off = Math.abs(t - a.home[k]!);
        expect(off).toBeLessThanOrEqual(0.2);
        expect(Number.isFinite(off)).toBe(true);
      });
    }
  });

  it('controls parse, and bad ones are refused in one line', () => {
    expect(parseControl('hold')).toEqual({ kind: 'hold' });
    expect(parseControl('random')).toEqual({ kind: 'random', amplitude: 0.1 });
    expect(parseControl('random:0.3')).toEqual({ kind: 'random', amplitude: 0.3 });
    expect(() => parseControl('random:-1')).toThrow(/amplitude must be a number >= 0/);
    expect(() => parseControl('wiggle')).toThrow(/'wiggle' is not a control \(expected hold, zero or random\[:AMPLITUDE\]\)/);
  });

  it('a missing or non-model file is refused before the simulator starts', async () => {
    await expect(buildSceneFile('no-such.xml', { kind: 'hold' }, base)).rejects.toThrow(/no-such\.xml: no such file/);
    await expect(buildSceneFile(new URL(import.meta.url).pathname, { kind: 'hold' }, base)).rejects.toThrow(/not a model file/);
  });
});
