// The streaming exporters (what `gsprof convert` writes with): given a trace's events in time order they write
// what the TraceModel exporters write for it, read back through the importer (slices with their lanes and
// depths, args, flows, instants, counters, timers), and they refuse events out of order without leaving a file.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeChromeStream } from '../../src/export/chrome-stream.js';
import { flowNamesJson } from '../../src/export/common.js';
import type { EventStream, StreamEvent, StreamFlow } from '../../src/export/event-stream.js';
import { writeChromeTrace, writePerfettoTrace } from '../../src/export/index.js';
import { writePerfettoStream } from '../../src/export/perfetto-stream.js';
import type { TraceModel } from '../../src/model/trace.js';
import { openTrace } from '../../src/sql/trace-db.js';
import { TRACK, sampleTrace } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-stream-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

/** The fixture trace with slices that partially overlap on the host track (they need an overflow lane). */
function overlappingTrace(): TraceModel {
  const trace = sampleTrace(3);
  trace.slices.push(
    { track: TRACK.host, name: 'straddles step 0 and 1', category: 'cpu_op', ts: 800_000, dur: 400_000, args: { nested: { a: [1, 2], b: null } } },
    { track: TRACK.host, name: 'straddles that one', category: 'cpu_op', ts: 1_100_000, dur: 300_000 },
  );
  trace.instants.push({ track: TRACK.host, name: 'at a slice start', category: 'mark', ts: 10_000 });
  return trace;
}

/** The trace's events as a reader of its tables hands them over: by time, slices first (longest first). */
function streamOf(trace: TraceModel, batchSize = 7): EventStream {
  const flowsOut = new Map<number, StreamFlow[]>();
  const flowsIn = new Map<number, StreamFlow[]>();
  for (const f of trace.flows) {
    const flow = { id: f.id, category: f.category, ...(f.name !== undefined ? { name: f.name } : {}) };
    flowsOut.set(f.fromSlice, [...(flowsOut.get(f.fromSlice) ?? []), flow]);
    flowsIn.set(f.toSlice, [...(flowsIn.get(f.toSlice) ?? []), flow]);
  }
  const keyed: Array<{ ts: number; rank: number; end: number; i: number; e: StreamEvent }> = [];
  trace.slices.forEach((s, i) => {
    const out = flowsOut.get(i), inn = flowsIn.get(i);
    keyed.push({ ts: s.ts, rank: 0, end: s.ts + s.dur, i, e: { kind: 'slice', ...s, ...(out ? { flowsOut: out } : {}), ...(inn ? { flowsIn: inn } : {}) } });
  });
  trace.instants.forEach((x, i) => { keyed.push({ ts: x.ts, rank: 1, end: 0, i, e: { kind: 'instant', ...x } }); });
  trace.counters.forEach((c, i) => { keyed.push({ ts: c.ts, rank: 2, end: 0, i, e: { kind: 'counter', ...c } }); });
  trace.envTimers.forEach((t, i) => { keyed.push({ ts: t.ts, rank: 3, end: 0, i, e: { kind: 'timers', sample: t } }); });
  keyed.sort((a, b) => a.ts - b.ts || a.rank - b.rank || b.end - a.end || a.i - b.i);
  const events = keyed.map((k) => k.e);
  async function* batches(): AsyncGenerator<StreamEvent[]> {
    for (let i = 0; i < events.length; i += batchSize) yield events.slice(i, i + batchSize);
  }
  const flowNames = flowNamesJson(trace.flows);
  return { metadata: trace.metadata, processes: trace.processes, tracks: trace.tracks, ...(flowNames ? { flowNames } : {}), events: batches() };
}

const QUERIES = {
  // A thread's track is unnamed (as in trace_processor): its thread names it.
  slices: `SELECT coalesce(t.name, th.name) AS track, s.name, s.ts, s.dur, s.depth, s.category FROM slice s
           JOIN track t ON t.id = s.track_id LEFT JOIN thread th ON th.utid = t.utid
           WHERE s.name <> 'gsprof.metadata' ORDER BY ALL`,
  args: `SELECT s.name, a.key, a.display_value FROM slice s JOIN (SELECT *, coalesce(string_value, CAST(int_value AS VARCHAR), CAST(real_value AS VARCHAR)) AS display_value FROM args) a
         ON a.arg_set_id = s.arg_set_id WHERE s.name <> 'gsprof.metadata' ORDER BY ALL`,
  flows: 'SELECT so.name AS out_name, si.name AS in_name, f.category, f.name FROM flow f JOIN slice so ON so.id = f.slice_out JOIN slice si ON si.id = f.slice_in ORDER BY ALL',
  counters: 'SELECT t.name, c.ts, c.value FROM counter c JOIN track t ON t.id = c.track_id ORDER BY ALL',
};

async function tables(path: string): Promise<Record<string, unknown>> {
  const db = await openTrace(path, { cache: false });
  try {
    const out: Record<string, unknown> = {};
    for (const [name, sql] of Object.entries(QUERIES)) out[name] = await db.rows(sql);
    return out;
  } finally {
    await db.close();
  }
}

describe('streaming exporters', () => {
  for (const [format, fromModel, fromStream] of [
    ['pftrace', writePerfettoTrace, writePerfettoStream],
    ['json', writeChromeTrace, writeChromeStream],
  ] as const) {
    it(`${format}: writes what the TraceModel exporter writes, overflow lanes included`, async () => {
      const a = join(dir, `model.${format}`);
      const b = join(dir, `stream.${format}`);
      await fromModel(overlappingTrace(), a);
      await fromStream(streamOf(overlappingTrace()), b);
      const [expected, got] = [await tables(a), await tables(b)];
      // The fixture must exercise what it claims: an overflow lane, args, flows, counters.
      expect((expected.slices as Array<{ track: string }>).some((s) => /overlap 1/.test(s.track))).toBe(true);
      for (const name of Object.keys(QUERIES)) expect((expected[name] as unknown[]).length, name).toBeGreaterThan(0);
      if (format === 'json') {
        // convert's JSON keeps an overflow lane on its thread's tid (the reader nests or spills it there); the
        // recording's writes it on a tid of its own: the same slices, on the thread of their track.
        type Row = { track: string; depth?: number };
        expect((got.slices as Row[]).some((s) => /overlap/.test(s.track))).toBe(false);
        const onThread = (rows: Row[]): string[] => rows.map(({ depth: _, ...r }) => JSON.stringify({ ...r, track: r.track.replace(/ \(overlap \d+\)$/, '') })).sort();
        expect(onThread(got.slices as Row[])).toEqual(onThread(expected.slices as Row[]));
        expect({ ...got, slices: [] }).toEqual({ ...expected, slices: [] });
      } else expect(got).toEqual(expected);
    }, 60_000);

    it(`${format}: refuses events out of time order and leaves no file`, async () => {
      const path = join(dir, `unordered.${format}`);
      const stream = streamOf(sampleTrace(2));
      const events: StreamEvent[] = [];
      for await (const batch of stream.events) for (const e of batch) events.push(e);
      const time = (e: StreamEvent): number => (e.kind === 'timers' ? e.sample.ts : e.ts);
      const k = events.findIndex((e, i) => i > 0 && time(events[i - 1]!) < time(e));
      [events[k - 1], events[k]] = [events[k]!, events[k - 1]!];
      async function* once(): AsyncGenerator<StreamEvent[]> { yield events; }
      await expect(fromStream({ ...stream, events: once() }, path)).rejects.toThrow(/must come in time order/);
      expect(existsSync(path)).toBe(false);
      expect(existsSync(`${path}.partial`)).toBe(false);
    });
  }
});
