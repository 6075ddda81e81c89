/**
 * The import cache (issue 12): the first open of a trace keeps its imported tables, later opens reuse them,
 * and nothing stale is ever read: a changed trace, other import options, `cache: false` and a damaged entry
 * all import again.
 */
import { mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';

const files = tempFiles();
let cacheDir: string;
const saved = { dir: process.env.GSPROF_CACHE_DIR, max: process.env.GSPROF_CACHE_MAX_BYTES, off: process.env.GSPROF_NO_CACHE };

const trace = (n: number): string => JSON.stringify({
  traceEvents: Array.from({ length: n }, (_, i) => ({ ph: 'X', name: `op${i % 3}`, pid: 1, tid: 1, ts: 10 * i, dur: 5 })),
});
const entries = (): string[] => readdirSync(cacheDir).filter((f) => f.endsWith('.duckdb')).sort();
async function count(path: string, opts: { cache?: boolean; strict?: boolean } = {}): Promise<number> {
  const db = await openTrace(path, opts);
  try {
    return (await db.query('select count(*) as n from slice')).rows[0]!.n as number;
  } finally {
    await db.close();
  }
}

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'gsprof-cache-test-'));
  process.env.GSPROF_CACHE_DIR = cacheDir;
  delete process.env.GSPROF_NO_CACHE;
  delete process.env.GSPROF_CACHE_MAX_BYTES;
});
afterEach(() => {
  for (const [k, v] of [['GSPROF_CACHE_DIR', saved.dir], ['GSPROF_CACHE_MAX_BYTES', saved.max], ['GSPROF_NO_CACHE', saved.off]] as const) {
    if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
});
afterAll(() => { files.cleanup(); });

describe('import cache', () => {
  it('keeps the first import and reuses it: one entry, the same tables, marked as just used', async () => {
    const path = files.write('a.json', trace(30));
    expect(await count(path)).toBe(30);
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatch(/^[0-9a-f]{40}\.json\.duckdb$/);
    const entry = join(cacheDir, entries()[0]!);
    utimesSync(entry, new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(await count(path)).toBe(30);
    expect(entries()).toHaveLength(1);
    expect(statSync(entry).mtimeMs).toBeGreaterThan(new Date(2020, 0, 1).getTime()); // the hit touched it
  });

  it('a trace rewritten in place, other import options, or cache: false never read an old entry', async () => {
    const path = files.write('b.json', trace(10));
    expect(await count(path)).toBe(10);
    writeFileSync(path, trace(12));
    expect(await count(path)).toBe(12); // new size and mtime: a new key
    expect(entries()).toHaveLength(2);
    expect(await count(path, { strict: true })).toBe(12); // strict is part of the key
    expect(entries()).toHaveLength(3);
    const other = files.write('c.json', trace(7));
    expect(await count(other, { cache: false })).toBe(7);
    process.env.GSPROF_NO_CACHE = '1';
    expect(await count(other)).toBe(7);
    expect(entries()).toHaveLength(3); // neither wrote an entry
  });

  it('a damaged entry is dropped and the trace imported again', async () => {
    const path = files.write('d.json', trace(9));
    expect(await count(path)).toBe(9);
    const entry = join(cacheDir, entries()[0]!);
    writeFileSync(entry, 'not a database');
    expect(await count(path)).toBe(9);
    expect(statSync(entry).size).toBeGreaterThan(1000); // replaced by a fresh import
  });

  it('a query past the memory limit spills to disk on an open from the cache as on a fresh import', async () => {
    // before, the cached database was opened without a spill folder: `summary` on a 1 GB trace ran out of memory
    const path = files.write('s.json', trace(5));
    for (const pass of ['import', 'cache hit']) {
      const db = await openTrace(path, { memoryLimit: '32MB' });
      try {
        const { rows } = await db.query('select count(*) as n from (select range as r from range(6000000) order by hash(range))');
        expect(rows[0]!.n, pass).toBe(6000000);
      } finally {
        await db.close();
      }
    }
    expect(entries()).toHaveLength(1);
  });

  it('trims the least recently used entries past GSPROF_CACHE_MAX_BYTES', async () => {
    const first = files.write('e1.json', trace(5));
    await count(first);
    const size = statSync(join(cacheDir, entries()[0]!)).size;
    process.env.GSPROF_CACHE_MAX_BYTES = String(Math.floor(size * 2.5)); // room for two entries
    const [a] = entries();
    utimesSync(join(cacheDir, a!), new Date(2001, 0, 1), new Date(2001, 0, 1));
    await count(files.write('e2.json', trace(6)));
    await count(files.write('e3.json', trace(7)));
    expect(entries()).toHaveLength(2);
    expect(entries()).not.toContain(a); // the oldest went
  });
});
