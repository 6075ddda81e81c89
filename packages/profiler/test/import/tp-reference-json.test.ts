/**
 * Rules of Perfetto's JSON importer that gsprof follows for processes and threads, each on a small trace of its
 * own, checked against what trace_processor_shell gives: the expected rows were read off trace_processor_shell
 * v58.2, and where the binary is present (always under CI=true) the test runs the same SQL there too. The
 * numbers of string pids and tids are each tool's own (trace_processor's string-pool ids, gsprof's from 2^30),
 * so the queries name processes and threads, not numbers.
 */
import { afterAll, describe, it } from 'vitest';
import { tempFiles } from './support/tmp.js';
import { expectRows } from './support/trace-processor.js';

const files = tempFiles();
afterAll(() => files.cleanup());

const json = (events: object[]): string => JSON.stringify({ traceEvents: events });

describe('JSON processes and threads as trace_processor makes them', () => {
  // Kineto's own shape: string pids and tids for its spans, global instants on pids "Traces" and "".
  const path = files.write('kineto-owners.json', json([
    { ph: 'M', name: 'process_name', pid: 'GPU 0', tid: 0, ts: 0, args: { name: 'gpu' } },
    { ph: 'X', name: 'k', pid: 'GPU 0', tid: 's', ts: 1, dur: 1 },
    { ph: 'X', name: 'k2', pid: 'Late', tid: 's', ts: 1, dur: 1 },
    { ph: 'M', name: 'process_name', pid: 'Late', tid: 0, ts: 5, args: { name: 'late name' } },
    { ph: 'M', name: 'thread_name', pid: 'Late', tid: 's', ts: 6, args: { name: 'late thread' } },
    { ph: 'X', name: 'k3', pid: 'Named', tid: 'n', ts: 1, dur: 1 },
    { ph: 'M', name: 'process_name', pid: 'Named', tid: 0, ts: 9, args: { name: 'named last' } },
    { ph: 'M', name: 'process_name', pid: 7, tid: 0, ts: 0, args: { name: '' } },
    { ph: 'M', name: 'process_labels', pid: 8, tid: 0, ts: 0, args: { labels: 'GPU 8' } },
    { ph: 'X', name: 'w', pid: 8, tid: 3, ts: 2, dur: 1 },
    { ph: 'M', name: 'process_sort_index', pid: 9, tid: 0, ts: 0, args: { sort_index: 3 } },
    { ph: 'i', s: 'g', name: 'Iteration Start', pid: 'Traces', tid: 'Trace PyTorch Profiler', ts: 3 },
    { ph: 'i', s: 'g', name: 'Record Window End', pid: '', tid: '', ts: 4 },
  ]));

  it('every event\'s pid is a process: global instants and metadata events of any name included', async () => {
    await expectRows(path, 'SELECT pid FROM process WHERE pid BETWEEN 1 AND 100 ORDER BY pid', [[7], [8], [9]]);
    await expectRows(path, `SELECT name FROM process WHERE name IS NOT NULL ORDER BY name`,
      [[''], ['GPU 0'], ['Late'], ['Traces'], ['named last']]);
  });

  it('a string pid or tid names its process or thread after the string at each event; a process_name or thread_name event names it only if it is the last of its events in time', async () => {
    await expectRows(path, `SELECT p.name, t.name FROM thread t JOIN process p USING (upid)
      WHERE t.name IS NOT NULL ORDER BY 1, 2`,
    [['', ''], ['GPU 0', 's'], ['Late', 'late thread'], ['Traces', 'Trace PyTorch Profiler'], ['named last', 'n']]);
    // One string, one number: tid "s" is the same tid in both processes.
    await expectRows(path, `SELECT count(DISTINCT tid) FROM thread WHERE name IN ('s', 'late thread')`, [[1]]);
  });

  it('process_labels names no process; an empty process_name names none and is counted', async () => {
    await expectRows(path, 'SELECT pid, name FROM process WHERE pid IN (7, 8, 9) ORDER BY pid', [[7, null], [8, null], [9, null]]);
    await expectRows(path, `SELECT name, value FROM stats WHERE name = 'json_parser_failure'`, [['json_parser_failure', 1]]);
  });
});
