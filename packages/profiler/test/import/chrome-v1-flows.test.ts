/**
 * JSON v1 flows (s/t/f) with several `f` per id, as a CUDA graph launch writes them (one `s` on the launch, an
 * `f` on each of its kernels), read as trace_processor reads them: an `f` does not close the flow, a second `s`
 * of an id is ignored (stat flow_duplicate_id) and the flow goes on from the first, a `t` passes it on, an `f`
 * before any `s` links nothing. The expected rows were read off trace_processor_shell v58.2; where it is present
 * (always under CI=true) the test runs the same SQL there too. On HTA's test traces this gives trace_processor's
 * flow counts: 6,875 on negative_queue_length_values_check and 1,166 on mtia_inference (6,600 and 619 before).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { tempFiles } from './support/tmp.js';
import { tpRows, traceProcessor } from './support/trace-processor.js';

const files = tempFiles();
afterAll(() => files.cleanup());
const tp = traceProcessor();

const x = (name: string, tid: number, ts: number, dur: number) => ({ ph: 'X', name, pid: 1, tid, ts, dur });
const fl = (ph: string, tid: number, ts: number, more: Record<string, unknown> = {}) =>
  ({ ph, id: 3, cat: 'ac2g', name: 'ac2g', pid: 1, tid, ts, ...more });

const EVENTS = [
  x('launch', 1, 10, 5), fl('s', 1, 10),
  x('k1', 7, 20, 5), fl('f', 7, 20, { bp: 'e' }),
  x('k2', 7, 30, 5), fl('f', 7, 30, { bp: 'e' }),
  x('k3', 8, 25, 5), fl('f', 8, 25, { bp: 'e' }),
  // A second s of the id: ignored, k4 is still reached from the last source (mid).
  x('launch2', 1, 40, 5), fl('s', 1, 40),
  x('k4', 7, 50, 5), fl('f', 7, 50, { bp: 'e' }),
  // An f before any s: no arrow.
  x('k0', 9, 5, 1), fl('f', 9, 5, { bp: 'e' }),
  // A step passes the flow on: launch -> mid, then mid -> k5 (and k4).
  x('mid', 1, 32, 2), fl('t', 1, 32),
  x('k5', 7, 36, 1), fl('f', 7, 36, { bp: 'e' }),
];

const FLOWS = `SELECT so.name AS out_name, si.name AS in_name FROM flow f JOIN slice so ON so.id = f.slice_out
  JOIN slice si ON si.id = f.slice_in ORDER BY so.ts, si.ts`;
const EXPECTED = [['launch', 'k1'], ['launch', 'k3'], ['launch', 'k2'], ['launch', 'mid'], ['mid', 'k5'], ['mid', 'k4']];

describe('JSON v1 flows with several f per id', () => {
  it('link the start to every f after it, ignore a second s, and count it as trace_processor does', async () => {
    const path = files.write('v1-multi-f.json', JSON.stringify({ traceEvents: EVENTS }));
    const db = await openTrace(path);
    try {
      const { rows } = await db.query(FLOWS);
      expect(rows.map((r) => [r.out_name, r.in_name])).toEqual(EXPECTED);
      const stats = await db.query("SELECT name, severity, CAST(value AS INTEGER) AS value FROM stats WHERE name = 'flow_duplicate_id'");
      expect(stats.rows).toEqual([{ name: 'flow_duplicate_id', severity: 'error', value: 1 }]);
    } finally {
      await db.close();
    }
    if (tp) {
      expect(tpRows(tp, path, FLOWS), 'trace_processor_shell').toEqual(EXPECTED);
      expect(tpRows(tp, path, "SELECT name, severity, value FROM stats WHERE name = 'flow_duplicate_id'")).toEqual([['flow_duplicate_id', 'error', 1]]);
    }
  });
});
