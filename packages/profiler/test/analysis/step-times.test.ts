import { afterAll, describe, expect, it } from 'vitest';
import { completedStepTimes, kernelSummary, openTrace } from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

/**
 * The host queues 5 steps of 100 us each, back to back; each step's kernel (launched by its submit, linked by an
 * ac2g flow) runs 1 ms on the GPU, one after another. The work completes at the GPU's rate: 1 ms per step.
 */
function queuedTrace(): string {
  const ev: Record<string, unknown>[] = [];
  for (let s = 0; s < 5; s++) {
    const t = s * 100;
    ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s}`, pid: 1, tid: 1, ts: t, dur: 100 });
    ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'queue.submit', pid: 1, tid: 1, ts: t + 10, dur: 5 });
    ev.push({ ph: 's', cat: 'ac2g', name: 'ac2g', id: s + 1, pid: 1, tid: 1, ts: t + 10 });
    const g = 20 + s * 1000;
    ev.push({ ph: 'X', cat: 'kernel', name: 'solve', pid: 0, tid: 7, ts: g, dur: 1000, args: { correlation: s + 1 } });
    ev.push({ ph: 'f', bp: 'e', cat: 'ac2g', name: 'ac2g', id: s + 1, pid: 0, tid: 7, ts: g });
  }
  return files.write('queued.json', JSON.stringify({ traceEvents: ev, gsprofMetadata: { run: { nEnvs: 10 } } }));
}

describe('completed-work step times', () => {
  it('a host that queues ahead of the GPU: the steps take the GPU time, not the host span', async () => {
    const db = await openTrace(queuedTrace());
    try {
      const t = await completedStepTimes(db);
      expect(t.gpuBound).toBe(true);
      // Step 0: from its start (0) to its kernel's end (1020 us); then one kernel's 1 ms each.
      expect(t.durations).toEqual([1_020_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000]);
      const k = await kernelSummary(db);
      // 5 steps in 5.02 ms of completed work: 996 steps/s, not the host's 10,000.
      expect(k.steps!.fps).toBeCloseTo(5 / 5.02e-3, 6);
      expect(k.steps!.envStepsPerSec).toBeCloseTo(10 * 5 / 5.02e-3, 6);
    } finally {
      await db.close();
    }
  });
});
