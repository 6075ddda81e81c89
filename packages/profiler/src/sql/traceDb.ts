/**
 * A trace opened for SQL: an embedded DuckDB holding Perfetto-named tables (slice, track, thread, process,
 * counter, args, flow, metadata). User SQL is read-only: one SELECT-like statement, and the database has no
 * file access once the import is done.
 */
import { DuckDBInstance, StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { stat, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTraceInto, type ImportOptions } from '../import/importTrace.js';
import type { TraceFormat } from '../import/source.js';

export type SqlValue = string | number | boolean | null | SqlValue[] | { [k: string]: SqlValue };
export type SqlRow = Record<string, SqlValue>;

export interface QueryResult {
  columns: string[];
  rows: SqlRow[];
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
  /** Keep the tables in a temporary database file instead of memory (default: when the trace is > 256 MB). */
  onDisk?: boolean;
  threads?: number;
}

const READ_ONLY_MESSAGE = 'only read-only queries are allowed (SELECT, WITH, EXPLAIN, FROM, VALUES, ...)';
const READ_ONLY_START = /^\s*(\(|select\b|with\b|explain\b|from\b|values\b|table\b|describe\b|summarize\b|show\b)/i;
const READ_ONLY_TYPES = new Set<number>([StatementType.SELECT, StatementType.EXPLAIN]);

export class TraceDb {
  private closed = false;

  private constructor(
    readonly path: string,
    readonly format: TraceFormat,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    private readonly tempDir: string | null,
  ) {}

  /** @internal use openTrace */
  static async open(path: string, opts: OpenTraceOptions = {}): Promise<TraceDb> {
    let size = 0;
    try { size = (await stat(path)).size; } catch { /* importTraceInto reports the missing file */ }
    const onDisk = opts.onDisk ?? size > 256 * 1024 * 1024;
    const tempDir = onDisk ? await mkdtemp(join(tmpdir(), 'gsprof-trace-')) : null;
    const config: Record<string, string> = {
      memory_limit: opts.memoryLimit ?? '1GB',
      threads: String(opts.threads ?? 2),
      preserve_insertion_order: 'false',
    };
    if (tempDir) config.temp_directory = join(tempDir, 'spill');
    const instance = await DuckDBInstance.create(tempDir ? join(tempDir, 'trace.duckdb') : ':memory:', config);
    const conn = await instance.connect();
    try {
      const format = await importTraceInto(path, conn, opts);
      await conn.run('SET enable_external_access = false; SET lock_configuration = true;');
      return new TraceDb(path, format, instance, conn, tempDir);
    } catch (err) {
      conn.closeSync();
      instance.closeSync();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Runs one read-only statement (SELECT, WITH ... SELECT, EXPLAIN, VALUES, FROM ...). */
  async query(sql: string): Promise<QueryResult> {
    this.check();
    let extracted;
    try {
      extracted = await this.conn.extractStatements(sql);
    } catch (err) {
      throw new TraceQueryError(firstLine(err));
    }
    if (extracted.count !== 1) throw new TraceQueryError(`expected exactly one SQL statement, got ${extracted.count}`);
    let prepared;
    try {
      prepared = await extracted.prepare(0);
    } catch (err) {
      // Statements DuckDB refuses to even plan here (COPY, ATTACH with file access off) are writes too.
      if (!READ_ONLY_START.test(sql)) throw new ReadOnlyQueryError(READ_ONLY_MESSAGE);
      throw new TraceQueryError(firstLine(err));
    }
    if (!READ_ONLY_TYPES.has(prepared.statementType)) {
      throw new ReadOnlyQueryError(`${READ_ONLY_MESSAGE}; got a ${StatementType[prepared.statementType] ?? 'other'} statement`);
    }
    try {
      const reader = await prepared.runAndReadAll();
      return { columns: reader.columnNames(), rows: reader.getRowObjectsJS().map((r) => toJsonRow(r as Record<string, unknown>)) };
    } catch (err) {
      throw new TraceQueryError(firstLine(err));
    }
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.conn.closeSync();
    this.instance.closeSync();
    if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
  }

  private check(): void {
    if (this.closed) throw new Error(`trace ${this.path} is closed`);
  }
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
export async function queryTrace(path: string, sql: string, opts: OpenTraceOptions = {}): Promise<QueryResult> {
  const db = await openTrace(path, opts);
  try {
    return await db.query(sql);
  } finally {
    await db.close();
  }
}
