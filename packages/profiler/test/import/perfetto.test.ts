import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, TraceFormatError } from '../../src/index.js';
import { trace, type Field } from './support/proto-writer.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

// TracePacket fields (REFERENCE §4)
const TS = 8, SEQ = 10, INTERNED = 12, FLAGS = 13, EVENT = 11, DESC = 60, DEFAULTS = 59;
const CLEARED_AND_NEEDS = 3, NEEDS = 2;
const BASE = 1_700_000_000_123_456_789n; // epoch ns, beyond 2^53

function threadDescriptor(uuid: number, pid: number, tid: number, name: string): Field[] {
  return [[1, uuid], [4, [[1, pid], [2, tid], [5, name]]]];
}

describe('Perfetto protobuf import', () => {
  it('interning, per-sequence incremental state, default tracks, 64-bit timestamps', async () => {
    const path = files.write('interned.pftrace', trace([
      // Sequence 1 starts cleared, declares its thread track, interns names, sets the default track.
      [[SEQ, 1], [TS, BASE], [FLAGS, CLEARED_AND_NEEDS], [DESC, [[1, 10], [3, [[1, 42], [6, 'app']]]]]],
      [[SEQ, 1], [TS, BASE], [DESC, threadDescriptor(11, 42, 7, 'main')], [DEFAULTS, [[11, [[11, 11]]]]],
        [INTERNED, [[2, [[1, 1], [2, 'step']]], [2, [[1, 2], [2, 'kernel_a']]], [1, [[1, 5], [2, 'user_annotation']]],
          [3, [[1, 9], [2, 'env']]]]]],
      [[SEQ, 1], [TS, BASE + 100n], [FLAGS, NEEDS], [EVENT, [[9, 1], [10, 1], [3, 5], [4, [[1, 9], [4, 3]]]]]],
      [[SEQ, 1], [TS, BASE + 150n], [FLAGS, NEEDS], [EVENT, [[9, 1], [10, 2]]]],
      [[SEQ, 1], [TS, BASE + 170n], [FLAGS, NEEDS], [EVENT, [[9, 2]]]],
      [[SEQ, 1], [TS, BASE + 300n], [FLAGS, NEEDS], [EVENT, [[9, 2]]]],
      // Sequence 2 never clears its state: its packets that need it are dropped and counted.
      [[SEQ, 2], [TS, BASE + 400n], [FLAGS, NEEDS], [EVENT, [[9, 3], [11, 11], [23, 'dropped']]]],
      [[SEQ, 2], [TS, BASE + 410n], [FLAGS, NEEDS], [EVENT, [[9, 3], [11, 11], [23, 'dropped too']]]],
    ]));
    const db = await openTrace(path);
    try {
      const { rows } = await db.query(`select s.name, s.category, s.ts::VARCHAR as ts, s.dur, s.depth, t.name as thread, p.name as process
        from slice s join thread_track tt on tt.id = s.track_id join thread t using (utid) join process p using (upid) order by s.ts`);
      expect(rows).toEqual([
        { name: 'step', category: 'user_annotation', ts: (BASE + 100n).toString(), dur: 200, depth: 0, thread: 'main', process: 'app' },
        { name: 'kernel_a', category: null, ts: (BASE + 150n).toString(), dur: 20, depth: 1, thread: 'main', process: 'app' },
      ]);
      expect((await db.query(`select key, int_value from args`)).rows).toEqual([{ key: 'debug.env', int_value: 3 }]);
      expect(await db.stat('tokenizer_skipped_packets')).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('a BEGIN/END at one ts is a zero_dur_slice that closes at its END; an instant after it is its sibling', async () => {
    // What convert writes for a JSON X of dur 0 (issue 12): trace_processor puts the instant at depth 1 too.
    const ev = (ts: bigint, fields: Field[]): Field[] => [[SEQ, 1], [TS, ts], [EVENT, [[11, 11], ...fields]]];
    const path = files.write('zero-dur.pftrace', trace([
      [[SEQ, 1], [TS, BASE], [DESC, [[1, 10], [3, [[1, 42], [6, 'app']]]]]],
      [[SEQ, 1], [TS, BASE], [DESC, threadDescriptor(11, 42, 7, 'main')]],
      ev(BASE + 100n, [[9, 1], [23, 'outer']]),
      ev(BASE + 110n, [[9, 1], [23, 'empty']]),
      ev(BASE + 110n, [[9, 2]]),
      ev(BASE + 110n, [[9, 3], [23, 'mark']]),
      ev(BASE + 200n, [[9, 2]]),
    ]));
    const db = await openTrace(path);
    try {
      const { rows } = await db.query(`select s.name, s.dur, s.depth, z.slice_id is not null as zero
        from slice s left join zero_dur_slice z on z.slice_id = s.id order by s.ts, s.id`);
      expect(rows).toEqual([
        { name: 'outer', dur: 100, depth: 0, zero: false },
        { name: 'empty', dur: 0, depth: 1, zero: true },
        { name: 'mark', dur: 0, depth: 1, zero: false },
      ]);
    } finally {
      await db.close();
    }
  });

  it('counter tracks: units, incremental values reset with the sequence state, double values', async () => {
    const path = files.write('counters.pftrace', trace([
      [[SEQ, 1], [TS, 0], [FLAGS, CLEARED_AND_NEEDS], [DESC, [[1, 5], [2, 'iters'], [8, [[3, 2], [5, true]]]]]],
      [[SEQ, 1], [TS, 10], [EVENT, [[9, 4], [11, 5], [30, 3]]]],
      [[SEQ, 1], [TS, 20], [EVENT, [[9, 4], [11, 5], [30, 4]]]],
      [[SEQ, 1], [TS, 30], [FLAGS, CLEARED_AND_NEEDS]],
      [[SEQ, 1], [TS, 40], [EVENT, [[9, 4], [11, 5], [30, 2]]]],
      [[SEQ, 1], [TS, 50], [DESC, [[1, 6], [2, 'fps'], [8, []]]]],
      [[SEQ, 1], [TS, 60], [EVENT, [[9, 4], [11, 6], [44, { double: 0.25 }]]]],
    ]));
    const db = await openTrace(path);
    try {
      expect((await db.query(`select ct.name, ct.unit, c.ts, c.value from counter c join counter_track ct on ct.id = c.track_id order by c.ts`)).rows)
        .toEqual([
          { name: 'iters', unit: 'count', ts: 10, value: 3 },
          { name: 'iters', unit: 'count', ts: 20, value: 7 },
          { name: 'iters', unit: 'count', ts: 40, value: 2 },
          { name: 'fps', unit: null, ts: 60, value: 0.25 },
        ]);
    } finally {
      await db.close();
    }
  });

  it('reads our run metadata from the gsprof.metadata instant', async () => {
    const json = JSON.stringify({ hostname: 'h', run: { nEnvs: 128, backend: 'cpu' } });
    const path = files.write('meta.pftrace', trace([
      [[SEQ, 1], [TS, 0], [FLAGS, CLEARED_AND_NEEDS], [DESC, [[1, 1], [2, 'meta']]]],
      [[SEQ, 1], [TS, 0], [EVENT, [[9, 3], [11, 1], [23, 'gsprof.metadata'], [4, [[10, 'json'], [6, json]]]]]],
    ]));
    const db = await openTrace(path);
    try {
      expect(await db.metadata('gsprof.run.nEnvs')).toBe(128);
      expect(await db.metadata('gsprof.run.backend')).toBe('cpu');
      expect(await db.metadata('gsprof.json')).toBe(json);
    } finally {
      await db.close();
    }
  });

  it('truncated files and bad varints give one-line errors with the byte offset', async () => {
    const good = trace([
      [[SEQ, 1], [TS, 0], [FLAGS, CLEARED_AND_NEEDS], [DESC, [[1, 1], [2, 't']]]],
      [[SEQ, 1], [TS, 5], [EVENT, [[9, 3], [11, 1], [23, 'x']]]],
    ]);
    const cut = files.write('cut.pftrace', good.subarray(0, good.length - 3));
    const err = await openTrace(cut, { strict: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TraceFormatError);
    expect((err as Error).message).toMatch(/cut\.pftrace: byte \d+: truncated/);
    expect((err as Error).message).not.toContain('\n');
    // Perfetto's behaviour, the default: keep everything up to the last whole packet.
    const db = await openTrace(cut);
    try {
      expect((await db.query('select count(*) as n from track')).rows[0]!.n).toBe(1);
      expect(Number(await db.stat('truncated_bytes'))).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    const bad = Buffer.from(good);
    bad.fill(0xff, 4, 16); // an over-long varint inside the first packet
    await expect(openTrace(files.write('bad.pftrace', bad))).rejects.toThrow(/bad\.pftrace: byte \d+: /);
  });
});

describe('Perfetto legacy flows', () => {
  it('links legacy bind_id flows (flow_direction out -> in)', async () => {
    const legacyX = (name: string, ts: number, dir: number): Field[] => [[10, 1], [8, ts],
      [11, [[11, 1], [23, name], [6, [[2, 88], [3, 1], [8, 77], [13, dir]]]]]];
    const path = files.write('legacy.pftrace', trace([
      // A thread's track: trace_processor rejects a legacy X on a track of no thread.
      [[10, 1], [8, 0], [13, 3], [60, [[1, 1], [4, [[1, 5], [2, 6], [5, 't']]]]]],
      legacyX('out', 10_000, 2),
      legacyX('in', 20_000, 1),
    ]));
    const db = await openTrace(path);
    try {
      expect((await db.query(`select o.name as o, i.name as i, i.dur from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in`)).rows)
        .toEqual([{ o: 'out', i: 'in', dur: 1000 }]);
    } finally {
      await db.close();
    }
  });
});
