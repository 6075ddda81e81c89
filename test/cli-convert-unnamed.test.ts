/**
 * convert invents no names (issue 12): a process or thread the source leaves unnamed stays unnamed through
 * JSON -> JSON and JSON -> pftrace -> JSON. trace_processor v58.2 reads the source below with a NULL name for
 * process 7 and threads 3 and 8 (and threads 2 and 9 named), and the same from each converted file (its thread tracks have
 * no name of their own, nor have gsprof's). Before, convert wrote `process 7` and `thread 8`, and
 * the pftrace importer named thread 8's track after its first slice.
 */
import { expect, it } from 'vitest';
import { convertFixture } from './support/cli.js';

const SOURCE = {
  traceEvents: [
    { ph: 'M', name: 'process_name', pid: 1, args: { name: 'app' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 2, args: { name: 'main' } },
    { ph: 'X', name: 'a', pid: 1, tid: 2, ts: 0, dur: 10 },
    { ph: 'X', name: 'd', pid: 1, tid: 3, ts: 0, dur: 10 },
    { ph: 'X', name: 'b', pid: 7, tid: 8, ts: 0, dur: 10 },
    { ph: 'X', name: 'c', pid: 7, tid: 9, ts: 0, dur: 10 },
    { ph: 'M', name: 'thread_name', pid: 7, tid: 9, args: { name: 'named' } },
  ],
};
/** pid, process name, tid, thread name and thread track name of each thread with a slice ('' for NULL). */
const EXPECTED = ['1,app,2,main,', '1,app,3,,', '7,,8,,', '7,,9,named,'];

const { convert, query, read } = convertFixture(SOURCE);

async function names(file: string): Promise<string[]> {
  const sql = `select distinct p.pid, p.name as pname, t.tid, t.name as tname, tr.name as trname from slice s
    join thread_track tr on tr.id = s.track_id join thread t using (utid) join process p using (upid)
    where s.name <> 'gsprof.metadata' order by t.tid`;
  return await query(file, sql);
}

/** The names the M events of a written JSON file give, as `process_name pid name` / `thread_name pid tid name`. */
function nameEvents(file: string): string[] {
  const j = JSON.parse(read(file)) as { traceEvents: Array<Record<string, unknown>> };
  return j.traceEvents.filter((e) => e.ph === 'M' && (e.name === 'process_name' || e.name === 'thread_name'))
    .map((e) => [e.name, e.pid, ...(e.name === 'thread_name' ? [e.tid] : []), (e.args as { name: string }).name].join(' '));
}

it('the source reads with processes and threads unnamed where it names none', async () => {
  expect(await names('in.json')).toEqual(EXPECTED);
});

it('JSON -> JSON writes no name event for an unnamed process or thread', async () => {
  await convert('in.json', 'out.json');
  expect(nameEvents('out.json').sort()).toEqual(['process_name 1 app', 'thread_name 1 2 main', 'thread_name 7 9 named']);
  expect(await names('out.json')).toEqual(EXPECTED);
});

it('JSON -> pftrace -> JSON leaves them unnamed too', async () => {
  await convert('in.json', 'mid.pftrace');
  expect(await names('mid.pftrace')).toEqual(EXPECTED);
  await convert('mid.pftrace', 'back.json');
  expect(nameEvents('back.json').sort()).toEqual(['process_name 1 app', 'thread_name 1 2 main', 'thread_name 7 9 named']);
  expect(await names('back.json')).toEqual(EXPECTED);
});
