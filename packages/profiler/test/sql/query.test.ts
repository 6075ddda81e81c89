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

  it('keeps duplicate and unnamed result columns apart', async () => {
    const r = await db.query('select 1 as a, 2 as a, 3 as a_1');
    expect(r.columns).toEqual(['a', 'a_1', 'a_1_1']);
    expect(r.rows).toEqual([{ a: 1, a_1: 2, a_1_1: 3 }]);
    const j = await db.query(`select s.name, p.name from slice s join slice p on s.parent_id = p.id order by s.ts limit 1`);
    expect(j.columns).toEqual(['name', 'name_1']);
    expect(j.rows).toEqual([{ name: 'work', name_1: 'step' }]);
  });

  it('is read-only by construction: wrapped writes change nothing, for library users too', async () => {
    for (const sql of ['explain analyze delete from slice', 'explain analyze update slice set dur = 0',
      'explain analyze drop table slice', 'explain analyze insert into slice (id) values (99)']) {
      const err = await db.query(sql).catch((e: unknown) => e);
      expect(err, sql).toBeInstanceOf(ReadOnlyQueryError);
    }
    // A temporary table lives on the query's own connection and dies with it: it never shadows the trace's tables.
    await db.query('explain analyze create temp table slice as select 42 as id');
    expect((await db.query('select count(*) as n, sum(dur) as d from slice')).rows).toEqual([{ n: 3, d: 140000 }]);
    expect(await db.rows('select count(*) as n from slice')).toEqual([{ n: 3 }]);
  });

  it('says an empty query is empty, in one line', async () => {
    for (const sql of ['', '  ', ' ; ']) {
      await expect(db.query(sql)).rejects.toThrow(/^empty query: give one SQL statement/);
    }
  });

  it('stops a query at its time limit', async () => {
    const t0 = Date.now();
    const err = await db.query('with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r', { timeoutMs: 300 })
      .catch((e: unknown) => e) as Error;
    expect(err).toBeInstanceOf(TraceQueryError);
    expect(err.message).toMatch(/time limit of 0.3 s/);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect((await db.query('select count(*) as n from slice')).rows).toEqual([{ n: 3 }]);
  });

  it('a streamed result cut off by the time limit is an error, not a shorter result', async () => {
    const { batches } = await db.queryStream('select * from range(100000000000)', { timeoutMs: 300 });
    let rows = 0;
    const err = await (async () => { for await (const b of batches) rows += b.length; })().catch((e: unknown) => e) as Error;
    expect(err).toBeInstanceOf(TraceQueryError);
    expect(err.message).toMatch(/time limit of 0.3 s/);
    expect(rows).toBeGreaterThan(0); // it was streaming when the limit came
  });

  it('streams a result chunk by chunk', async () => {
    const { columns, batches } = await db.queryStream('select range as i from range(5000)');
    expect(columns).toEqual(['i']);
    const sizes: number[] = [];
    let sum = 0;
    for await (const b of batches) { sizes.push(b.length); for (const r of b) sum += r[0] as number; }
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(5000);
    expect(sum).toBe(4999 * 5000 / 2);
  });

  it('queryTrace opens, queries and closes', async () => {
    expect((await queryTrace(path, 'select count(*) as n from slice')).rows).toEqual([{ n: 3 }]);
  });
});
