/**
 * convert keeps what trace_processor reads from the source (issue 12): a real arg whose value is an integer
 * (`1.0`, `1e+3`) stays a real, JSON -> JSON and JSON -> pftrace -> JSON (before, it came back an int), and a
 * slice's thread time (slice.thread_ts, thread_dur; Chrome's tts, tdur) goes from JSON or pftrace to JSON. The
 * expected values are what trace_processor_shell v58.2 gives on the source files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { trace } from '../packages/profiler/test/import/support/proto-writer.js';
import { convertFile, ensureBuilt, gsprof, queryCsv, tempDir } from './support/cli.js';

// Written as text: JSON.stringify would write 1.0 as 1.
const SOURCE = `{"traceEvents":[
{"ph":"X","name":"x","pid":1,"tid":1,"ts":10,"dur":5,"tts":3,"tdur":2,
 "args":{"a":1.0,"b":1,"c":1.5,"d":1e+3,"e":-0.0,"list":[1.0,2],"obj":{"k":3.00}}},
{"ph":"X","name":"x no tdur","pid":1,"tid":1,"ts":20,"dur":5,"tts":7.5},
{"ph":"B","name":"b","pid":1,"tid":1,"ts":40,"tts":11},
{"ph":"E","pid":1,"tid":1,"ts":50,"tts":15},
{"ph":"i","s":"t","name":"mark","pid":1,"tid":1,"ts":60,"tts":40}
]}`;

/** args.key (or debug.key in a pftrace) and value_type, as trace_processor_shell v58.2 types the source's args. */
const ARG_TYPES = ['a,real', 'b,int', 'c,real', 'd,real', 'e,real', 'list[0],real', 'list[1],int', 'obj.k,real'];
const ARG_SQL = `select regexp_replace(a.key, '^(args|debug)\\.', '') as k, a.value_type from args a
  join slice s on s.arg_set_id = a.arg_set_id where s.name = 'x' and a.key like '%.%' order by k`;
/** name, thread_ts, thread_dur as trace_processor_shell v58.2 gives them for the source. */
const THREAD_TIMES = ['x,3000,2000', 'x no tdur,7500,', 'b,11000,4000', 'mark,40000,'];
const THREAD_SQL = 'select name, thread_ts, thread_dur from slice order by ts';

let dir = '';
beforeAll(async () => {
  ensureBuilt();
  dir = tempDir();
  writeFileSync(join(dir, 'in.json'), SOURCE);
  await convertFile(dir, 'in.json', 'direct.json');
  await convertFile(dir, 'in.json', 'a.pftrace');
  await convertFile(dir, 'a.pftrace', 'back.json');
});

it('reads the source as trace_processor does', async () => {
  expect(await queryCsv(join(dir, 'in.json'), ARG_SQL)).toEqual(ARG_TYPES);
  expect(await queryCsv(join(dir, 'in.json'), THREAD_SQL)).toEqual(THREAD_TIMES);
});

it('a real arg with an integral value stays a real through JSON and through pftrace', async () => {
  for (const f of ['direct.json', 'a.pftrace', 'back.json']) expect(await queryCsv(join(dir, f), ARG_SQL), f).toEqual(ARG_TYPES);
  // Written with a decimal point, so that any JSON reader types it real.
  expect(readFileSync(join(dir, 'direct.json'), 'utf8')).toContain('"a":1.0,"b":1,"c":1.5,"d":1000.0,"e":-0.0,"list":[1.0,2],"obj":{"k":3.0}');
});

it('thread time goes JSON -> JSON as tts and tdur', async () => {
  expect(await queryCsv(join(dir, 'direct.json'), THREAD_SQL)).toEqual(THREAD_TIMES);
});

it('thread time goes pftrace -> JSON', async () => {
  // A thread's BEGIN/END and INSTANT with thread_time_absolute_us (17): thread_ts 7000 ns, thread_dur 2000 ns
  // and 12000 ns, 0 (a JSON instant has no tdur: NULL once read back), as trace_processor_shell v58.2 reads them.
  writeFileSync(join(dir, 'tt.pftrace'), trace([
    [[10, 1], [13, 1], [60, [[1, 1], [4, [[1, 10], [2, 11], [5, 'main']]]]]],
    [[10, 1], [8, 100], [11, [[9, 1], [11, 1], [23, 'work'], [17, 7]]]],
    [[10, 1], [8, 300], [11, [[9, 2], [11, 1], [17, 9]]]],
    [[10, 1], [8, 400], [11, [[9, 3], [11, 1], [23, 'inst'], [17, 12]]]],
  ]));
  expect(await queryCsv(join(dir, 'tt.pftrace'), THREAD_SQL)).toEqual(['work,7000,2000', 'inst,12000,0']);
  await convertFile(dir, 'tt.pftrace', 'tt.json');
  expect(await queryCsv(join(dir, 'tt.json'), THREAD_SQL)).toEqual(['work,7000,2000', 'inst,12000,']);
});

it('JSON -> pftrace says that it leaves thread time out, rather than losing it silently', async () => {
  const withTime = await gsprof(['convert', join(dir, 'in.json'), join(dir, 'warned.pftrace')], { env: { GSPROF_NO_CACHE: '1' } });
  expect(withTime.code).toBe(0);
  // The four slices with a tts: two X, the B/E pair's slice, the instant.
  expect(withTime.stderr).toMatch(/^gsprof: warning: .*warned\.pftrace: the thread time \(tts, tdur\) of 4 slices is not written/m);
  // What the warning says: no thread time came through (the pftrace also holds convert's own metadata instant).
  const back = await queryCsv(join(dir, 'warned.pftrace'), "select name, thread_ts, thread_dur from slice where name <> 'gsprof.metadata' order by ts");
  expect(back).toEqual(['x,,', 'x no tdur,,', 'b,,', 'mark,,']);
  // To JSON it is kept, and nothing is said.
  const toJson = await gsprof(['convert', join(dir, 'in.json'), join(dir, 'quiet.json')], { env: { GSPROF_NO_CACHE: '1' } });
  expect(toJson.code).toBe(0);
  expect(toJson.stderr).not.toMatch(/warning/);
});
