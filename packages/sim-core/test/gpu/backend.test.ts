/** The public API on the WebGPU backend: device description, parity with the CPU backend, timers, reset, errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { QUEUE_WARNING_STEPS } from '../../src/backend/gpu.js';
import { hasGpu } from './gpu-env.js';

const FRANKA = 'xml/franka_emika_panda/panda.xml';
const B = 16;
const TARGET = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02];

/** Runs the same 60-step Franka scene (per-env targets for envs 1, 5, 7) and returns positions and timers. */
async function run(backend: 'cpu' | 'gpu'): Promise<{ q: number[][]; v: number[][]; timers: gs.Tensor }> {
  await gs.init({ backend, precision: '32', loggingLevel: 'warning' });
  try {
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.Plane());
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: B });
    franka.controlDofsPosition(gs.tile(gs.tensor(TARGET), [B, 1]));
    franka.controlDofsPosition(gs.tensor([[0.3, 0, 0, -1.2, 0, 1, 0, 0.01, 0.01], [0, 0.4, 0, -1, 0, 1.2, 0, 0.03, 0.03], [-0.3, 0, 0.2, -1.5, 0, 1, 0.5, 0.02, 0.02]]), { envsIdx: [1, 5, 7] });
    for (let i = 0; i < 60; i++) scene.step();
    await scene.sync();
    const q = (await franka.getDofsPosition()).toArray() as number[][];
    const v = (await franka.getDofsVelocity()).toArray() as number[][];
    const timers = scene.rigidSolver.constraintSolver.timers;
    await scene.destroy();
    return { q, v, timers };
  } finally {
    await gs.destroy();
  }
}

describe.skipIf(!hasGpu)('WebGPU backend through the public API', () => {
  afterAll(async () => { if (gs.isInitialized()) await gs.destroy(); });

  /** A Franka scene of `nEnvs` on the GPU, logs captured at `level` from init on; returns the lines logged. */
  async function gpuFrankaLogs(level: 'info' | 'warning', showFPS: boolean, nEnvs: number, body: (scene: gs.Scene, logged: () => string[]) => Promise<void>): Promise<string[]> {
    await gs.init({ backend: 'gpu', loggingLevel: level });
    const log = gs.captureLogs();
    try {
      const scene = new gs.Scene({ profilingOptions: { showFPS } });
      scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
      await scene.build({ nEnvs });
      await body(scene, () => log.lines());
      await scene.destroy();
    } finally {
      log.restore();
      await gs.destroy();
    }
    return log.lines();
  }

  test('with FPS lines on, the build says that on the GPU they count queued steps, not finished ones', async () => {
    const lines = await gpuFrankaLogs('info', true, B, async () => {});
    expect(lines.filter((l) => l.startsWith('FPS lines count steps as they are queued for the GPU'))).toHaveLength(1);
  });

  test('steps queued without ever yielding get one warning naming the fix; a loop that syncs gets none', async () => {
    const queueWarnings = (lines: string[]): string[] => lines.filter((l) => l.includes('steps queued for the GPU'));
    let beforeWarning: string[] = [];
    const lines = await gpuFrankaLogs('warning', false, 1, async (scene, logged) => {
      for (let i = 0; i < QUEUE_WARNING_STEPS - 1; i++) scene.step();
      await scene.sync(); // yields: the count starts again
      for (let i = 0; i < QUEUE_WARNING_STEPS - 1; i++) scene.step();
      await scene.sync();
      beforeWarning = queueWarnings(logged());
      for (let i = 0; i < QUEUE_WARNING_STEPS + 10; i++) scene.step();
      await scene.sync();
    });
    expect(beforeWarning).toEqual([]);
    expect(queueWarnings(lines)).toEqual([
      `${QUEUE_WARNING_STEPS} steps queued for the GPU without returning to the event loop: the queue has no depth limit and each queued step holds host memory until the GPU runs it, and NaN or overflow is only detected when the program awaits; \`await scene.sync()\` every few hundred steps keeps the queue bounded and checks for errors.`,
    ]);
  }, 120_000);

  test('gs.device describes the adapter and hands the GPUDevice to a profiler', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    expect(gs.backend).toBe('gpu');
    expect(gs.device?.type).toBe('gpu');
    expect(gs.device?.timestampQuery).toBe(true);
    expect(gs.device?.limits?.maxStorageBufferBindingSize).toBeGreaterThan(0);
    expect(typeof gs.device?.gpuDevice?.createCommandEncoder).toBe('function');
    await gs.destroy();
  });

  test('64-bit precision is refused with the reason', async () => {
    await expect(gs.init({ backend: 'gpu', precision: '64' })).rejects.toThrow(/f32.*precision '32'/);
  });

  test("'auto' on a software-only adapter uses the CPU and says so", async () => {
    const logs = gs.captureLogs();
    try {
      await gs.init({ backend: 'auto', loggingLevel: 'info' });
      if (gs.device?.type === 'cpu') expect(logs.lines().join('\n')).toMatch(/software|no usable GPU/);
    } finally {
      logs.restore();
      await gs.destroy();
    }
  });

  test('the same scene on cpu and gpu (f32) agrees to f32 rounding; timers slot 0 is NaN on the GPU', async () => {
    const cpu = await run('cpu');
    const gpu = await run('gpu');
    let dq = 0, dv = 0;
    for (let e = 0; e < B; e++) {
      for (let i = 0; i < 9; i++) {
        dq = Math.max(dq, Math.abs(gpu.q[e]![i]! - cpu.q[e]![i]!));
        dv = Math.max(dv, Math.abs(gpu.v[e]![i]! - cpu.v[e]![i]!));
      }
    }
    // Measured on lavapipe: 1.2e-7 in position, 3.5e-6 in velocity; the bounds give a 20x margin for other
    // GPUs' f32 rounding. Math.max keeps a NaN, and toBeLessThan fails on it.
    expect(dq).toBeLessThan(2.5e-6);
    expect(dv).toBeLessThan(7e-5);
    // Envs 1, 5 and 7 went to their own targets.
    expect(gpu.q[5]![1]! - gpu.q[0]![1]!).toBeGreaterThan(0.2);
    expect(gpu.timers.shape).toEqual([10, B]);
    const t = gpu.timers.toArray() as number[][];
    expect(t[0]!.every(Number.isNaN)).toBe(true);
    // The finger equality is an active constraint in every env, and the solver iterated.
    expect(t[1]!.every((x) => x >= 1)).toBe(true);
    expect(t[2]!.every((x) => x >= 1)).toBe(true);
  });

  test('controls from a device-resident tensor match host values and upload the tensor only once', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 6 });
    const onDevice = gs.tile(gs.tensor(TARGET, { device: gs.device }), [6, 1]);
    const subset = gs.tensor([[0.5, 0, 0, -1, 0, 1, 0, 0.01, 0.01], [0, -0.5, 0, -1, 0, 1, 0, 0.03, 0.03]], { device: gs.device });
    const device = gs.device!.gpuDevice!;
    const original = device.createBuffer.bind(device);
    const tensorUploads: number[] = [];
    device.createBuffer = ((desc: GPUBufferDescriptor) => {
      if (desc.label === 'gs.tensor') tensorUploads.push(desc.size);
      return original(desc);
    }) as GPUDevice['createBuffer'];
    try {
      for (let i = 0; i < 10; i++) {
        franka.controlDofsPosition(onDevice);
        franka.controlDofsPosition(subset, { envsIdx: [2, 4] });
        scene.step();
      }
    } finally {
      device.createBuffer = original;
    }
    // Each device tensor reached the GPU once (6x9 and 2x9 f32), not once per call.
    expect(tensorUploads).toEqual([6 * 9 * 4, 2 * 9 * 4]);
    const got = (await franka.getDofsPosition()).toArray() as number[][];
    franka.controlDofsPosition(gs.tile(gs.tensor(TARGET), [6, 1]));
    expect(got[2]![0]!).toBeGreaterThan(got[0]![0]! + 0.05);
    expect(got[4]![1]!).toBeLessThan(got[0]![1]! - 0.05);
    expect(Math.abs(got[0]![3]! - got[1]![3]!)).toBeLessThan(1e-6);
    await scene.destroy();
    await gs.destroy();
  });

  test('reset restores the build state of the selected envs only', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 4 });
    const q0 = (await franka.getDofsPosition()).toArray() as number[][];
    franka.controlDofsPosition(gs.tensor(TARGET));
    for (let i = 0; i < 20; i++) scene.step();
    scene.reset({ envsIdx: [2] });
    const q = (await franka.getDofsPosition()).toArray() as number[][];
    expect(q[2]).toEqual(q0[2]);
    expect(Math.abs(q[0]![3]! - q0[0]![3]!)).toBeGreaterThan(1e-3);
    await scene.destroy();
    await gs.destroy();
  });

  // The WGSL integrate kernel flagged only |qvel| > 1e10 whatever rigidOptions.blowUpThreshold said.
  test('blowUpThreshold is honoured by the GPU kernels as on the CPU (qvel 100 against a threshold of 50)', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01, blowUpThreshold: 50, errorCheckInterval: 1 }, profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 4 });
    franka.setDofsVelocity(new Array(9).fill(100), { envsIdx: [2] });
    let err: unknown;
    // The GPU error poll reads the flags asynchronously: they surface at a check a few steps later.
    for (let i = 0; i < 20 && !err; i++) {
      try { scene.step(); await scene.sync(); } catch (e) { err = e; }
    }
    expect(err).toBeInstanceOf(gs.SimulationError);
    expect((err as gs.SimulationError).envsIdx).toEqual([2]);
    expect((err as Error).message).toMatch(/blow-up \(\|qpos\| or \|qvel\| > (50|5e\+1)\) of envs \[2\]/);
    await scene.destroy();
    await gs.destroy();
  });

  test('link and force getters read the GPU state: hand position as the CPU computes it, servo forces (issue 13)', async () => {
    const run = async (backend: 'cpu' | 'gpu'): Promise<{ hand: number[]; force: number[] }> => {
      await gs.init({ backend, precision: '32', loggingLevel: 'warning' });
      const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
      const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
      await scene.build({ nEnvs: 3 });
      franka.controlDofsPosition(gs.tensor(TARGET));
      for (let i = 0; i < 20; i++) scene.step();
      const hand = ((await franka.getLinksPos([7])).toArray() as number[][][])[2]![0]!;
      const force = ((await franka.getDofsControlForce()).toArray() as number[][])[2]!;
      await scene.destroy();
      await gs.destroy();
      return { hand, force };
    };
    const gpu = await run('gpu');
    const cpu = await run('cpu');
    // f32 on both; the GPU-vs-CPU drift of 20 steps is far below a millimetre
    for (let k = 0; k < 3; k++) expect(Math.abs(gpu.hand[k]! - cpu.hand[k]!)).toBeLessThan(1e-4);
    expect(Math.hypot(...gpu.force.slice(0, 7))).toBeGreaterThan(1); // the servos push toward the target
    for (let k = 0; k < 9; k++) expect(Math.abs(gpu.force[k]! - cpu.force[k]!)).toBeLessThan(1e-2 * Math.max(1, Math.abs(cpu.force[k]!)));
  });

  test('sync({ maxInFlight }) bounds the steps queued for the GPU without draining it (issue 15)', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 8 });
    let worst = 0;
    for (let i = 0; i < 1500; i++) {
      scene.step();
      worst = Math.max(worst, scene.stepsInFlight);
      if (i % 50 === 49) await scene.sync({ maxInFlight: 100 });
      if (i % 50 === 49) expect(scene.stepsInFlight).toBeLessThanOrEqual(100);
    }
    // never more than the bound plus the 50 steps queued between two waits
    expect(worst).toBeLessThanOrEqual(150);
    await scene.sync();
    expect(scene.stepsInFlight).toBe(0);
    await expect(scene.sync({ maxInFlight: -1 })).rejects.toThrow('scene.sync: maxInFlight must be an integer >= 0, got -1');
    await scene.destroy();
    await gs.destroy();
  });

  test('friction below what f32 resolves is refused at build instead of going NaN (issue 13)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-friction-'));
    const box = (mu: number): string => {
      const f = join(dir, `box-${mu}.xml`);
      writeFileSync(f, `<mujoco><worldbody><geom name="ice" type="plane" size="0 0 0.05" friction="${mu} 0.005 0.0001"/>
        <body pos="0 0 0.049"><freejoint/><geom name="puck" type="box" size="0.1 0.08 0.05" friction="${mu} 0.005 0.0001"/></body>
      </worldbody></mujoco>`);
      return f;
    };
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const low = new gs.Scene({ profilingOptions: { showFPS: false } });
    low.addEntity(gs.morphs.MJCF({ file: box(1e-3) }));
    // before, this box slid into NaN within 100 steps
    await expect(low.build({ nEnvs: 2 })).rejects.toThrow(
      "the GPU backend computes in f32 and cannot resolve contact friction below 0.01 (the pyramid's friction rows vanish in rounding and the solver goes NaN): plane 'ice' - box 'puck' (0.001). Use the CPU backend, or friction of at least 0.01.");
    const ok = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
    const puck = ok.addEntity(gs.morphs.MJCF({ file: box(0.01) }));
    await ok.build({ nEnvs: 2 });
    puck.setDofsVelocity([0.5, 0, 0, 0, 0, 0]);
    for (let i = 0; i < 300; i++) ok.step();
    await ok.sync();
    const x = ((await puck.getQpos()).toArray() as number[][])[0]![0]!;
    expect(x).toBeGreaterThan(0.2); // it slid, and no NaN: toBeGreaterThan is false for NaN
    // getContacts reads the GPU's contact buffers: the puck's 4 corners on the ice, normal up
    const contacts = (await puck.getContacts()) as gs.Contact[][];
    expect(contacts.map((c) => c.length)).toEqual([4, 4]);
    expect(contacts[1]!.every((c) => c.normal[2] > 0.999 && Math.abs(c.position[2]) < 1e-3)).toBe(true);
    await ok.destroy();
    await gs.destroy();
  });

  test('a cylinder standing on a box rests on it: cylinder-box collides on the GPU (issue 13)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gsprof-gpu-convex-')), 'cyl.xml');
    writeFileSync(file, `<mujoco><worldbody><geom name="table" type="box" size="0.5 0.5 0.05" pos="0 0 -0.05"/>
      <body pos="0 0 0.11"><freejoint/><geom name="can" type="cylinder" size="0.05 0.1"/></body></worldbody></mujoco>`);
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
    const can = scene.addEntity(gs.morphs.MJCF({ file }));
    await scene.build({ nEnvs: 2 });
    for (let i = 0; i < 200; i++) scene.step();
    await scene.sync();
    // before the WGSL convex routine the build was refused; without collision the can would have fallen 0.4 m
    const z = ((await can.getQpos()).toArray() as number[][]).map((q) => q[2]!);
    // the f32 CPU settles it at 0.0992 (one soft contact under the centre); falling off or through fails by far
    for (const h of z) expect(Math.abs(h - 0.1)).toBeLessThan(2e-3);
    const contacts = (await can.getContacts()) as gs.Contact[][];
    expect(contacts.map((c) => c.length)).toEqual([1, 1]); // one contact per convex pair, as on the CPU
    await scene.destroy();
    await gs.destroy();
  }, 600_000); // the first build compiles every kernel: minutes on lavapipe when the cores are shared

  test('a loop that never awaits learns of a blow-up at scene.sync() (issue 13)', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01, blowUpThreshold: 50 }, profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 4 });
    franka.setDofsVelocity(new Array(9).fill(100), { envsIdx: [1] });
    // 100 steps pass ten in-step checks, none of which can see a flag read (the event loop never turns)
    for (let i = 0; i < 100; i++) scene.step();
    const err = await scene.sync().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(gs.SimulationError);
    expect((err as gs.SimulationError).envsIdx).toEqual([1]);
    await scene.destroy();
    await gs.destroy();
  });

  test('resetOnError resets a blown-up env once, not again from a flag read started before the reset (issue 13)', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'error' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.01, blowUpThreshold: 50, errorCheckInterval: 1, resetOnError: true }, profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await scene.build({ nEnvs: 4 });
    franka.setDofsVelocity(new Array(9).fill(100), { envsIdx: [3] });
    // every step checks and awaits, so a poll is always in flight when the reset happens
    for (let i = 0; i < 40; i++) { scene.step(); await new Promise((r) => setTimeout(r, 5)); }
    await scene.sync();
    expect(scene.lastError?.envsIdx).toEqual([3]);
    expect(scene.lastError!.step).toBeLessThan(40); // found by a check inside the loop, not by the final sync
    expect(scene.errorResetCount).toBe(1);
    await scene.destroy();
    await gs.destroy();
  });

  test('an nEnvs beyond the buffer limits names the largest that fits', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: FRANKA }));
    await expect(scene.build({ nEnvs: 50_000_000 })).rejects.toThrow(/largest nEnvs that fits is \d+/);
    await gs.destroy();
  });
});
