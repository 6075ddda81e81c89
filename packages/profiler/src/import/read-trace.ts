/** Reads a trace's events into a TraceSink with the importer its format needs (on whichever thread calls it). */
import { importChrome } from './chrome.js';
import { importPerfetto } from './perfetto.js';
import { SCAN_THREAD_MIN_BYTES } from './json-scan.js';
import type { TraceSink } from './sink.js';
import type { TraceSource } from './source.js';

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
  /**
   * JSON: parse and handle the events on a worker thread while this one appends their rows to DuckDB; default:
   * for files of IMPORT_THREAD_MIN_BYTES or more.
   */
  importThread?: boolean;
}

export async function readTrace(path: string, source: TraceSource, sink: TraceSink, opts: ImportOptions): Promise<void> {
  const strict = opts.strict ?? false;
  if (source.empty === true) { /* nothing to read */ } else if (source.format === 'json') {
    await importChrome(path, source.chunks, sink, strict, opts.scanThread ?? source.size >= SCAN_THREAD_MIN_BYTES);
  } else await importPerfetto(path, source.chunks, sink, { allowTruncated: opts.allowTruncated ?? !strict });
  if (source.gzipError !== null) sink.stat('gzip_truncated');
  sink.metadata('trace_format', source.format === 'json' ? 'chrome_json' : 'perfetto_proto');
  if (source.gzipped) sink.metadata('gzipped', null, 1);
}
