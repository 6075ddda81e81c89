/**
 * Rules of Perfetto's protobuf importer that gsprof follows, each on a small trace of its own (or one of
 * Perfetto's own test traces, in fixtures/perfetto), checked against what trace_processor_shell gives: the
 * expected rows were read off trace_processor_shell v58.2, and where the binary is present (always under
 * CI=true) the test runs the same SQL there and checks its rows too.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { type Field, trace } from './support/proto-writer.js';
import { tempFiles } from './support/tmp.js';
import { expectRows } from './support/trace-processor.js';

const files = tempFiles();
afterAll(() => files.cleanup());
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'perfetto');

// TracePacket fields, TrackEvent fields and LegacyEvent phases.
const TS = 8, SEQ = 10, FLAGS = 13, EVENT = 11, DESC = 60, CLEARED = 1;
const TYPE = 9, TRACK = 11, NAME = 23, CATS = 22, ANNOTATION = 4, LEGACY = 6;
const ph = (c: string): number => c.charCodeAt(0);
/** LegacyEvent: phase 2, unscoped_id 6, global_id 11, bind_to_enclosing 12, duration_us 3. */
const legacy = (phase: string, more: Field[] = []): Field => [LEGACY, [[2, ph(phase)], ...more]];
const thread = (uuid: number, pid: number, tid: number, name: string): Field[] =>
  [[SEQ, 1], [DESC, [[1, uuid], [4, [[1, pid], [2, tid], [5, name]]]]]];

const SLICES = 'SELECT ts, dur, name, depth FROM slice ORDER BY ts, depth';
const FLOWS = `SELECT so.name, si.name FROM flow f JOIN slice so ON so.id = f.slice_out
  JOIN slice si ON si.id = f.slice_in ORDER BY so.ts`;

describe('protobuf legacy events as trace_processor reads them', () => {
  it('S, T, p and F: an async slice begun by S and ended by F, its steps instants inside it, the args of S and F merged', async () => {
    const path = files.write('legacy-old-async.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 1], [5, 't1']]]]]],
      [[SEQ, 1], [TS, 1000], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'job'], [ANNOTATION, [[10, 'a'], [4, 1]]], legacy('S', [[11, 7]])]]],
      [[SEQ, 1], [TS, 3000], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'job'], legacy('T', [[11, 7]])]]],
      [[SEQ, 1], [TS, 5000], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'job'], legacy('p', [[11, 7]])]]],
      [[SEQ, 1], [TS, 8000], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'job'], [ANNOTATION, [[10, 'b'], [4, 2]]], legacy('F', [[11, 7]])]]],
    ]));
    await expectRows(path, SLICES, [[1000, 7000, 'job', 0], [3000, 0, 'job', 1], [5000, 0, 'job', 1]]);
    await expectRows(path, `SELECT a.key, a.int_value FROM slice s JOIN args a USING (arg_set_id)
      WHERE s.dur > 0 AND a.key LIKE 'debug.%' ORDER BY a.key`, [['debug.a', 1], ['debug.b', 2]]);
    // On a global async track (a global id), in no thread.
    await expectRows(path, 'SELECT count(*) FROM slice WHERE track_id IN (SELECT id FROM thread_track)', [[0]]);
  });

  it('s, t and f: v1 flows from the slice open at s and t to the next slice on f\'s track, or the enclosing one with bind_to_enclosing', async () => {
    const path = files.write('legacy-v1-flows.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], ...thread(1, 1, 1, 't1').slice(1)],
      thread(2, 2, 2, 't2'),
      [[SEQ, 1], [TS, 100], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'launch'], legacy('X', [[3, 1]])]]],
      [[SEQ, 1], [TS, 200], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'flow'], legacy('s', [[6, 9]])]]],
      // No bind_to_enclosing: the flow goes to the next slice to begin on t2 (kernel), not the one open (busy).
      [[SEQ, 1], [TS, 1500], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'busy'], legacy('X', [[3, 1]])]]],
      [[SEQ, 1], [TS, 1600], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'flow'], legacy('t', [[6, 9]])]]],
      [[SEQ, 1], [TS, 2600], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'flow'], legacy('f', [[6, 9]])]]],
      [[SEQ, 1], [TS, 3000], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'kernel'], legacy('X', [[3, 1]])]]],
      // bind_to_enclosing: the slice open at f's ts. Another name is another flow, though the id is the same.
      [[SEQ, 1], [TS, 5000], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'other'], legacy('s', [[6, 9]])]]],
      [[SEQ, 1], [TS, 4900], [EVENT, [[TRACK, 1], [CATS, 'c'], [NAME, 'host'], legacy('X', [[3, 1]])]]],
      [[SEQ, 1], [TS, 5500], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'wait'], legacy('X', [[3, 1]])]]],
      [[SEQ, 1], [TS, 5600], [EVENT, [[TRACK, 2], [CATS, 'c'], [NAME, 'other'], legacy('f', [[6, 9], [12, true]])]]],
    ]));
    await expectRows(path, FLOWS, [['launch', 'busy'], ['busy', 'kernel'], ['host', 'wait']]);
    // Flow events are not slices.
    await expectRows(path, 'SELECT count(*) FROM slice', [[5]]);
  });

  it('Perfetto\'s flow_events_proto_v1: 3 flows; legacy_async_event: 4 slices', async () => {
    await expectRows(join(FIXTURES, 'flow_events_proto_v1.pftrace'), FLOWS, [
      ['FlowBeginSlice', 'FlowEndSlice_1'], ['FlowEndSlice_1', 'FlowStepSlice'], ['FlowStepSlice', 'FlowEndSlice_2'],
    ]);
    await expectRows(join(FIXTURES, 'legacy_async_event.pftrace'), SLICES,
      [[1000, 7000, 'name1', 0], [2000, 1000, 'name1', 1], [3000, 0, 'name1', 1], [5000, 0, 'name1', 1]]);
  });
});

describe('protobuf TrackEvent types as trace_processor reads them', () => {
  it('TYPE_STATE (5) is a state value, not a slice (Perfetto\'s track_event_state)', async () => {
    await expectRows(join(FIXTURES, 'track_event_state.pftrace'), 'SELECT count(*) FROM slice', [[0]]);
  });
});

describe('protobuf track descriptors as trace_processor reads them', () => {
  it('a uuid declared again for another thread: the track stays the first thread\'s, the second thread is named, the conflict counted', async () => {
    const path = files.write('conflicting-uuid.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 1], [5, 'first']]]]]],
      [[SEQ, 2], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 5], [5, 'second']]]]]],
      [[SEQ, 2], [TS, 10], [EVENT, [[TRACK, 1], [NAME, 'work'], [TYPE, 3]]]],
    ]));
    await expectRows(path, `SELECT t.tid, t.name FROM slice s JOIN thread_track tt ON tt.id = s.track_id
      JOIN thread t USING (utid)`, [[1, 'first']]);
    // (trace_processor's utid 0, tid 0, is its swapper placeholder.)
    await expectRows(path, 'SELECT tid, name FROM thread WHERE name IS NOT NULL AND tid <> 0 ORDER BY tid', [[1, 'first'], [5, 'second']]);
    await expectRows(path, `SELECT name, value FROM stats WHERE name = 'track_descriptor_conflicting_reservation'`,
      [['track_descriptor_conflicting_reservation', 1]]);
  });

  it('a descriptor sent again after the track\'s first event renames it only where the event named it or the track never merges by name', async () => {
    const NONE: Field = [15, 2]; // sibling_merge_behavior: SIBLING_MERGE_BEHAVIOR_NONE
    const path = files.write('renamed-tracks.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [TS, 1], [DESC, [[1, 1], [2, 'never merged'], NONE]]],
      [[SEQ, 1], [TS, 2], [DESC, [[1, 2], [2, 'merged by name']]]],
      [[SEQ, 1], [TS, 3], [DESC, [[1, 3]]]],
      [[SEQ, 1], [TS, 4], [EVENT, [[TRACK, 1], [NAME, 'a'], [TYPE, 3]]]],
      [[SEQ, 1], [TS, 5], [EVENT, [[TRACK, 2], [NAME, 'b'], [TYPE, 3]]]],
      [[SEQ, 1], [TS, 6], [EVENT, [[TRACK, 3], [NAME, 'named by its event'], [TYPE, 3]]]],
      [[SEQ, 1], [TS, 7], [DESC, [[1, 1], [2, 'renamed 1'], NONE]]],
      [[SEQ, 1], [TS, 8], [DESC, [[1, 2], [2, 'renamed 2']]]],
      [[SEQ, 1], [TS, 9], [DESC, [[1, 3], [2, 'renamed 3']]]],
    ]));
    await expectRows(path, `SELECT s.name, t.name FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.ts`,
      [['a', 'renamed 1'], ['b', 'merged by name'], ['named by its event', 'renamed 3']]);
  });
});

describe('thread and process names from Chromium descriptors, as trace_processor gives them', () => {
  // TrackDescriptor: process 3 (pid 1, chrome_process_type 4, process_name 6), thread 4 (pid 1, tid 2,
  // chrome_thread_type 4, thread_name 5), chrome_process 6 and chrome_thread 7 (each: type 1).
  const threadDesc = (uuid: number, tid: number, thread: Field[], more: Field[] = []): Field[] =>
    [[SEQ, 1], [DESC, [[1, uuid], [4, [[1, 10], [2, tid], ...thread]], ...more]]];
  const processDesc = (uuid: number, pid: number, proc: Field[], more: Field[] = []): Field[] =>
    [[SEQ, 1], [DESC, [[1, uuid], [3, [[1, pid], ...proc]], ...more]]];

  it('a thread declared only by its Chromium type is named after it; a thread_name outranks the type whichever comes first', async () => {
    const path = files.write('chrome-thread-types.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED]],
      threadDesc(1, 11, [], [[7, [[1, 4]]]]),
      threadDesc(2, 12, [[5, 'named']], [[7, [[1, 15]]]]),
      threadDesc(3, 13, [], [[7, [[1, 8]]]]),
      threadDesc(3, 13, [[5, 'named later']]),
      threadDesc(3, 13, [], [[7, [[1, 9]]]]),
      // The legacy ThreadDescriptor.chrome_thread_type, without a thread_name.
      threadDesc(4, 14, [[4, 2]]),
      // A type inside the enum's range without a name of its own; one past it.
      threadDesc(5, 15, [], [[7, [[1, 45]]]]),
      threadDesc(6, 16, [], [[7, [[1, 99]]]]),
    ]));
    await expectRows(path, 'SELECT tid, name FROM thread WHERE tid > 10 ORDER BY tid', [
      [11, 'ThreadPoolForegroundWorker&'], [12, 'named'], [13, 'named later'], [14, 'ChromeIOThread'],
      [15, 'PBZERO_UNKNOWN_ENUM_VALUE'], [16, null],
    ]);
  });

  it('a process\'s Chromium type names it under its process_name, a renderer\'s type over it', async () => {
    const path = files.write('chrome-process-types.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED]],
      processDesc(1, 21, [], [[6, [[1, 6]]]]),
      processDesc(2, 22, [[6, 'browser process']], [[6, [[1, 1]]]]),
      processDesc(3, 23, [[6, 'renderer process']], [[6, [[1, 2]]]]),
      processDesc(4, 24, [[6, 'extension']], [[6, [[1, 40]]]]),
      processDesc(5, 25, [[4, 5]]),
    ]));
    await expectRows(path, 'SELECT pid, name FROM process WHERE pid > 20 ORDER BY pid', [
      [21, 'Gpu'], [22, 'browser process'], [23, 'Renderer'], [24, 'Extension Renderer'], [25, 'PROCESS_SANDBOX_HELPER'],
    ]);
  });

  it('Perfetto\'s range_of_interest: its thread is named after chrome_thread { thread_type: 4 }', async () => {
    await expectRows(join(FIXTURES, 'range_of_interest.pftrace'), 'SELECT tid, name FROM thread WHERE tid <> 0 AND name IS NOT NULL', [
      [345, 'ThreadPoolForegroundWorker&'],
    ]);
  });
});

describe('atrace slices of ftrace print events, as trace_processor reads them', () => {
  /** A TracePacket of ftrace events (bundle: cpu 1, event 2; FtraceEvent: timestamp 1, pid 2, print 3 with buf 2). */
  const ftrace = (...events: [number, number, string][]): Field[] =>
    [[1, [[1, 0], ...events.map(([ts, tid, buf]): Field => [2, [[1, ts], [2, tid], [3, [[1, 1], [2, buf]]]]])]]];

  it('B, I and E on the thread they name (tid, tgid), merged with its TrackDescriptor\'s track; an E without a tgid on a thread seen before', async () => {
    const path = files.write('atrace.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], ...thread(1, 5, 1, 't1').slice(1)],
      [[SEQ, 1], [TS, 500], [EVENT, [[TRACK, 1], [NAME, 'track event'], [TYPE, 3]]]],
      ftrace([1000, 1, 'B|5|outer\n'], [2000, 1, 'I|5|mark'], [3000, 1, 'E'], [4000, 1, 'B|x|bad'],
        [5000, 2, 'B|5|other'], [6000, 2, 'E|5']),
    ]));
    await expectRows(path, `SELECT s.ts, s.dur, s.name, s.depth, t.tid, p.pid FROM slice s
      JOIN thread_track tt ON tt.id = s.track_id JOIN thread t USING (utid) JOIN process p USING (upid) ORDER BY s.ts`, [
      [500, 0, 'track event', 0, 1, 5], [1000, 2000, 'outer', 0, 1, 5], [2000, 0, 'mark', 1, 1, 5], [5000, 1000, 'other', 0, 2, 5],
    ]);
    await expectRows(path, 'SELECT count(DISTINCT track_id) FROM slice', [[2]]);
    await expectRows(path, `SELECT name, value FROM stats WHERE name = 'systrace_parse_failure'`, [['systrace_parse_failure', 1]]);
  });

  it('Perfetto\'s track_event_with_atrace: the atrace slice nests in the track event\'s and ends with it, its own E misplaced; with disallow_merging_with_system_tracks it has a track of its own', async () => {
    const SLICES_BY_TRACK = `SELECT s.ts, s.dur, s.name, s.depth, (SELECT count(*) FROM slice o WHERE o.track_id = s.track_id)
      FROM slice s ORDER BY s.ts`;
    await expectRows(join(FIXTURES, 'track_event_with_atrace.pftrace'), SLICES_BY_TRACK,
      [[10000, 1000, 'event1', 0, 3], [20000, 8000, 'event2', 0, 3], [21000, 7000, 'atrace', 1, 3]]);
    await expectRows(join(FIXTURES, 'track_event_with_atrace.pftrace'),
      `SELECT name, value FROM stats WHERE name = 'misplaced_end_event'`, [['misplaced_end_event', 1]]);
    await expectRows(join(FIXTURES, 'track_event_with_atrace_separate_tracks.pftrace'), SLICES_BY_TRACK,
      [[10000, 1000, 'event1', 0, 2], [20000, 8000, 'event2', 0, 2], [21000, 8000, 'atrace', 0, 1]]);
  });

  it('atrace lines gsprof does not read (async slices, counters) and other ftrace events are counted', async () => {
    const path = files.write('atrace-unread.pftrace', trace([ftrace([1000, 1, 'C|5|count|3'], [2000, 1, 'S|5|job|7'])]));
    const db = await openTrace(path);
    try {
      expect(await db.stat('ftrace_event_unread')).toBe(2);
    } finally {
      await db.close();
    }
  });
});

describe('counter problems under trace_processor\'s stat names', () => {
  it('a counter event off a counter track, extra counter values that cannot all be placed: the event dropped whole and counted', async () => {
    // TrackEvent counter_value 30, extra_counter_values 12, extra_counter_track_uuids 31; CounterDescriptor 8.
    const instant = (name: string, more: Field[]): Field[] => [[SEQ, 1], [TS, 100], [EVENT, [[TRACK, 1], [NAME, name], [TYPE, 3], ...more]]];
    const path = files.write('counter-problems.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [4, [[1, 5], [2, 1], [5, 't1']]]]]],
      [[SEQ, 1], [DESC, [[1, 2], [2, 'c'], [8, []]]]],
      [[SEQ, 1], [DESC, [[2, 'no uuid']]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[TRACK, 1], [TYPE, 4], [30, 3]]]],
      [[SEQ, 1], [TS, 100], [EVENT, [[TYPE, 4], [30, 3]]]],
      instant('no uuids', [[12, 4]]),
      instant('not a counter', [[31, 2], [31, 1], [12, 4], [12, 5]]),
      instant('more values than uuids', [[31, 2], [12, 5], [12, 6]]),
      instant('uuid 0', [[31, 0], [12, 5]]),
      instant('nine values', [...[2, 2, 2, 2, 2, 2, 2, 2, 2].map((u): Field => [31, u]), ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((v): Field => [12, v])]),
      instant('kept', [[31, 2], [12, 7]]),
    ]));
    await expectRows(path, 'SELECT name FROM slice', [['kept']]);
    await expectRows(path, 'SELECT value FROM counter', [[7]]);
    await expectRows(path, `SELECT name, value FROM stats WHERE value > 0 AND (name LIKE 'track_event_%counter%'
      OR name = 'track_descriptor_missing_uuid') ORDER BY name`, [
      ['track_descriptor_missing_uuid', 1], ['track_event_counter_invalid_track_uuid', 1],
      ['track_event_counter_missing_track_uuid', 1], ['track_event_extra_counter_exceeds_max', 1],
      ['track_event_extra_counter_invalid_track', 2], ['track_event_extra_counter_missing_track_uuids', 1],
      ['track_event_extra_counter_track_uuid_mismatch', 1],
    ]);
  });
});

describe('an END before its BEGIN, as trace_processor reads it', () => {
  it('the slice stays open (dur -1) and what follows nests inside it; the END and the open slice are counted', async () => {
    // trace_processor sorts events by time, so the END (at 500) comes before the BEGIN (at 1000) and finds
    // nothing open; gsprof reads in file order and must not close the slice with a duration of 0.
    const path = files.write('end-before-begin.pftrace', trace([
      [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 't']]]],
      [[SEQ, 1], [TS, 1000], [EVENT, [[TYPE, 1], [TRACK, 1], [NAME, 'a']]]],
      [[SEQ, 1], [TS, 500], [EVENT, [[TYPE, 2], [TRACK, 1]]]],
      [[SEQ, 1], [TS, 2000], [EVENT, [[TYPE, 3], [TRACK, 1], [NAME, 'after']]]],
      [[SEQ, 1], [TS, 3000], [EVENT, [[TYPE, 1], [TRACK, 1], [NAME, 'b']]]],
      [[SEQ, 1], [TS, 4000], [EVENT, [[TYPE, 2], [TRACK, 1]]]],
    ]));
    await expectRows(path, SLICES, [[1000, -1, 'a', 0], [2000, 0, 'after', 1], [3000, 1000, 'b', 1]]);
    const db = await openTrace(path);
    try {
      expect(await db.stat('slice_end_without_begin')).toBe(1);
      expect(await db.stat('slice_without_end')).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('a legacy BEGIN at timestamp_absolute_us ahead of the END\'s delta stays open, after the slice the deltas place first', async () => {
    const path = files.write('end-before-absolute-begin.pftrace', trace([
      // ThreadDescriptor (44): pid 1, tid 2, thread_name 5, reference_timestamp_us 6; TrackEvent
      // timestamp_delta_us 1, timestamp_absolute_us 16.
      [[SEQ, 1], [FLAGS, CLEARED], [44, [[1, 10], [2, 11], [5, 'main'], [6, 1000]]]],
      [[SEQ, 1], [EVENT, [[TYPE, 1], [NAME, 'abs'], [16, 1100]]]],
      [[SEQ, 1], [EVENT, [[TYPE, 2], [1, 20]]]],
      [[SEQ, 1], [EVENT, [[TYPE, 1], [NAME, 'next'], [1, 5]]]],
      [[SEQ, 1], [EVENT, [[TYPE, 2], [1, 5]]]],
    ]));
    await expectRows(path, SLICES, [[1_025_000, 5000, 'next', 0], [1_100_000, -1, 'abs', 0]]);
  });
});
