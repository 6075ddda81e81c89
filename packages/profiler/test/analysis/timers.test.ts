import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, timers, writePerfettoTrace } from '../../src/index.js';
import { sampleTrace } from '../export/fixtures.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

function b64(values: number[]): string {
  return Buffer.from(new Float64Array(values).buffer).toString('base64');
}

describe('timers', () => {
  it('per-slot stats, slowest envs and the three Genesis panels from env_timers events', async () => {
    const nEnvs = 4;
    // values[slot * nEnvs + env] per step; slot 0 "func_solve", slot 1 "iters"
    const steps = [
      [4, 1, 3, 2, /* slot 1 */ 10, 10, 11, 10],
      [8, 2, 1, 3, 12, 10, 10, 10],
      [6, 3, 2, 1, 11, 11, 10, 10],
    ];
    const ev = steps.map((v, step) => ({ ph: 'i', s: 't', cat: 'gsprof_timers', name: 'env_timers', pid: 1, tid: 1, ts: step * 10,
      args: { step, n_envs: nEnvs, labels: 'func_solve,iters', values_b64: b64(v) } }));
    const db = await openTrace(files.write('t.json', JSON.stringify(ev)));
    try {
      const r = (await timers(db, { slowest: 2 }))!;
      expect(r).not.toBeNull();
      expect(r.steps).toBe(3);
      expect(r.nEnvs).toBe(4);
      expect(r.slots.map((s) => s.label)).toEqual(['func_solve', 'iters']);
      const s0 = r.slots[0]!;
      const all = steps.flatMap((v) => v.slice(0, 4)).sort((a, b) => a - b);
      expect(s0.mean).toBeCloseTo(all.reduce((a, b) => a + b, 0) / 12, 12);
      expect(s0.max).toBe(8);
      expect(s0.p50).toBe((all[5]! + all[6]!) / 2);
      expect(s0.panels.lastStep).toEqual([6, 3, 2, 1]);
      expect(s0.panels.runningMeanPerEnv).toEqual([6, 2, 2, 2]);
      // per-step sorted: [1,2,3,4], [1,2,3,8], [1,2,3,6] -> mean [1, 2, 3, 6]
      expect(s0.panels.sortedRunningMean).toEqual([1, 2, 3, 6]);
      expect(s0.slowestEnvs).toEqual([{ env: 0, mean: 6 }, { env: 1, mean: 2 }]);
      expect(r.slots[1]!.panels.runningMeanPerEnv).toEqual([11, 31 / 3, 31 / 3, 10]);
    } finally {
      await db.close();
    }
  });

  // The default `gsprof record` (1024 envs x 190 steps, 4 slots) overflowed the call stack (Math.max(...all) over
  // every value); written through the real Perfetto writer and read back through DuckDB as a recording would be.
  it('a 1024-env x 190-step recording: exact statistics, no stack overflow', async () => {
    const nEnvs = 1024;
    const steps = 190;
    const nSlots = 4;
    const trace = sampleTrace(1, nEnvs);
    trace.envTimers.length = 0;
    trace.metadata.timerLabels = ['solve_ns', 'iterations', 'constraints', 'contacts'];
    const value = (k: number, slot: number, env: number): number => ((k * 7919 + env * 104_729 + slot * 13) % 1000) + slot * 1000;
    for (let k = 0; k < steps; k++) {
      const values = new Float64Array(nSlots * nEnvs);
      for (let slot = 0; slot < nSlots; slot++) for (let env = 0; env < nEnvs; env++) values[slot * nEnvs + env] = value(k, slot, env);
      trace.envTimers.push({ step: k, ts: 10_000 + k * 1000, nEnvs, values });
    }
    const path = join(files.dir, 'big.pftrace');
    await writePerfettoTrace(trace, path);
    const db = await openTrace(path);
    try {
      const r = (await timers(db, { slowest: 3 }))!;
      expect(r.steps).toBe(steps);
      expect(r.nEnvs).toBe(nEnvs);
      expect(r.stepRange).toEqual([0, steps - 1]);
      expect(r.slots.map((s) => s.label)).toEqual(['solve_ns', 'iterations', 'constraints', 'contacts']);
      const s1 = r.slots[1]!;
      const all: number[] = [];
      for (let k = 0; k < steps; k++) for (let env = 0; env < nEnvs; env++) all.push(value(k, 1, env));
      all.sort((a, b) => a - b);
      let sum = 0;
      for (const v of all) sum += v;
      // 194,560 values fit the default sample: the quantiles are exact.
      expect(s1.quantileSample).toEqual({ size: all.length, of: all.length, exact: true });
      expect(s1.max).toBe(all[all.length - 1]);
      expect(s1.p50).toBe(all[Math.floor((all.length - 1) / 2)]! + (all[Math.ceil((all.length - 1) / 2)]! - all[Math.floor((all.length - 1) / 2)]!) * 0.5);
      // Summation order differs from the reference loop: 1e-9 relative is far above float64 rounding at 2e5 terms.
      expect(Math.abs(s1.mean - sum / all.length) <= 1e-9 * s1.mean).toBe(true);
      let envMean = 0;
      for (let k = 0; k < steps; k++) envMean += value(k, 1, 77);
      expect(Math.abs(s1.panels.runningMeanPerEnv[77]! - envMean / steps) <= 1e-9 * envMean).toBe(true);
      expect(s1.panels.lastStep[5]).toBe(value(steps - 1, 1, 5));
      expect(s1.panels.sortedRunningMean).toHaveLength(nEnvs);
      expect(s1.panels.sortedRunningMean[0]! <= s1.panels.sortedRunningMean[nEnvs - 1]!).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('past the sample size, p50/p95 come from a uniform sample and say so', async () => {
    const nEnvs = 100;
    // 50 steps of env values 0..99: every quantile of the whole is known exactly.
    const ev = Array.from({ length: 50 }, (_, step) => ({ ph: 'i', s: 't', cat: 'gsprof_timers', name: 'env_timers', pid: 1, tid: 1, ts: step * 10,
      args: { step, n_envs: nEnvs, labels: 'solve_ns', values_b64: b64(Array.from({ length: nEnvs }, (_, e) => e)) } }));
    const db = await openTrace(files.write('sampled.json', JSON.stringify(ev)));
    try {
      const r = (await timers(db, { quantileSampleSize: 1000, pageSize: 7 }))!;
      const s = r.slots[0]!;
      expect(r.steps).toBe(50);
      expect(s.quantileSample).toEqual({ size: 1000, of: 5000, exact: false });
      expect(s.mean).toBe(49.5);
      expect(s.max).toBe(99);
      // A 1000-value uniform sample of U{0..99}: the standard error of a quantile is ~ sqrt(q(1-q)/n) * 100 = 1.6
      // at p50 and 0.7 at p95; 6 (about 4 sigma at p50) keeps the test deterministic-safe (the sampler is seeded).
      expect(Math.abs(s.p50 - 49.5) <= 6).toBe(true);
      expect(Math.abs(s.p95 - 94.05) <= 6).toBe(true);
      expect(s.panels.runningMeanPerEnv[42]).toBe(42);
    } finally {
      await db.close();
    }
  });

  it('returns null when the trace has no timers', async () => {
    const db = await openTrace(files.write('none.json', JSON.stringify([{ ph: 'X', name: 'a', pid: 1, tid: 1, ts: 0, dur: 1 }])));
    try {
      expect(await timers(db)).toBeNull();
    } finally {
      await db.close();
    }
  });
});
