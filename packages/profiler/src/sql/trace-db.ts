/**
 * A trace opened for SQL: an embedded DuckDB holding Perfetto-named tables (slice, track, thread, process,
 * counter, args, flow, metadata). User SQL is read-only by construction: the import writes a database file,
 * which is then reopened by DuckDB in READ_ONLY access mode with external access off and the configuration
 * locked, and each user query runs on a connection of its own (so even a temporary table it creates dies with
 * it and never shadows the tables the analyses read).
 */
import {
  DuckDBInstance, JSDuckDBValueConverter, StatementType,
  type DuckDBConnection, type DuckDBDataChunk, type DuckDBExtractedStatements, type DuckDBPreparedStatement, type DuckDBResult,
} from '@duckdb/node-api';
import { stat } from 'node:fs/promises';
import { makeTempDir, removeStaleTempDirs, removeTempDir } from '@gsprof/dawn';
import { join } from 'node:path';
import { importTraceInto, type ImportedFile, type ImportOptions } from '../import/import-trace.js';
import { PROBLEM_SEVERITIES } from '../import/import-stats.js';
import type { TraceFormat } from '../import/source.js';
import { cacheEnabled, dropCached, findCached, storeCached, traceCacheKey } from './trace-cache.js';

export type SqlValue = string | number | boolean | null | SqlValue[] | { [k: string]: SqlValue };
export type SqlRow = Record<string, SqlValue>;

export interface QueryResult {
  /** Result column names, unique: a repeated or empty name gets a suffix (`a`, `a_1`; `column2`), as DuckDB names them in CREATE TABLE AS. */
  columns: string[];
  /** Rows keyed by `columns`. */
  rows: SqlRow[];
}

/** A query result read chunk by chunk (bounded memory whatever its size). */
export interface QueryStream {
  /** Unique column names, as in QueryResult. */
  columns: string[];
  /** Rows in order, a chunk (about 2048 rows) at a time, each row's values in column order. */
  batches: AsyncIterable<SqlValue[][]>;
}

export interface QueryOptions {
  /** Interrupt the query after this many ms (default 60 000; 0 for none). */
  timeoutMs?: number;
}

/** A user query failed: bad SQL, an unknown table, a runtime error. One line. */
export class TraceQueryError extends Error {
  override readonly name: string = 'TraceQueryError';
}

/** A user query tried to change the database or do anything but read. */
export class ReadOnlyQueryError extends TraceQueryError {
  override readonly name = 'ReadOnlyQueryError';
}

export interface OpenTraceOptions extends ImportOptions {
  /** DuckDB memory limit (default '1GB'); past it DuckDB spills to disk. */
  memoryLimit?: string;
  threads?: number;
  /** Reuse, and keep, the imported tables in the import cache (see trace-cache.ts). Default true. */
  cache?: boolean;
}

const READ_ONLY_MESSAGE = 'only read-only queries are allowed (SELECT, WITH, EXPLAIN, FROM, VALUES, ...)';
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
const READ_ONLY_START = /^\s*(\(|select\b|with\b|explain\b|from\b|values\b|table\b|describe\b|summarize\b|show\b)/i;
const READ_ONLY_TYPES = new Set<number>([StatementType.SELECT, StatementType.EXPLAIN]);

/** Reopened read-only: no statement, however it is wrapped (EXPLAIN ANALYZE DELETE ...), can change the tables. */
const READ_ONLY_CONFIG = { access_mode: 'READ_ONLY', enable_external_access: 'false', lock_configuration: 'true' } as const;

/** Removes the temporary databases (and other gsprof folders) that killed runs left: their owner pid is gone. */
export function removeStaleTempDatabases(dir?: string): string[] {
  return removeStaleTempDirs(dir);
}

export class TraceDb {
  private closed = false;

  private constructor(
    readonly path: string,
    /** What the tables came from: one trace's format, or 'ranks' (several traces or a Parquet export, openRanks). */
    readonly format: TraceFormat | 'ranks',
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    private readonly tempDir: string | null,
    /** The DuckDB file holding the tables (in the import cache, or a temporary one removed on close): another
     * DuckDB instance may ATTACH it read-only while this one is open (the Parquet export does). */
    readonly databaseFile: string,
    /** Traces whose files this one's views read (openRanks): closed with it. */
    private readonly members: TraceDb[] = [],
  ) {}

  /** Whether the database file goes with this object (no import cache): it must stay open while others read it. */
  get temporaryFile(): boolean {
    return this.tempDir !== null && this.databaseFile.startsWith(this.tempDir);
  }

  /**
   * @internal use openRanks. Tables as views that `define` creates in an in-memory DuckDB (over attached trace
   * databases and Parquet files); then file access is closed except to `allowedDirectories` (which those views
   * read) and the configuration locked, so user SQL reads what the views give and nothing else.
   */
  static async overViews(label: string, define: (conn: DuckDBConnection) => Promise<void>,
    opts: { memoryLimit?: string; threads?: number; allowedDirectories: string[]; members: TraceDb[] }): Promise<TraceDb> {
    const tempDir = makeTempDir('trace');
    let instance: DuckDBInstance | null = null;
    try {
      instance = await DuckDBInstance.create(':memory:', {
        memory_limit: opts.memoryLimit ?? '1GB', threads: String(opts.threads ?? 2), preserve_insertion_order: 'false',
        temp_directory: join(tempDir, 'spill'),
      });
      const conn = await instance.connect();
      await define(conn);
      const dirs = opts.allowedDirectories.map((d) => `'${(d.endsWith('/') ? d : `${d}/`).replace(/'/g, "''")}'`);
      await conn.run(`SET allowed_directories = [${dirs.join(', ')}]`);
      await conn.run('SET enable_external_access = false');
      await conn.run('SET lock_configuration = true');
      return new TraceDb(label, 'ranks', instance, conn, tempDir, ':memory:', opts.members);
    } catch (err) {
      instance?.closeSync();
      removeTempDir(tempDir);
      for (const m of opts.members) await m.close();
      throw err;
    }
  }

  /** @internal use openTrace */
  static async open(path: string, opts: OpenTraceOptions = {}): Promise<TraceDb> {
    try { await stat(path); } catch { /* importTraceInto reports the missing file */ }
    const config: Record<string, string> = {
      memory_limit: opts.memoryLimit ?? '1GB',
      threads: String(opts.threads ?? 2),
      preserve_insertion_order: 'false',
    };
    // Every open gets a temporary folder of its own: DuckDB spills there when a query outgrows the memory
    // limit (a read-only database too), and an import writes its database there first. Making it removes the
    // folders that killed runs left, on every open, a cached one too.
    const tempDir = makeTempDir('trace');
    const spilling = { ...config, temp_directory: join(tempDir, 'spill') };
    const release = async (): Promise<void> => {
      removeTempDir(tempDir);
    };
    try {
      const id = cacheEnabled(opts.cache) ? await traceCacheKey(path, opts) : null;
      const hit = id === null ? null : await findCached(id.key, path);
      if (hit) {
        try {
          const instance = await DuckDBInstance.create(hit.file, { ...spilling, ...READ_ONLY_CONFIG });
          return new TraceDb(path, hit.format, instance, await instance.connect(), tempDir, hit.file);
        } catch (err) {
          await dropCached(hit.file, path, `DuckDB cannot open it: ${firstLine(err)}`);
        }
      }
      let file = join(tempDir, 'trace.duckdb');
      const read: ImportedFile = { contentHash: null };
      const writer = await DuckDBInstance.create(file, spilling);
      const wconn = await writer.connect();
      let format: TraceFormat;
      try {
        format = await importTraceInto(path, wconn, opts, read);
        await wconn.run('CHECKPOINT');
      } finally {
        wconn.closeSync();
        writer.closeSync();
      }
      file = (id === null ? null : await storeCached(id, format, file, read.contentHash)) ?? file;
      const instance = await DuckDBInstance.create(file, { ...spilling, ...READ_ONLY_CONFIG });
      return new TraceDb(path, format, instance, await instance.connect(), tempDir, file);
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** Runs one read-only statement (SELECT, WITH ... SELECT, EXPLAIN, VALUES, FROM ...) and reads its result whole. */
  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    const { columns, batches } = await this.queryStream(sql, opts);
    const rows: SqlRow[] = [];
    for await (const batch of batches) {
      for (const values of batch) {
        const row: SqlRow = {};
        columns.forEach((c, i) => { Object.defineProperty(row, c, { value: values[i], enumerable: true, writable: true, configurable: true }); });
        rows.push(row);
      }
    }
    return { columns, rows };
  }

  /**
   * Runs one read-only statement and hands its rows back chunk by chunk. Consume `batches` to the end (or break
   * out of it): that closes the query's connection.
   */
  async queryStream(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    this.check();
    if (sql.trim() === '' || /^[\s;]*$/.test(sql)) throw new TraceQueryError('empty query: give one SQL statement, e.g. "select count(*) from slice"');
    const conn = await this.instance.connect();
    const timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; conn.interrupt(); }, timeoutMs) : null;
    timer?.unref();
    const done = (): void => { if (timer) clearTimeout(timer); conn.closeSync(); };
    const fail = (err: unknown): never => {
      if (timedOut) throw new TraceQueryError(`query stopped after its time limit of ${timeoutMs / 1000} s (--timeout to change it)`);
      const msg = firstLine(err);
      if (/read-only mode|configuration has been locked/i.test(msg)) throw new ReadOnlyQueryError(`${READ_ONLY_MESSAGE}; ${msg}`);
      throw new TraceQueryError(msg);
    };
    let result: DuckDBResult;
    try {
      let extracted: DuckDBExtractedStatements;
      try {
        extracted = await conn.extractStatements(sql);
      } catch (err) {
        throw new TraceQueryError(firstLine(err));
      }
      if (extracted.count !== 1) throw new TraceQueryError(`expected exactly one SQL statement, got ${extracted.count}`);
      let prepared: DuckDBPreparedStatement;
      try {
        prepared = await extracted.prepare(0);
      } catch (err) {
        // Statements DuckDB refuses to even plan here (COPY, ATTACH with file access off) are writes too.
        if (!READ_ONLY_START.test(sql)) throw new ReadOnlyQueryError(READ_ONLY_MESSAGE);
        return fail(err);
      }
      // A friendlier message for the obvious cases; the read-only database is what guarantees nothing changes.
      if (!READ_ONLY_TYPES.has(prepared.statementType)) {
        throw new ReadOnlyQueryError(`${READ_ONLY_MESSAGE}; got a ${StatementType[prepared.statementType] ?? 'other'} statement`);
      }
      try {
        result = await prepared.stream();
      } catch (err) {
        return fail(err);
      }
    } catch (err) {
      done();
      throw err;
    }
    const columns = uniqueNames(result.columnNames());
    const source = result;
    async function* batches(): AsyncGenerator<SqlValue[][]> {
      try {
        for (;;) {
          let chunk: DuckDBDataChunk | null = null;
          try {
            chunk = await source.fetchChunk();
          } catch (err) {
            fail(err);
          }
          // An interrupted stream can end as if it were complete: rows cut off by the time limit are an error.
          if (!chunk || chunk.rowCount === 0) {
            if (timedOut) fail(new Error('interrupted'));
            return;
          }
          yield chunk.convertRows(JSDuckDBValueConverter).map((r) => r.map(toJson));
        }
      } finally {
        done();
      }
    }
    return { columns, batches: batches() };
  }

  /** Internal queries of the analyses (trusted SQL). */
  async rows<T = SqlRow>(sql: string): Promise<T[]> {
    this.check();
    const reader = await this.conn.runAndReadAll(sql);
    return reader.getRowObjectsJS().map((r) => toJsonRow(r as Record<string, unknown>)) as T[];
  }

  /** One metadata value by name (string or integer), or undefined. */
  async metadata(name: string): Promise<string | number | undefined> {
    const rows = await this.rows<{ str_value: string | null; int_value: number | null }>(
      `SELECT str_value, int_value FROM metadata WHERE name = '${name.replace(/'/g, "''")}' LIMIT 1`);
    const r = rows[0];
    if (!r) return undefined;
    return r.int_value ?? r.str_value ?? undefined;
  }

  /** The value of one import stat (the `stats` table; 0: nothing counted), or undefined for a name it lacks. */
  async stat(name: string): Promise<number | undefined> {
    const rows = await this.rows<{ value: number }>(`SELECT value FROM stats WHERE name = '${name.replace(/'/g, "''")}' LIMIT 1`);
    return rows[0]?.value;
  }

  /** The stats whose severity makes a command warn (error, data_loss) and that counted something, by name. */
  async problemStats(): Promise<{ name: string; value: number }[]> {
    return this.rows(`SELECT name, value FROM stats WHERE severity IN (${PROBLEM_SEVERITIES.map((s) => `'${s}'`).join(', ')})
      AND value > 0 ORDER BY name`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.conn.closeSync();
    this.instance.closeSync();
    for (const m of this.members) await m.close();
    if (this.tempDir) {
      removeTempDir(this.tempDir);
    }
  }

  private check(): void {
    if (this.closed) throw new Error(`trace ${this.path} is closed`);
  }
}

/** Repeated or empty column names made unique the way DuckDB names them in CREATE TABLE AS (a, a_1, a_1_1). */
function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((n, i) => {
    let name = n === '' ? `column${i}` : n;
    while (seen.has(name)) name = `${name}_1`;
    seen.add(name);
    return name;
  });
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/** bigint -> number when exact, else its decimal string; nested values likewise. */
function toJson(v: unknown): SqlValue {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v === undefined) return null;
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(toJson);
  if (typeof v === 'object') {
    const out: { [k: string]: SqlValue } = Object.create(null) as { [k: string]: SqlValue };
    for (const k of Object.keys(v)) out[k] = toJson((v as Record<string, unknown>)[k]);
    return out;
  }
  return String(v);
}

function toJsonRow(r: Record<string, unknown>): SqlRow {
  const out: SqlRow = {};
  for (const k of Object.keys(r)) Object.defineProperty(out, k, { value: toJson(r[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Imports the trace at `path` and opens it for SQL and analyses. Close it when done. */
export async function openTrace(path: string, opts: OpenTraceOptions = {}): Promise<TraceDb> {
  return TraceDb.open(path, opts);
}

/** Opens, runs one read-only query, and closes. */
export async function queryTrace(path: string, sql: string, opts: OpenTraceOptions & QueryOptions = {}): Promise<QueryResult> {
  const db = await openTrace(path, opts);
  try {
    return await db.query(sql, opts);
  } finally {
    await db.close();
  }
}
