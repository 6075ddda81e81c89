/** Detects the format of a trace file and streams it into the trace tables of a DuckDB connection. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { importChrome, isBug } from './chrome.js';
import { TraceFormatError } from './errors.js';
import { importPerfetto } from './perfetto.js';
import { TraceSink } from './sink.js';
import { openTraceSource, type TraceFormat } from './source.js';

export interface ImportOptions {
  /** Perfetto: load up to the last whole packet of a truncated file instead of failing. */
  allowTruncated?: boolean;
}

export async function importTraceInto(path: string, conn: DuckDBConnection, opts: ImportOptions = {}): Promise<TraceFormat> {
  return runImport(path, await TraceSink.create(conn), opts);
}

/**
 * Reads the whole trace with all of the importer's checks but builds no tables: fast validation.
 * Throws the same TraceFormatError an import would.
 */
export async function validateTrace(path: string, opts: ImportOptions = {}): Promise<TraceFormat> {
  return runImport(path, TraceSink.detached(), opts);
}

async function runImport(path: string, sink: TraceSink, opts: ImportOptions): Promise<TraceFormat> {
  const source = await openTraceSource(path);
  try {
    if (source.format === 'json') await importChrome(path, source.chunks, sink);
    else await importPerfetto(path, source.chunks, sink, { allowTruncated: opts.allowTruncated ?? false });
    sink.metadata('trace_format', source.format === 'json' ? 'chrome_json' : 'perfetto_proto');
    if (source.gzipped) sink.metadata('gzipped', null, 1);
    await sink.finalize();
  } catch (err) {
    if (err instanceof TraceFormatError || isBug(err)) throw err;
    const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new TraceFormatError(path, 'import', msg);
  }
  return source.format;
}
