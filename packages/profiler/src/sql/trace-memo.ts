/**
 * Analysis results kept beside a trace's import-cache entry (`<key>.memo.json`), so that a command over many
 * traces (the summary of 256 ranks) answers from one small file per trace instead of opening and analysing every
 * rank's database again. The file belongs to the trace's cache key (the file's identity and state, the import
 * options, the importer's code): an edited trace has another key, so it can never be answered from its old
 * results. It holds the analyses' code version it was written with; any change to that code discards it. A value
 * is kept only when it reads back equal to what was computed (a result holding NaN, undefined or a typed array
 * would not survive JSON, so it is computed every time rather than answered changed), and the file carries the
 * SHA-256 of its values, so a damaged file is ignored and rewritten.
 *
 * The database is opened only when a value is missing: a trace whose values are all kept is never opened.
 */
import { createHash } from 'node:crypto';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { analysisVersion, cacheEnabled, memoFileOf, traceCacheKey } from './trace-cache.js';
import { openTrace, type OpenTraceOptions, type TraceDb } from './trace-db.js';

/**
 * The file: one header line (`{"version":..., "sha256":...}`, the SHA-256 of the rest's bytes), then the values
 * as one JSON object. The hash is of the bytes as written, so reading back needs no second serialisation (hashing
 * the bytes, not a string, is ten times quicker: 256 ranks' files are 24 MB).
 */
interface MemoHeader { version: string; sha256: string }

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function parseMemo(bytes: Buffer, version: string): Record<string, unknown> {
  const cut = bytes.indexOf(0x0a);
  if (cut < 0) return {};
  const header = JSON.parse(bytes.toString('utf8', 0, cut)) as MemoHeader;
  const body = bytes.subarray(cut + 1);
  if (header.version !== version || header.sha256 !== sha256(body)) return {};
  const values = JSON.parse(body.toString('utf8')) as unknown;
  return values && typeof values === 'object' && !Array.isArray(values) ? values as Record<string, unknown> : {};
}

export class TraceMemo {
  private db: TraceDb | null = null;
  private changed = false;

  private constructor(
    readonly path: string,
    private readonly opts: OpenTraceOptions,
    /** Where the values are kept, with the permissions the trace has; null when the cache is off. */
    private readonly file: { path: string; mode: number; version: string } | null,
    private readonly values: Record<string, unknown>,
  ) {}

  /** The trace's kept values (none when the cache is off, the file is missing, damaged, or of other code). */
  static async open(path: string, opts: OpenTraceOptions = {}): Promise<TraceMemo> {
    const id = cacheEnabled(opts.cache) ? await traceCacheKey(path, opts) : null;
    if (id === null) return new TraceMemo(path, opts, null, {});
    const version = await analysisVersion();
    const file = { path: memoFileOf(id.key), mode: id.mode, version };
    let values: Record<string, unknown> = {};
    try {
      values = parseMemo(await readFile(file.path), version);
    } catch { /* none kept yet, or unreadable: computed again */ }
    return new TraceMemo(path, opts, file, values);
  }

  /** The trace's database, imported or opened from the cache on first need. */
  async database(): Promise<TraceDb> {
    this.db ??= await openTrace(this.path, this.opts);
    return this.db;
  }

  /** `name`'s result for `params`: the kept one, or `compute`d on the database (and kept when it reads back equal). */
  async value<T>(name: string, params: unknown, compute: (db: TraceDb) => Promise<T>): Promise<T> {
    const slot = `${name} ${JSON.stringify(params ?? null)}`;
    if (Object.hasOwn(this.values, slot)) return this.values[slot] as T;
    const result = await compute(await this.database());
    if (this.file) {
      let copy: unknown;
      try {
        copy = JSON.parse(JSON.stringify(result) ?? 'undefined');
      } catch { copy = Symbol('not JSON'); }
      if (isDeepStrictEqual(copy, result)) {
        this.values[slot] = copy;
        this.changed = true;
      }
    }
    return result;
  }

  /** Writes new values (whole, then renamed into place) and closes the database if it was opened. */
  async close(): Promise<void> {
    try {
      if (this.file && this.changed) {
        const partial = `${this.file.path}.${process.pid}.partial`;
        const body = Buffer.from(JSON.stringify(this.values));
        const header: MemoHeader = { version: this.file.version, sha256: sha256(body) };
        try {
          await writeFile(partial, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]), { mode: this.file.mode });
          await chmod(partial, this.file.mode);
          await rename(partial, this.file.path);
        } catch {
          // The cache folder cannot be written: the values are simply computed again next time.
          await rm(partial, { force: true }).catch(() => undefined);
        }
      }
    } finally {
      await this.db?.close();
      this.db = null;
    }
  }
}

/** Opens `path`'s memo, runs `fn`, and always closes it. */
export async function withTraceMemo<T>(path: string, opts: OpenTraceOptions, fn: (memo: TraceMemo) => Promise<T>): Promise<T> {
  const memo = await TraceMemo.open(path, opts);
  try {
    return await fn(memo);
  } finally {
    await memo.close();
  }
}
