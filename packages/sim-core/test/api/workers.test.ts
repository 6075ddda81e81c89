/** CPU worker threads: the env split gives bit-identical results to one thread; worker failures surface. */
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { EnvWorkerPool } from '../../src/cpu/workers/pool.js';
import { shareData } from '../../src/cpu/workers/shared-data.js';
import type { Data } from '../../src/data/data.js';
import type { Model } from '../../src/model/model.js';

const N = 200; // 4 chunks of 64 envs (the last one partial)

afterEach(async () => {
  gs.setTracer(null);
  if (gs.isInitialized()) await gs.destroy();
});

async function run(cpuThreads: number, traced: boolean): Promise<{ qpos: Float64Array; qvel: Float64Array; counts: Float64Array; description: string }> {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning', cpuThreads });
  const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.Plane());
  const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
  await scene.build({ nEnvs: N });
  // a different target per env, some pushing into the joint limits
  const targets = gs.tensor(Float64Array.from({ length: N * 9 }, (_, k) => Math.sin(k * 0.37) * 2.5), { shape: [N, 9] });
  franka.controlDofsPosition(targets);
  franka.controlDofsVelocity([0.5, -0.5], { dofsIdx: [4, 6], envsIdx: Array.from({ length: 50 }, (_, i) => 3 * i) });
  for (let i = 0; i < 30; i++) scene.step();
  if (traced) gs.setTracer({ begin: () => {}, end: () => {} });
  for (let i = 0; i < 30; i++) scene.step();
  const d = scene.requireSim().hostData!;
  const timers = scene.rigidSolver.constraintSolver.timers.data;
  const counts = timers.slice(N); // slots 1.. (slot 0 is wall time)
  const out = { qpos: Float64Array.from(d.qpos), qvel: Float64Array.from(d.qvel), counts: Float64Array.from(counts), description: scene.requireSim().description };
  await scene.destroy();
  await gs.destroy();
  return out;
}

describe('worker threads', () => {
  test('two threads (with and without a tracer) match one thread exactly', async () => {
    const one = await run(1, false);
    const two = await run(2, false);
    const twoTraced = await run(2, true);
    expect(one.description).toBe('cpu, 1 thread');
    expect(two.description).toBe('cpu, 2 threads');
    expect(two.qpos).toEqual(one.qpos);
    expect(two.qvel).toEqual(one.qvel);
    expect(two.counts).toEqual(one.counts);
    expect(twoTraced.qpos).toEqual(one.qpos);
    expect(twoTraced.qvel).toEqual(one.qvel);
    expect(one.qpos.every(Number.isFinite)).toBe(true);
  });

  test("with a tracer that takes other threads' spans, each worker's stages are spans on its own thread, inside the step", async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning', cpuThreads: 2 });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
    await scene.build({ nEnvs: 256 });
    const spans: Array<{ thread: string; tid: number; name: string; category: string; start: number; end: number; nEnvs: unknown }> = [];
    gs.setTracer({
      begin: () => {}, end: () => {},
      threadSpan: (thread, name, category, start, end, args) => { spans.push({ thread: thread.name, tid: thread.tid, name, category, start, end, nEnvs: args?.nEnvs }); },
    });
    const steps: Array<[number, number]> = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      scene.step();
      steps.push([t0, performance.now()]);
    }
    gs.setTracer(null);
    await scene.destroy();
    // 256 envs in 4 chunks of 64: the main thread keeps 2, the worker steps the others, or some of them
    expect(spans.length).toBeGreaterThan(0);
    expect(new Set(spans.map((s) => s.thread))).toEqual(new Set(['env worker 1']));
    expect(spans.every((s) => s.category === 'cpu_op' && s.tid > 0)).toBe(true);
    const stages = ['kinematics', 'com', 'crb', 'factor_m', 'collision', 'make_constraint', 'passive', 'rne', 'actuation', 'smooth_acc', 'solve', 'integrate'];
    expect(spans.slice(0, 12).map((s) => s.name)).toEqual(stages);
    expect(spans.every((s) => s.nEnvs === 64)).toBe(true);
    // On the main thread's clock: every span lies inside one of the steps, and in order within its thread.
    for (const s of spans) {
      expect(s.end).toBeGreaterThanOrEqual(s.start);
      expect(steps.some(([a, b]) => s.start >= a && s.end <= b), `${s.name} [${s.start}, ${s.end}] outside every step`).toBe(true);
    }
    for (let k = 1; k < spans.length; k++) expect(spans[k]!.start).toBeGreaterThanOrEqual(spans[k - 1]!.end);
  });

  test('a failing worker step surfaces as an error on the main thread', async () => {
    const nEnvs = 256;
    const d = { nEnvs, batched: true, precision: '64', qpos: new Float64Array(2 * nEnvs), time: new Float64Array(nEnvs) };
    const { data, layout } = shareData(d as unknown as Data);
    const pool = await EnvWorkerPool.start({
      model: { nq: 2 } as Model, data: layout, workers: 1,
      stepModule: new URL('./fixtures/count-step.ts', import.meta.url).href, stepExport: 'countStep',
    });
    try {
      // the worker alone steps every chunk (the main thread claims none)
      for (let i = 0; i < 3; i++) { pool.run(1, nEnvs, 64); pool.wait(); }
      expect(data.qpos[1 * nEnvs + 200]).toBe(6);
      expect(data.time[255]).toBe(3);
      pool.run(997, nEnvs, 64);
      expect(() => pool.wait()).toThrow(/CPU worker step failed: env 13 refuses step 1000/);
    } finally {
      await pool.close();
    }
  });
});
