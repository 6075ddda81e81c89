/**
 * convert invents nothing and drops nothing a Kineto trace's reader sees (issue 35): the top-level members come
 * back as written, in their order, and no distributedInfo appears where the source had none (HTA would read a
 * rank 0 of 1 into it); a Stream Sync that partly overlaps a kernel stays on its stream's tid; gsprof's own
 * metadata event, which a pftrace carries as an instant, is no slice, so slice counts hold through a round trip;
 * a counter track keeps its name through pftrace -> JSON -> JSON, gsprof's physics counters' (`contacts`, no
 * space to split into Chrome's name and arg key) included, where each JSON pass named it "contacts value".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyTrace, writePerfettoTrace } from '@gsprof/profiler';
import { describe, expect, it } from 'vitest';
import { convertFile, convertFixture, queryCsv, tempDir } from './support/cli.js';

const SOURCE = {
  schemaVersion: 1,
  deviceProperties: [{ id: 0, name: 'NVIDIA H100', totalGlobalMem: 85000000000 }],
  record_shapes: 1,
  cupti_version: 24,
  trace_id: 'ABC123',
  custom: { nested: [1, 2.5, 'x'], flag: true },
  traceName: 'train.pt.trace.json',
  displayTimeUnit: 'ms',
  traceEvents: [
    { ph: 'X', cat: 'cpu_op', name: 'aten::add', pid: 1, tid: 11, ts: 1000, dur: 100 },
    { ph: 'X', cat: 'kernel', name: 'add_kernel', pid: 0, tid: 7, ts: 1010, dur: 30, args: { stream: 7 } },
    // Starts inside the kernel and ends after it: the two cannot nest.
    { ph: 'X', cat: 'cuda_sync', name: 'Stream Sync', pid: 0, tid: 7, ts: 1020, dur: 40, args: { stream: 7 } },
    { ph: 'i', s: 't', cat: 'marker', name: 'mark', pid: 1, tid: 11, ts: 1050 },
  ],
};

type Json = Record<string, unknown> & { traceEvents: { name: string; tid?: number; ph: string }[] };
const f = convertFixture(SOURCE);
const SLICES = 'select count(*), count(*) filter (where name = \'gsprof.metadata\') from slice';

describe('convert invents and drops nothing', () => {
  it('keeps the top-level members as written, in order, adds no distributedInfo, and counts no gsprof.metadata slice (JSON -> JSON, and through pftrace)', async () => {
    await f.convert('in.json', 'a.json');
    await f.convert('in.json', 'b.pftrace');
    await f.convert('b.pftrace', 'c.json');
    await f.convert('c.json', 'd.pftrace');
    const want = Object.entries(SOURCE).filter(([k]) => k !== 'traceEvents');
    const own = new Set(['traceEvents', 'baseTimeNanoseconds', 'gsprofMetadata']);
    for (const out of ['a.json', 'c.json']) {
      const j = JSON.parse(f.read(out)) as Json;
      expect(Object.entries(j).filter(([k]) => !own.has(k)), out).toEqual(want);
      expect(j.distributedInfo, out).toBeUndefined();
    }
    for (const file of ['in.json', 'b.pftrace', 'c.json', 'd.pftrace']) expect(await f.query(file, SLICES), file).toEqual(['4,0']);
    // and the run metadata the pftrace's instant carries is still read
    expect(await f.query('d.pftrace', "select str_value from metadata where name = 'gsprof.producer'")).toEqual(['gsprof convert']);
  });

  it('keeps a Stream Sync that overlaps a kernel on its stream\'s tid (JSON -> JSON)', async () => {
    await f.convert('in.json', 'sync.json');
    const j = JSON.parse(f.read('sync.json')) as Json;
    const tids = j.traceEvents.filter((e) => e.ph === 'X' && e.tid !== 11).map((e) => [e.name, e.tid]);
    expect(tids.sort()).toEqual([['Stream Sync', 7], ['add_kernel', 7]]);
  });

  it('keeps counter names through pftrace -> JSON -> JSON -> pftrace (contacts stays contacts)', async () => {
    const dir = tempDir();
    const names = ['contacts', 'solver iterations (max)', 'FPS'];
    const model = emptyTrace({ baseTimeNs: 1_700_000_000_000_000_000n, traceName: 'counters', producer: 'test', hostname: '', pid: 1,
      deviceProperties: [], syncEachStep: false, run: {} });
    model.processes.push({ pid: 1, name: 'sim', kind: 'cpu' });
    names.forEach((name, i) => {
      model.tracks.push({ id: i + 1, kind: 'counter', name, pid: 1, unit: 'count' });
      model.counters.push({ track: i + 1, ts: 1000 * i, value: i + 0.5 });
    });
    await writePerfettoTrace(model, join(dir, 'c.pftrace'));
    await convertFile(dir, 'c.pftrace', 'c.json');
    await convertFile(dir, 'c.json', 'd.json');
    await convertFile(dir, 'd.json', 'e.pftrace');
    const sql = 'select t.name, c.value from counter c join counter_track t on t.id = c.track_id order by c.ts';
    for (const file of ['c.pftrace', 'c.json', 'd.json', 'e.pftrace']) {
      expect(await queryCsv(join(dir, file), sql), file).toEqual(['contacts,0.5', 'solver iterations (max),1.5', 'FPS,2.5']);
    }
  });

  it('keeps flows that start or end at a thread\'s instant (JSON -> JSON, JSON -> pftrace -> JSON)', async () => {
    const dir = tempDir();
    const flow = (ph: string, tid: number, ts: number, id: number) => ({ ph, id, cat: 'c', name: 'fl', pid: 1, tid, ts, ...(ph === 'f' ? { bp: 'e' } : {}) });
    writeFileSync(join(dir, 'fl.json'), JSON.stringify({ traceEvents: [
      { ph: 'i', s: 't', name: 'mark', pid: 1, tid: 1, ts: 10 }, flow('s', 1, 10, 1),
      { ph: 'X', name: 'work', pid: 1, tid: 2, ts: 20, dur: 5 }, flow('f', 2, 20, 1),
      { ph: 'X', name: 'src', pid: 1, tid: 2, ts: 30, dur: 5 }, flow('s', 2, 30, 2),
      { ph: 'i', s: 't', name: 'sink', pid: 1, tid: 1, ts: 40 }, flow('f', 1, 40, 2),
    ] }));
    await convertFile(dir, 'fl.json', 'fl2.json');
    await convertFile(dir, 'fl.json', 'fl.pftrace');
    await convertFile(dir, 'fl.pftrace', 'fl3.json');
    const sql = 'select so.name, si.name from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in order by so.ts';
    for (const file of ['fl.json', 'fl2.json', 'fl.pftrace', 'fl3.json']) expect(await queryCsv(join(dir, file), sql), file).toEqual(['mark,work', 'src,sink']);
  });
});
