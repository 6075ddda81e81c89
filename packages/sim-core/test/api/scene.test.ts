/** Scene-level behaviour: unbatched shapes, option precedence and its log, the live FPS switch, tracer spans. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { backendFactory } from '../../src/backend/backend.js';

const FRANKA = 'xml/franka_emika_panda/panda.xml';

beforeAll(async () => {
  await expect(gs.Scene.prototype.build.call(new gs.Scene(), {})).rejects.toThrow("gsprof hasn't been initialized");
  if (!backendFactory('gpu')) await expect(gs.init({ backend: 'gpu' })).rejects.toThrow(gs.GPU_NOT_BUILT);
  await gs.init({ backend: 'auto', precision: '64', loggingLevel: 'info' });
});

afterAll(async () => {
  await gs.destroy();
});

describe('gs.init', () => {
  test("'auto' runs on the CPU until a GPU backend is registered; a second init is refused", async () => {
    if (!backendFactory('gpu')) expect(gs.backend).toBe('cpu');
    expect(gs.device).not.toBeNull();
    expect(gs.precision).toBe('64');
    await expect(gs.init()).rejects.toThrow(/already initialized/);
  });
});

describe('unbatched scene (nEnvs = 0)', () => {
  test('reads have no batch dimension and envsIdx is refused', async () => {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    expect(() => franka.controlDofsPosition(new Float64Array(9))).toThrow('Scene is not built yet');
    await scene.build();
    expect(scene.nEnvs).toBe(0);
    franka.setDofsPosition([0, 0.1, 0, -1, 0, 1, 0, 0.01, 0.01]);
    const q = await franka.getDofsPosition();
    expect(q.shape).toEqual([9]);
    expect((q.toArray() as number[])[1]).toBe(0.1);
    expect((await franka.getQpos()).shape).toEqual([9]);
    expect((await franka.getDofsPosition({ dofsIdx: [3] })).toArray()).toEqual([-1]);
    expect(() => franka.controlDofsPosition(new Float64Array(9), { envsIdx: [0] }))
      .toThrow('`envs_idx` is not supported for non-parallelized scene.');
    expect(() => franka.controlDofsPosition([[1, 2, 3], [4, 5, 6]]))
      .toThrow('Invalid shape: (2, 3). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
    expect(() => scene.reset({ envsIdx: 0 })).toThrow('`envs_idx` is not supported for non-parallelized scene.');
    scene.step();
    expect(scene.rigidSolver.constraintSolver.timers.shape).toEqual([10, 1]);
    await scene.destroy();
  });
});

describe('options: user > MJCF <option> > default, and the build log says where each came from', () => {
  test('bundled scene.xml', async () => {
    const log = gs.captureLogs();
    try {
      const scene = new gs.Scene({ rigidOptions: { dt: 0.01, iterations: 20 }, profilingOptions: { showFPS: false } });
      scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/scene.xml' }));
      await scene.build({ nEnvs: 2 });
      expect(scene.options?.dt).toBe(0.01);
      expect(scene.options?.iterations).toBe(20);
      expect(scene.options?.lsIterations).toBe(8);
      expect(scene.options?.eulerdamp).toBe(false);
      expect(scene.compiledModel.opt.timestep).toBe(0.01);
      expect(scene.compiledModel.opt.lsIterations).toBe(8);
      const line = log.lines().find((l) => l.includes('Options in effect:'));
      expect(line).toMatch(/set by the user: dt=0\.01, iterations=20; Genesis defaults: .*; from scene\.xml <option>: integrator='implicitfast', eulerdamp=false, lsIterations=8\.$/);
      expect(line).not.toMatch(/iterations=5/);
      await scene.destroy();
    } finally {
      log.restore();
    }
  });
});

describe('FPS counter in a scene', () => {
  test('prints through the logger per window and can be switched off live', async () => {
    let now = 100;
    const scene = new gs.Scene({ profilingOptions: { fpsTrackerAlpha: 0.5 } }, { clock: () => now });
    scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 3 });
    const log = gs.captureLogs();
    try {
      for (let i = 0; i < 11; i++) { now += 0.01; scene.step(); } // first step starts the clock, then 2 windows of 5
      expect(log.lines().filter((l) => l.startsWith('Running at'))).toEqual([
        'Running at 300.00 FPS (100.00 FPS per env, 3 envs).',
        'Running at 300.00 FPS (100.00 FPS per env, 3 envs).',
      ]);
      scene.profilingOptions.showFPS = false;
      for (let i = 0; i < 20; i++) { now += 0.01; scene.step(); }
      expect(log.lines().filter((l) => l.startsWith('Running at'))).toHaveLength(2);
    } finally {
      log.restore();
      await scene.destroy();
    }
  });
});

describe('tracer spans', () => {
  test("'compile' spans around build phases, a 'step' span holding the stages as CPU work ('cpu_op', never 'kernel')", async () => {
    const spans: { name: string; cat: string; depth: number }[] = [];
    let depth = 0;
    gs.setTracer({ begin: (name, cat) => { spans.push({ name, cat, depth }); depth++; }, end: () => { depth--; } });
    try {
      const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
      scene.addEntity(gs.morphs.Plane());
      scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
      await scene.build({ nEnvs: 4 });
      const compile = spans.filter((s) => s.cat === 'compile').map((s) => s.name);
      expect(compile).toEqual(['parse', 'parse', 'compile model', 'setConst', 'allocate']);
      spans.length = 0;
      scene.step();
      expect(spans[0]).toEqual({ name: 'step', cat: 'step', depth: 0 });
      // The CPU backend ran no GPU work: no span may claim the GPU's 'kernel' category.
      expect(spans.filter((s) => s.cat === 'kernel')).toEqual([]);
      const kernels = spans.filter((s) => s.cat === 'cpu_op');
      expect(kernels.length).toBe(12);
      expect(kernels.every((s) => s.depth === 1)).toBe(true);
      expect(kernels.map((s) => s.name)).toContain('solve');
      expect(kernels[kernels.length - 1]!.name).toBe('integrate');
      expect(depth).toBe(0);
      await scene.destroy();

      // with worker threads the main thread's share is still stepped kernel by kernel under spans
      const threaded = new gs.Scene({ profilingOptions: { showFPS: false } });
      threaded.addEntity(gs.morphs.MJCF({ file: FRANKA }));
      await threaded.build({ nEnvs: 100, cpuThreads: 2 });
      expect(threaded.requireSim().description).toBe('cpu, 2 threads');
      spans.length = 0;
      threaded.step();
      expect(spans.filter((s) => s.cat === 'kernel')).toEqual([]);
      expect(spans.filter((s) => s.cat === 'cpu_op').map((s) => s.name)).toContain('integrate');
      // The main thread's wait for the workers is its own span, last in the step, not CPU work.
      expect(spans[spans.length - 1]).toEqual({ name: 'wait for workers', cat: 'wait', depth: 1 });
      expect(depth).toBe(0);
      await threaded.destroy();
    } finally {
      gs.setTracer(null);
    }
  });
});
