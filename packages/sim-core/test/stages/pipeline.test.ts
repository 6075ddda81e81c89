/** The CPU pipeline as a list of named kernels: order, tracing, precision, integrator support. */
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { GPU_KERNELS } from '../../src/gpu/kernels/index.js';
import type { SimTracer } from '../../src/instrument.js';
import { makeData, bytesPerEnv } from '../../src/data/make-data.js';
import { Integrator, type Model } from '../../src/model/model.js';
import { CPU_STAGES, stepCpu } from '../../src/cpu/step.js';
import { forwardCpu } from '../../src/cpu/forward.js';
import { doublePendulumXml } from './models.js';
import { pairFromXml } from './oracle.js';

describe('CPU pipeline', () => {
  test('kernels run in MuJoCo\'s order under the names traces show', () => {
    expect(CPU_STAGES.map((s) => s.name)).toEqual([
      'kinematics', 'com', 'crb', 'factor_m', 'collision', 'make_constraint', 'passive', 'rne', 'actuation',
      'smooth_acc', 'solve', 'sensor', 'integrate',
    ]);
  });

  test('each stage X has its CPU code in src/stages/X/cpu.ts and its WGSL kernel named X beside it in src/stages/X/wgsl.ts, in the same order', () => {
    // sensors are computed on the CPU backend only (the GPU backend refuses to read them)
    const gpuStages = CPU_STAGES.filter((s) => s.name !== 'sensor');
    expect(GPU_KERNELS.map((k) => k.name)).toEqual(gpuStages.map((s) => s.name));
    const missing = [...CPU_STAGES.map((s) => `src/stages/${s.name}/cpu.ts`), ...gpuStages.map((s) => `src/stages/${s.name}/wgsl.ts`)].filter((f) => !existsSync(new URL(`../../${f}`, import.meta.url)));
    expect(missing).toEqual([]);
  });

  test('with a tracer, every kernel of a step is one closed kernel span carrying the env count', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0.1 }));
    const d = makeData(p.model, 4, '64');
    const events: string[] = [];
    const tracer: SimTracer = {
      begin: (name, category, args) => events.push(`B ${name} ${category} ${String(args?.nEnvs)}`),
      end: () => events.push('E'),
    };
    stepCpu(p.model, d, 1, 4, tracer);
    // a model without sensors skips the sensor stage
    expect(events).toEqual(CPU_STAGES.filter((s) => s.name !== 'sensor').flatMap((s) => [`B ${s.name} cpu_op 3`, 'E']));
    expect(d.time[0]).toBe(0); // env 0 was outside [1, 4)
    expect(d.time[1]).toBeCloseTo(p.model.opt.timestep, 15);
  });

  test('forwardCpu computes without advancing; a step advances time and keeps qacc for warm start', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0.1 }));
    const d = makeData(p.model, 1, '64');
    d.qpos[0] = 0.5;
    forwardCpu(p.model, d, 0, 1);
    expect(d.time[0]).toBe(0);
    expect(d.qpos[0]).toBe(0.5);
    expect(d.qacc[0]).not.toBe(0);
    const qacc = Array.from(d.qacc);
    stepCpu(p.model, d, 0, 1);
    expect(Array.from(d.qaccWarmstart)).toEqual(qacc);
    expect(d.time[0]).toBeCloseTo(0.002, 15);
  });

  test('f32 Data follows the f64 trajectory to f32 accuracy', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'implicitfast', damping: 0.2 }));
    const a = makeData(p.model, 2, '64'), b = makeData(p.model, 2, '32');
    expect(b.qM).toBeInstanceOf(Float32Array);
    expect(bytesPerEnv(b)).toBeLessThan(bytesPerEnv(a));
    for (const d of [a, b]) { d.qpos[0] = 0.7; d.qpos[1] = 0.3; d.qpos[2] = -0.4; d.qpos[3] = 0.1; }
    for (let s = 0; s < 200; s++) { stepCpu(p.model, a, 0, 2); stepCpu(p.model, b, 0, 2); }
    for (let k = 0; k < 4; k++) expect(Math.abs(a.qpos[k]! - b.qpos[k]!)).toBeLessThan(1e-4);
    expect(a.qpos[0]).not.toBeCloseTo(0.7, 2);
  });

  test('a NaN state raises the env\'s error flag and leaves the other env alone', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0 }));
    const d = makeData(p.model, 2, '64');
    d.qvel[1 * 2 + 1] = Number.NaN; // dof 1 of env 1
    stepCpu(p.model, d, 0, 2);
    expect(d.errFlags[0]).toBe(0);
    expect(d.errFlags[1]! & 1).toBe(1);
  });

  test('integrators other than Euler and implicitfast are refused by name', async () => {
    const p = await pairFromXml(doublePendulumXml({ integrator: 'Euler', damping: 0 }));
    const rk4: Model = { ...p.model, opt: { ...p.model.opt, integrator: Integrator.RK4 } };
    expect(() => stepCpu(rk4, makeData(rk4, 1, '64'), 0, 1)).toThrow(/integrator 'RK4' is not supported/);
  });

  test('a model without dofs steps (time advances, static poses are computed)', async () => {
    const p = await pairFromXml(`<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
      <body pos="0 0 0.5" euler="0 0 90"><geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>`);
    expect(p.model.nv).toBe(0);
    const d = makeData(p.model, 2, '64');
    stepCpu(p.model, d, 0, 2);
    expect(Array.from(d.time)).toEqual([0.002, 0.002]);
    p.mj.mj_forward(p.mm, p.md);
    expect(Array.from(d.xmat.subarray(9 * 2, 9 * 2 + 2))).toEqual([p.md.xmat[9], p.md.xmat[9]]);
  });
});
