// Writes small hand-built traces that exercise Perfetto SDK and Chrome JSON behaviour to a folder, for
// scripts/tp-compare.mjs to read with both gsprof and trace_processor:
//
//   node --import tsx scripts/tp-compare-traces.mjs OUT_DIR
//
// The packets and events are those of the importer tests named above each (packages/profiler/test/import/*,
// test/cli-convert-roundtrip.test.ts), encoded with the tests' own protobuf writer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trace } from '../packages/profiler/test/import/support/proto-writer.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: node --import tsx scripts/tp-compare-traces.mjs OUT_DIR');
  process.exit(2);
}
mkdirSync(out, { recursive: true });

// TracePacket fields, as in the tests.
const TS = 8;
const SEQ = 10;
const INTERNED = 12;
const FLAGS = 13;
const EVENT = 11;
const DESC = 60;
const DEFAULTS = 59;
const SNAPSHOT = 6;
const CLOCK_ID = 58;
const CLEARED = 1;
const NEEDS = 2;
const CLEARED_AND_NEEDS = 3;
const BOOTTIME = 6;
const MONOTONIC = 3;
const BEGIN = 1;
const END = 2;
const INSTANT = 3;
const COUNTER = 4;

function clock(id, ts, incremental = false, multiplier = 0) {
  const c = [
    [1, id],
    [2, ts],
  ];
  if (incremental) c.push([3, true]);
  if (multiplier) c.push([4, multiplier]);
  return [1, c];
}

const pftrace = {
  // perfetto-semantics.test.ts: SDK style, delta-encoded timestamps on a sequence-scoped incremental clock.
  'sdk-incremental-clock': [
    [[SEQ, 1], [FLAGS, CLEARED], [DEFAULTS, [[CLOCK_ID, 64], [11, [[11, 11]]]]],
      [SNAPSHOT, [clock(BOOTTIME, 1_000_000_000), clock(64, 1_000_000_000, true)]]],
    [[SEQ, 1], [TS, 0], [DESC, [[1, 11], [2, 'main']]]],
    [[SEQ, 1], [TS, 500], [EVENT, [[9, BEGIN], [23, 'outer']]]],
    [[SEQ, 1], [TS, 50], [EVENT, [[9, BEGIN], [23, 'inner']]]],
    [[SEQ, 1], [TS, 25], [EVENT, [[9, END]]]],
    [[SEQ, 1], [TS, 25], [EVENT, [[9, END]]]],
    [[SEQ, 2], [FLAGS, CLEARED], [DEFAULTS, [[CLOCK_ID, 64]]],
      [SNAPSHOT, [clock(BOOTTIME, 2_000_000_000), clock(64, 2_000_000, true, 1000)]]],
    [[SEQ, 2], [TS, 3], [EVENT, [[9, INSTANT], [11, 11], [23, 'other sequence']]]],
  ],
  // perfetto-semantics.test.ts: MONOTONIC converted to BOOTTIME through the nearest earlier clock snapshot.
  'clock-snapshots': [
    [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 't']]]],
    [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000), clock(MONOTONIC, 1_000)]]],
    [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 50_000), clock(MONOTONIC, 2_000)]]],
    [[SEQ, 1], [TS, 1_500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'before suspend']]]],
    [[SEQ, 1], [TS, 2_500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'after suspend']]]],
    [[SEQ, 1], [TS, 500], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'before any snapshot']]]],
    [[SEQ, 1], [TS, 60_000], [EVENT, [[9, INSTANT], [11, 1], [23, 'boottime']]]],
    [[SEQ, 1], [TS, 7], [CLOCK_ID, 1], [EVENT, [[9, INSTANT], [11, 1], [23, 'realtime, never synced']]]],
  ],
  // perfetto-semantics.test.ts: primary_trace_clock MONOTONIC.
  'primary-clock': [
    [[SEQ, 1], [SNAPSHOT, [clock(BOOTTIME, 10_000), clock(MONOTONIC, 1_000), [2, MONOTONIC]]]],
    [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [2, 't']]]],
    [[SEQ, 1], [TS, 10_200], [EVENT, [[9, INSTANT], [11, 1], [23, 'boot']]]],
    [[SEQ, 1], [TS, 1_300], [CLOCK_ID, MONOTONIC], [EVENT, [[9, INSTANT], [11, 1], [23, 'mono']]]],
    [[SEQ, 1], [TS, 10_400], [CLOCK_ID, BOOTTIME], [EVENT, [[9, INSTANT], [11, 1], [23, 'explicit boot']]]],
  ],
  // perfetto-semantics.test.ts: static_name and atrace_name.
  'track-names': [
    [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 1], [10, 'static track']]]],
    [[SEQ, 1], [DESC, [[1, 2], [13, 'atrace track']]]],
    [[SEQ, 1], [TS, 5], [EVENT, [[9, INSTANT], [11, 1], [23, 'a']]]],
    [[SEQ, 1], [TS, 6], [EVENT, [[9, INSTANT], [11, 2], [23, 'b']]]],
  ],
  // perfetto-semantics.test.ts: a thread descriptor before its process descriptor.
  'descriptors-out-of-order': [
    [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 2], [4, [[1, 42], [2, 43], [5, 'worker']]]]]],
    [[SEQ, 1], [DESC, [[1, 1], [3, [[1, 42], [6, 'app']]]]]],
    [[SEQ, 1], [TS, 5], [EVENT, [[9, INSTANT], [11, 2], [23, 'x']]]],
  ],
  // perfetto-semantics.test.ts: events on an undeclared uuid, and on a uuid declared after them.
  'undeclared-track': [
    [[SEQ, 1], [FLAGS, CLEARED], [TS, 5], [EVENT, [[9, INSTANT], [11, 99], [23, 'orphan']]]],
    [[SEQ, 1], [TS, 6], [EVENT, [[9, INSTANT], [11, 7], [23, 'early']]]],
    [[SEQ, 1], [DESC, [[1, 7], [4, [[1, 10], [2, 11], [5, 'late thread']]]]]],
    [[SEQ, 1], [TS, 8], [EVENT, [[9, INSTANT], [11, 7], [23, 'on time']]]],
  ],
  // perfetto-semantics.test.ts: incremental counters per sequence.
  'incremental-counters': [
    [[SEQ, 1], [FLAGS, CLEARED], [DESC, [[1, 5], [2, 'bytes'], [8, [[5, true]]]]]],
    [[SEQ, 1], [TS, 10], [EVENT, [[9, COUNTER], [11, 5], [30, 100]]]],
    [[SEQ, 2], [FLAGS, CLEARED], [TS, 20], [EVENT, [[9, COUNTER], [11, 5], [30, 1]]]],
    [[SEQ, 1], [TS, 30], [EVENT, [[9, COUNTER], [11, 5], [30, 100]]]],
    [[SEQ, 2], [TS, 40], [EVENT, [[9, COUNTER], [11, 5], [30, 1]]]],
  ],
  // perfetto.test.ts: interning, default tracks, 64-bit timestamps, a debug annotation, packets dropped for
  // needing incremental state their sequence never set.
  interned: (() => {
    const BASE = 1_700_000_000_123_456_789n;
    const thread = [[1, 11], [4, [[1, 42], [2, 7], [5, 'main']]]];
    return [
      [[SEQ, 1], [TS, BASE], [FLAGS, CLEARED_AND_NEEDS], [DESC, [[1, 10], [3, [[1, 42], [6, 'app']]]]]],
      [[SEQ, 1], [TS, BASE], [DESC, thread], [DEFAULTS, [[11, [[11, 11]]]]],
        [INTERNED, [[2, [[1, 1], [2, 'step']]], [2, [[1, 2], [2, 'kernel_a']]], [1, [[1, 5], [2, 'user_annotation']]],
          [3, [[1, 9], [2, 'env']]]]]],
      [[SEQ, 1], [TS, BASE + 100n], [FLAGS, NEEDS], [EVENT, [[9, 1], [10, 1], [3, 5], [4, [[1, 9], [4, 3]]]]]],
      [[SEQ, 1], [TS, BASE + 150n], [FLAGS, NEEDS], [EVENT, [[9, 1], [10, 2]]]],
      [[SEQ, 1], [TS, BASE + 170n], [FLAGS, NEEDS], [EVENT, [[9, 2]]]],
      [[SEQ, 1], [TS, BASE + 300n], [FLAGS, NEEDS], [EVENT, [[9, 2]]]],
      [[SEQ, 2], [TS, BASE + 400n], [FLAGS, NEEDS], [EVENT, [[9, 3], [11, 11], [23, 'dropped']]]],
      [[SEQ, 2], [TS, BASE + 410n], [FLAGS, NEEDS], [EVENT, [[9, 3], [11, 11], [23, 'dropped too']]]],
    ];
  })(),
};

const json = {
  // chrome-semantics.test.ts: an E written before its B; args on both ends of a B/E pair.
  'be-out-of-order': [
    { ph: 'E', pid: 1, tid: 1, ts: 20 },
    { ph: 'B', name: 'a', pid: 1, tid: 1, ts: 10, args: { from: 'begin' } },
    { ph: 'B', name: 'b', pid: 1, tid: 1, ts: 12 },
    { ph: 'E', pid: 1, tid: 1, ts: 15, args: { from: 'end' } },
    { ph: 'X', name: 'x', pid: 1, tid: 1, ts: 13, dur: 1 },
    { ph: 'B', name: 'c', pid: 1, tid: 2, ts: 10, args: { from: 'begin' } },
    { ph: 'E', pid: 1, tid: 2, ts: 15, args: { to: 'end' } },
  ],
  // chrome-semantics.test.ts: async b/e/n and S/F.
  'async-events': [
    { ph: 'b', name: 'outer', cat: 'c', id: '0x1', pid: 1, tid: 1, ts: 40 },
    { ph: 'b', name: 'inner', cat: 'c', id: '0x1', pid: 1, tid: 2, ts: 42 },
    { ph: 'n', name: 'mark', cat: 'c', id: '0x1', pid: 1, tid: 1, ts: 43 },
    { ph: 'e', name: 'inner', cat: 'c', id: '0x1', pid: 1, tid: 1, ts: 45 },
    { ph: 'e', name: 'outer', cat: 'c', id: '0x1', pid: 1, tid: 1, ts: 50 },
    { ph: 'b', name: 'other id', cat: 'c', id: '0x2', pid: 1, tid: 1, ts: 44 },
    { ph: 'e', name: 'other id', cat: 'c', id: '0x2', pid: 1, tid: 1, ts: 47 },
    { ph: 'S', name: 's', cat: 'c', id: 7, pid: 1, tid: 1, ts: 60 },
    { ph: 'F', name: 's', cat: 'c', id: 7, pid: 1, tid: 1, ts: 70 },
  ],
  // chrome-json.test.ts: string pid/tid, M names, nested args, a 'C' counter with two series, an unfinished b.
  'names-args-counters': [
    { ph: 'M', name: 'process_name', pid: 'GPU 0', args: { name: 'gpu' } },
    { ph: 'M', name: 'thread_name', pid: 'GPU 0', tid: 'stream 7', args: { name: 'stream 7' } },
    { ph: 'X', name: 'k', cat: 'kernel', pid: 'GPU 0', tid: 'stream 7', ts: 1, dur: 1,
      args: { grid: [1, 2, 3], device: 0, s: 'x', f: 0.5, nested: { a: true } } },
    { ph: 'C', name: 'mem', pid: 'GPU 0', ts: 2, args: { used: 10, free: 20 } },
    { ph: 'b', name: 'async', pid: 1, tid: 1, ts: 3, id: 1 },
    { ph: 'P', name: 'sample', pid: 1, tid: 1, ts: 3 },
  ],
  // chrome-json.test.ts: flows v1 (s/t/f, binding points) and v2 (bind_id).
  flows: [
    { ph: 'X', name: 'launch', cat: 'cuda_runtime', pid: 1, tid: 1, ts: 10, dur: 5 },
    { ph: 's', id: 7, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 1, ts: 10 },
    { ph: 'X', name: 'kern', cat: 'kernel', pid: 0, tid: 7, ts: 20, dur: 3 },
    { ph: 'f', id: 7, cat: 'ac2g', name: 'ac2g', pid: 0, tid: 7, ts: 20, bp: 'e' },
    { ph: 's', id: 8, cat: 'async_cpu_to_gpu', name: 'x', pid: 1, tid: 1, ts: 12 },
    { ph: 'f', id: 8, cat: 'async_cpu_to_gpu', name: 'x', pid: 0, tid: 7, ts: 24 },
    { ph: 'X', name: 'next', cat: 'kernel', pid: 0, tid: 7, ts: 25, dur: 1 },
    { ph: 'X', name: 'a', pid: 2, tid: 2, ts: 1, dur: 1, bind_id: '0x1', flow_out: true },
    { ph: 'X', name: 'b', pid: 2, tid: 3, ts: 5, dur: 1, bind_id: '0x1', flow_in: true },
  ],
  // test/cli-convert-roundtrip.test.ts (RICH): Kineto-shaped, nested and empty args, process and global instants.
  'kineto-rich': {
    schemaVersion: 1,
    traceEvents: [
      { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'python' } },
      { ph: 'M', name: 'process_name', pid: 0, tid: 0, args: { name: 'GPU 0' } },
      { ph: 'M', name: 'process_labels', pid: 0, tid: 0, args: { labels: 'H100, CUDA 12.4' } },
      { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 11, ts: 1000, dur: 50,
        args: {
          'Input Dims': [[2, 3], [3, 4], []], 'Input type': ['float', 'float', 'Scalar'], 'Concrete Inputs': ['', '', '1'],
          'Sequence number': 5, 'Record function id': 0, 'est. achieved occupancy %': 75.5, 'Ev Idx': 3,
          'Is Leaf': true, 'requires grad': false, alpha: 2.5,
          extra: { source: { file: 'a.py', line: 7 }, 'tags.v1': ['x'], none: null, opts: {} },
        } },
      { ph: 'X', cat: 'cpu_op', name: 'MmBackward0', pid: 1, tid: 12, ts: 1200, dur: 40 },
      { ph: 's', cat: 'fwdbwd', name: 'fwdbwd', id: 5, pid: 1, tid: 11, ts: 1000 },
      { ph: 'f', cat: 'fwdbwd', name: 'fwdbwd', id: 5, pid: 1, tid: 12, ts: 1200, bp: 'e' },
      { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 11, ts: 1010, dur: 5, args: { correlation: 77 } },
      { ph: 'X', cat: 'kernel', name: 'gemm', pid: 0, tid: 7, ts: 1020, dur: 30,
        args: { stream: 7, correlation: 77, grid: [4, 1, 1], block: [128, 1, 1], 'blocks per SM': 0.25, 'est. achieved occupancy %': 50 } },
      { ph: 's', cat: 'ac2g', name: 'ac2g', id: 77, pid: 1, tid: 11, ts: 1010 },
      { ph: 'f', cat: 'ac2g', name: 'ac2g', id: 77, pid: 0, tid: 7, ts: 1020, bp: 'e' },
      { ph: 'i', s: 'p', cat: 'marker', name: 'checkpoint saved', pid: 1, tid: 11, ts: 1100 },
      { ph: 'i', s: 'g', cat: 'marker', name: 'epoch 1', pid: 1, tid: 11, ts: 1150 },
    ],
  },
};

for (const [name, packets] of Object.entries(pftrace)) writeFileSync(join(out, `${name}.pftrace`), trace(packets));
for (const [name, events] of Object.entries(json)) writeFileSync(join(out, `${name}.json`), JSON.stringify(events));
console.log(`wrote ${Object.keys(pftrace).length + Object.keys(json).length} traces to ${out}`);
