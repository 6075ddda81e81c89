/** Gap analysis on hand-written traces whose idle intervals are known exactly (µs in the JSON, ns out). */
import { afterAll, describe, expect, it } from 'vitest';
import { gaps, openTrace } from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

type Ev = Record<string, unknown>;
const T0 = 1000;
let corr = 0;

/** A launch call on the CPU thread and the kernel it launches on stream 7, linked by an ac2g flow. */
function launched(name: string, launchAt: number, launchDur: number, start: number, dur: number): Ev[] {
  const id = ++corr;
  return [
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: T0 + launchAt, dur: launchDur, args: { correlation: id } },
    { ph: 's', cat: 'ac2g', name: 'ac2g', id, pid: 1, tid: 1, ts: T0 + launchAt },
    { ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts: T0 + start, dur, args: { correlation: id } },
    { ph: 'f', cat: 'ac2g', name: 'ac2g', id, pid: 0, tid: 7, ts: T0 + start, bp: 'e' },
  ];
}

describe('gaps', () => {
  it('finds each idle interval and classifies it host wait / kernel wait / other, exactly', async () => {
    const events: Ev[] = [
      ...launched('k1', 0, 2, 5, 10),      // busy [5, 15)
      ...launched('k2', 3, 2, 15, 10),     // busy [15, 25), back to back with k1
      ...launched('k2b', 4, 1, 18, 3),     // inside k2: overlapping ops count once
      ...launched('k3', 6, 2, 30, 5),      // gap [25, 30) = 5 µs, launched before it: kernel wait
      ...launched('k4', 80, 4, 100, 10),   // gap [35, 100) = 65 µs, launch began at 80 > 35: host wait
      ...launched('k5', 90, 2, 200, 10),   // gap [110, 200) = 90 µs, launch at 90 < 110: other
      { ph: 'X', name: 'python_work', cat: 'python_function', pid: 1, tid: 1, ts: T0 + 40, dur: 35 },
    ];
    const db = await openTrace(files.write('gaps.json', JSON.stringify({ traceEvents: events })));
    try {
      const g = await gaps(db, { topIntervals: 3 });
      expect(g.queues).toHaveLength(1);
      const q = g.queues[0]!;
      expect(q).toMatchObject({ ops: 6, spanNs: 205_000, busyNs: 45_000, idleNs: 160_000, gaps: 3,
        hostWaitNs: 65_000, kernelWaitNs: 5_000, otherNs: 90_000 });
      expect(g.topIdle.map((t) => [t.startNs, t.endNs, t.durNs, t.kind, t.nextOp])).toEqual([
        [110_000, 200_000, 90_000, 'other', 'k5'],
        [35_000, 100_000, 65_000, 'host wait', 'k4'],
        [25_000, 30_000, 5_000, 'kernel wait', 'k3'],
      ]);
      // CPU work during the host-wait gap: python_work [40, 75), k4's launch [80, 84), k5's launch [90, 92).
      expect(g.topIdle[1]!.cpu.map((c) => [c.name, c.overlapNs])).toEqual([['python_work', 35_000], ['cudaLaunchKernel', 4_000], ['cudaLaunchKernel', 2_000]]);
      // Launch delay = kernel start - launch end, clipped at 0: 3, 10, 13, 22, 16, 108 µs.
      const d = g.launchDelay[0]!;
      expect(d.launches).toBe(6);
      expect(d.maxNs).toBe(108_000);
      expect(d.meanNs).toBeCloseTo((3 + 10 + 13 + 22 + 16 + 108) * 1000 / 6, 6);
      expect(d.outliers).toBe(1);
      expect(g.overall).toMatchObject({ busyNs: 45_000, spanNs: 205_000, hostWaitNs: 65_000 });
      expect(g.overall.hostWaitShare).toBeCloseTo(65 / 160, 12);
      expect(g.verdict).toBe('mixed');
    } finally {
      await db.close();
    }
  });

  it('says GPU-bound when kernels run back to back, CPU-bound when the GPU waits on late launches', async () => {
    corr = 100;
    const busy = [...launched('a', 0, 1, 10, 50), ...launched('b', 1, 1, 61, 50), ...launched('c', 2, 1, 112, 50)];
    const db1 = await openTrace(files.write('busy.json', JSON.stringify(busy)));
    try {
      const g = await gaps(db1);
      expect(g.verdict).toBe('GPU-bound');
      expect(g.overall.idleNs).toBe(2_000);
      expect(g.queues[0]!.kernelWaitNs).toBe(2_000);
    } finally {
      await db1.close();
    }
    const starved = [...launched('a', 0, 1, 2, 5), ...launched('b', 100, 1, 102, 5), ...launched('c', 200, 1, 202, 5)];
    const db2 = await openTrace(files.write('starved.json', JSON.stringify(starved)));
    try {
      const g = await gaps(db2);
      expect(g.verdict).toBe('CPU-bound');
      expect(g.queues[0]!.hostWaitNs).toBe(2 * 95_000);
      expect(g.reason).toMatch(/host wait is 100\.0% of the idle time/);
    } finally {
      await db2.close();
    }
  });

  // The split compares host launch times with GPU gap starts across two clocks; the recorder's alignment error
  // decides whether that comparison means anything.
  it('says the host-wait split is unreliable when the clock alignment error is not below the gaps', async () => {
    corr = 200;
    // Two gaps of 95 µs, both host wait: CPU-bound on a trustworthy clock.
    const starved = [...launched('a', 0, 1, 2, 5), ...launched('b', 100, 1, 102, 5), ...launched('c', 200, 1, 202, 5)];
    const withAlignment = (errorBoundNs: number) => JSON.stringify({ traceEvents: starved,
      gsprofMetadata: { clockAlignment: { offsetNs: 0, driftPpm: 0.5, errorBoundNs, samples: 40, method: 'causality-bounds' } } });
    const tight = await openTrace(files.write('tight.json', withAlignment(2_000)));
    try {
      const g = await gaps(tight);
      expect(g.clockAlignment).toMatchObject({ errorBoundNs: 2_000, driftPpm: 0.5, samples: 40, driftAtBound: false });
      expect(g.hostWaitSplit).toMatchObject({ reliable: true, medianGapNs: 95_000 });
      expect(g.verdict).toBe('CPU-bound');
    } finally {
      await tight.close();
    }
    const loose = await openTrace(files.write('loose.json', withAlignment(26_800_000)));
    try {
      const g = await gaps(loose);
      expect(g.hostWaitSplit.reliable).toBe(false);
      expect(g.hostWaitSplit.note).toBe('clock alignment error +-26.80 ms is not below the gaps that hold the idle time (half of it is in gaps of 95.0 us or more)');
      // CPU-bound rested on the host-wait share alone: not a verdict this alignment supports.
      expect(g.verdict).toBe('mixed');
      expect(g.reason).toMatch(/host-wait split is unreliable/);
    } finally {
      await loose.close();
    }
    const none = await openTrace(files.write('none.json', JSON.stringify(starved)));
    try {
      const g = await gaps(none);
      expect(g.clockAlignment).toBeNull();
      expect(g.hostWaitSplit.reliable).toBeNull();
    } finally {
      await none.close();
    }
  });

  it('uses Kineto correlation args when a trace has no flow events, and separates streams', async () => {
    const events = [
      { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: 100, dur: 1, args: { correlation: 5 } },
      { ph: 'X', cat: 'kernel', name: 'x', pid: 0, tid: 7, ts: 10, dur: 1, args: { correlation: 4 } },
      { ph: 'X', cat: 'kernel', name: 'y', pid: 0, tid: 7, ts: 150, dur: 1, args: { correlation: 5 } },
      { ph: 'X', cat: 'kernel', name: 'z', pid: 0, tid: 8, ts: 20, dur: 1 },
    ];
    const db = await openTrace(files.write('corr.json', JSON.stringify(events)));
    try {
      const g = await gaps(db);
      expect(g.queues.map((q) => [q.trackName, q.hostWaitNs, q.otherNs])).toEqual([['thread 7', 139_000, 0], ['thread 8', 0, 0]]);
    } finally {
      await db.close();
    }
  });

  it('a CPU-only trace (cpu_op stages, no GPU ops) has no GPU timeline: the verdict says so and host utilisation is given', async () => {
    // Two 100 µs steps. Step 0: thread 1 runs [10, 40) and [40, 60), thread 2 runs [50, 90): the union is [10, 90),
    // 80% of the step. Step 1: thread 1 runs [100, 150) and [190, 230), the last clipped at the step's end to
    // [190, 200): 60%. Thread 1 covers 50 + 60 = 110 µs of the 200, thread 2 covers 40.
    const events: Ev[] = [
      { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#0', pid: 1, tid: 1, ts: T0, dur: 100 },
      { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 1, tid: 1, ts: T0 + 100, dur: 100 },
      { ph: 'X', cat: 'cpu_op', name: 'kinematics', pid: 1, tid: 1, ts: T0 + 10, dur: 30 },
      { ph: 'X', cat: 'cpu_op', name: 'solve', pid: 1, tid: 1, ts: T0 + 40, dur: 20 },
      { ph: 'X', cat: 'cpu_op', name: 'kinematics', pid: 1, tid: 2, ts: T0 + 50, dur: 40 },
      { ph: 'X', cat: 'cpu_op', name: 'solve', pid: 1, tid: 1, ts: T0 + 100, dur: 50 },
      { ph: 'X', cat: 'cpu_op', name: 'integrate', pid: 1, tid: 1, ts: T0 + 190, dur: 40 },
    ];
    const db = await openTrace(files.write('cpu-only.json', JSON.stringify({ traceEvents: events })));
    try {
      const g = await gaps(db);
      expect(g.verdict).toBe('no GPU work');
      expect(g.reason).toMatch(/^no GPU timeline: this is a CPU-only trace/);
      expect(g.queues).toEqual([]);
      const u = g.hostUtilisation!;
      expect(u).toMatchObject({ steps: 2, wallNs: 200_000, coveredNs: 140_000 });
      // Shares are ratios of integers in ns: exact up to float rounding (1e-12 is far above it).
      const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-12;
      expect(near(u.meanShare, 0.7) && near(u.medianShare, 0.7) && near(u.minShare, 0.6)).toBe(true);
      expect(u.threads.map((t) => [t.trackName, t.coveredNs])).toEqual([['thread 1', 110_000], ['thread 2', 40_000]]);
      expect(near(u.threads[0]!.share, 0.55) && near(u.threads[1]!.share, 0.2)).toBe(true);
    } finally {
      await db.close();
    }
  });
});
