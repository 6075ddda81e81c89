/**
 * The Perfetto importer against trace_processor's documented semantics: clocks (snapshots, default and
 * sequence-scoped incremental clocks, conversion to the trace clock), track descriptors in any order, track
 * names, undeclared track uuids and incremental counters per sequence. Expected values were checked by hand
 * against trace_processor_shell on the same bytes; the tests do not need it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { trace, type Field } from './support/proto-writer.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

// TracePacket fields
const TS = 8, SEQ = 10, FLAGS = 13, EVENT = 11, DESC = 60, DEFAULTS = 59, SNAPSHOT = 6, CLOCK_ID = 58;
/** TracePacket.thread_descriptor and process_descriptor, the legacy descriptor packets. */
const THREAD_DESC = 44, PROCESS_DESC = 43;
const CLEARED = 1;
const BOOTTIME = 6, MONOTONIC = 3;
const BEGIN = 1, END = 2, INSTANT = 3, COUNTER = 4;

function clock(id: number, ts: number | bigint, incremental = false, multiplier = 0): Field {
  const c: Field[] = [[1, id], [2, ts]];
  if (incremental) c.push([3, true]);
  if (multiplier) c.push([4, multiplier]);
  return [1, c];
}

async function rows(path: string, sql: string): Promise<unknown[]> {
  const db = await openTrace(path);
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.close();
  }
}

async function stat(path: string, name: string): Promise<unknown> {
  const db = await openTrace(path);
  try {
    return await db.stat(name);
  } finally {
    await db.close();
  }
}

const SLICES = `select s.ts::VARCHAR as ts, s.dur, s.name, s.depth from slice s order by s.ts, s.depth`;

describe('Perfetto clocks', () => {
  it('SDK style: delta-encoded timestamps on a sequence-scoped incremental clock set by TracePacketDefaults', async () => {
    // What the Perfetto SDK writes: defaults name clock 64 (incremental, per sequence), a snapshot ties it to
    // BOOTTIME, and every packet's timestamp is a delta from the previous one.
    const path = files.write('sdk.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DEFAULTS, [[CLOCK_ID, 64], [11, [[11, 11]]]]],
        [SNAPSHOT, [clock(BOOTTIME, 1_000_000_000), clock(64, 1_000_000_000, true)]]],
      [[SEQ, 1], [TS, 0], [DESC, [[1, 11], [2, 'main']]]],
      [[SEQ, 1], [TS, 500], [EVENT, [[9, BEGIN], [23, 'outer']]]],
      [[SEQ, 1], [TS, 50], [EVENT, [[9, BEGIN], [23, 'inner']]]],
      [[SEQ, 1], [TS, 25], [EVENT, [[9, END]]]],
      [[SEQ, 1], [TS, 25], [EVENT, [[9, END]]]],
      // Another sequence using the same clock id 64 has its own clock (µs units here), not sequence 1's.
      [[SEQ, 2], [FLAGS, CLEARED], [DEFAULTS, [[CLOCK_ID, 64]]],
        [SNAPSHOT, [clock(BOOTTIME, 2_000_000_000), clock(64, 2_000_000, true, 1000)]]],
      [[SEQ, 2], [TS, 3], [EVENT, [[9, INSTANT], [11, 11], [23, 'other sequence']]]],
    ]));
    expect(await rows(path, SLICES)).toEqual([
      { ts: '1000000500', dur: 100, name: 'outer', depth: 0 },
      { ts: '1000000550', dur: 25, name: 'inner', depth: 1 },
      { ts: '2000003000', dur: 0, name: 'other sequence', depth: 0 },
    ]);
  });

  it('converts a MONOTONIC timestamp to BOOTTIME through the nearest earlier snapshot; no snapshot: dropped and counted', async () => {
    const path = files.write('mono.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 't']]]],
      [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000), clock(MONOTONIC, 1_000)]]],
      [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 50_000), clock(MONOTONIC, 2_000)]]], // 38 µs of suspend
      [[SEQ, 1], [TS, 1_500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'before suspend']]]],
      [[SEQ, 1], [TS, 2_500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'after suspend']]]],
      [[SEQ, 1], [TS, 500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'before any snapshot']]]],
      [[SEQ, 1], [TS, 60_000], [EVENT, [[9, INSTANT], [11, 1], [23, 'boottime']]]],
      [[SEQ, 1], [TS, 7], [CLOCK_ID, 1], [EVENT, [[9, INSTANT], [11, 1], [23, 'realtime, never synced']]]],
    ]));
    expect(await rows(path, SLICES)).toEqual([
      { ts: '9500', dur: 0, name: 'before any snapshot', depth: 0 },
      { ts: '10500', dur: 0, name: 'before suspend', depth: 0 },
      { ts: '50500', dur: 0, name: 'after suspend', depth: 0 },
      { ts: '60000', dur: 0, name: 'boottime', depth: 0 },
    ]);
    expect(await stat(path, 'clock_sync_failure')).toBe(1);
  });

  it('a primary_trace_clock of MONOTONIC makes BOOTTIME timestamps convert to it; no clock id means trace time', async () => {
    const path = files.write('primary.pftrace', trace([
      [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000), clock(MONOTONIC, 1_000), [2, MONOTONIC]]]],
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 't']]]],
      [[SEQ, 1], [TS, 10_200], [EVENT, [[9, INSTANT], [11, 1], [23, 'boot']]]],
      [[SEQ, 1], [TS, 1_300], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'mono']]]],
      [[SEQ, 1], [TS, 10_400], [CLOCK_ID, BOOTTIME], [EVENT, [[9, INSTANT], [11, 1], [23, 'explicit boot']]]],
    ]));
    // As trace_processor: a packet without a clock id is taken as already in the trace clock.
    expect(await rows(path, SLICES)).toEqual([
      { ts: '1300', dur: 0, name: 'mono', depth: 0 },
      { ts: '1400', dur: 0, name: 'explicit boot', depth: 0 },
      { ts: '10200', dur: 0, name: 'boot', depth: 0 },
    ]);
  });
});

describe('Perfetto track descriptors', () => {
  it('static_name and atrace_name name tracks', async () => {
    const path = files.write('names.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [10, 'static track']]]],
      [[SEQ, 1], [DESC, [[1, 2], [13, 'atrace track']]]],
      [[SEQ, 1], [TS, 5], [EVENT, [[9, INSTANT], [11, 1], [23, 'a']]]],
      [[SEQ, 1], [TS, 6], [EVENT, [[9, INSTANT], [11, 2], [23, 'b']]]],
    ]));
    expect(await rows(path, `select s.name, t.name as track from slice s join track t on t.id = s.track_id order by s.ts`))
      .toEqual([{ name: 'a', track: 'static track' }, { name: 'b', track: 'atrace track' }]);
  });

  it('a thread descriptor before its process descriptor gives one process, named by the process descriptor', async () => {
    const path = files.write('order.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 2], [4, [[1, 42], [2, 43], [5, 'worker']]]]]],
      [[SEQ, 1], [DESC, [[1, 1], [3, [[1, 42], [6, 'app']]]]]],
      [[SEQ, 1], [TS, 5], [EVENT, [[9, INSTANT], [11, 2], [23, 'x']]]],
    ]));
    expect(await rows(path, `select pid, name from process where pid = 42`)).toEqual([{ pid: 42, name: 'app' }]);
    expect(await rows(path, `select t.tid, t.name, p.name as process from slice s join thread_track tt on tt.id = s.track_id
      join thread t using (utid) join process p using (upid)`)).toEqual([{ tid: 43, name: 'worker', process: 'app' }]);
  });

  it('events on an undeclared uuid land on a track named by the first event; a later descriptor adopts them', async () => {
    const path = files.write('undeclared.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [TS, 5], [EVENT, [[9, INSTANT], [11, 99], [23, 'orphan']]]],
      [[SEQ, 1], [TS, 6], [EVENT, [[9, INSTANT], [11, 7], [23, 'early']]]],
      [[SEQ, 1], [DESC, [[1, 7], [4, [[1, 10], [2, 11], [5, 'late thread']]]]]],
      [[SEQ, 1], [TS, 8], [EVENT, [[9, INSTANT], [11, 7], [23, 'on time']]]],
    ]));
    expect(await rows(path, `select s.name, t.name as track, t.type from slice s join track t on t.id = s.track_id order by s.ts`))
      .toEqual([
        { name: 'orphan', track: 'orphan', type: 'global' },
        // As trace_processor_shell v58.2: a thread's track is unnamed (its thread is 'late thread').
        { name: 'early', track: null, type: 'thread' },
        { name: 'on time', track: null, type: 'thread' },
      ]);
  });

  it('incremental counters accumulate per sequence and reset with that sequence\'s state', async () => {
    const path = files.write('counters.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 5], [2, 'bytes'], [8, [[5, true]]]]]],
      [[SEQ, 1], [TS, 10], [EVENT, [[9, COUNTER], [11, 5], [30, 100]]]],
      [[SEQ, 2], [FLAGS, CLEARED], [TS, 20], [EVENT, [[9, COUNTER], [11, 5], [30, 1]]]],
      [[SEQ, 1], [TS, 30], [EVENT, [[9, COUNTER], [11, 5], [30, 100]]]],
      [[SEQ, 2], [TS, 40], [EVENT, [[9, COUNTER], [11, 5], [30, 1]]]],
    ]));
    expect(await rows(path, `select ts, value from counter order by ts`)).toEqual([
      { ts: 10, value: 100 }, { ts: 20, value: 1 }, { ts: 30, value: 200 }, { ts: 40, value: 2 },
    ]);
  });
});

describe('Perfetto thread time and instruction counts', () => {
  it('thread_time_absolute_us and thread_instruction_count_absolute become counters of the event\'s thread', async () => {
    const path = files.write('thread-time.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 1], [23, 'work'], [17, 7], [20, 1000]]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, END], [11, 1], [17, 9], [20, 1500]]]],
      // A thread TrackDescriptor is a ThreadDescriptor too: a delta counts from its reference (none: 0).
      [[SEQ, 1], [TS, 400], [EVENT, [[9, INSTANT], [11, 1], [23, 'delta'], [2, 5]]]],
    ]));
    expect(await rows(path, `select t.name, th.name as thread, c.ts::VARCHAR as ts, c.value from counter c
      join track t on t.id = c.track_id join thread th using (utid) order by t.name, c.ts`)).toEqual([
      { name: 'thread_instruction_count', thread: 'main', ts: '100', value: 1000 },
      { name: 'thread_instruction_count', thread: 'main', ts: '300', value: 1500 },
      // µs in the event, ns in the counter, as trace_processor stores them.
      { name: 'thread_time', thread: 'main', ts: '100', value: 7000 },
      { name: 'thread_time', thread: 'main', ts: '300', value: 9000 },
      { name: 'thread_time', thread: 'main', ts: '400', value: 5000 },
    ]);
    expect(await rows(path, SLICES)).toEqual([
      { ts: '100', dur: 200, name: 'work', depth: 0 },
      { ts: '400', dur: 0, name: 'delta', depth: 0 },
    ]);
  });

  it('an unnamed thread-time counter descriptor of the thread is named thread_time and takes the absolute values too', async () => {
    const path = files.write('thread-time-track.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      // CounterDescriptor.type 1: COUNTER_THREAD_TIME_NS, unit ns; parent: the thread's track.
      [[SEQ, 1], [DESC, [[1, 2], [5, 1], [8, [[1, 1], [3, 1]]]]]],
      [[SEQ, 1], [TS, 50], [EVENT, [[9, COUNTER], [11, 2], [30, 4000]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'work'], [17, 7]]]],
    ]));
    expect(await rows(path, `select t.name, c.ts::VARCHAR as ts, c.value from counter c join track t on t.id = c.track_id
      order by c.ts`)).toEqual([
      { name: 'thread_time', ts: '50', value: 4000 },
      { name: 'thread_time', ts: '100', value: 7000 },
    ]);
  });
});

describe('Perfetto thread time in slice columns', () => {
  const SLICE_TT = 'select s.name, s.thread_ts, s.thread_dur from slice s order by s.ts';

  it('thread_time_absolute_us of a thread\'s begin, end and instant give thread_ts and thread_dur in ns', async () => {
    const path = files.write('slice-thread-time.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [DESC, [[1, 3], [3, [[1, 10]]]]]],
      [[SEQ, 1], [DESC, [[1, 4], [5, 3], [2, 'async']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 1], [23, 'work'], [17, 7]]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, END], [11, 1], [17, 9]]]],
      [[SEQ, 1], [TS, 400], [EVENT, [[9, INSTANT], [11, 1], [23, 'inst'], [17, 12]]]],
      [[SEQ, 1], [TS, 500], [EVENT, [[9, BEGIN], [11, 1], [23, 'no end time'], [17, 20]]]],
      [[SEQ, 1], [TS, 600], [EVENT, [[9, END], [11, 1]]]],
      [[SEQ, 1], [TS, 700], [EVENT, [[9, BEGIN], [11, 1], [23, 'same end time'], [17, 21]]]],
      [[SEQ, 1], [TS, 800], [EVENT, [[9, END], [11, 1], [17, 21]]]],
      [[SEQ, 1], [TS, 900], [EVENT, [[9, BEGIN], [11, 4], [23, 'async'], [17, 30]]]],
      [[SEQ, 1], [TS, 950], [EVENT, [[9, END], [11, 4], [17, 31]]]],
      [[SEQ, 1], [TS, 1000], [EVENT, [[9, BEGIN], [11, 1], [23, 'open'], [17, 40]]]],
    ]));
    // What trace_processor_shell v58.2 gives on these bytes: an end whose thread time equals the begin's leaves
    // thread_dur NULL, an instant has thread_dur 0, a slice on a process's async track keeps no thread time.
    expect(await rows(path, SLICE_TT)).toEqual([
      { name: 'work', thread_ts: 7000, thread_dur: 2000 },
      { name: 'inst', thread_ts: 12_000, thread_dur: 0 },
      { name: 'no end time', thread_ts: 20_000, thread_dur: null },
      { name: 'same end time', thread_ts: 21_000, thread_dur: null },
      { name: 'async', thread_ts: null, thread_dur: null },
      { name: 'open', thread_ts: 40_000, thread_dur: null },
    ]);
  });

  it('delta-encoded thread time and a legacy X\'s thread_duration_us', async () => {
    const path = files.write('slice-thread-time-legacy.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [THREAD_DESC, [[1, 10], [2, 11], [5, 'legacy'], [6, 1000], [7, 50]]]],
      [[SEQ, 1], [EVENT, [[9, BEGIN], [23, 'outer'], [1, 10], [2, 2]]]],
      [[SEQ, 1], [EVENT, [[9, END], [1, 20], [2, 3]]]],
      // LegacyEvent phase 'X' (88), duration_us 3 = 4, thread_duration_us 4 = 2.
      [[SEQ, 1], [EVENT, [[23, 'legacy x'], [1, 5], [2, 1], [6, [[2, 88], [3, 4], [4, 2]]]]]],
      [[SEQ, 1], [EVENT, [[23, 'legacy x, no thread time'], [1, 10], [6, [[2, 88], [3, 4], [4, 2]]]]]],
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes.
    expect(await rows(path, SLICE_TT)).toEqual([
      { name: 'outer', thread_ts: 52_000, thread_dur: 3000 },
      { name: 'legacy x', thread_ts: 56_000, thread_dur: 2000 },
      { name: 'legacy x, no thread time', thread_ts: null, thread_dur: null },
    ]);
  });

  it('extra counter values on a thread_time counter track, from TrackEventDefaults or the event', async () => {
    const path = files.write('slice-thread-time-extra.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      // COUNTER_THREAD_TIME_NS (unnamed: named thread_time), incremental, unit_multiplier 1000.
      [[SEQ, 1], [DESC, [[1, 2], [5, 1], [8, [[1, 1], [3, 1], [5, true], [4, 1000]]]]]],
      // A plain counter track that is named thread_time counts as well.
      [[SEQ, 1], [DESC, [[1, 6], [5, 1], [2, 'thread_time'], [8, []]]]],
      [[SEQ, 1], [DEFAULTS, [[11, [[11, 1], [31, 2]]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [23, 'incremental'], [12, 7]]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, END], [12, 3]]]],
      [[SEQ, 1], [TS, 350], [EVENT, [[9, INSTANT], [23, 'over the absolute field'], [12, 1], [17, 50]]]],
      [[SEQ, 1], [TS, 400], [EVENT, [[9, BEGIN], [23, 'double'], [45, 6], [46, { double: 1234.7 }]]]],
      [[SEQ, 1], [TS, 500], [EVENT, [[9, END], [45, 6], [46, { double: 2000.2 }]]]],
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes (a double value is truncated to whole ns).
    expect(await rows(path, SLICE_TT)).toEqual([
      { name: 'incremental', thread_ts: 7000, thread_dur: 3000 },
      { name: 'over the absolute field', thread_ts: 11_000, thread_dur: 0 },
      { name: 'double', thread_ts: 1234, thread_dur: 766 },
    ]);
  });
});

describe('Perfetto debug annotation types', () => {
  it('a double annotation is a real even when its value is an integer, in an array too', async () => {
    // DebugAnnotation: name 10, int_value 4, double_value 5, array_values 12.
    const path = files.write('double-annotation.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'i'], [4, [[10, 'd'], [5, { double: 1 }]]],
        [4, [[10, 'n'], [4, 1]]], [4, [[10, 'arr'], [12, [[5, { double: 2 }]]], [12, [[4, 3]]]]]]]],
    ]));
    // As trace_processor_shell v58.2 types them on these bytes.
    expect(await rows(path, `select key, value_type from args order by key`)).toEqual([
      { key: 'debug.arr[0]', value_type: 'real' }, { key: 'debug.arr[1]', value_type: 'int' },
      { key: 'debug.d', value_type: 'real' }, { key: 'debug.n', value_type: 'int' },
    ]);
  });
});

describe('Perfetto debug annotations without a value', () => {
  it('one with only a name is no arg, and as an array element it takes no index, as in trace_processor', async () => {
    // What gsprof writes for a null (l: [null, 5, null, 6], m: {n: null}); trace_processor_shell v58.2 aborts on a
    // legacy_json_value of "null" and reads these bytes as the rows below.
    const path = files.write('null-annotations.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'i'], [4, [[10, 'n']]],
        [4, [[10, 'l'], [12, []], [12, [[4, 5]]], [12, []], [12, [[4, 6]]]]], [4, [[10, 'm'], [11, [[10, 'n']]]]]]]],
    ]));
    expect(await rows(path, 'select key, int_value from args order by key')).toEqual([
      { key: 'debug.l[0]', int_value: 5 }, { key: 'debug.l[1]', int_value: 6 },
    ]);
  });
});

describe('Perfetto debug annotation names', () => {
  it('a name with a dot or brackets is keyed with underscores, as in trace_processor', async () => {
    const path = files.write('dotted-annotations.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'i'], [4, [[10, 'a.b'], [4, 1]]], [4, [[10, 'c[0]'], [4, 2]]],
        [4, [[10, 'd'], [11, [[10, 'e.f'], [4, 3]]]]], [4, [[10, 'g h'], [4, 4]]]]]],
    ]));
    // The keys trace_processor_shell v58.2 gives on these bytes.
    expect(await rows(path, 'select key, int_value from args order by key')).toEqual([
      { key: 'debug.a_b', int_value: 1 }, { key: 'debug.c_0_', int_value: 2 },
      { key: 'debug.d.e_f', int_value: 3 }, { key: 'debug.g h', int_value: 4 },
    ]);
  });
});

describe('Perfetto thread track names', () => {
  it('a thread\'s track is not named after its thread, as in trace_processor; a descriptor\'s own name is kept', async () => {
    const path = files.write('thread-track-names.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [DESC, [[1, 2], [2, 'named track'], [4, [[1, 10], [2, 12], [5, 'other']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'a']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 2], [23, 'b']]]],
    ]));
    // trace_processor_shell v58.2 gives NULL for both tracks: gsprof keeps the name the second descriptor gives
    // (summaries show a track by it; docs/trace-processor-comparison.md N1).
    expect(await rows(path, `select t.name as track, th.tid, th.name as thread from thread_track t join thread th using (utid)
      order by th.tid`)).toEqual([
      { track: null, tid: 11, thread: 'main' },
      { track: 'named track', tid: 12, thread: 'other' },
    ]);
  });
});

describe('Perfetto END matching', () => {
  it('an END closes the innermost open slice its name matches; one matching none is dropped', async () => {
    const path = files.write('end-names.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 1], [23, 'outer']]]],
      [[SEQ, 1], [TS, 120], [EVENT, [[9, BEGIN], [11, 1], [23, 'inner']]]],
      [[SEQ, 1], [TS, 150], [EVENT, [[9, END], [11, 1], [23, 'outer']]]],
      [[SEQ, 1], [TS, 200], [EVENT, [[9, END], [11, 1], [23, 'inner']]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, BEGIN], [11, 1], [23, 'a']]]],
      [[SEQ, 1], [TS, 350], [EVENT, [[9, END], [11, 1], [23, 'zzz']]]],
      [[SEQ, 1], [TS, 400], [EVENT, [[9, END], [11, 1]]]],
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes: 'outer' ends at its END, 'inner' (still open in
    // it) ends with it at the next event (misplaced_end_event 1), the END named 'zzz' closes nothing.
    expect(await rows(path, SLICES)).toEqual([
      { ts: '100', dur: 50, name: 'outer', depth: 0 },
      { ts: '120', dur: 30, name: 'inner', depth: 1 },
      { ts: '300', dur: 100, name: 'a', depth: 0 },
    ]);
    expect(await stat(path, 'misplaced_end_event')).toBe(1);
  });
});

describe('Perfetto incremental state', () => {
  it('a clear keeps the sequence\'s default track, not its default clock (as trace_processor)', async () => {
    // Perfetto's own track_event_counters.pftrace relies on it: an instant after a clear has no track_uuid.
    const path = files.write('defaults-after-clear.pftrace', trace([
      [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000), clock(MONOTONIC, 1_000)]]],
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]],
        [DEFAULTS, [[CLOCK_ID, MONOTONIC], [11, [[11, 1]]]]]],
      [[SEQ, 1], [TS, 1_100], [EVENT, [[9, INSTANT], [23, 'before clear']]]],
      [[SEQ, 1], [TS, 1_200], [FLAGS, CLEARED], [DESC, [[1, 2], [2, 'other']]]],
      [[SEQ, 1], [TS, 1_300], [EVENT, [[9, INSTANT], [23, 'after clear']]]],
      [[SEQ, 1], [TS, 1_400], [41, true], [EVENT, [[9, INSTANT], [23, 'after state cleared']]]],
    ]));
    expect(await rows(path, `select s.ts, s.name, t.tid from slice s join thread_track tt on tt.id = s.track_id
      join thread t using (utid) order by s.ts`)).toEqual([
      { ts: 1_300, name: 'after clear', tid: 11 },
      { ts: 1_400, name: 'after state cleared', tid: 11 },
      { ts: 10_100, name: 'before clear', tid: 11 },
    ]);
  });
});

describe('Perfetto packet loss', () => {
  it('after previous_packet_dropped, packets needing incremental state wait for a clear; deltas and incremental counters restart', async () => {
    const DROPPED = 42, INTERNED = 12, NEEDS_STATE = 2;
    const path = files.write('packet-loss.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [THREAD_DESC, [[1, 10], [2, 11], [5, 'main'], [6, 1]]],
        [INTERNED, [[2, [[1, 1], [2, 'interned']]]]]],
      [[SEQ, 1], [DESC, [[1, 5], [2, 'bytes'], [8, [[5, true]]]]]],
      [[SEQ, 1], [TS, 10], [EVENT, [[9, COUNTER], [11, 5], [30, 100]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'delta ok'], [1, 1]]]],
      [[SEQ, 1], [TS, 3000], [FLAGS, NEEDS_STATE], [EVENT, [[9, INSTANT], [10, 1]]]],
      // The loss: this packet itself is read (it needs no state), on the sequence's thread.
      [[SEQ, 1], [TS, 4000], [DROPPED, 1], [EVENT, [[9, INSTANT], [23, 'after loss']]]],
      [[SEQ, 1], [TS, 5000], [FLAGS, NEEDS_STATE], [EVENT, [[9, INSTANT], [10, 1]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'delta after loss'], [1, 1]]]],
      [[SEQ, 1], [TS, 6000], [EVENT, [[9, COUNTER], [11, 5], [30, 1]]]],
      [[SEQ, 1], [TS, 7000], [FLAGS, CLEARED]],
      [[SEQ, 1], [TS, 8000], [FLAGS, NEEDS_STATE], [EVENT, [[9, INSTANT], [23, 'after clear']]]],
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes.
    expect(await rows(path, THREADS)).toEqual([
      { ts: '2000', dur: 0, name: 'delta ok', depth: 0, tid: 11, thread: 'main', pid: 10 },
      { ts: '3000', dur: 0, name: 'interned', depth: 0, tid: 11, thread: 'main', pid: 10 },
      { ts: '4000', dur: 0, name: 'after loss', depth: 0, tid: 11, thread: 'main', pid: 10 },
      { ts: '8000', dur: 0, name: 'after clear', depth: 0, tid: 11, thread: 'main', pid: 10 },
    ]);
    expect(await rows(path, COUNTERS)).toEqual([
      { name: 'bytes', ts: '10', value: 100 }, { name: 'bytes', ts: '6000', value: 1 },
    ]);
    expect(await stat(path, 'tokenizer_skipped_packets')).toBe(1);
    expect(await stat(path, 'track_event_skipped_timestamp_delta_without_valid_state')).toBe(1);
  });
});

describe('Perfetto events without a time', () => {
  it('drops a TrackEvent with no packet timestamp and no legacy one, as trace_processor', async () => {
    const path = files.write('no-timestamp.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'with ts']]]],
      // Before, these took the previous packet's time (100), and the begin made a slice of 200.
      [[SEQ, 1], [EVENT, [[9, INSTANT], [11, 1], [23, 'no ts']]]],
      [[SEQ, 1], [EVENT, [[9, BEGIN], [11, 1], [23, 'begin no ts']]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, END], [11, 1]]]],
    ]));
    expect(await rows(path, SLICES)).toEqual([{ ts: '100', dur: 0, name: 'with ts', depth: 0 }]);
    expect(await stat(path, 'track_event_missing_timestamp')).toBe(2);
  });
});

describe('Perfetto event names', () => {
  it('an interned name (the event\'s, else its legacy event\'s) wins over a plain one; one that does not resolve leaves no name', async () => {
    const INTERNED = 12;
    const ev = (ts: number, fields: Field[]): Field[] => [[SEQ, 1], [TS, ts], [EVENT, [[9, INSTANT], [11, 1], ...fields]]];
    const path = files.write('event-names.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]],
        [INTERNED, [[2, [[1, 1], [2, 'interned one']]], [2, [[1, 2], [2, 'interned two']]]]]],
      ev(100, [[23, 'plain']]),
      ev(200, [[23, 'plain'], [10, 1]]),
      ev(300, [[10, 9], [23, 'plain']]),
      ev(400, [[23, 'plain'], [6, [[1, 2]]]]),
      ev(500, [[10, 1], [6, [[1, 2]]]]),
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes.
    expect(await rows(path, `select s.ts, s.name from slice s order by s.ts`)).toEqual([
      { ts: 100, name: 'plain' }, { ts: 200, name: 'interned one' }, { ts: 300, name: null },
      { ts: 400, name: 'interned two' }, { ts: 500, name: 'interned one' },
    ]);
    expect(await stat(path, 'interned_data_tokenizer_errors')).toBe(1);
  });
});

describe('Perfetto debug annotations', () => {
  it('merges the annotations of a slice\'s begin and end that share a key: the end\'s value wins, arrays append', async () => {
    const path = files.write('merged-annotations.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 6], [5, 'main']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 1], [23, 'a'],
        [4, [[10, 'k'], [4, 1]]], [4, [[10, 'arr'], [12, [[4, 1]]], [12, [[4, 2]]]]]]]],
      [[SEQ, 1], [TS, 200], [EVENT, [[9, END], [11, 1],
        [4, [[10, 'k'], [4, 2]]], [4, [[10, 'arr'], [12, [[4, 3]]]]], [4, [[10, 'new'], [4, 9]]]]]],
    ]));
    expect(await rows(path, `select key, int_value from args order by key`)).toEqual([
      { key: 'debug.arr[0]', int_value: 1 },
      { key: 'debug.arr[1]', int_value: 2 },
      { key: 'debug.arr[2]', int_value: 3 },
      { key: 'debug.k', int_value: 2 },
      { key: 'debug.new', int_value: 9 },
    ]);
  });
});

describe('Perfetto nesting at one timestamp', () => {
  it('an instant written before a begin at its ts stays outside the slice, in order or not (as trace_processor)', async () => {
    // Every gsprof recording starts so: the gsprof.metadata instant, then the first slice at the same ts.
    // Track 2 has an earlier event written last, which sends its nesting through the out-of-order path.
    const path = files.write('instant-then-begin.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 6], [5, 'main']]]]]],
      [[SEQ, 1], [DESC, [[1, 2], [4, [[1, 5], [2, 7], [5, 'worker']]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'mark']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 1], [23, 'step']]]],
      [[SEQ, 1], [TS, 150], [EVENT, [[9, INSTANT], [11, 1], [23, 'inside']]]],
      [[SEQ, 1], [TS, 200], [EVENT, [[9, END], [11, 1]]]],
      [[SEQ, 1], [TS, 300], [EVENT, [[9, INSTANT], [11, 2], [23, 'late']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 2], [23, 'mark 2']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, BEGIN], [11, 2], [23, 'step 2']]]],
      [[SEQ, 1], [TS, 200], [EVENT, [[9, END], [11, 2]]]],
    ]));
    expect(await rows(path, `select s.name, s.depth, p.name as parent from slice s left join slice p on p.id = s.parent_id
      order by s.id`)).toEqual([
      { name: 'mark', depth: 0, parent: null },
      { name: 'step', depth: 0, parent: null },
      { name: 'inside', depth: 1, parent: 'step' },
      { name: 'late', depth: 0, parent: null },
      { name: 'mark 2', depth: 0, parent: null },
      { name: 'step 2', depth: 0, parent: null },
    ]);
  });
});

// TrackEvent's legacy fields: timestamp_delta_us 1, timestamp_absolute_us 16, thread_time_delta_us 2,
// thread_time_absolute_us 17, thread_instruction_count_delta 8, thread_instruction_count_absolute 20; LegacyEvent
// (field 6): phase 2, duration_us 3. ThreadDescriptor: pid 1, tid 2, thread_name 5, reference_timestamp_us 6,
// reference_thread_time_us 7, reference_thread_instruction_count 8.
const THREADS = `select s.ts::VARCHAR as ts, s.dur, s.name, s.depth, t.tid, t.name as thread, p.pid from slice s
  join thread_track tt on tt.id = s.track_id join thread t using (utid) join process p using (upid) order by s.ts`;
const COUNTERS = `select t.name, c.ts::VARCHAR as ts, c.value from counter c join track t on t.id = c.track_id
  order by t.name, c.ts`;

describe('Perfetto legacy ThreadDescriptor and delta-encoded events', () => {
  it('a ThreadDescriptor packet is the sequence\'s thread, and its references start the deltas', async () => {
    const path = files.write('thread-descriptor.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [THREAD_DESC, [[1, 10], [2, 11], [5, 'legacy main'], [6, 1000], [7, 50], [8, 500]]]],
      // The delta wins over the packet's own timestamp.
      [[SEQ, 1], [TS, 999_999], [EVENT, [[9, BEGIN], [23, 'outer'], [1, 10], [2, 2], [8, 100]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'mark'], [1, 5], [2, 1], [8, 10]]]],
      [[SEQ, 1], [EVENT, [[9, END], [1, 20], [2, 3], [8, 40]]]],
      // Absolute values are one-offs: the next delta counts from the last delta, not from them.
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'abs'], [16, 1100], [17, 90], [20, 900]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'after abs'], [1, 1]]]],
      [[SEQ, 1], [TS, 2_000_000], [EVENT, [[9, INSTANT], [23, 'packet ts']]]],
    ]));
    // As trace_processor_shell v58 gives them on these bytes (its thread table also lists pid 10's main thread).
    expect(await rows(path, THREADS)).toEqual([
      { ts: '1010000', dur: 25_000, name: 'outer', depth: 0, tid: 11, thread: 'legacy main', pid: 10 },
      { ts: '1015000', dur: 0, name: 'mark', depth: 1, tid: 11, thread: 'legacy main', pid: 10 },
      { ts: '1036000', dur: 0, name: 'after abs', depth: 0, tid: 11, thread: 'legacy main', pid: 10 },
      { ts: '1100000', dur: 0, name: 'abs', depth: 0, tid: 11, thread: 'legacy main', pid: 10 },
      { ts: '2000000', dur: 0, name: 'packet ts', depth: 0, tid: 11, thread: 'legacy main', pid: 10 },
    ]);
    expect(await rows(path, COUNTERS)).toEqual([
      { name: 'thread_instruction_count', ts: '1010000', value: 600 },
      { name: 'thread_instruction_count', ts: '1015000', value: 610 },
      { name: 'thread_instruction_count', ts: '1035000', value: 650 },
      { name: 'thread_instruction_count', ts: '1100000', value: 900 },
      { name: 'thread_time', ts: '1010000', value: 52_000 },
      { name: 'thread_time', ts: '1015000', value: 53_000 },
      { name: 'thread_time', ts: '1035000', value: 56_000 },
      { name: 'thread_time', ts: '1100000', value: 90_000 },
    ]);
  });

  it('legacy timestamps are in the MONOTONIC clock, converted to the trace clock through a snapshot', async () => {
    const path = files.write('legacy-monotonic.pftrace', trace([
      [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000_000), clock(MONOTONIC, 1_000_000)]]],
      [[SEQ, 1], [FLAGS, CLEARED], [THREAD_DESC, [[1, 10], [2, 11], [5, 'main'], [6, 1000]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'delta'], [1, 5]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [23, 'absolute'], [16, 1010]]]],
      [[SEQ, 1], [TS, 10_020_000], [EVENT, [[9, INSTANT], [23, 'packet (boottime)']]]],
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes.
    expect(await rows(path, `select s.ts::VARCHAR as ts, s.name from slice s order by s.ts`)).toEqual([
      { ts: '10005000', name: 'delta' }, { ts: '10010000', name: 'absolute' }, { ts: '10020000', name: 'packet (boottime)' },
    ]);
  });

  it('a thread TrackDescriptor\'s reference values start the deltas too', async () => {
    const path = files.write('track-descriptor-references.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 40], [2, 41], [5, 'td thread'], [6, 3000], [7, 100]]]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'tt delta'], [2, 5]]]],
      [[SEQ, 1], [EVENT, [[9, INSTANT], [11, 1], [23, 'ts delta'], [1, 5]]]],
    ]));
    expect(await rows(path, THREADS)).toEqual([
      { ts: '100', dur: 0, name: 'tt delta', depth: 0, tid: 41, thread: 'td thread', pid: 40 },
      { ts: '3005000', dur: 0, name: 'ts delta', depth: 0, tid: 41, thread: 'td thread', pid: 40 },
    ]);
    expect(await rows(path, COUNTERS)).toEqual([{ name: 'thread_time', ts: '100', value: 105_000 }]);
  });

  it('drops a delta-encoded event without valid references: none yet, a descriptor before the state was valid, a clear since', async () => {
    const path = files.write('deltas-without-descriptor.pftrace', trace([
      [[SEQ, 2], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 'custom']]]],
      [[SEQ, 2], [TS, 100], [EVENT, [[9, INSTANT], [11, 1], [23, 'ok']]]],
      [[SEQ, 2], [TS, 200], [EVENT, [[9, INSTANT], [11, 1], [23, 'ts delta'], [1, 5]]]],
      [[SEQ, 2], [TS, 300], [EVENT, [[9, INSTANT], [11, 1], [23, 'tt delta'], [2, 5]]]],
      [[SEQ, 2], [TS, 400], [EVENT, [[9, INSTANT], [11, 1], [23, 'ic delta'], [8, 5]]]],
      // Before the sequence's first clear the descriptor is ignored whole (its thread is not made either).
      [[SEQ, 3], [THREAD_DESC, [[1, 20], [2, 21], [5, 'too early'], [6, 1]]]],
      [[SEQ, 3], [FLAGS, CLEARED], [THREAD_DESC, [[1, 20], [2, 22], [5, 'second'], [6, 1000]]]],
      [[SEQ, 3], [EVENT, [[9, INSTANT], [23, 'd1'], [1, 1]]]],
      // A clear ends the references, not the sequence's thread.
      [[SEQ, 3], [FLAGS, CLEARED], [TS, 5_000_000], [EVENT, [[9, INSTANT], [23, 'after clear']]]],
      [[SEQ, 3], [EVENT, [[9, INSTANT], [23, 'delta after clear'], [1, 1]]]],
      [[SEQ, 3], [TS, 6_000_000], [EVENT, [[9, BEGIN], [23, 'b'], [2, 7]]]],
    ]));
    expect(await rows(path, `select s.ts::VARCHAR as ts, s.name, t.tid, t.name as thread from slice s
      left join thread_track tt on tt.id = s.track_id left join thread t using (utid) order by s.ts`)).toEqual([
      { ts: '100', name: 'ok', tid: null, thread: null },
      { ts: '1001000', name: 'd1', tid: 22, thread: 'second' },
      { ts: '5000000', name: 'after clear', tid: 22, thread: 'second' },
    ]);
    expect(await rows(path, `select tid, name from thread`)).toEqual([{ tid: 22, name: 'second' }]);
    expect(await stat(path, 'track_event_skipped_timestamp_delta_without_valid_state')).toBe(2);
    expect(await stat(path, 'track_event_skipped_thread_time_delta_without_valid_state')).toBe(2);
    expect(await stat(path, 'track_event_skipped_thread_instruction_delta_without_valid_state')).toBe(1);
    expect(await stat(path, 'thread_descriptor_skipped_incremental_state_invalid')).toBe(1);
  });

  it('a ProcessDescriptor packet names its pid\'s process, made by it or by a thread before', async () => {
    const path = files.write('process-descriptor.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [PROCESS_DESC, [[1, 10], [6, 'browser']]]],
      [[SEQ, 1], [THREAD_DESC, [[1, 10], [2, 11], [5, 'main']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[9, INSTANT], [23, 'a']]]],
      [[SEQ, 2], [FLAGS, CLEARED], [THREAD_DESC, [[1, 20], [2, 21], [5, 'io']]]],
      [[SEQ, 2], [TS, 200], [EVENT, [[9, INSTANT], [23, 'b']]]],
      [[SEQ, 2], [PROCESS_DESC, [[1, 20], [6, 'renderer']]]],
    ]));
    expect(await rows(path, `select p.pid, p.name as process, t.tid, t.name as thread, s.name from slice s
      join thread_track tt on tt.id = s.track_id join thread t using (utid) join process p using (upid)
      order by s.ts`)).toEqual([
      { pid: 10, process: 'browser', tid: 11, thread: 'main', name: 'a' },
      { pid: 20, process: 'renderer', tid: 21, thread: 'io', name: 'b' },
    ]);
    // One process per pid (trace_processor's table also has its pid 0 placeholder row).
    expect(await rows(path, `select count(*)::INTEGER as n from process`)).toEqual([{ n: 2 }]);
  });
});

describe('Perfetto legacy async events', () => {
  it('a global or unscoped id is a track in no process, a local id one of the event\'s process', async () => {
    // LegacyEvent: unscoped_id 6, local_id 10, global_id 11; phases 'b' and 'e'.
    const b = 'b'.charCodeAt(0), e = 'e'.charCodeAt(0);
    const ev = (ts: number, phase: number, idField: number, name?: string): Field[] =>
      [[SEQ, 1], [TS, ts], [EVENT, [...(name ? [[23, name] as Field] : []), [22, 'cat'], [6, [[2, phase], [idField, 7]]]]]];
    const path = files.write('legacy-async.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [THREAD_DESC, [[1, 10], [2, 11], [5, 'main']]]],
      ev(100, b, 11, 'global'), ev(200, e, 11),
      ev(300, b, 6, 'unscoped'), ev(400, e, 6),
      ev(500, b, 10, 'local'), ev(600, e, 10),
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes (its global ones have type legacy_async_global_slice).
    expect(await rows(path, `select s.name, s.dur, p.pid from slice s left join process_track pt on pt.id = s.track_id
      left join process p using (upid) order by s.ts`)).toEqual([
      { name: 'global', dur: 100, pid: null },
      { name: 'unscoped', dur: 100, pid: null },
      { name: 'local', dur: 100, pid: 10 },
    ]);
  });
});

describe('Perfetto legacy phases off a thread', () => {
  it('rejects a legacy B, E, X or thread-scoped instant on a process or global track, as trace_processor', async () => {
    const L = (ts: number, track: number, name: string, phase: string, extra: Field[] = []): Field[] =>
      [[SEQ, 1], [TS, ts], [EVENT, [[11, track], [23, name], [6, [[2, phase.charCodeAt(0)], ...extra]]]]];
    const path = files.write('legacy-off-thread.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
      [[SEQ, 1], [DESC, [[1, 2], [3, [[1, 10], [6, 'proc']]]]]],
      [[SEQ, 1], [DESC, [[1, 3], [2, 'custom']]]],
      L(100, 1, 'x on thread', 'X', [[3, 1]]),
      L(200, 2, 'x on process', 'X', [[3, 1]]),
      L(300, 3, 'b on global', 'B'), L(400, 3, '', 'E'),
      L(500, 2, 'i on process', 'I'),
      // LegacyEvent.instant_event_scope 2: the process's, which needs no thread.
      L(550, 2, 'i process scope', 'I', [[14, 2]]),
      L(700, 3, 'R on global', 'R'),
    ]));
    // As trace_processor_shell v58.2 gives them on these bytes.
    expect(await rows(path, SLICES)).toEqual([
      { ts: '100', dur: 1000, name: 'x on thread', depth: 0 },
      { ts: '550', dur: 0, name: 'i process scope', depth: 0 },
      { ts: '700', dur: 0, name: 'R on global', depth: 0 },
    ]);
    expect(await stat(path, 'track_event_parser_errors')).toBe(4);
  });
});

describe('Perfetto legacy complete (X) events', () => {
  it('drops an X that ends after the slice it starts in, where the JSON importer moves it aside', async () => {
    const X = (name: string, ts: number, durUs: number): Field[] =>
      [[SEQ, 4], [TS, ts], [EVENT, [[23, name], [6, [[2, 'X'.charCodeAt(0)], [3, durUs]]]]]];
    const path = files.write('overflowing-x.pftrace', trace([
      [[SEQ, 4], [FLAGS, CLEARED], [THREAD_DESC, [[1, 30], [2, 31], [5, 'x thread']]]],
      // B2's reproducer: sync overflows memcpy; after nests in memcpy as if sync were not there.
      X('memcpy', 10_000, 10), X('sync', 15_000, 10), X('after', 16_000, 1),
      X('later', 30_000, 10),
      [[SEQ, 4], [TS, 31_000], [EVENT, [[9, BEGIN], [23, 'open']]]],
      X('in open', 32_000, 2), X('overflows in open', 33_000, 2),
      [[SEQ, 4], [TS, 36_000], [EVENT, [[9, END]]]],
      X('after open', 37_000, 1),
    ]));
    // As trace_processor_shell v58 gives them on these bytes.
    expect(await rows(path, `select s.ts, s.dur, s.name, s.depth, p.name as parent from slice s
      left join slice p on p.id = s.parent_id order by s.ts`)).toEqual([
      { ts: 10_000, dur: 10_000, name: 'memcpy', depth: 0, parent: null },
      { ts: 16_000, dur: 1000, name: 'after', depth: 1, parent: 'memcpy' },
      { ts: 30_000, dur: 10_000, name: 'later', depth: 0, parent: null },
      { ts: 31_000, dur: 5000, name: 'open', depth: 1, parent: 'later' },
      { ts: 32_000, dur: 2000, name: 'in open', depth: 2, parent: 'open' },
      { ts: 37_000, dur: 1000, name: 'after open', depth: 1, parent: 'later' },
    ]);
    expect(await stat(path, 'slice_drop_overlapping_complete_event')).toBe(2);
    expect(await stat(path, 'slice_spill_overlapping_complete_event')).toBe(0);
  });
});
