/**
 * Null args through convert (issue 12). trace_processor v58.2 drops a null in JSON args (in an array it takes no
 * index), and it aborted on the .pftrace convert used to write for one (a DebugAnnotation whose legacy_json_value
 * is "null", json_args.cc: "Unreachable"). convert now writes a null as an annotation with only its name, which
 * trace_processor reads as no arg; gsprof reads both files as trace_processor does and still writes each null back
 * where it was.
 */
import { expect, it } from 'vitest';
import { convertFixture } from './support/cli.js';

const ARGS = { n: null, i: 1, l: [null, 2, [null], { z: null }, 3], o: { p: null, q: 'x' }, e: [] };
const SOURCE = { traceEvents: [{ ph: 'X', name: 'x', pid: 1, tid: 1, ts: 10, dur: 5, args: ARGS }] };

const { convert, query, read } = convertFixture(SOURCE);

/** key,int_value,string_value of slice x's args, the root (args. or debug.) left out. */
const ARG_SQL = `select regexp_replace(a.key, '^(args|debug)\\.', '') as k, a.int_value, a.string_value from args a
  join slice s on s.arg_set_id = a.arg_set_id where s.name = 'x' order by k`;

it('reads the source and its pftrace as trace_processor does: no row for a null, no index in an array', async () => {
  await convert('in.json', 'out.pftrace');
  // trace_processor_shell v58.2 on in.json: l[0]=2, then [null] and {z: null} take indices 1 and 2, l[3]=3.
  expect(await query('in.json', ARG_SQL)).toEqual(['i,1,', 'l[0],2,', 'l[3],3,', 'o.q,,x']);
  // On out.pftrace it reads the same, but for an array holding only nulls, which takes no index there: l[2]=3.
  expect(await query('out.pftrace', ARG_SQL)).toEqual(['i,1,', 'l[0],2,', 'l[2],3,', 'o.q,,x']);
});

it('writes no legacy_json_value "null" into a pftrace', async () => {
  await convert('in.json', 'no-null.pftrace');
  const bytes = Buffer.from(read('no-null.pftrace'), 'latin1');
  // Field 9 (legacy_json_value), length 4, "null".
  expect(bytes.includes(Buffer.from([0x4a, 0x04, ...Buffer.from('null')]))).toBe(false);
  // The empty array still goes as legacy_json_value "[]".
  expect(bytes.includes(Buffer.from([0x4a, 0x02, ...Buffer.from('[]')]))).toBe(true);
});

it('writes every null back where it was, JSON -> JSON and JSON -> pftrace -> JSON', async () => {
  await convert('in.json', 'direct.json');
  await convert('in.json', 'via.pftrace');
  await convert('via.pftrace', 'back.json');
  for (const file of ['direct.json', 'back.json']) {
    const events = (JSON.parse(read(file)) as { traceEvents: Array<{ name?: string; args?: unknown }> }).traceEvents;
    expect(events.find((e) => e.name === 'x')?.args, file).toEqual(ARGS);
  }
});
