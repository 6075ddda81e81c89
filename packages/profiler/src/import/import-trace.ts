/** Detects the format of a trace file and streams it into the trace tables of a DuckDB connection. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { isBug } from './chrome.js';
import { ColumnBatch } from './column-batch.js';
import { TraceFormatError } from './errors.js';
import { IMPORT_THREAD_MIN_BYTES, importJsonOnThread } from './import-thread.js';
import { readTrace, type ImportOptions } from './read-trace.js';
import { STAGED_TABLES, TraceSink, type StagedTable } from './sink.js';
import { openTraceSource, type TraceFormat } from './source.js';
import { STAGING_DDL, TEMP_STAGING_TABLES } from '../sql/schema.js';

export type { ImportOptions } from './read-trace.js';

/** What an import learnt about the file besides its tables. */
export interface ImportedFile {
  /** SHA-256 of the file's bytes, hashed as the import read them; null when it stopped before the end. */
  contentHash: string | null;
}

export async function importTraceInto(path: string, conn: DuckDBConnection, opts: ImportOptions = {}, read: ImportedFile = { contentHash: null }): Promise<TraceFormat> {
  await conn.run(STAGING_DDL);
  const batches = {} as Record<StagedTable, ColumnBatch>;
  const temp = new Set<string>(TEMP_STAGING_TABLES);
  for (const t of STAGED_TABLES) batches[t] = new ColumnBatch(await conn.createAppender(t, null, temp.has(t) ? 'temp' : null));
  return runImport(path, new TraceSink(conn, batches), opts, batches, read);
}

/**
 * Reads the whole trace with all of the importer's checks but builds no tables: fast validation.
 * Throws the same TraceFormatError an import would.
 */
export async function validateTrace(path: string, opts: ImportOptions = {}): Promise<TraceFormat> {
  return runImport(path, TraceSink.detached(), opts, null, { contentHash: null });
}

async function runImport(path: string, sink: TraceSink, opts: ImportOptions,
  batches: Record<StagedTable, ColumnBatch> | null, read: ImportedFile): Promise<TraceFormat> {
  const source = await openTraceSource(path, opts.strict ?? false);
  try {
    if (source.format === 'json' && batches !== null && (opts.importThread ?? source.size >= IMPORT_THREAD_MIN_BYTES)) {
      read.contentHash = await importJsonOnThread(path, sink, batches, opts);
    } else {
      await readTrace(path, source, sink, opts);
      read.contentHash = source.contentHash;
    }
    await sink.finalize();
  } catch (err) {
    if (err instanceof TraceFormatError || isBug(err)) throw err;
    const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new TraceFormatError(path, 'import', msg);
  } finally {
    await source.close();
  }
  return source.format;
}
