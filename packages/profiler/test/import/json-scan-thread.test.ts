/**
 * The JSON scan on a worker thread (used for big files) must hand the importer exactly what the scan on the main
 * thread does: the same events, lines, byte offsets, ts/dur positions, top-level values, null elements and
 * errors, whatever the chunking; and a big trace must import to the same tables either way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { scanJson, SCAN_THREAD_MIN_BYTES, type ScanOutcome } from '../../src/import/json-scan.js';
import type { JsonScanHandler } from '../../src/import/json-scanner.js';
import { openTrace } from '../../src/sql/trace-db.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

/** Everything the handler was given, in order, as text; and the outcome. */
async function record(text: string, chunkSize: number, threaded: boolean, lenient: boolean): Promise<{ calls: string[]; outcome: unknown }> {
  const calls: string[] = [];
  const tokenAt = (buf: Buffer, at: number): string => (at < 0 ? '-' : buf.toString('utf8', at, at + 8).split(/[,}]/)[0]!.trim());
  const handler: JsonScanHandler = {
    event: (buf, s, e, line, offset, tsAt, durAt, numberFlags) => calls.push(`event ${line}:${offset} ${buf.toString('utf8', s, e)} ts=${tokenAt(buf, tsAt)} dur=${tokenAt(buf, durAt)} flags=${numberFlags}`),
    topLevel: (key, raw, line) => calls.push(`top ${line} ${key}=${raw}`),
    nullEvent: lenient ? (line, offset) => calls.push(`null ${line}:${offset}`) : undefined,
  };
  const bytes = Buffer.from(text);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  const out: ScanOutcome = await scanJson(chunks(), handler, () => {}, threaded);
  const { error, ...rest } = out;
  return { calls, outcome: { ...rest, error: error && { line: error.line, offset: error.offset, message: error.message } } };
}

const INPUTS: Record<string, string> = {
  'object form, top-level values around the events': '{"schemaVersion": 1, "traceEvents": [\n{"ph":"X","name":"a","ts":1.5,"dur":2,"pid":1,"tid":1},\n'
    + '{"ph":"C","name":"µs ✓ 🚀","ts":3,"args":{"ts":9,"v":[1,{"dur":4}]}}\n], "deviceProperties": [{"name":"GPU"}], "tail": "x\\"}"}',
  'integers past 2^53 and digit runs in strings': '[{"ph":"i","ts":1,"args":{"id":12345678901234567}},{"ph":"i","ts":3,"args":{"r":1.0}},\n{"ph":"i","ts":2,"name":"12345678901234567"},\n'
    + '{"ph":"i","ts":9007199254740993}]',
  'array form without its closing bracket': '[{"ph":"i","name":"p","ts":1},\n{"ph":"i","name":"q","ts":2},\n',
  'a null element': '{"traceEvents": [{"ph":"i","ts":1}, null, {"ph":"i","ts":2}]}',
  'cut inside the last event': '{"traceEvents": [{"ph":"i","name":"p","ts":1},\n{"ph":"X","name":"q","ts":2,"du',
  'garbage between events': '{"traceEvents": [{"ph":"i","ts":1}\n x {"ph":"i","ts":2}]}',
  'no traceEvents': '{"displayTimeUnit": "ns", "other": [1, 2]}',
  'not JSON': 'hello',
  'text after the end': '[{"ph":"i","ts":1}] [',
};

describe('JSON scan on a worker thread', () => {
  for (const [name, text] of Object.entries(INPUTS)) {
    it(`gives the main thread's calls and outcome: ${name}`, async () => {
      for (const lenient of [true, false]) {
        for (const size of [3, 64]) {
          const here = await record(text, size, false, lenient);
          const there = await record(text, size, true, lenient);
          expect(there, `chunks of ${size} bytes, ${lenient ? 'lenient' : 'strict'}`).toEqual(here);
        }
      }
    });
  }

  it('a trace above the threshold imports to the same tables on one, two or three threads', async () => {
    // Kineto-like events with args, non-ASCII names, B/E pairs, flows and counters, past the default threshold.
    const events: string[] = ['{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host ✓"}}'];
    let ts = 1_700_000_000_000_000;
    let bytes = 0;
    for (let i = 0; bytes < SCAN_THREAD_MIN_BYTES + (1 << 20); i++) {
      ts += 7;
      events.push(`{"ph":"X","cat":"cpu_op","name":"aten::op${i % 50} µ","pid":1,"tid":${1 + (i % 3)},"ts":${ts}.${i % 1000},"dur":5.25,`
        + `"args":{"External id":${i},"Input Dims":[[${i % 7},3],[]],"Record function id":${i % 13}}}`);
      if (i % 5 === 0) {
        events.push(`{"ph":"s","cat":"ac2g","name":"ac2g","id":${i},"pid":1,"tid":1,"ts":${ts}.${i % 1000}}`);
        events.push(`{"ph":"X","cat":"kernel","name":"k${i % 4}","pid":0,"tid":7,"ts":${ts + 3},"dur":2,"args":{"correlation":${i}}}`);
        events.push(`{"ph":"f","cat":"ac2g","name":"ac2g","id":${i},"pid":0,"tid":7,"ts":${ts + 3},"bp":"e"}`);
        events.push(`{"ph":"C","name":"mem","pid":1,"ts":${ts},"args":{"bytes":${i * 3}}}`);
      }
      bytes += events.at(-1)!.length + 200;
    }
    const path = files.write('big.json', `{"traceEvents":[\n${events.join(',\n')}\n],"distributedInfo":{"rank":3}}`);
    const tables = async (threads: { scanThread?: boolean; importThread?: boolean }): Promise<unknown[]> => {
      const db = await openTrace(path, { cache: false, ...threads });
      try {
        const out: unknown[] = [];
        for (const sql of [
          'select count(*), sum(ts), sum(dur), sum(depth), count(distinct name), sum(hash(name)) from slice',
          'select count(*), sum(hash(key)), sum(int_value), sum(hash(string_value)) from args',
          'select count(*), sum(slice_out), sum(slice_in) from flow',
          'select count(*), sum(ts), sum(value) from counter',
          "select name, str_value, int_value from metadata where name not like 'import%' order by name",
        ]) out.push((await db.query(sql)).rows);
        return out;
      } finally {
        await db.close();
      }
    };
    // One thread; the scan on a worker; and the default for this size: the import on a worker (import-thread.ts)
    // that splits on a worker of its own.
    const oneThread = await tables({ scanThread: false, importThread: false });
    expect(oneThread[0]).not.toEqual([[0n, null, null, null, 0n, null]]);
    expect(await tables({ scanThread: true, importThread: false })).toEqual(oneThread);
    expect(await tables({})).toEqual(oneThread);
  }, 120_000);
});
