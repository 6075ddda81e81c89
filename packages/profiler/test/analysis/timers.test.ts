import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, timers } from '../../src/index.js';
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

  it('returns null when the trace has no timers', async () => {
    const db = await openTrace(files.write('none.json', JSON.stringify([{ ph: 'X', name: 'a', pid: 1, tid: 1, ts: 0, dur: 1 }])));
    try {
      expect(await timers(db)).toBeNull();
    } finally {
      await db.close();
    }
  });
});
