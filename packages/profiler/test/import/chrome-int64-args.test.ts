/**
 * An integer arg beyond 2^53 in JSON input is kept exact in args.int_value (BIGINT), as trace_processor keeps
 * it (int64); the JSON importer's batched JSON.parse reads it as a double, so such events are read again from
 * their text. trace_processor v58.2 gives the same values and types for every key below on this file, except
 * the literals past int64 ("over", "u64"), which it wraps to -9223372036854775808 and -1 (stored as real):
 * gsprof keeps the nearest double there instead.
 */
import { afterAll, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

// Written by hand: JSON.stringify cannot write these literals. Padding events make the big ones go through the
// batched parse, as in a real trace, not only through the one-event path.
const TEXT = `{"traceEvents":[
{"ph":"X","name":"pad","pid":1,"tid":1,"ts":0,"dur":1,"args":{"n":1}},
{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":10,"args":{"big":9007199254740993,"neg":-9007199254740993,
 "max":9223372036854775807,"min":-9223372036854775808,"over":9223372036854775808,"u64":18446744073709551615,
 "exp":9007199254740993.0,"e":1e20,"arr":[1,9007199254740995],"nest":{"x":12345678901234567},
 "s":"9007199254740993 \\" 9007199254740993","safe":9007199254740991}},
{"ph":"B","name":"b","pid":1,"tid":1,"ts":11,"args":{"v":9007199254740993}},
{"ph":"E","pid":1,"tid":1,"ts":12,"args":{"w":-9007199254740995}},
{"ph":"i","name":"i","pid":1,"tid":1,"ts":13,"s":"t","args":{"id":18014398509481985}},
{"ph":"X","name":"pad","pid":1,"tid":1,"ts":30,"dur":1}
]}`;

it('integer args past 2^53 are exact int64 values; reals, strings and literals past int64 are not made ints', async () => {
  const db = await openTrace(files.write('big-ints.json', TEXT));
  try {
    const { rows } = await db.query(`select s.name, a.key, cast(a.int_value as varchar) as int_value, a.string_value,
      a.real_value, a.value_type from slice s join args a using (arg_set_id) where s.name <> 'pad' order by s.name, a.key`);
    expect(rows).toEqual([
      { name: 'a', key: 'args.arr[0]', int_value: '1', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.arr[1]', int_value: '9007199254740995', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.big', int_value: '9007199254740993', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.e', int_value: null, string_value: null, real_value: 1e20, value_type: 'real' },
      { name: 'a', key: 'args.exp', int_value: null, string_value: null, real_value: 9007199254740992, value_type: 'real' },
      { name: 'a', key: 'args.max', int_value: '9223372036854775807', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.min', int_value: '-9223372036854775808', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.neg', int_value: '-9007199254740993', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.nest.x', int_value: '12345678901234567', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.over', int_value: null, string_value: null, real_value: 2 ** 63, value_type: 'real' },
      { name: 'a', key: 'args.s', int_value: null, string_value: '9007199254740993 " 9007199254740993', real_value: null, value_type: 'string' },
      { name: 'a', key: 'args.safe', int_value: '9007199254740991', string_value: null, real_value: null, value_type: 'int' },
      { name: 'a', key: 'args.u64', int_value: null, string_value: null, real_value: 2 ** 64, value_type: 'real' },
      { name: 'b', key: 'args.v', int_value: '9007199254740993', string_value: null, real_value: null, value_type: 'int' },
      { name: 'b', key: 'args.w', int_value: '-9007199254740995', string_value: null, real_value: null, value_type: 'int' },
      { name: 'i', key: 'args.id', int_value: '18014398509481985', string_value: null, real_value: null, value_type: 'int' },
    ]);
  } finally {
    await db.close();
  }
});
