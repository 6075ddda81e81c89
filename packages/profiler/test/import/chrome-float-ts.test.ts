/**
 * Float µs timestamps in Chrome JSON are read exactly to the ns, from their text, whichever event comes first:
 * an event at ts 0 before epoch µs ones puts them 1.7e18 ns from the origin, past what a double holds exactly.
 * trace_processor_shell reads a µs ts as a double and multiplies it by 1000 in doubles: on the same file it is
 * exact for small times and within 256 ns (half a double's step at 1.7e15 µs, 125 ns, plus half its step at
 * 1.7e18 ns, 128 ns) of the text for epoch ones; where it is present (always under CI=true) the test checks both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { tempFiles } from './support/tmp.js';
import { tpRows, traceProcessor } from './support/trace-processor.js';

const files = tempFiles();
afterAll(() => files.cleanup());
const tp = traceProcessor();

/** The ns a µs decimal of at most 3 fraction digits stands for, from its text. */
function nsOf(us: string): bigint {
  const [int, frac = ''] = us.split('.');
  return BigInt(int!) * 1000n + BigInt(frac.padEnd(3, '0')) * (int!.startsWith('-') ? -1n : 1n);
}

const EPOCH = ['1700000000123456.789', '1700000000123457.001', '1712195495519689.047', '1700000000123460.5'];
/** Events named after what they are; ts (µs text) and, for the B/E pair, the end's ts. */
const events = [
  `{"ph":"X","name":"x","pid":1,"tid":1,"ts":${EPOCH[0]},"dur":0.212}`,
  `{"ph":"B","name":"be","pid":1,"tid":2,"ts":${EPOCH[0]}}`,
  `{"ph":"E","pid":1,"tid":2,"ts":${EPOCH[1]}}`,
  `{"ph":"i","name":"inst","s":"t","pid":1,"tid":1,"ts":${EPOCH[2]}}`,
  `{"ph":"X","name":"str","pid":1,"tid":3,"ts":"${EPOCH[3]}","dur":1}`,
];
const early = '{"ph":"X","name":"early","pid":1,"tid":4,"ts":0,"dur":1}';
const counter = `{"ph":"C","name":"mem","pid":1,"tid":1,"ts":${EPOCH[1]},"args":{"bytes":5}}`;

const expected: [string, string, string][] = [
  ['be', String(nsOf(EPOCH[0]!)), String(nsOf(EPOCH[1]!) - nsOf(EPOCH[0]!))],
  ['early', '0', '1000'],
  ['inst', String(nsOf(EPOCH[2]!)), '0'],
  ['str', String(nsOf(EPOCH[3]!)), '1000'],
  ['x', String(nsOf(EPOCH[0]!)), '212'],
];

const SLICES = 'SELECT name, CAST(ts AS VARCHAR) AS ts, CAST(dur AS VARCHAR) AS dur FROM slice ORDER BY name';
const COUNTERS = 'SELECT CAST(ts AS VARCHAR) AS ts, value FROM counter';

async function rows(path: string, sql: string): Promise<unknown[][]> {
  const db = await openTrace(path);
  try {
    const { columns, rows: r } = await db.query(sql);
    return r.map((row) => columns.map((c) => (typeof row[c] === 'bigint' ? Number(row[c]) : row[c])));
  } finally {
    await db.close();
  }
}

describe('float µs timestamps', () => {
  it('are exact to the ns whichever event comes first (an event at ts 0 first, last, or none)', async () => {
    const orders = {
      first: [early, ...events, counter],
      last: [...events, counter, early],
      reversed: [counter, ...[...events].reverse(), early],
    };
    for (const [order, evs] of Object.entries(orders)) {
      const path = files.write(`float-ts-${order}.json`, `{"traceEvents":[\n${evs.join(',\n')}\n]}`);
      expect(await rows(path, SLICES), order).toEqual(expected);
      expect(await rows(path, COUNTERS), order).toEqual([[String(nsOf(EPOCH[1]!)), 5]]);
      if (!tp) continue;
      // trace_processor rounds through doubles: within 256 ns of the text (see the top), the early event exact.
      const theirs = tpRows(tp, path, SLICES);
      expect(theirs.map((r) => r[0])).toEqual(expected.map((r) => r[0]));
      for (let i = 0; i < expected.length; i++) {
        const off = BigInt(String(theirs[i]![1])) - BigInt(expected[i]![1]);
        expect(off >= -256n && off <= 256n, `${order} ${expected[i]![0]}: trace_processor off by ${off} ns`).toBe(true);
      }
      expect(theirs.find((r) => r[0] === 'early')?.slice(1)).toEqual(['0', '1000']);
    }
  });

  it('relative µs with 3 decimals (Kineto with baseTimeNanoseconds) read as trace_processor reads them', async () => {
    const ts = ['95341.768', '0.001', '1.005', '4.35', '8.675', '12345.679', '-0.5'];
    const path = files.write('float-ts-small.json', `{"traceEvents":[\n${ts.map((t, i) =>
      `{"ph":"X","name":"e${i}","pid":1,"tid":1,"ts":${t},"dur":0.001}`).join(',\n')}\n]}`);
    const sql = 'SELECT name, CAST(ts AS VARCHAR) AS ts FROM slice WHERE ts >= 0 ORDER BY name';
    const want = ts.map((t, i) => [`e${i}`, String(nsOf(t))]).filter((r) => !r[1]!.startsWith('-'));
    expect(await rows(path, sql)).toEqual(want);
    if (tp) expect(tpRows(tp, path, sql)).toEqual(want);
  });
});
