/**
 * A string pid or tid (Chrome JSON allows them) comes back as the same string through JSON -> JSON convert
 * (issue 12); the importer gives it a number, as trace_processor does, and keeps the string as the process or
 * thread name. trace_processor v58.2 reads the source and the converted file with the same names (process
 * Browser with thread CrBrowserMain; process 7 unnamed with thread 9 named). A pftrace has no place for a
 * string id: through it the ids are numbers, and the names still come back.
 */
import { expect, it } from 'vitest';
import { convertFixture } from './support/cli.js';

const SOURCE = {
  traceEvents: [
    { ph: 'X', name: 'a', pid: 'Browser', tid: 'CrBrowserMain', ts: 0, dur: 10 },
    { ph: 'i', name: 'mark', s: 't', pid: 'Browser', tid: 'CrBrowserMain', ts: 5 },
    { ph: 'C', name: 'mem', pid: 'Browser', ts: 0, args: { bytes: 5 } },
    { ph: 'X', name: 'b', pid: 7, tid: 8, ts: 0, dur: 10 },
    { ph: 'X', name: 'c', pid: 7, tid: 9, ts: 0, dur: 10 },
    { ph: 'M', name: 'thread_name', pid: 7, tid: 9, args: { name: 'named' } },
  ],
};
/** Slice name, process name and thread name of each slice ('' for NULL). */
const EXPECTED = ['a,Browser,CrBrowserMain', 'b,,', 'c,,named', 'mark,Browser,CrBrowserMain'];
const NAMES = `select s.name, p.name as pname, t.name as tname from slice s join thread_track tr on tr.id = s.track_id
  join thread t using (utid) join process p using (upid) where s.name <> 'gsprof.metadata' order by s.name`;

const { convert, query, read } = convertFixture(SOURCE);

/** `ph name pid tid` of each event but gsprof's metadata, in file order. */
function ids(file: string): string[] {
  const j = JSON.parse(read(file)) as { traceEvents: Array<Record<string, unknown>> };
  return j.traceEvents.filter((e) => e.ph !== 'M' && e.name !== 'gsprof.metadata')
    .map((e) => [e.ph, e.name, JSON.stringify(e.pid), ...(e.ph === 'C' ? [] : [JSON.stringify(e.tid)])].join(' '));
}

it('JSON -> JSON writes the string ids back as strings, the numeric ones as numbers', async () => {
  expect(await query('in.json', NAMES)).toEqual(EXPECTED);
  await convert('in.json', 'out.json');
  expect(ids('out.json').sort()).toEqual([
    'C mem "Browser"', 'X a "Browser" "CrBrowserMain"', 'X b 7 8', 'X c 7 9', 'i mark "Browser" "CrBrowserMain"',
  ]);
  expect(await query('out.json', NAMES)).toEqual(EXPECTED);
  expect(await query('out.json', 'select name from counter_track')).toEqual(['mem bytes']);
});

it('through a pftrace the names survive', async () => {
  await convert('in.json', 'mid.pftrace');
  await convert('mid.pftrace', 'back.json');
  expect(await query('back.json', NAMES)).toEqual(EXPECTED);
});
