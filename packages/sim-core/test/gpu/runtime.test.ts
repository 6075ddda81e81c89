import { afterAll, describe, expect, test } from 'vitest';
import { GpuSim, WgslCompileError, GpuNEnvsTooLargeError } from '../../src/gpu/runtime.js';
import { gpuOrSkip, hasGpu } from './gpu-env.js';
import { loadMujocoXml, modelFromMujoco } from '../helpers/mujoco.js';

const XML = `<mujoco><option timestep="0.01"/><worldbody><body><joint type="hinge"/><geom size="0.1" mass="1"/></body></worldbody></mujoco>`;
const cap = { maxContacts: 4, maxEfc: 8 };

describe.skipIf(!hasGpu)('GPU runtime', async () => {
  const gpu = (await gpuOrSkip())!;
  const { mj, m } = await loadMujocoXml(XML);
  const model = modelFromMujoco(mj, m);
  const tick = { name: 'tick', helpers: '', body: '  dset(D_TIME, 0, e, dget(D_TIME, 0, e) + OPT_TIMESTEP);\n  iset(D_NCON, 0, e, i32(e) * NV);' };
  afterAll(() => undefined);

  for (const performanceMode of [false, true]) {
    test(`runs a labelled kernel over every env (performanceMode=${performanceMode})`, async () => {
      const sim = new GpuSim(gpu, model, 100, { performanceMode, capacities: cap });
      await sim.compile([tick]);
      sim.step(3);
      const time = await sim.readField('time');
      expect(time.length).toBe(100);
      for (const t of time) expect(t).toBeCloseTo(0.03, 6);
      const ncon = await sim.readField('ncon');
      expect(Array.from(ncon.slice(0, 3))).toEqual([0, 1, 2]);
      sim.writeElements('time', 0, [5, 6, 9], [1, 2, 3]);
      const t2 = await sim.readField('time');
      expect([t2[5], t2[6], t2[9], t2[7]]).toEqual([1, 2, 3, expect.closeTo(0.03, 6)]);
      sim.destroy();
    });
  }

  test('a second scene on the same device reuses the compiled pipelines of generic-mode kernels, and runs them on its own data', async () => {
    const spans: { name: string; reused: unknown }[] = [];
    const tracer = { begin: (name: string, _c: string, args?: Record<string, unknown>) => spans.push({ name, reused: args?.reused }), end: () => undefined };
    const other = await loadMujocoXml(XML.replace('timestep="0.01"', 'timestep="0.02"').replace('size="0.1"', 'size="0.2"'));
    const first = new GpuSim(gpu, model, 7, { performanceMode: false, capacities: cap, tracer: () => tracer });
    const second = new GpuSim(gpu, modelFromMujoco(other.mj, other.m), 5, { performanceMode: false, capacities: cap, tracer: () => tracer });
    // A source no other test compiles on this (shared) device.
    const once = { ...tick, body: `${tick.body}\n  // compiled once: ${Math.random()}` };
    await first.compile([once]);
    await second.compile([once]);
    expect(spans).toEqual([{ name: 'compile:tick', reused: false }, { name: 'compile:tick', reused: true }]);
    first.step(1);
    second.step(2);
    // Each scene's sizes and options come from its own layout buffer: 7 envs at 0.01 s, 5 envs at 2 x 0.02 s.
    expect(Array.from(await first.readField('time'))).toEqual(Array(7).fill(expect.closeTo(0.01, 6)));
    expect(Array.from(await second.readField('time'))).toEqual(Array(5).fill(expect.closeTo(0.04, 6)));
    first.destroy();
    second.destroy();
  });

  test('a device-resident tensor is scattered into a field without a host round trip', async () => {
    const sim = new GpuSim(gpu, model, 10, { performanceMode: false, capacities: cap });
    const src = gpu.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    gpu.device.queue.writeBuffer(src, 0, new Float32Array([1.5, 2.5, 3.5, 4.5]));
    // Two selected envs, one row each, one element (the hinge's qvel).
    sim.writeFromDevice('qvel', [0], [3, 7], src, false);
    let v = await sim.readField('qvel');
    expect([v[3], v[7], v[0]]).toEqual([1.5, 2.5, 0]);
    // One broadcast row to every env.
    sim.writeFromDevice('qvel', [0], Array.from({ length: 10 }, (_, i) => i), src, true);
    v = await sim.readField('qvel');
    expect(Array.from(v)).toEqual(Array(10).fill(1.5));
    src.destroy();
    sim.destroy();
  });

  test('a WGSL error names the kernel and the line', async () => {
    const sim = new GpuSim(gpu, model, 4, { performanceMode: false, capacities: cap });
    await expect(sim.compile([{ name: 'broken', helpers: '', body: '  let x: f32 = nope;' }])).rejects.toThrow(
      /kernel 'broken'.*line \d+/,
    );
    await expect(sim.compile([{ name: 'broken', helpers: '', body: '  let x: f32 = nope;' }])).rejects.toBeInstanceOf(WgslCompileError);
    sim.destroy();
  });

  test('an nEnvs beyond the buffer limits states the largest that fits', () => {
    expect(() => new GpuSim(gpu, model, 2 ** 31, { performanceMode: false, capacities: cap })).toThrow(
      /largest nEnvs that fits is \d+/,
    );
    expect(() => new GpuSim(gpu, model, 2 ** 31, { performanceMode: false, capacities: cap })).toThrow(GpuNEnvsTooLargeError);
  });
});
