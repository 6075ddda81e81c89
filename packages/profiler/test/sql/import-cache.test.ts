/**
 * The import cache (issue 12): the first open of a trace keeps its imported tables, later opens reuse them,
 * and nothing stale is ever read: a changed trace, other import options, `cache: false` and a damaged entry
 * all import again.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { logger, type LogRecord } from '@gsprof/log';
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

  /** The warnings `fn` logged (the profiler's one log channel). */
  async function warnings(fn: () => Promise<void>): Promise<string[]> {
    const lines: string[] = [];
    const previous = logger.setSink((r: LogRecord) => { if (r.level === 'warning') lines.push(r.message); });
    try { await fn(); } finally { logger.setSink(previous); }
    return lines;
  }

  /** A trace of `n` events padded to exactly `bytes`: the first and last event carry the padding, the others lie between. */
  const sized = (n: number, bytes: number): string => {
    const body = JSON.stringify({ traceEvents: Array.from({ length: n }, (_, i) => ({ ph: 'X', name: `op${i % 3}`, pid: 1, tid: 1, ts: 10 * i, dur: 5, args: i === 0 || i === n - 1 ? { pad: '' } : {} })) });
    const pad = bytes - body.length;
    return body.replace('"pad":""', `"pad":"${'x'.repeat(Math.floor(pad / 2))}"`).replace('"pad":""', `"pad":"${'x'.repeat(pad - Math.floor(pad / 2))}"`);
  };

  it('two files of the same size, mtime, head and tail, and a same-size edit in the middle with the mtime restored, each get their own tables (issue 33)', async () => {
    // The files differ only between their first and last 64 KiB of padding.
    const a = files.write('same-a.json', sized(20, 300_000));
    const b = files.write('same-b.json', sized(20, 300_000).replaceAll('"name":"op1"', '"name":"opX"'));
    expect(statSync(a).size).toBe(statSync(b).size);
    const when = new Date(2024, 0, 1);
    utimesSync(a, when, when);
    utimesSync(b, when, when);
    const names = async (path: string): Promise<string> => {
      const db = await openTrace(path);
      try { return (await db.query("select string_agg(distinct name, ',' order by name) as n from slice")).rows[0]!.n as string; } finally { await db.close(); }
    };
    expect(await names(a)).toBe('op0,op1,op2');
    expect(await names(b)).toBe('op0,op2,opX');
    expect(await names(a)).toBe('op0,op1,op2');
    // The same size, a byte changed in the middle, the mtime set back: still a new key (the ctime moved).
    const fd = openSync(a, 'r+');
    const at = readFileSync(a).indexOf('"op2"') + 3;
    writeSync(fd, Buffer.from('9'), 0, 1, at);
    closeSync(fd);
    utimesSync(a, when, when);
    expect(await names(a)).toBe('op0,op1,op2,op9'); // one op2 of several became op9
  });

  it('the entry keeps the SHA-256 of the whole trace, taken as the import read it, on the main thread, the worker and through gzip (issue 33)', async () => {
    const manifests = (): Array<{ traceSha256: string; traceSize: number }> => readdirSync(cacheDir).filter((f) => f.endsWith('.sum')).map((f) => JSON.parse(readFileSync(join(cacheDir, f), 'utf8')) as { traceSha256: string; traceSize: number });
    const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
    const plain = files.write('h.json', trace(40));
    await count(plain);
    expect(manifests()).toEqual([{ traceSha256: sha(plain), traceSize: statSync(plain).size, entrySize: expect.any(Number), entrySha256: expect.any(String) }]);
    const gz = files.write('h2.json.gz', trace(41));
    await count(gz);
    const onWorker = files.write('h3.json', trace(42));
    const db = await openTrace(onWorker, { importThread: true });
    await db.close();
    expect(manifests().map((m) => m.traceSha256).sort()).toEqual([sha(plain), sha(gz), sha(onWorker)].sort());
  });

  it('a truncated or corrupted entry is found on the next open, removed with one warning, and rebuilt (issue 33)', async () => {
    const path = files.write('t.json', trace(9));
    expect(await count(path)).toBe(9);
    const entry = join(cacheDir, entries()[0]!);
    const size = statSync(entry).size;
    truncateSync(entry, Math.floor(size / 2));
    let n = 0;
    const truncated = await warnings(async () => { n = await count(path); });
    expect(n).toBe(9);
    expect(truncated).toEqual([expect.stringMatching(/t\.json: the import cache entry .*\.duckdb was damaged \(\d+ bytes where \d+ were written\): removed, importing the trace again$/)]);
    expect(statSync(entry).size).toBe(size);
    // A byte flipped in the middle: same size, another hash.
    const bytes = readFileSync(entry);
    const mid = Math.floor(size / 2);
    bytes[mid] = bytes[mid]! ^ 0xff;
    writeFileSync(entry, bytes);
    const corrupted = await warnings(async () => { n = await count(path); });
    expect(n).toBe(9);
    expect(corrupted).toEqual([expect.stringMatching(/was damaged \(its content does not match the hash written with it\)/)]);
    // Whole again: no warning.
    expect(await warnings(async () => { n = await count(path); })).toEqual([]);
  });

  it('an entry larger than the cap answers this command and is not kept; entries keep the trace\'s permissions (issue 33)', async () => {
    process.env.GSPROF_CACHE_MAX_BYTES = '1000';
    const path = files.write('big.json', trace(50));
    expect(await count(path)).toBe(50);
    expect(await count(path)).toBe(50);
    expect(entries()).toEqual([]);
    delete process.env.GSPROF_CACHE_MAX_BYTES;
    const secret = files.write('secret.json', trace(8));
    chmodSync(secret, 0o600);
    expect(await count(secret)).toBe(8); // the cache folder exists already (made by beforeEach)
    const [entry] = entries();
    expect(statSync(join(cacheDir, entry!)).mode & 0o777).toBe(0o600);
    expect(statSync(join(cacheDir, `${entry!}.sum`)).mode & 0o777).toBe(0o600);
  });
});
