import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { ColumnBatch } from '../../src/import/column-batch.js';
import { ColumnBuffer, detachChunk, type Cell, type ColumnChunk } from '../../src/import/column-buffer.js';

describe('ColumnBatch', () => {
  it('stores every cell and every null of each column type, across full and partial chunks', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run('CREATE TABLE t (i INTEGER, d DOUBLE, k TINYINT, s VARCHAR)');
    const batch = new ColumnBatch(await conn.createAppender('t'));
    // 5000 rows: two full 2048-row chunks and a partial one; nulls at irregular rows of each column.
    const rows: Cell[][] = [];
    for (let r = 0; r < 5000; r++) {
      rows.push([
        r % 7 === 0 ? null : r - 2500,
        r % 11 === 0 ? null : r * 0.25 - 1e-9,
        r % 13 === 0 ? null : (r % 256) - 128,
        r % 5 === 0 ? null : `s${r}`,
      ]);
      batch.row(rows[r]!);
    }
    batch.close();
    const back = (await conn.runAndReadAll('SELECT i, d, k, s FROM t')).getRows();
    expect(back.length).toBe(5000);
    expect(back).toEqual(rows);
    conn.closeSync();
    instance.closeSync();
  });

  it('stores BIGINT cells exactly: numbers up to 2^53, bigints to the ends of int64, nulls', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run('CREATE TABLE t (v BIGINT)');
    const batch = new ColumnBatch(await conn.createAppender('t'));
    const edges: Cell[] = [0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53 - 1),
      2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, null];
    // 3000 rows: the edges, then numbers across the whole safe range; a second chunk too.
    const rows: Cell[] = [...edges];
    for (let r = rows.length; r < 3000; r++) rows.push(r % 17 === 0 ? null : Math.round((Math.sin(r) * 2 ** 53) / 1.0000001));
    for (const v of rows) batch.row([v]);
    expect(() => batch.row([1.5])).toThrow(/BIGINT.*1.5/);
    expect(() => batch.row([2 ** 53])).toThrow(/BIGINT/);
    expect(() => batch.row([2n ** 63n])).toThrow(/BIGINT.*9223372036854775808/);
    batch.close();
    const back = (await conn.runAndReadAll('SELECT v FROM t')).getRows().map((r) => r[0]);
    expect(back).toEqual(rows.map((v) => (v === null ? null : BigInt(v))));
    conn.closeSync();
    instance.closeSync();
  });

  it('refuses a value its column cannot hold instead of storing a wrapped one', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run('CREATE TABLE t (i INTEGER, k TINYINT)');
    const batch = new ColumnBatch(await conn.createAppender('t'));
    expect(() => batch.row([2 ** 31, 0])).toThrow(/INTEGER.*2147483648/);
    expect(() => batch.row([1, 200])).toThrow(/TINYINT.*200/);
    expect(() => batch.row([1.5, 0])).toThrow(/INTEGER.*1.5/);
    expect(() => batch.row(['7', 0])).toThrow(/given string/);
    // A refused row leaves nothing behind: the row written after it keeps all its values.
    expect(() => batch.row([null, 200])).toThrow(/TINYINT/);
    batch.row([5, 1]);
    batch.close();
    expect((await conn.runAndReadAll('SELECT i, k FROM t')).getRows()).toEqual([[5, 1]]);
    conn.closeSync();
    instance.closeSync();
  });

  it('appends chunks detached for another thread to the same rows as rows given to it directly', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run('CREATE TABLE direct (i INTEGER, d DOUBLE, s VARCHAR); CREATE TABLE posted (i INTEGER, d DOUBLE, s VARCHAR)');
    const direct = new ColumnBatch(await conn.createAppender('direct'));
    const posted = new ColumnBatch(await conn.createAppender('posted'));
    // What the import worker does: each chunk is detached (numbers copied, strings packed into one text) and
    // posted; here it is structured-cloned as postMessage would, then appended.
    const chunks: ColumnChunk[] = [];
    const buffer = new ColumnBuffer(posted.specs, (c) => { chunks.push(structuredClone(detachChunk(c).chunk)); });
    const strings = ['', 'a\u0000b', 'µs ✓ 🚀', null, 'x'.repeat(300)];
    for (let r = 0; r < 4500; r++) {
      const row: Cell[] = [r % 9 === 0 ? null : r, r % 4 === 0 ? null : r / 3, strings[r % strings.length]! === null ? null : `${strings[r % strings.length]}${r}`];
      direct.row(row);
      buffer.row(row);
    }
    buffer.close();
    expect(chunks.map((c) => c.rows)).toEqual([2048, 2048, 404]);
    expect(chunks[0]!.columns[2]!.strings).toBeDefined();
    for (const c of chunks) posted.append(c);
    direct.close();
    posted.close();
    const read = async (t: string) => (await conn.runAndReadAll(`SELECT i, d, s FROM ${t} ORDER BY rowid`)).getRows();
    const want = await read('direct');
    expect(want.length).toBe(4500);
    expect(await read('posted')).toEqual(want);
    conn.closeSync();
    instance.closeSync();
  });

  it('keeps every row of a table in a database file, stored in full row groups that the checkpoint need not merge', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-column-batch-'));
    try {
      const instance = await DuckDBInstance.create(join(dir, 't.duckdb'), { threads: '1' });
      const conn = await instance.connect();
      await conn.run('CREATE TABLE t (i INTEGER, d DOUBLE)');
      const batch = new ColumnBatch(await conn.createAppender('t'));
      // Eight row groups of 122,880 rows and part of a ninth: enough for the appender's own commits to show.
      const n = 8 * 122_880 + 1000;
      for (let r = 0; r < n; r++) batch.row([r, r * 0.5]);
      batch.close();
      const [count, sumI, sumD] = (await conn.runAndReadAll('SELECT count(*), sum(i), sum(d) FROM t')).getRows()[0]!.map(Number);
      expect(count).toBe(n);
      expect(sumI).toBe((n * (n - 1)) / 2);
      expect(sumD).toBe((n * (n - 1)) / 4);
      // Before any checkpoint: the appender's own commits (every 204,800 rows) would leave part-filled groups.
      const groups = (await conn.runAndReadAll("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('t')")).getRows()[0]![0];
      expect(Number(groups)).toBe(9);
      conn.closeSync();
      instance.closeSync();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
