import { afterAll, describe, expect, it } from 'vitest';
import { completedStepTimes, completedThroughput, kernelSummary, openTrace } from '../../src/index.js';
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

  it('gpu_launch names each kernel\'s launching submit with that submit\'s own ts and dur', async () => {
    const db = await openTrace(queuedTrace());
    try {
      const rows = await db.rows<{ k: number; l: string; ts_rel: number; dur: number; same: boolean }>(`
        SELECT g.ts - (SELECT min(ts) FROM slice) AS k, l.name AS l, gl.launch_ts - (SELECT min(ts) FROM slice) AS ts_rel,
               gl.launch_dur AS dur, gl.launch_ts = l.ts AND gl.launch_dur = l.dur AS same
        FROM gpu_launch gl JOIN slice g ON g.id = gl.gpu_slice_id JOIN slice l ON l.id = gl.launch_slice_id ORDER BY k`);
      // Kernel s starts at 20 + 1000 s us; its submit at 100 s + 10 us, lasting 5 us.
      expect(rows.map((r) => [Number(r.k), r.l, Number(r.ts_rel), Number(r.dur), r.same])).toEqual(
        [0, 1, 2, 3, 4].map((s) => [(20 + 1000 * s) * 1000, 'queue.submit', (100 * s + 10) * 1000, 5000, true]));
    } finally {
      await db.close();
    }
  });

  it('throughput is steps over the period from the first start to the last completion; gsprof spans in it are its own share', async () => {
    // Three CPU steps of 100 us with 50 us between them: the period is 400 us, not the steps' 300. A gsprof span
    // of 30 us (with one of 20 us nested in it: counted once), and one of 40 us of which 30 run past the last
    // step's end (clipped to 10).
    const ev: Record<string, unknown>[] = [];
    for (let s = 0; s < 3; s++) ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s}`, pid: 1, tid: 1, ts: s * 150, dur: 100 });
    ev.push({ ph: 'X', cat: 'gsprof', name: 'progress', pid: 1, tid: 1, ts: 160, dur: 30 });
    ev.push({ ph: 'X', cat: 'gsprof', name: 'read GPU timestamps', pid: 1, tid: 1, ts: 165, dur: 20 });
    ev.push({ ph: 'X', cat: 'gsprof', name: 'hand over trace (onTraceReady)', pid: 1, tid: 1, ts: 390, dur: 40 });
    const db = await openTrace(files.write('gaps.json', JSON.stringify({ traceEvents: ev, gsprofMetadata: { run: { nEnvs: 4 } } })));
    try {
      const t = await completedStepTimes(db);
      expect(t.durations).toEqual([100_000, 100_000, 100_000]);
      expect(t.periodNs).toBe(400_000);
      const k = await kernelSummary(db);
      expect(k.steps!.periodNs).toBe(400_000);
      expect(k.steps!.fps).toBeCloseTo(3 / 400e-6, 6);
      expect(k.steps!.envStepsPerSec).toBeCloseTo(4 * 3 / 400e-6, 6);
      expect(k.steps!.fps).toBe(completedThroughput(3, 400_000, 4).stepsPerSecond);
      expect(k.ownWork).toEqual({ ns: 40_000, share: 0.1, byName: [{ name: 'progress', ns: 30_000, count: 1 }, { name: 'hand over trace (onTraceReady)', ns: 10_000, count: 1 }] });
    } finally {
      await db.close();
    }
  });

  it('completedThroughput: no steps or no period is 0, never NaN or Infinity', () => {
    expect(completedThroughput(0, 0, 8)).toEqual({ steps: 0, periodNs: 0, stepsPerSecond: 0, envStepsPerSecond: 0 });
    expect(completedThroughput(5, 0, null).stepsPerSecond).toBe(0);
    expect(completedThroughput(5, 1e9, null)).toEqual({ steps: 5, periodNs: 1e9, stepsPerSecond: 5, envStepsPerSecond: null });
  });
});
