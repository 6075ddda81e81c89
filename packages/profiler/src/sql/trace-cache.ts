/**
 * The import cache, as nsys keeps its SQLite export beside a report: the first command on a trace keeps the
 * imported DuckDB file, and later commands on the same trace open it instead of importing again.
 *
 * Entries live in the user cache folder (GSPROF_CACHE_DIR, else $XDG_CACHE_HOME/gsprof/traces, else
 * ~/.cache/gsprof/traces), never beside the trace: a folder of traces stays what the user put there (compare
 * reads whole folders), and read-only folders need no special case. An entry's name is a hash of what decides
 * its tables: the trace file's identity (device, inode, resolved path) and state (size, mtime, ctime), the import
 * options, the importer's own code and the DuckDB version. So another file, an edited trace, or a gsprof whose
 * importer changed, never reads a stale entry. Beside each entry a manifest keeps the SHA-256 of the trace (taken
 * as the import read it) and of the entry; a hit checks the entry against it, and a damaged entry is removed with
 * a warning and imported again. Entries are written whole and renamed into place with the trace's permissions;
 * the folder is trimmed to CACHE_MAX_BYTES, least recently used first, and an entry larger than that is used for
 * the command that made it and not kept.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, realpath, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as duckdbVersion } from '@duckdb/node-api';
import type { ImportOptions } from '../import/import-trace.js';
import type { TraceFormat } from '../import/source.js';
import { warn } from '../record/warn.js';

/** Bytes of cached databases kept (least recently used removed first); GSPROF_CACHE_MAX_BYTES overrides. */
export const CACHE_MAX_BYTES = 8 * 1024 ** 3;
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

/** A hash of the source files (built or not) in these folders of the profiler, and of the DuckDB version. */
async function codeVersion(folders: string[]): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const h = createHash('sha256').update(`duckdb ${duckdbVersion()}\n`);
  for (const folder of folders) {
    const dir = join(here, '..', folder);
    const names = (await readdir(dir)).filter((n) => /\.(js|ts)$/.test(n) && !n.endsWith('.d.ts')).sort();
    for (const n of names) h.update(n).update(await readFile(join(dir, n)));
  }
  return h.digest('hex');
}

let importerDigest: Promise<string> | null = null;
let analysisDigest: Promise<string> | null = null;

/** The importer's and the table schema's code: any change makes new keys. */
function importerVersion(): Promise<string> {
  importerDigest ??= codeVersion(['import', 'sql']);
  return importerDigest;
}

/** The analyses' code, with the importer's: what a kept analysis result (trace-memo.ts) was computed by. */
export function analysisVersion(): Promise<string> {
  analysisDigest ??= codeVersion(['import', 'sql', 'analysis']);
  return analysisDigest;
}

/** The trace file a key was made for: what the entry keeps of it (its permissions, its size). */
export interface TraceIdentity {
  key: string;
  /** Permission bits the entry gets: an entry is as readable as the trace it holds. */
  mode: number;
  size: number;
}

/**
 * The cache key of a trace file, or null when it cannot be read (the import then reports why). It names the
 * file itself (device, inode and resolved path: two files never share an entry, whatever their size and dates)
 * and its state: size, mtime and ctime in ns. The kernel sets ctime on every write and on every utimes, and no
 * call sets it back, so an edit in place that restores the mtime still makes a new key.
 */
export async function traceCacheKey(path: string, opts: ImportOptions): Promise<TraceIdentity | null> {
  try {
    const st = await stat(path, { bigint: true });
    if (!st.isFile()) return null;
    const identity = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].map(String);
    const key = createHash('sha256')
      .update(await importerVersion())
      .update(JSON.stringify([await realpath(path), ...identity, opts.strict ?? false, opts.allowTruncated ?? null]))
      .digest('hex').slice(0, 40);
    return { key, mode: Number(st.mode & 0o666n), size: Number(st.size) };
  } catch {
    return null;
  }
}

/**
 * What an entry's manifest (`<entry>.sum`, written before the entry is renamed into place) records: the trace's
 * size and SHA-256 as the import read them, and the entry's own size and SHA-256, which a hit checks so that a
 * truncated or corrupted entry is found before any query reads it.
 */
interface Manifest { traceSize: number; traceSha256: string | null; entrySize: number; entrySha256: string }

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const c of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(c as Buffer);
  return hash.digest('hex');
}

/** Why the entry cannot be used (damaged, or its manifest missing), or null when it is whole. */
async function damage(file: string): Promise<string | null> {
  let m: Manifest;
  try {
    m = JSON.parse(await readFile(`${file}.sum`, 'utf8')) as Manifest;
  } catch {
    return 'its manifest is missing or unreadable';
  }
  const size = (await stat(file)).size;
  if (size !== m.entrySize) return `${size} bytes where ${m.entrySize} were written`;
  if ((await fileSha256(file)) !== m.entrySha256) return 'its content does not match the hash written with it';
  return null;
}

/** The cached database for a key, checked whole and marked as just used, or null (a damaged one is removed). */
export async function findCached(key: string, trace: string): Promise<{ file: string; format: TraceFormat } | null> {
  const dir = traceCacheDir();
  for (const format of FORMATS) {
    const file = join(dir, `${key}.${format}.duckdb`);
    try {
      if (!(await stat(file)).isFile()) continue;
    } catch { continue; /* not there */ }
    const why = await damage(file).catch((err: unknown) => `it cannot be read (${(err as Error).message.split('\n')[0]})`);
    if (why !== null) {
      await dropCached(file, trace, why);
      return null;
    }
    const now = new Date();
    await utimes(file, now, now).catch(() => undefined);
    return { file, format };
  }
  return null;
}

/** Removes a damaged entry (one that fails its check or fails to open), saying so in one line. */
export async function dropCached(file: string, trace: string, why: string): Promise<void> {
  warn(`${trace}: the import cache entry ${file} was damaged (${why}): removed, importing the trace again`);
  await rm(file, { force: true }).catch(() => undefined);
  await rm(`${file}.sum`, { force: true }).catch(() => undefined);
}

/** The analysis results kept for a key (trace-memo.ts), beside its entry `<key>.<format>.duckdb`. */
export function memoFileOf(key: string): string {
  return join(traceCacheDir(), `${key}.memo.json`);
}

function cacheMaxBytes(): number {
  return Number(process.env.GSPROF_CACHE_MAX_BYTES) || CACHE_MAX_BYTES;
}

/**
 * Moves a finished database into the cache under `key` (rename when on the same file system, else copy then
 * rename), with the trace's permissions, and returns its new path; null when it is not kept: larger than the
 * cache's cap (it would be trimmed at once; the caller uses its own file for this command), or the cache folder
 * cannot be written.
 */
export async function storeCached(id: TraceIdentity, format: TraceFormat, file: string, traceSha256: string | null): Promise<string | null> {
  const dir = traceCacheDir();
  const final = join(dir, `${id.key}.${format}.duckdb`);
  const partial = join(dir, `.${id.key}.${process.pid}.partial`);
  const sumPartial = join(dir, `.${id.key}.${process.pid}.sum.partial`);
  try {
    const entrySize = (await stat(file)).size;
    if (entrySize > cacheMaxBytes()) return null;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const manifest: Manifest = { traceSize: id.size, traceSha256, entrySize, entrySha256: await fileSha256(file) };
    await writeFile(sumPartial, JSON.stringify(manifest), { mode: id.mode });
    await chmod(sumPartial, id.mode);
    try {
      await rename(file, partial);
    } catch {
      await copyFile(file, partial);
    }
    await chmod(partial, id.mode);
    // The manifest first: an entry in place always has one, so a hit never mistakes a store under way for damage.
    await rename(sumPartial, `${final}.sum`);
    await rename(partial, final);
  } catch {
    await rm(partial, { force: true }).catch(() => undefined);
    await rm(sumPartial, { force: true }).catch(() => undefined);
    return null;
  }
  await trimCache(dir, final).catch(() => undefined);
  return final;
}

/** Removes least recently used entries but `keep` (and partial files a killed run left) past the size cap. */
async function trimCache(dir: string, keep: string): Promise<void> {
  const max = cacheMaxBytes();
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
    if (e.path === keep) continue;
    await rm(e.path, { force: true });
    await rm(`${e.path}.sum`, { force: true });
    await rm(e.path.replace(/\.[a-z]+\.duckdb$/, '.memo.json'), { force: true });
    total -= e.size;
  }
}
