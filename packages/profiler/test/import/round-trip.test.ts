/** Our own traces, written by the exporters in both formats, read back into the same tables and analyses. */
import { afterAll, describe, expect, it } from 'vitest';
import {
  emptyTrace, gaps, kernelSummary, openTrace, timers, writeChromeTrace, writePerfettoTrace, type TraceModel,
} from '../../src/index.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => { if (!process.env.KEEP) files.cleanup(); });

function model(): TraceModel {
  const t = emptyTrace({
    baseTimeNs: 1_764_000_000_000_000_123n, traceName: 'rt', producer: 'gsprof test', hostname: 'host', pid: 10,
    deviceProperties: [{ id: 0, name: 'llvmpipe' }], syncEachStep: false, run: { nEnvs: 3, backend: 'webgpu' }, timerLabels: ['func_solve'],
  });
  t.processes.push({ pid: 10, name: 'node', kind: 'cpu' }, { pid: 1000, name: 'GPU 0', kind: 'gpu' });
  t.tracks.push({ id: 1, kind: 'thread', name: 'main', pid: 10, tid: 10 }, { id: 2, kind: 'gpu_queue', name: 'queue 0', pid: 1000, tid: 0 },
    { id: 3, kind: 'counter', name: 'solver iterations', pid: 10, unit: 'count' });
  for (let s = 0; s < 4; s++) {
    const t0 = s * 10_000;
    t.slices.push({ track: 1, name: `ProfilerStep#${s}`, category: 'user_annotation', ts: t0, dur: 9_000 });
    const submit = t.slices.push({ track: 1, name: 'queue.submit', category: 'cuda_runtime', ts: t0 + 1_000, dur: 500 }) - 1;
    const k1 = t.slices.push({ track: 2, name: 'kinematics', category: 'kernel', ts: t0 + 2_000, dur: 1_000 + s }) - 1;
    const k2 = t.slices.push({ track: 2, name: 'solve', category: 'kernel', ts: t0 + 3_100, dur: 4_000 }) - 1;
    t.flows.push({ id: 2 * s + 1, fromSlice: submit, toSlice: k1, category: 'ac2g' }, { id: 2 * s + 2, fromSlice: submit, toSlice: k2, category: 'ac2g' });
    t.counters.push({ track: 3, ts: t0 + 8_000, value: 5 + s });
    t.envTimers.push({ step: s, ts: t0 + 8_500, nEnvs: 3, values: Float64Array.from([s, 2 * s, 3 * s]) });
  }
  t.slices.push({ track: 1, name: 'createComputePipeline', category: 'compile', ts: 100, dur: 300 });
  return t;
}

describe('round trip through our exporters', () => {
  for (const [ext, write] of [['pftrace', writePerfettoTrace], ['json', writeChromeTrace], ['json.gz', writeChromeTrace]] as const) {
    it(`${ext}: kernels, steps, flows, counters, env timers and run metadata come back`, async () => {
      const path = `${files.dir}/rt.${ext}`;
      await write(model(), path);
      const db = await openTrace(path);
      try {
        const k = await kernelSummary(db);
        expect(k.tracks).toHaveLength(1);
        expect(k.tracks[0]!.kernels.map((r) => [r.name, r.instances, r.totalTimeNs])).toEqual([['solve', 4, 16_000], ['kinematics', 4, 4_006]]);
        expect(k.steps).toMatchObject({ count: 4, meanNs: 9_000, nEnvs: 3 });
        expect(k.compileNs).toBe(300);
        const { rows } = await db.query(`select o.name as o, i.name as i, count(*) as n from flow f join slice o on o.id = f.slice_out
          join slice i on i.id = f.slice_in group by 1, 2 order by 2`);
        expect(rows).toEqual([{ o: 'queue.submit', i: 'kinematics', n: 4 }, { o: 'queue.submit', i: 'solve', n: 4 }]);
        expect((await db.query('select distinct category, name from flow')).rows).toEqual([{ category: 'ac2g', name: 'ac2g' }]);
        const g = await gaps(db);
        expect(g.launchDelay[0]).toMatchObject({ launches: 8, maxNs: 1_600 });
        const c = await db.query(`select value from counter join counter_track on counter.track_id = counter_track.id order by ts`);
        expect(c.rows.map((r) => r.value)).toEqual([5, 6, 7, 8]);
        const tm = (await timers(db))!;
        expect(tm.slots[0]!.label).toBe('func_solve');
        expect(tm.slots[0]!.panels.lastStep).toEqual([3, 6, 9]);
        expect(tm.slots[0]!.panels.runningMeanPerEnv).toEqual([1.5, 3, 4.5]);
        const first = await db.query(`select min(ts)::VARCHAR as t from slice where name = 'ProfilerStep#0'`);
        expect(first.rows[0]!.t).toBe('1764000000000000123');
      } finally {
        await db.close();
      }
    });
  }
});

describe('thread ids through pftrace', () => {
  it('a tid beyond 32 bits comes back (ThreadDescriptor.tid is an int64 in Perfetto\'s proto)', async () => {
    const t = emptyTrace({
      baseTimeNs: 1_000n, traceName: 'tids', producer: 'gsprof test', hostname: 'host', pid: 10,
      deviceProperties: [], syncEachStep: false, run: {},
    });
    t.processes.push({ pid: 10, name: 'node', kind: 'cpu' });
    t.tracks.push({ id: 1, kind: 'thread', name: 'wide', pid: 10, tid: 4_294_967_297 },
      { id: 2, kind: 'thread', name: 'negative', pid: 10, tid: -5 });
    t.slices.push({ track: 1, name: 'a', category: 'c', ts: 0, dur: 10 }, { track: 2, name: 'b', category: 'c', ts: 5, dur: 10 });
    const path = `${files.dir}/tids.pftrace`;
    await writePerfettoTrace(t, path);
    const db = await openTrace(path);
    try {
      // Before, the writer's proto subset said int32 and the tid came back as 1.
      expect((await db.query(`select t.tid, t.name, s.name as slice from slice s join thread_track tt on tt.id = s.track_id
        join thread t using (utid) where s.name <> 'gsprof.metadata' order by s.name`)).rows).toEqual([
        { tid: 4_294_967_297, name: 'wide', slice: 'a' }, { tid: -5, name: 'negative', slice: 'b' },
      ]);
    } finally {
      await db.close();
    }
  });
});
