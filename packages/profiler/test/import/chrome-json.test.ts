import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, queryTrace, TraceFormatError } from '../../src/index.js';
import { ChromeJsonScanner, INTEGRAL_REAL, LONG_DIGITS } from '../../src/import/json-scanner.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

async function rows(name: string, content: string, sql: string) {
  return (await queryTrace(files.write(name, content), sql)).rows;
}

describe('Chrome JSON import', () => {
  it('reads the object form and the array form, also gzipped and with the closing ] missing', async () => {
    const events = [{ ph: 'X', name: 'a', cat: 'c', pid: 1, tid: 2, ts: 10, dur: 5 }, { ph: 'X', name: 'b', pid: 1, tid: 2, ts: 11, dur: 1 }];
    const q = 'select name, ts, dur, depth from slice order by ts';
    const expected = [{ name: 'a', ts: 10000, dur: 5000, depth: 0 }, { name: 'b', ts: 11000, dur: 1000, depth: 1 }];
    expect(await rows('o.json', JSON.stringify({ traceEvents: events }), q)).toEqual(expected);
    expect(await rows('a.json', JSON.stringify(events), q)).toEqual(expected);
    expect(await rows('a.json.gz', JSON.stringify(events), q)).toEqual(expected);
    expect(await rows('open.json', JSON.stringify(events).slice(0, -1), q)).toEqual(expected);
  });

  it('nests slices per thread: depth and parent_id from B/E and X', async () => {
    const ev = [
      { ph: 'B', name: 'outer', pid: 1, tid: 1, ts: 0 },
      { ph: 'X', name: 'inner', pid: 1, tid: 1, ts: 1, dur: 2 },
      { ph: 'X', name: 'leaf', pid: 1, tid: 1, ts: 1.5, dur: 0.5 },
      { ph: 'E', pid: 1, tid: 1, ts: 10 },
      { ph: 'X', name: 'other-thread', pid: 1, tid: 2, ts: 1, dur: 1 },
    ];
    const r = await rows('nest.json', JSON.stringify(ev), `select s.name, s.dur, s.depth, p.name as parent from slice s left join slice p on p.id = s.parent_id order by s.ts, s.depth`);
    expect(r).toEqual([
      { name: 'outer', dur: 10000, depth: 0, parent: null },
      { name: 'other-thread', dur: 1000, depth: 0, parent: null },
      { name: 'inner', dur: 2000, depth: 1, parent: 'outer' },
      { name: 'leaf', dur: 500, depth: 2, parent: 'inner' },
    ]);
  });

  it('lists a zero-duration X or B/E in zero_dur_slice, and not an instant at its ts', async () => {
    const ev = [
      { ph: 'X', name: 'empty', pid: 1, tid: 1, ts: 10, dur: 0 },
      { ph: 'i', s: 't', name: 'mark', pid: 1, tid: 1, ts: 10 },
      { ph: 'I', name: 'old mark', pid: 1, tid: 1, ts: 12 },
      { ph: 'B', name: 'empty pair', pid: 1, tid: 1, ts: 15 },
      { ph: 'E', pid: 1, tid: 1, ts: 15 },
      { ph: 'X', name: 'long', pid: 1, tid: 1, ts: 20, dur: 5 },
    ];
    expect(await rows('zero-dur.json', JSON.stringify(ev), `select s.name, z.slice_id is not null as zero
      from slice s left join zero_dur_slice z on z.slice_id = s.id order by s.ts, s.id`)).toEqual([
      { name: 'empty', zero: true }, { name: 'mark', zero: false }, { name: 'old mark', zero: false }, { name: 'empty pair', zero: true },
      { name: 'long', zero: false },
    ]);
  });

  it('keeps ns exactness for absolute epoch µs with fractions beyond double precision', async () => {
    const text = '{"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1682725898236567.123,"dur":0.001}]}';
    const r = await rows('abs.json', text, 'select ts::VARCHAR as ts, dur from slice');
    expect(r).toEqual([{ ts: '1682725898236567123', dur: 1 }]);
  });

  it('adds baseTimeNanoseconds to relative µs timestamps, even when it comes after the events', async () => {
    const text = '{"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":2.5,"dur":1}],"baseTimeNanoseconds":1727743122000000000}';
    const r = await rows('base.json', text, 'select ts::VARCHAR as ts from slice');
    expect(r).toEqual([{ ts: '1727743122000002500' }]);
  });

  it('string pid/tid, M names, args, counters and dropped phases', async () => {
    const ev = [
      { ph: 'M', name: 'process_name', pid: 'GPU 0', args: { name: 'gpu' } },
      { ph: 'M', name: 'thread_name', pid: 'GPU 0', tid: 'stream 7', args: { name: 'stream 7' } },
      { ph: 'X', name: 'k', cat: 'kernel', pid: 'GPU 0', tid: 'stream 7', ts: 1, dur: 1, args: { grid: [1, 2, 3], device: 0, s: 'x', f: 0.5, nested: { a: true } } },
      { ph: 'C', name: 'mem', pid: 'GPU 0', ts: 2, args: { used: 10, free: 20 } },
      { ph: 'b', name: 'async', pid: 1, tid: 1, ts: 3, id: 1 },
      { ph: 'P', name: 'sample', pid: 1, tid: 1, ts: 3 },
    ];
    const path = files.write('misc.json', JSON.stringify(ev));
    const db = await openTrace(path);
    try {
      // As trace_processor: each event of a string pid names its process after the string, so the process_name
      // event (ts 0) is undone by the slice after it.
      expect((await db.query(`select p.name as p, t.name as t from slice s join thread_track tt on s.track_id = tt.id
        join thread t using (utid) join process p using (upid)`)).rows).toEqual([{ p: 'GPU 0', t: 'stream 7' }]);
      expect((await db.query(`select key, flat_key, int_value, string_value, real_value, value_type from args order by key`)).rows).toEqual([
        { key: 'args.device', flat_key: 'args.device', int_value: 0, string_value: null, real_value: null, value_type: 'int' },
        { key: 'args.f', flat_key: 'args.f', int_value: null, string_value: null, real_value: 0.5, value_type: 'real' },
        { key: 'args.grid[0]', flat_key: 'args.grid', int_value: 1, string_value: null, real_value: null, value_type: 'int' },
        { key: 'args.grid[1]', flat_key: 'args.grid', int_value: 2, string_value: null, real_value: null, value_type: 'int' },
        { key: 'args.grid[2]', flat_key: 'args.grid', int_value: 3, string_value: null, real_value: null, value_type: 'int' },
        { key: 'args.nested.a', flat_key: 'args.nested.a', int_value: 1, string_value: null, real_value: null, value_type: 'bool' },
        { key: 'args.s', flat_key: 'args.s', int_value: null, string_value: 'x', real_value: null, value_type: 'string' },
      ]);
      expect((await db.query(`select extract_arg(arg_set_id, 'args.s') as s from slice where name = 'k'`)).rows).toEqual([{ s: 'x' }]);
      // An async begin with no end is an unfinished slice on its async track (Perfetto: dur -1).
      expect((await db.query(`select s.dur, t.type from slice s join track t on t.id = s.track_id where s.name = 'async'`)).rows)
        .toEqual([{ dur: -1, type: 'async' }]);
      expect((await db.query(`select ct.name, c.value from counter c join counter_track ct on ct.id = c.track_id order by ct.name`)).rows)
        .toEqual([{ name: 'mem free', value: 20 }, { name: 'mem used', value: 10 }]);
      expect(await db.stat('json_dropped_events')).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('arg_shape keeps what flattened args lose: empty arrays, and the path of a key with a dot of its own', async () => {
    const ev = [{ ph: 'X', name: 'mm', pid: 1, tid: 1, ts: 1, dur: 1, args: { 'Input Dims': [[2], []], 'occupancy %.': 50, a: { 'b.c': true } } }];
    const path = files.write('paths.json', JSON.stringify(ev));
    // args stay as Perfetto has them: one row per leaf, none for the empty array.
    expect((await queryTrace(path, 'select id, key, value_type from args order by id')).rows).toEqual([
      { id: 0, key: 'args.Input Dims[0][0]', value_type: 'int' },
      { id: 2, key: 'args.occupancy %.', value_type: 'int' },
      { id: 3, key: 'args.a.b.c', value_type: 'bool' },
    ]);
    // The empty array's place (1) counts with the args ids, in read order.
    expect((await queryTrace(path, 'select arg_id, path, json from arg_shape order by arg_id')).rows).toEqual([
      { arg_id: 1, path: '["Input Dims",1]', json: '[]' },
      { arg_id: 2, path: '["occupancy %."]', json: null },
      { arg_id: 3, path: '["a","b.c"]', json: null },
    ]);
  });

  it('flows v1 (s/t/f, bp e binds to the enclosing slice, else the next one) and v2 (bind_id), with their cat and name', async () => {
    const ev = [
      { ph: 'X', name: 'launch', cat: 'cuda_runtime', pid: 1, tid: 1, ts: 10, dur: 5 },
      { ph: 's', id: 7, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 1, ts: 10 },
      { ph: 'X', name: 'kern', cat: 'kernel', pid: 0, tid: 7, ts: 20, dur: 3 },
      { ph: 'f', id: 7, cat: 'ac2g', name: 'ac2g', pid: 0, tid: 7, ts: 20, bp: 'e' },
      { ph: 's', id: 8, cat: 'async_cpu_to_gpu', name: 'x', pid: 1, tid: 1, ts: 12 },
      { ph: 'f', id: 8, cat: 'async_cpu_to_gpu', name: 'x', pid: 0, tid: 7, ts: 24 },
      { ph: 'X', name: 'next', cat: 'kernel', pid: 0, tid: 7, ts: 25, dur: 1 },
      { ph: 'X', name: 'a', pid: 2, tid: 2, ts: 1, dur: 1, bind_id: '0x1', flow_out: true },
      { ph: 'X', name: 'b', pid: 2, tid: 3, ts: 5, dur: 1, bind_id: '0x1', flow_in: true },
    ];
    const r = await rows('flows.json', JSON.stringify(ev), `select o.name as o, i.name as i, f.category, f.name from flow f
      join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in order by o.name, i.name`);
    expect(r).toEqual([
      { o: 'a', i: 'b', category: null, name: null },
      { o: 'launch', i: 'kern', category: 'ac2g', name: 'ac2g' },
      { o: 'launch', i: 'next', category: 'async_cpu_to_gpu', name: 'x' },
    ]);
  });

  it('one-line errors (strict) with the file and line for broken JSON, and for a __proto__ key without polluting prototypes', async () => {
    const broken = files.write('broken.json', '{"traceEvents":[\n{"ph":"X","name":"a","ts":1,"dur":1},\n{"ph":"X",,}\n]}');
    const strict = { strict: true };
    await expect(openTrace(broken, strict)).rejects.toThrow(TraceFormatError);
    await expect(openTrace(broken, strict)).rejects.toThrow(/broken\.json: line 3 \(byte \d+\): malformed event/);
    const proto = files.write('proto.json', '[{"ph":"X","name":"a","ts":1,"dur":1,"args":{"__proto__":{"polluted":1}}}]');
    await expect(openTrace(proto)).rejects.toThrow(/proto\.json: line 1 \(byte 1\): forbidden key "__proto__"/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const trunc = files.write('trunc.json', '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1}');
    await expect(openTrace(trunc, strict)).rejects.toThrow(/trunc\.json: line 1 .*truncated/);
    const gz = files.write('bad.json.gz', '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]');
    const raw = Buffer.from((await import('node:fs')).readFileSync(gz));
    (await import('node:fs')).writeFileSync(gz, raw.subarray(0, raw.length - 6));
    await expect(openTrace(gz, strict)).rejects.toThrow(/bad\.json\.gz: compressed byte \d+: bad gzip data/);
    // An empty file loads as an empty trace, as trace_processor loads it; strict refuses it.
    await expect(openTrace(files.write('empty.json', ''), { strict: true })).rejects.toThrow(/empty file/);
  });
});

describe('JSON scanner', () => {
  it('finds the same events whatever the chunk boundaries, with escapes and nesting inside strings', () => {
    const text = '\n{"meta": {"x": "a\\"}]"}, "traceEvents": [{"name": "q\\\\", "ph": "X"}, {"name": "}{[", "args": {"a": [1, {"b": "\\\\\\""}]}}\n],"tail": 12345}';
    const expected = JSON.parse(text) as { traceEvents: unknown[] };
    for (let size = 1; size <= 17; size++) {
      const seen: unknown[] = [];
      const top: Record<string, unknown> = {};
      const scanner = new ChromeJsonScanner({
        event: (buf, s, e) => seen.push(JSON.parse(buf.toString('utf8', s, e))),
        topLevel: (k, raw) => { top[k] = raw === null ? null : JSON.parse(raw); },
      });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
      scanner.end();
      expect(seen).toEqual(expected.traceEvents);
      expect(top).toEqual({ meta: { x: 'a"}]' }, tail: 12345 });
    }
  });

  it('points at the event\'s own "ts" and "dur" values, not at keys or values of those names inside it', () => {
    const text = '[{"name": "ts", "args": {"ts": 1, "dur": 2}, "ts" :  12.5, "cat": "dur", "dur":7},\n'
      + '{"args": [{"ts": 3}], "tag": "\\"ts\\":", "ts": 99},\n{"ph": "X"}]';
    const valueAfter = (buf: Buffer, at: number): string | null =>
      (at < 0 ? null : (/^\s*([^,}\s]+)/.exec(buf.toString('utf8', at, at + 12))?.[1] ?? 'no value'));
    for (let size = 1; size <= 23; size++) {
      const seen: Array<[string | null, string | null]> = [];
      const scanner = new ChromeJsonScanner({
        event: (buf, _s, _e, _l, _o, tsAt, durAt) => seen.push([valueAfter(buf, tsAt), valueAfter(buf, durAt)]),
        topLevel: () => {},
      });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
      scanner.end();
      expect(seen, `chunks of ${size} bytes`).toEqual([['12.5', '7'], ['99', null], [null, null]]);
    }
  });

  it('flags exactly the events with numbers JSON.parse would misread: past 2^53, or a real with an integral value in an object', () => {
    // LONG_DIGITS: 17 digits, or 16 from a 9 (2^53 = 9007199254740992); a 16-digit number from a 1 (a Kineto ts
    // in ns) is below 2^53. INTEGRAL_REAL: an all-zero fraction or an exponent, inside the event's objects (its
    // own ts is not an arg). Digits inside strings are not numbers.
    const L = LONG_DIGITS, R = INTEGRAL_REAL;
    const events = [
      ['{"args": {"id": 12345678901234567}}', L],
      ['{"args": {"id": -9007199254740993}}', L],
      ['{"ts": 1712345678901234, "args": {"n": 1.5}}', 0],
      ['{"name": "12345678901234567890", "args": {"s": "99999999999999999", "t": "1.0"}}', 0],
      ['{"args": {"x": 0.12345678901234567}}', L], // a fraction: a false alarm costs one walk of the args
      ['{"args": {"a": [1, 900719925474099]}}', 0],
      ['{"ts": 1.0, "dur": 2e3, "args": {"n": 10, "m": 0.5, "b": true, "f": false}}', 0],
      ['{"args": {"n": 1.0}}', R],
      ['{"args": {"a": [2, -3.000]}}', R],
      ['{"args": {"n": 1e3}}', R],
      ['{"args": {"n": 2.5E-1, "big": 123456789012345678}}', L | R],
      ['{"args": {"n": 1.05}}', 0],
    ] as const;
    const text = `[${events.map(([e]) => e).join(',\n')}]`;
    for (let size = 1; size <= 19; size++) {
      const seen: number[] = [];
      const scanner = new ChromeJsonScanner({ event: (_b, _s, _e, _l, _o, _t, _d, flags) => seen.push(flags), topLevel: () => {} });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
      scanner.end();
      expect(seen, `chunks of ${size} bytes`).toEqual(events.map(([, flags]) => flags));
    }
  });
});
