/**
 * The import cache, as nsys keeps its SQLite export beside a report: the first command on a trace keeps the
 * imported DuckDB file, and later commands on the same trace open it instead of importing again.
 *
 * Entries live in the user cache folder (GSPROF_CACHE_DIR, else $XDG_CACHE_HOME/gsprof/traces, else
 * ~/.cache/gsprof/traces), never beside the trace: a folder of traces stays what the user put there (compare
 * reads whole folders), and read-only folders need no special case. An entry's name is a hash of what decides
 * its tables: the trace's size, mtime and first and last 64 KiB, the import options, the importer's own code
 * and the DuckDB version. So an edited trace, or a gsprof whose importer changed, never reads a stale entry.
 * Entries are written whole and renamed into place, and the folder is trimmed to CACHE_MAX_BYTES, least
 * recently used first.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as duckdbVersion } from '@duckdb/node-api';
import type { ImportOptions } from '../import/import-trace.js';
import type { TraceFormat } from '../import/source.js';

/** Bytes of cached databases kept (least recently used removed first); GSPROF_CACHE_MAX_BYTES overrides. */
export const CACHE_MAX_BYTES = 8 * 1024 ** 3;
const SAMPLE = 64 * 1024;
const FORMATS: readonly TraceFormat[] = ['json', 'proto'];

export function traceCacheDir(): string {
  const env = process.env;
  if (env.GSPROF_CACHE_DIR) return env.GSPROF_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gsprof', 'traces');
}

/** Whether commands use the cache: on unless GSPROF_NO_CACHE is set or the caller says no. */
export function cacheEnabled(requested: boolean | undefined): boolean {
  return requested !== false && !process.env.GSPROF_NO_CACHE;
}

let importerDigest: Promise<string> | null = null;

/** A hash of the importer's and the table schema's source files (built or not): any change makes new keys. */
function importerVersion(): Promise<string> {
  importerDigest ??= (async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const h = createHash('sha256').update(`duckdb ${duckdbVersion()}\n`);
    for (const dir of [join(here, '..', 'import'), here]) {
      const names = (await readdir(dir)).filter((n) => /\.(js|ts)$/.test(n) && !n.endsWith('.d.ts')).sort();
      for (const n of names) h.update(n).update(await readFile(join(dir, n)));
    }
    return h.digest('hex');
  })();
  return importerDigest;
}

/** The cache key of a trace file, or null when it cannot be read (the import then reports why). */
export async function traceCacheKey(path: string, opts: ImportOptions): Promise<string | null> {
  try {
    const st = await stat(path);
    if (!st.isFile()) return null;
    const fh = await open(path, 'r');
    try {
      const head = Buffer.alloc(Math.min(SAMPLE, st.size));
      await fh.read(head, 0, head.length, 0);
      const tail = Buffer.alloc(Math.min(SAMPLE, st.size));
      await fh.read(tail, 0, tail.length, st.size - tail.length);
      return createHash('sha256')
        .update(await importerVersion())
        .update(JSON.stringify([st.size, st.mtimeMs, opts.strict ?? false, opts.allowTruncated ?? null]))
        .update(head).update(tail)
        .digest('hex').slice(0, 40);
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

/** The cached database for a key, marked as just used, or null. */
export async function findCached(key: string): Promise<{ file: string; format: TraceFormat } | null> {
  const dir = traceCacheDir();
  for (const format of FORMATS) {
    const file = join(dir, `${key}.${format}.duckdb`);
    try {
      if (!(await stat(file)).isFile()) continue;
      const now = new Date();
      await utimes(file, now, now).catch(() => undefined);
      return { file, format };
    } catch { /* not there */ }
  }
  return null;
}

/** Drops an entry that failed to open. */
export async function dropCached(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => undefined);
}

/**
 * Moves a finished database into the cache under `key` (rename when on the same file system, else copy then
 * rename), and returns its new path; null when the cache folder cannot be written (the caller keeps its file).
 */
export async function storeCached(key: string, format: TraceFormat, file: string): Promise<string | null> {
  const dir = traceCacheDir();
  const final = join(dir, `${key}.${format}.duckdb`);
  const partial = join(dir, `.${key}.${process.pid}.partial`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      await rename(file, partial);
    } catch {
      await copyFile(file, partial);
    }
    await rename(partial, final);
  } catch {
    await rm(partial, { force: true }).catch(() => undefined);
    return null;
  }
  await trimCache(dir).catch(() => undefined);
  return final;
}

/** Removes least recently used entries (and partial files a killed run left) past the size cap. */
async function trimCache(dir: string): Promise<void> {
  const max = Number(process.env.GSPROF_CACHE_MAX_BYTES) || CACHE_MAX_BYTES;
  const entries: Array<{ path: string; size: number; used: number }> = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const st = await stat(path).catch(() => null);
    if (!st?.isFile()) continue;
    if (name.endsWith('.partial')) {
      if (Date.now() - st.mtimeMs > 24 * 3600 * 1000) await rm(path, { force: true });
      continue;
    }
    if (name.endsWith('.duckdb')) entries.push({ path, size: st.size, used: st.mtimeMs });
  }
  let total = entries.reduce((n, e) => n + e.size, 0);
  entries.sort((a, b) => a.used - b.used);
  for (const e of entries) {
    if (total <= max) break;
    await rm(e.path, { force: true });
    total -= e.size;
  }
}
