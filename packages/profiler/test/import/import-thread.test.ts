/**
 * A JSON import on the worker thread (the default for big files: the worker parses, this thread appends the rows)
 * must build exactly the tables, stats and errors that the import on one thread does.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/sql/trace-db.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

/** Every public table in full, in a fixed order (import timing metadata left out: it differs run to run). */
const TABLE_QUERIES = [
  'select * from slice order by id',
  'select * from args order by id',
  'select * from flow order by id',
  'select * from counter order by id',
  'select * from track order by id',
  'select * from thread order by utid',
  'select * from process order by upid',
  'select * from zero_dur_slice order by slice_id',
  'select * from gpu_launch order by gpu_slice_id',
  'select * from arg_shape order by arg_set_id, arg_id',
  "select name, str_value, int_value from metadata where name not like 'import%' order by name",
  'select name, value from stats where value > 0 order by name',
];

async function tables(path: string, importThread: boolean, strict = false): Promise<unknown[]> {
  const db = await openTrace(path, { cache: false, importThread, strict });
  try {
    const out: unknown[] = [];
    for (const sql of TABLE_QUERIES) out.push((await db.query(sql)).rows);
    return out;
  } finally {
    await db.close();
  }
}

async function failure(path: string, importThread: boolean, strict: boolean): Promise<unknown> {
  try {
    await (await openTrace(path, { cache: false, importThread, strict })).close();
  } catch (err) {
    return { type: (err as Error).constructor.name, message: (err as Error).message };
  }
  return null;
}

const EVENTS = [
  '{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host ✓"}}',
  '{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"worker"}}',
  '{"ph":"X","cat":"cpu_op","name":"outer µ","pid":1,"tid":2,"ts":1700000000000000.5,"dur":100,"args":{"Input Dims":[[2,3],[]],"big":9007199254740993,"ok":true,"s":"a\\u0000b"}}',
  '{"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":2,"ts":1700000000000010,"dur":20,"flow_out":true,"bind_id":7}',
  '{"ph":"X","cat":"cpu_op","name":"spills","pid":1,"tid":2,"ts":1700000000000090,"dur":50}',
  '{"ph":"X","cat":"cpu_op","name":"zero","pid":1,"tid":2,"ts":1700000000000200,"dur":0}',
  '{"ph":"B","name":"b1","pid":1,"tid":3,"ts":1700000000000300,"args":{"x":1}}',
  '{"ph":"E","pid":1,"tid":3,"ts":1700000000000350,"args":{"y":[1,2]}}',
  '{"ph":"E","pid":1,"tid":3,"ts":1700000000000290}',
  '{"ph":"B","name":"early","pid":1,"tid":3,"ts":1700000000000280}',
  '{"ph":"b","cat":"io","name":"async","id":"0x5","pid":1,"ts":1700000000000100}',
  '{"ph":"e","cat":"io","name":"async","id":"0x5","pid":1,"ts":1700000000000400}',
  '{"ph":"i","name":"inst","s":"p","pid":1,"ts":1700000000000150}',
  '{"ph":"i","name":"global","s":"g","ts":1700000000000160}',
  '{"ph":"C","name":"mem","pid":1,"ts":1700000000000170,"args":{"bytes":12,"bad":"x"}}',
  '{"ph":"s","cat":"ac2g","name":"ac2g","id":3,"pid":1,"tid":2,"ts":1700000000000015}',
  '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1700000000000030,"dur":5,"args":{"correlation":3},"flow_in":true,"bind_id":7}',
  '{"ph":"f","cat":"ac2g","name":"ac2g","id":3,"pid":0,"tid":7,"ts":1700000000000030,"bp":"e"}',
  '{"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":2,"ts":1700000000000005,"dur":1}',
  '{"ph":"Q","name":"unknown phase","pid":1,"ts":1700000000000001}',
];

describe('JSON import on a worker thread', () => {
  it('builds the same tables as the import on one thread (object form, gzip, flaws counted)', async () => {
    const cases: Record<string, string> = {
      'object.json': `{"traceEvents":[\n${EVENTS.join(',\n')}\n],"distributedInfo":{"rank":3},"deviceProperties":[{"name":"GPU 0"}]}`,
      'array.json.gz': `[${EVENTS.join(',')},\n{"ph":"X","name":"trailing comma","pid":1,"tid":2,"ts":1700000000000600,"dur":1,"args":{"a":1,}}, null,\n{"ph":"i","ts":`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const path = files.write(name, text);
      const one = await tables(path, false);
      const two = await tables(path, true);
      for (let t = 0; t < TABLE_QUERIES.length; t++) expect(two[t], `${name}: ${TABLE_QUERIES[t]}`).toEqual(one[t]);
      // Not an empty comparison: the slices, args and flows are there.
      expect((one[0] as unknown[]).length, name).toBeGreaterThan(10);
      expect((one[1] as unknown[]).length, name).toBeGreaterThan(8);
      expect((one[2] as unknown[]).length, name).toBeGreaterThan(0);
    }
    const stats = (await tables(files.write('array2.json.gz', cases['array.json.gz']!), true))[11] as { name: string }[];
    expect(stats.map((r) => r.name)).toEqual(
      expect.arrayContaining(['json_repaired_events', 'json_parser_failure', 'json_tokenizer_failure']));
  });

  it('a truncated gzip is loaded up to the cut and counted, as on one thread', async () => {
    const gz = gzipSync(Buffer.from(`{"traceEvents":[${EVENTS.join(',')}]}`));
    const path = files.write('cut.json.gzip', gz.subarray(0, gz.length - 12));
    const one = await tables(path, false);
    expect(await tables(path, true)).toEqual(one);
    expect((one[11] as { name: string }[]).some((r) => r.name === 'gzip_truncated')).toBe(true);
  });

  it('reports the same error for a flaw in strict mode, and for a forbidden key in any mode', async () => {
    const flawed = files.write('flawed.json', `{"traceEvents":[\n${EVENTS[2]},\n{"ph":"X","name":"bad","ts":1,"dur":NaN}\n]}`);
    const strictOne = await failure(flawed, false, true);
    expect(strictOne).toMatchObject({ type: 'TraceFormatError', message: expect.stringMatching(/line 3 .*malformed event/) });
    expect(await failure(flawed, true, true)).toEqual(strictOne);
    expect(await failure(flawed, true, false)).toBeNull();
    const proto = files.write('proto.json', '{"traceEvents":[{"ph":"i","ts":1,"args":{"__proto__":{"x":1}}}]}');
    const protoOne = await failure(proto, false, false);
    expect(protoOne).toMatchObject({ type: 'TraceFormatError', message: expect.stringMatching(/__proto__/) });
    expect(await failure(proto, true, false)).toEqual(protoOne);
  });
});
