import { afterAll, describe, expect, it } from 'vitest';
import { kernelSummary, KERNEL_SUM_COLUMNS, openTrace } from '../../src/index.js';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

function stats(durs: number[]) {
  const s = [...durs].sort((a, b) => a - b);
  const n = s.length;
  const mean = s.reduce((a, b) => a + b, 0) / n;
  const med = n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
  const sd = n > 1 ? Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  return { total: s.reduce((a, b) => a + b, 0), n, mean, med, min: s[0]!, max: s[n - 1]!, sd };
}

describe('kernelSummary', () => {
  it('gives nsys cuda_gpu_kern_sum columns per track, sorted by time, with step stats and compile time', async () => {
    const aDurs = [10, 12, 14, 30];  // µs
    const bDurs = [50, 70];
    const cDurs = [5];
    const ev: Record<string, unknown>[] = [];
    let t = 0;
    for (const d of aDurs) { ev.push({ ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 7, ts: t, dur: d }); t += 100; }
    for (const d of bDurs) { ev.push({ ph: 'X', cat: 'kernel', name: 'b', pid: 0, tid: 7, ts: t, dur: d }); t += 100; }
    for (const d of cDurs) ev.push({ ph: 'X', cat: 'kernel', name: 'c', pid: 0, tid: 8, ts: 5, dur: d });
    const steps = [1000, 1200, 1100, 3000];
    let s = 0;
    steps.forEach((d, i) => { ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${i}`, pid: 1, tid: 1, ts: s, dur: d }); s += d; });
    ev.push({ ph: 'X', cat: 'gpu_user_annotation', name: 'ProfilerStep#0', pid: 0, tid: 7, ts: 0, dur: 99999 });
    ev.push({ ph: 'X', cat: 'compile', name: 'createComputePipeline', pid: 1, tid: 1, ts: 1, dur: 40 });
    ev.push({ ph: 'X', cat: 'compile', name: 'createComputePipeline', pid: 1, tid: 1, ts: 50, dur: 2.5 });
    // A compile nested in another (a kernel's compile inside a build phase) is already counted by its parent.
    ev.push({ ph: 'X', cat: 'compile', name: 'compile:solve', pid: 1, tid: 1, ts: 5, dur: 10 });
    const db = await openTrace(files.write('k.json', JSON.stringify({ traceEvents: ev, gsprofMetadata: { run: { nEnvs: 1000 } } })));
    try {
      const r = await kernelSummary(db);
      expect(KERNEL_SUM_COLUMNS).toEqual(['Time (%)', 'Total Time (ns)', 'Instances', 'Avg (ns)', 'Med (ns)', 'Min (ns)', 'Max (ns)', 'StdDev (ns)', 'Name']);
      expect(r.tracks.map((t) => t.trackName)).toEqual(['thread 7', 'thread 8']);
      const a = stats(aDurs.map((d) => d * 1000));
      const b = stats(bDurs.map((d) => d * 1000));
      const total = a.total + b.total;
      const rows = r.tracks[0]!.kernels;
      expect(rows.map((k) => k.name)).toEqual(['b', 'a']);
      expect(rows[1]).toEqual({ timePercent: (100 * a.total) / total, totalTimeNs: a.total, instances: a.n, avgNs: a.mean,
        medNs: a.med, minNs: a.min, maxNs: a.max, stdDevNs: expect.closeTo(a.sd, 6) as number, name: 'a' });
      expect(rows[0]!.stdDevNs).toBeCloseTo(b.sd, 6);
      expect(r.tracks[1]!.kernels).toEqual([{ timePercent: 100, totalTimeNs: 5000, instances: 1, avgNs: 5000, medNs: 5000,
        minNs: 5000, maxNs: 5000, stdDevNs: 0, name: 'c' }]);
      const st = stats(steps.map((d) => d * 1000));
      expect(r.steps).toMatchObject({ count: 4, meanNs: st.mean, medianNs: st.med, minNs: st.min, maxNs: st.max, nEnvs: 1000 });
      expect(r.steps!.p95Ns).toBeCloseTo(1200_000 + 0.85 * (3000_000 - 1200_000), 6);
      expect(r.steps!.fps).toBeCloseTo(4 / (st.total / 1e9), 6);
      expect(r.steps!.envStepsPerSec).toBeCloseTo(1000 * r.steps!.fps, 6);
      expect(r).toMatchObject({ compileNs: 42_500, compileCount: 2 });
    } finally {
      await db.close();
    }
  });

  it.skipIf(!hasShared())('sums to the kernel time of a real Kineto trace, one row set per stream', async () => {
    const db = await openTrace(sharedPath('traces', 'pytorch-kineto', 'timeline_analysis__sampled_rank-0.json.gz'));
    try {
      const r = await kernelSummary(db);
      const [{ total, streams }] = (await db.query(`select sum(dur) as total, count(distinct track_id) as streams from slice where category = 'kernel'`)).rows as [{ total: number; streams: number }];
      expect(r.tracks.reduce((s, t) => s + t.totalTimeNs, 0)).toBe(total);
      expect(r.tracks).toHaveLength(streams);
      for (const t of r.tracks) {
        expect(t.kernels.reduce((s, k) => s + k.timePercent, 0)).toBeCloseTo(100, 9);
        for (let i = 1; i < t.kernels.length; i++) expect(t.kernels[i - 1]!.totalTimeNs).toBeGreaterThanOrEqual(t.kernels[i]!.totalTimeNs);
      }
      expect(r.steps?.count).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });

  it('a trace with no GPU kernels summarises its CPU stages (cpu_op), per thread, and says they are CPU stages', async () => {
    const ev: Record<string, unknown>[] = [
      { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#0', pid: 1, tid: 1, ts: 0, dur: 100 },
      { ph: 'X', cat: 'cpu_op', name: 'solve', pid: 1, tid: 1, ts: 10, dur: 30 },
      { ph: 'X', cat: 'cpu_op', name: 'solve', pid: 1, tid: 1, ts: 50, dur: 10 },
      { ph: 'X', cat: 'cpu_op', name: 'integrate', pid: 1, tid: 1, ts: 60, dur: 20 },
      { ph: 'X', cat: 'cpu_op', name: 'solve', pid: 1, tid: 2, ts: 10, dur: 5 },
    ];
    const db = await openTrace(files.write('cpu.json', JSON.stringify({ traceEvents: ev })));
    try {
      const r = await kernelSummary(db);
      expect(r.kind).toBe('cpu stages');
      expect(r.tracks.map((t) => [t.trackName, t.totalTimeNs, t.kernels.map((k) => [k.name, k.instances, k.totalTimeNs])])).toEqual([
        ['thread 1', 60_000, [['solve', 2, 40_000], ['integrate', 1, 20_000]]],
        ['thread 2', 5_000, [['solve', 1, 5_000]]],
      ]);
    } finally {
      await db.close();
    }
    // With GPU kernels present the table is the kernels only: host cpu_op spans are not GPU work.
    const mixed = await openTrace(files.write('mixed.json', JSON.stringify({ traceEvents: [...ev, { ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: 20, dur: 4 }] })));
    try {
      const r = await kernelSummary(mixed);
      expect(r.kind).toBe('gpu kernels');
      expect(r.tracks.flatMap((t) => t.kernels.map((k) => k.name))).toEqual(['k']);
    } finally {
      await mixed.close();
    }
  });
});
