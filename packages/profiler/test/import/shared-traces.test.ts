/**
 * Every third-party trace in ../shared/traces imports, and the tables agree with facts computed here
 * independently from the raw files (gunzip + JSON.parse; the Perfetto textproto sources).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { openTrace, } from '../../src/index.js';
import { first, parseTextproto, type TextprotoMessage } from './support/textproto.js';

const shared = hasShared();

function kinetoFiles(): string[] {
  return readdirSync(sharedPath('traces', 'pytorch-kineto')).filter((f) => f.endsWith('.json.gz'));
}

interface RawEvent { ph?: string; cat?: string; dur?: number; ts?: number; name?: string }

function rawJson(path: string): { traceEvents: RawEvent[]; baseTimeNanoseconds?: number; [k: string]: unknown } {
  const buf = readFileSync(path);
  const text = (buf[0] === 0x1f ? gunzipSync(buf) : buf).toString('utf8');
  return JSON.parse(text) as { traceEvents: RawEvent[] };
}

describe.skipIf(!shared)('third-party traces import', () => {
  it('imports every file in shared/traces without error', async () => {
    const files = [
      ...kinetoFiles().map((f) => sharedPath('traces', 'pytorch-kineto', f)),
      ...readdirSync(sharedPath('traces', 'perfetto')).filter((f) => !f.endsWith('.textproto')).map((f) => sharedPath('traces', 'perfetto', f)),
    ];
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const f of files) {
      const db = await openTrace(f);
      try {
        const { rows } = await db.query('select count(*) as n from slice');
        expect(Number(rows[0]!.n), f).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
    }
  });

  it('kernel count and total kernel time match the raw JSON for each Kineto trace', async () => {
    for (const f of kinetoFiles()) {
      const path = sharedPath('traces', 'pytorch-kineto', f);
      const kernels = rawJson(path).traceEvents.filter((e) => e.ph === 'X' && e.cat === 'kernel');
      const expectedTotal = kernels.reduce((s, e) => s + Math.round((e.dur ?? 0) * 1000), 0);
      const db = await openTrace(path);
      try {
        const { rows } = await db.query(`select count(*) as n, coalesce(sum(dur), 0) as total from slice where category = 'kernel'`);
        expect({ file: f, n: Number(rows[0]!.n), total: Number(rows[0]!.total) })
          .toEqual({ file: f, n: kernels.length, total: expectedTotal });
      } finally {
        await db.close();
      }
    }
  });

  it('keeps absolute epoch-µs timestamps exact to the ns, and adds baseTimeNanoseconds to relative ones', async () => {
    for (const f of ['timeline_analysis__sampled_rank-0.json.gz', 'triton_example__triton_example.json.gz']) {
      const path = sharedPath('traces', 'pytorch-kineto', f);
      const raw = rawJson(path);
      const tss = raw.traceEvents.filter((e) => e.ph === 'X' && typeof e.ts === 'number').map((e) => e.ts!);
      const minUs = tss.reduce((m, x) => Math.min(m, x), Infinity);
      const whole = Math.floor(minUs);
      const expected = BigInt(raw.baseTimeNanoseconds ?? 0) + BigInt(whole) * 1000n + BigInt(Math.round((minUs - whole) * 1000));
      const db = await openTrace(path);
      try {
        const { rows } = await db.query('select min(ts)::VARCHAR as t from slice');
        expect(rows[0]!.t, f).toBe(expected.toString());
      } finally {
        await db.close();
      }
    }
  });

  it('keeps deviceProperties and distributedInfo in metadata', async () => {
    const path = sharedPath('traces', 'pytorch-kineto', 'cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz');
    const raw = rawJson(path) as unknown as { distributedInfo: { rank: number; world_size: number; backend: string } };
    const db = await openTrace(path);
    try {
      expect(await db.metadata('distributedInfo.rank')).toBe(raw.distributedInfo.rank);
      expect(await db.metadata('distributedInfo.world_size')).toBe(raw.distributedInfo.world_size);
      expect(await db.metadata('distributedInfo.backend')).toBe(raw.distributedInfo.backend);
      expect(await db.metadata('deviceCount')).toBe(0);
    } finally {
      await db.close();
    }
    const triton = sharedPath('traces', 'pytorch-kineto', 'triton_example__triton_example.json.gz');
    const props = (rawJson(triton) as unknown as { deviceProperties: { name: string }[] }).deviceProperties;
    const db2 = await openTrace(triton);
    try {
      const stored = JSON.parse(String(await db2.metadata('deviceProperties'))) as { name: string }[];
      expect(stored.map((d) => d.name)).toEqual(props.map((d) => d.name));
    } finally {
      await db2.close();
    }
  });

  it('links ac2g flows from the launch call to the kernel it launched (Triton example)', async () => {
    const db = await openTrace(sharedPath('traces', 'pytorch-kineto', 'triton_example__triton_example.json.gz'));
    try {
      const { rows } = await db.query(`select o.name as launch, i.name as kernel, i.category as cat
        from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in`);
      expect(rows).toEqual([{ launch: 'cuLaunchKernel', kernel: 'triton_poi_fused_add_cos_sin_0', cat: 'kernel' }]);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!shared)('Perfetto TrackEvent traces match their textproto sources', () => {
  function packets(name: string): TextprotoMessage[] {
    return parseTextproto(readFileSync(sharedPath('traces', 'perfetto', `${name}.textproto`), 'utf8')).packet as TextprotoMessage[];
  }

  it('flows: the same slice-to-slice links as the flow_ids / terminating_flow_ids in the source', async () => {
    // Expected edges by the TrackEvent flow rule: an id links its previous slice to the next slice that names it;
    // terminating_flow_ids ends the chain. Flow ids on an END event belong to the slice it ends.
    const open = new Map<string, string[]>();
    const last = new Map<number, string>();
    const expected: string[] = [];
    for (const p of packets('flow_events_track_event')) {
      const ev = first<TextprotoMessage>(p, 'track_event');
      if (!ev) continue;
      const track = String(first(ev, 'track_uuid') ?? 0);
      const type = first<number>(ev, 'type');
      const legacyPhase = first<number>(first<TextprotoMessage>(ev, 'legacy_event'), 'phase');
      let slice: string;
      const ts = first<number>(p, 'timestamp')!;
      if (type === 2) {
        slice = open.get(track)!.pop()!;
      } else {
        slice = `${String(first(ev, 'name'))}@${ts}`;
        if (type === 1) (open.get(track) ?? open.set(track, []).get(track)!).push(slice);
      }
      void legacyPhase;
      for (const id of (ev.flow_ids ?? []) as number[]) {
        const prev = last.get(id);
        if (prev) expected.push(`${prev} -> ${slice}`);
        last.set(id, slice);
      }
      for (const id of (ev.terminating_flow_ids ?? []) as number[]) {
        const prev = last.get(id);
        if (prev) expected.push(`${prev} -> ${slice}`);
        last.delete(id);
      }
    }
    const db = await openTrace(sharedPath('traces', 'perfetto', 'flow_events_track_event.pftrace'));
    try {
      const { rows } = await db.query(`select o.name || '@' || o.ts || ' -> ' || i.name || '@' || i.ts as e
        from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in`);
      expect(rows.map((r) => r.e).sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThanOrEqual(5);
    } finally {
      await db.close();
    }
  });

  it('JSON flows v1 (s/t/f, binding to enclosing or next slice) and v2 (bind_id) give the same links', async () => {
    for (const f of ['flow_events_json_v1.json', 'flow_events_json_v2.json']) {
      const db = await openTrace(sharedPath('traces', 'perfetto', f));
      try {
        const { rows } = await db.query(`select o.name || ' -> ' || i.name as e from flow f join slice o on o.id = f.slice_out
          join slice i on i.id = f.slice_in order by 1`);
        const expected = f.endsWith('v1.json')
          ? ['OtherSlice -> SomeSlice', 'SenderA -> OtherSlice', 'SenderB -> Blergh']
          : ['OtherSlice -> SomeOtherSlice', 'OtherSlice -> SomeSlice', 'SenderA -> OtherSlice', 'SenderB -> Blergh'];
        expect(rows.map((r) => r.e), f).toEqual(expected);
      } finally {
        await db.close();
      }
    }
  });

  it('counters: every TYPE_COUNTER value lands on its named counter track, and the sample count (thread time included) matches', async () => {
    const ps = packets('track_event_counters');
    const names = new Map<number, string>();
    for (const p of ps) {
      const d = first<TextprotoMessage>(p, 'track_descriptor');
      const n = first<string>(d, 'name');
      if (d && n !== undefined) names.set(first<number>(d, 'uuid')!, n);
    }
    const direct: { name: string; ts: number; value: number }[] = [];
    let total = 0;
    for (const p of ps) {
      const ev = first<TextprotoMessage>(p, 'track_event');
      if (!ev) continue;
      total += (ev.extra_counter_values?.length ?? 0) + (ev.extra_double_counter_values?.length ?? 0);
      // Thread time and instruction counts become counters of the event's thread, as trace_processor reads them.
      total += (ev.thread_time_absolute_us?.length ?? 0) + (ev.thread_instruction_count_absolute?.length ?? 0);
      if (first(ev, 'type') === 4) {
        total++;
        const v = first<number>(ev, 'counter_value') ?? first<number>(ev, 'double_counter_value')!;
        direct.push({ name: names.get(first<number>(ev, 'track_uuid')!)!, ts: first<number>(p, 'timestamp')!, value: v });
      }
    }
    expect(direct.length).toBeGreaterThanOrEqual(3);
    const db = await openTrace(sharedPath('traces', 'perfetto', 'track_event_counters.pftrace'));
    try {
      const { rows } = await db.query(`select ct.name, c.ts, c.value from counter c join counter_track ct on ct.id = c.track_id`);
      for (const d of direct) expect(rows).toContainEqual(d);
      expect(rows.length).toBe(total);
      const units = await db.query(`select name, unit from counter_track where name = 'MySizeCounter'`);
      expect(units.rows).toEqual([{ name: 'MySizeCounter', unit: 'bytes' }]);
    } finally {
      await db.close();
    }
  });

  it('tracks: thread and process descriptors become thread/process rows with their names', async () => {
    const ps = packets('track_event_tracks');
    const threadNames = ps.map((p) => first<string>(first<TextprotoMessage>(first<TextprotoMessage>(p, 'track_descriptor'), 'thread'), 'thread_name'))
      .filter((n): n is string => n !== undefined);
    const db = await openTrace(sharedPath('traces', 'perfetto', 'track_event_tracks.pftrace'));
    try {
      const { rows } = await db.query('select distinct name from thread order by name');
      expect(rows.map((r) => r.name)).toEqual([...new Set(threadNames)].sort());
      const ev = await db.query(`select t.name as thread from slice s join thread_track tt on s.track_id = tt.id
        join thread t using (utid) where s.name = 'event1_on_t1'`);
      expect(ev.rows.map((r) => r.thread)).toContain('t1');
    } finally {
      await db.close();
    }
  });

  it('tracks: each event lands on the thread or process trace_processor puts it on (legacy fallback, overrides, pid reuse)', async () => {
    const db = await openTrace(sharedPath('traces', 'perfetto', 'track_event_tracks.pftrace'));
    try {
      const { rows } = await db.query(`SELECT process.name AS process, thread.name AS thread, tp.name AS thread_process,
          slice.ts - (SELECT min(ts) FROM slice) + 1000 AS ts, slice.name
        FROM slice LEFT JOIN process_track pt ON slice.track_id = pt.id LEFT JOIN process ON pt.upid = process.upid
        LEFT JOIN thread_track tt ON slice.track_id = tt.id LEFT JOIN thread ON tt.utid = thread.utid
        LEFT JOIN process tp ON thread.upid = tp.upid ORDER BY slice.ts, slice.name`);
      // trace_processor's placement (its own diff test of this trace). A pid 5 declared again by another uuid is
      // a second process, p2; an event with no track falls back to its sequence's thread or to its legacy
      // pid/tid overrides, and a process-scoped legacy instant to the process's track.
      const P = (p: string) => [p, null, null];
      const T = (t: string, p: string) => [null, t, p];
      expect(rows.map((r) => [r.process, r.thread, r.thread_process, Number(r.ts), r.name])).toEqual([
        [...T('t1', 'p1'), 1000, 'event1_on_t1'],
        [...T('t2', 'p1'), 2000, 'event1_on_t2'],
        [...T('t2', 'p1'), 3000, 'event2_on_t2'],
        [...P('p1'), 4000, 'event1_on_p1'],
        [...P('p1'), 5000, 'event1_on_async'],
        [...P('p1'), 5100, 'event1_on_async2'],
        [...T('t2', 'p1'), 6000, 'event1_on_async3'],
        [...T('t1', 'p1'), 6000, 'event3_on_t1'],
        [...T('t3', 'p1'), 11000, 'event1_on_t3'],
        [...P('p2'), 21000, 'event1_on_p2'],
        [...T('t4', 'p2'), 22000, 'event1_on_t4'],
        [null, null, null, 30000, 'event1_on_t1'],
        [...P('p2'), 31000, 'event2_on_p2'],
        [...T('t4', 'p2'), 32000, 'event2_on_t4'],
        [...P('p1'), 40000, 'event_and_track_async3'],
      ]);
    } finally {
      await db.close();
    }
  });

  it('debug annotations land in args as debug.<name>, nested dicts and arrays flattened', async () => {
    const db = await openTrace(sharedPath('traces', 'perfetto', 'track_event_merged_debug_annotations.pftrace'));
    try {
      const { rows } = await db.query(`select key, int_value from args where key in ('debug.debug3', 'debug.debug4.key1',
        'debug.debug4.key2[1]', 'debug.debug1.key2[0]', 'debug.debug1.key2[2]') order by key, int_value`);
      // The end's debug3 replaces the begin's 31; its key2 elements follow the begin's (as trace_processor).
      expect(rows).toEqual([
        { key: 'debug.debug1.key2[0]', int_value: 20 },
        { key: 'debug.debug1.key2[2]', int_value: 22 },
        { key: 'debug.debug3', int_value: 32 },
        { key: 'debug.debug4.key1', int_value: 10 },
        { key: 'debug.debug4.key2[1]', int_value: 21 },
      ]);
    } finally {
      await db.close();
    }
  });
});
