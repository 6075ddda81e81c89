/** Detects the format of a trace file and streams it into the trace tables of a DuckDB connection. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { importChrome, isBug } from './chrome.js';
import { TraceFormatError } from './errors.js';
import { importPerfetto } from './perfetto.js';
import { SCAN_THREAD_MIN_BYTES } from './json-scan.js';
import { TraceSink } from './sink.js';
import { openTraceSource, type TraceFormat } from './source.js';

export interface ImportOptions {
  /**
   * Any flaw in the file is an error (exit 2 from the CLI). Off by default: like Perfetto, what can be loaded is,
   * and each problem is counted in metadata `stats.<name>` (see IMPORT_PROBLEM_STATS).
   */
  strict?: boolean;
  /** Perfetto: load up to the last whole packet of a truncated file; default: !strict. */
  allowTruncated?: boolean;
  /** JSON: split the text into events on a worker thread; default: for files of SCAN_THREAD_MIN_BYTES or more. */
  scanThread?: boolean;
}

/** Stats that count input the lenient import skipped or cut (Perfetto's names where it has them). */
export const IMPORT_PROBLEM_STATS = ['json_parser_failure', 'json_repaired_events', 'json_tokenizer_failure', 'truncated_bytes', 'gzip_truncated'] as const;

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
  const strict = opts.strict ?? false;
  const source = await openTraceSource(path, strict);
  try {
    if (source.format === 'json') {
      await importChrome(path, source.chunks, sink, strict, opts.scanThread ?? source.size >= SCAN_THREAD_MIN_BYTES);
    }
    else await importPerfetto(path, source.chunks, sink, { allowTruncated: opts.allowTruncated ?? !strict });
    if (source.gzipError !== null) sink.stat('gzip_truncated');
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
