/**
 * An event without a category stays without one through convert (issue 12). trace_processor v58.2 reads a JSON
 * event with no `cat`, or `cat: ""`, as a NULL category, and a pftrace event without category_iids as NULL too
 * (but an interned "" as ""). Before, convert wrote `"cat":""` in JSON and interned "" in a pftrace, so a
 * slice that had no category came back with the empty one.
 */
import { expect, it } from 'vitest';
import { convertFixture } from './support/cli.js';

const SOURCE = {
  traceEvents: [
    { ph: 'X', name: 'none', pid: 1, tid: 1, ts: 0, dur: 10 },
    { ph: 'X', name: 'empty', cat: '', pid: 1, tid: 1, ts: 20, dur: 10 },
    { ph: 'X', name: 'kept', cat: 'k', pid: 1, tid: 1, ts: 40, dur: 10 },
    { ph: 'i', name: 'inst', s: 't', pid: 1, tid: 1, ts: 60 },
    { ph: 'B', name: 'pair', pid: 1, tid: 1, ts: 70 },
    { ph: 'E', pid: 1, tid: 1, ts: 80 },
  ],
};
/** name and category of each slice but gsprof's own metadata instant, as trace_processor gives them for SOURCE. */
const EXPECTED = ['empty,', 'inst,', 'kept,k', 'none,', 'pair,'];

const { convert, query, read } = convertFixture(SOURCE);

/** `name,category` per slice, a NULL category as nothing after the comma and "" as `""`. */
async function categories(file: string): Promise<string[]> {
  const sql = `select name, case when category is null then '' when category = '' then '""' else category end as c
    from slice where name <> 'gsprof.metadata' order by name`;
  return await query(file, sql);
}

/** The events of a written JSON file other than metadata (M) events. */
function events(file: string): Array<Record<string, unknown>> {
  const j = JSON.parse(read(file)) as { traceEvents: Array<Record<string, unknown>> };
  return j.traceEvents.filter((e) => e.ph !== 'M' && e.name !== 'gsprof.metadata');
}

it('the JSON importer reads no category and an empty one as NULL', async () => {
  expect(await categories('in.json')).toEqual(EXPECTED);
});

it('JSON -> JSON writes no cat key where there was none, and keeps a real one', async () => {
  await convert('in.json', 'out.json');
  const written = events('out.json');
  expect(written.map((e) => [e.name, 'cat' in e ? e.cat : '(absent)'])).toEqual([
    ['none', '(absent)'], ['empty', '(absent)'], ['kept', 'k'], ['inst', '(absent)'], ['pair', '(absent)'],
  ]);
  expect(await categories('out.json')).toEqual(EXPECTED);
});

it('JSON -> pftrace -> JSON keeps them NULL', async () => {
  await convert('in.json', 'mid.pftrace');
  expect(await categories('mid.pftrace')).toEqual(EXPECTED);
  await convert('mid.pftrace', 'back.json');
  expect(events('back.json').filter((e) => 'cat' in e).map((e) => e.name)).toEqual(['kept']);
  expect(await categories('back.json')).toEqual(EXPECTED);
});

/** v1 flows with and without a category between two slices on two threads. */
const FLOWS = convertFixture({
  traceEvents: [
    { ph: 'X', name: 'launch', pid: 1, tid: 1, ts: 0, dur: 10 },
    { ph: 'X', name: 'run', pid: 1, tid: 2, ts: 20, dur: 10 },
    { ph: 's', name: 'plain', id: 1, pid: 1, tid: 1, ts: 5 },
    { ph: 'f', bp: 'e', name: 'plain', id: 1, pid: 1, tid: 2, ts: 25 },
    { ph: 's', cat: 'c', name: 'named', id: 2, pid: 1, tid: 1, ts: 5 },
    { ph: 'f', bp: 'e', cat: 'c', name: 'named', id: 2, pid: 1, tid: 2, ts: 25 },
  ],
});
const FLOW_SQL = `select f.name, coalesce(f.category, '(null)'), o.name, i.name from flow f
  join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in order by f.name`;

it('a flow without a category is written without one, and reads back with the same arrow and none', async () => {
  const want = ['named,c,launch,run', 'plain,(null),launch,run'];
  expect(await FLOWS.query('in.json', FLOW_SQL)).toEqual(want);
  await FLOWS.convert('in.json', 'out.json');
  const flows = (JSON.parse(FLOWS.read('out.json')) as { traceEvents: Array<Record<string, unknown>> }).traceEvents
    .filter((e) => e.ph === 's' || e.ph === 'f');
  expect(flows.map((e) => [e.ph, e.name, 'cat' in e ? e.cat : '(absent)'])).toEqual(expect.arrayContaining([
    ['s', 'plain', '(absent)'], ['f', 'plain', '(absent)'], ['s', 'named', 'c'], ['f', 'named', 'c'],
  ]));
  expect(flows.length).toBe(4);
  expect(await FLOWS.query('out.json', FLOW_SQL)).toEqual(want);
});
