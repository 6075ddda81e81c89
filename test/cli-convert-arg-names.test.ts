/**
 * Arg names that read as structure (issue 12). trace_processor v58.2 keys a pftrace annotation named `a.b` as
 * `debug.a_b` ('.', '[' and ']' become '_'), where a JSON arg `a.b` stays `args.a.b`. gsprof keys both files as
 * trace_processor does, and convert still writes each name as it was, JSON -> pftrace -> JSON. Kineto writes
 * such names (`est. achieved occupancy %`, CUPTI's `..._pred_on.sum`).
 */
import { expect, it } from 'vitest';
import { convertFixture } from './support/cli.js';

const ARGS = { 'est. achieved occupancy %': 50, 'pred_on.sum': 3, 'dims[0]': 'x', nested: { 'a.b': 1 } };
const SOURCE = { traceEvents: [{ ph: 'X', name: 'k', pid: 1, tid: 1, ts: 10, dur: 5, args: ARGS }] };

const { convert, query, read } = convertFixture(SOURCE);

const KEYS = `select a.key from args a join slice s on s.arg_set_id = a.arg_set_id where s.name = 'k' order by a.key`;

it('keys the JSON and its pftrace as trace_processor does, and writes the names back', async () => {
  await convert('in.json', 'out.pftrace');
  await convert('out.pftrace', 'back.json');
  expect(await query('in.json', KEYS)).toEqual(['args.dims[0]', 'args.est. achieved occupancy %', 'args.nested.a.b', 'args.pred_on.sum']);
  expect(await query('out.pftrace', KEYS)).toEqual(['debug.dims_0_', 'debug.est_ achieved occupancy %', 'debug.nested.a_b', 'debug.pred_on_sum']);
  const events = (JSON.parse(read('back.json')) as { traceEvents: Array<{ name?: string; args?: unknown }> }).traceEvents;
  expect(events.find((e) => e.name === 'k')?.args).toEqual(ARGS);
});
