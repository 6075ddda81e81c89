import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, reportCells, reportColumns, summaryReport } from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

/**
 * Known contents (µs in the JSON, ns in the reports): kernel 'a' on two streams (3 + 1 instances), 'b' once;
 * host calls encode x2, queue.submit x1, cudaMemcpyAsync x1 and a mapAsync wait; a GPU memcpy; two user ranges
 * and three ProfilerStep spans.
 */
function trace(): string {
  const ev = [
    { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 7, ts: 0, dur: 10 },
    { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 7, ts: 20, dur: 20 },
    { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 7, ts: 50, dur: 30 },
    { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 8, ts: 0, dur: 40 },
    { ph: 'X', cat: 'kernel', name: 'b', pid: 0, tid: 8, ts: 100, dur: 100 },
    { ph: 'X', cat: 'cuda_runtime', name: 'encode', pid: 1, tid: 1, ts: 0, dur: 2 },
    { ph: 'X', cat: 'cuda_runtime', name: 'encode', pid: 1, tid: 1, ts: 5, dur: 4 },
    { ph: 'X', cat: 'cuda_runtime', name: 'queue.submit', pid: 1, tid: 1, ts: 10, dur: 3 },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaMemcpyAsync', pid: 1, tid: 1, ts: 20, dur: 6 },
    { ph: 'X', cat: 'cuda_sync', name: 'GPUBuffer.mapAsync', pid: 1, tid: 1, ts: 30, dur: 50 },
    { ph: 'X', cat: 'gpu_memcpy', name: 'Memcpy HtoD', pid: 0, tid: 7, ts: 300, dur: 8 },
    { ph: 'X', cat: 'user_annotation', name: 'physics', pid: 1, tid: 1, ts: 0, dur: 90 },
    { ph: 'X', cat: 'user_annotation', name: 'physics', pid: 1, tid: 1, ts: 100, dur: 110 },
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#0', pid: 1, tid: 1, ts: 0, dur: 95 },
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 1, tid: 1, ts: 95, dur: 120 },
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#2', pid: 1, tid: 1, ts: 215, dur: 100 },
  ];
  return files.write('r.json', JSON.stringify({ traceEvents: ev }));
}

describe('nsys-style summary reports', () => {
  it('kernels: one row per name across streams, Time (%) of the report total, sample std dev', async () => {
    const db = await openTrace(trace());
    try {
      const r = await summaryReport(db, 'kernels');
      expect(r.totalTimeNs).toBe(200_000);
      expect(r.rows.map((x) => x.name)).toEqual(['a', 'b']);
      // a: 10, 20, 30, 40 µs: mean 25, median 25, sample sd sqrt(500/3) µs.
      expect(r.rows[0]).toMatchObject({ timePercent: 50, totalTimeNs: 100_000, instances: 4, avgNs: 25_000, medNs: 25_000, minNs: 10_000, maxNs: 40_000 });
      expect(r.rows[0]!.stdDevNs).toBeCloseTo(Math.sqrt(500 / 3) * 1000, 6);
      expect(r.rows[1]).toMatchObject({ timePercent: 50, instances: 1, stdDevNs: 0 });
    } finally {
      await db.close();
    }
  });

  it('host, memops, ranges and steps pick the right spans', async () => {
    const db = await openTrace(trace());
    try {
      const names = async (report: Parameters<typeof summaryReport>[1]) => (await summaryReport(db, report)).rows.map((x) => [x.name, x.instances]);
      expect(await names('host')).toEqual([['GPUBuffer.mapAsync', 1], ['cudaMemcpyAsync', 1], ['encode', 2], ['queue.submit', 1]]);
      expect(await names('memops')).toEqual([['GPUBuffer.mapAsync', 1], ['Memcpy HtoD', 1], ['cudaMemcpyAsync', 1]]);
      expect(await names('ranges')).toEqual([['physics', 2]]);
      const steps = await summaryReport(db, 'steps');
      expect(steps.rows).toHaveLength(1);
      expect(steps.rows[0]).toMatchObject({ name: 'ProfilerStep*', instances: 3, totalTimeNs: 315_000, medNs: 100_000, timePercent: 100 });
    } finally {
      await db.close();
    }
  });

  it('sorts by any column; units change the headers and the numbers', async () => {
    const db = await openTrace(trace());
    try {
      expect((await summaryReport(db, 'host', { sort: 'instances' })).rows[0]!.name).toBe('encode');
      expect((await summaryReport(db, 'host', { sort: 'name' })).rows.map((x) => x.name)).toEqual(['GPUBuffer.mapAsync', 'cudaMemcpyAsync', 'encode', 'queue.submit']);
      expect((await summaryReport(db, 'kernels', { sort: 'max' })).rows[0]!.name).toBe('b');
      const a = (await summaryReport(db, 'kernels')).rows[0]!;
      expect(reportColumns('us')).toEqual(['Time (%)', 'Total Time (us)', 'Instances', 'Avg (us)', 'Med (us)', 'Min (us)', 'Max (us)', 'StdDev (us)', 'Name']);
      expect(reportCells(a, 'us')).toEqual(['50.0', '100.000', '4', '25.000', '25.000', '10.000', '40.000', '12.910', 'a']);
      expect(reportCells(a, 'ns').slice(0, 3)).toEqual(['50.0', '100000', '4']);
    } finally {
      await db.close();
    }
  });
});
