import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTrace, queryTrace, ReadOnlyQueryError, TraceQueryError, type TraceDb } from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
let db: TraceDb;
let path: string;

beforeAll(async () => {
  path = files.write('q.json', JSON.stringify({
    traceEvents: [
      { ph: 'M', name: 'process_name', pid: 1, args: { name: 'app' } },
      { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'main' } },
      { ph: 'X', name: 'step', cat: 'user_annotation', pid: 1, tid: 1, ts: 1682725898236567, dur: 100, args: { k: 5 } },
      { ph: 'X', name: 'work', pid: 1, tid: 1, ts: 1682725898236570, dur: 10 },
      { ph: 'X', name: 'work', pid: 1, tid: 1, ts: 1682725898236590, dur: 30 },
      { ph: 'C', name: 'mem', pid: 1, ts: 1682725898236570, args: { bytes: 4096 } },
    ],
  }));
  db = await openTrace(path);
});
afterAll(async () => { await db.close(); files.cleanup(); });

describe('SQL over the trace tables', () => {
  it("runs Perfetto users' everyday queries as written", async () => {
    expect((await db.query('select name, count(*), sum(dur) from slice group by name order by name')).rows).toEqual([
      { name: 'step', 'count_star()': 1, 'sum(dur)': 100000 },
      { name: 'work', 'count_star()': 2, 'sum(dur)': 40000 },
    ]);
    expect((await db.query(`select thread.name as thread, process.name as process, count(*) as n from slice
      join thread_track on slice.track_id = thread_track.id join thread using (utid) join process using (upid)
      group by 1, 2`)).rows).toEqual([{ thread: 'main', process: 'app', n: 3 }]);
    expect((await db.query(`select s.name, p.name as parent, s.depth from slice s join slice p on s.parent_id = p.id order by s.ts`)).rows)
      .toEqual([{ name: 'work', parent: 'step', depth: 1 }, { name: 'work', parent: 'step', depth: 1 }]);
    expect((await db.query(`select counter_track.name, value from counter join counter_track on counter.track_id = counter_track.id`)).rows)
      .toEqual([{ name: 'mem bytes', value: 4096 }]);
    expect((await db.query(`select EXTRACT_ARG(arg_set_id, 'args.k') as k from slice where name = 'step'`)).rows).toEqual([{ k: '5' }]);
  });

  it('gives BIGINT as numbers when exact and as decimal strings beyond 2^53', async () => {
    const r = await db.query(`select ts, dur, ts - (select min(ts) from slice) as rel from slice where name = 'step'`);
    expect(r.rows).toEqual([{ ts: '1682725898236567000', dur: 100000, rel: 0 }]);
    expect(r.columns).toEqual(['ts', 'dur', 'rel']);
    expect(JSON.parse(JSON.stringify(r.rows))).toEqual(r.rows);
  });

  it('accepts WITH, EXPLAIN and FROM-first queries', async () => {
    expect((await db.query('with w as (select dur from slice) select max(dur) as m from w')).rows).toEqual([{ m: 100000 }]);
    expect((await db.query('explain select * from slice')).rows.length).toBeGreaterThan(0);
    expect((await db.query('from slice select count(*) as n')).rows).toEqual([{ n: 3 }]);
  });

  it('rejects anything that is not a single read-only statement, with a clear error', async () => {
    for (const sql of ['insert into slice (id) values (99)', 'drop table slice', 'create table x (a int)',
      'update slice set dur = 0', "attach 'x.db'", "copy slice to 'out.csv'", "set memory_limit = '1GB'", 'vacuum', 'checkpoint']) {
      const err = await db.query(sql).catch((e: unknown) => e);
      expect(err, sql).toBeInstanceOf(ReadOnlyQueryError);
      expect((err as Error).message, sql).toMatch(/only read-only queries are allowed/);
    }
    await expect(db.query('select 1; delete from slice')).rejects.toThrow(/exactly one SQL statement/);
    expect((await db.query('select count(*) as n from slice')).rows).toEqual([{ n: 3 }]);
  });

  it('has no file access from queries, and reports SQL errors on one line', async () => {
    await expect(db.query("select * from read_text('/etc/hostname')")).rejects.toThrow(TraceQueryError);
    const err = await db.query('select nope from slice').catch((e: unknown) => e) as Error;
    expect(err).toBeInstanceOf(TraceQueryError);
    expect(err.message).toMatch(/nope/);
    expect(err.message).not.toContain('\n');
  });

  it('queryTrace opens, queries and closes', async () => {
    expect((await queryTrace(path, 'select count(*) as n from slice')).rows).toEqual([{ n: 3 }]);
  });
});
