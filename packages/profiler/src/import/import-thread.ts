/**
 * A JSON import split across two threads: a worker parses and handles the events (the slow, single-threaded
 * JavaScript part) and posts the staged rows, a data chunk at a time, to this thread, which appends them to
 * DuckDB meanwhile. On a 200 MB trace the appends are a fifth of the import's time.
 */
import { TraceFormatError } from './errors.js';
import type { ColumnBatch } from './column-batch.js';
import type { ColumnChunk, ColumnSpec } from './column-buffer.js';
import type { ImportOptions } from './read-trace.js';
import type { SinkState, StagedTable, TraceSink } from './sink.js';
import { spawnImportWorker } from './worker-spawn.js';

/** JSON files from this size up are imported on a worker thread: below it the threads' start-up is not repaid. */
export const IMPORT_THREAD_MIN_BYTES = 8 << 20;

export interface ImportWorkerData {
  path: string;
  opts: ImportOptions;
  specs: Record<StagedTable, ColumnSpec[]>;
}

/** An error thrown on the worker, as plain data: a TraceFormatError, a bug (TypeError...) or any other error. */
export interface WorkerError {
  kind: 'format' | 'bug' | 'other';
  name: string;
  message: string;
  stack: string | undefined;
  format: { file: string; where: string; reason: string } | null;
}

export type ImportWorkerMessage =
  | { kind: 'rows'; chunks: { table: StagedTable; chunk: ColumnChunk }[] }
  | { kind: 'done'; state: SinkState; contentHash: string | null }
  | { kind: 'error'; error: WorkerError };

/** This thread's answer to each 'rows' message, once its chunks are in DuckDB: the worker waits when far ahead. */
export interface ImportWorkerAck { acked: number }

function reviveError(e: WorkerError): Error {
  if (e.format) return new TraceFormatError(e.format.file, e.format.where, e.format.reason);
  const Type = e.name === 'TypeError' ? TypeError : e.name === 'ReferenceError' ? ReferenceError
    : e.name === 'SyntaxError' ? SyntaxError : Error;
  const err = new Type(e.message);
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}

/**
 * Imports the JSON trace at `path` on a worker into `batches` (the staging tables of `sink`) and `sink`'s state;
 * returns the SHA-256 of the file the worker read (null when it did not read to the end).
 */
export async function importJsonOnThread(
  path: string, sink: TraceSink, batches: Record<StagedTable, ColumnBatch>, opts: ImportOptions,
): Promise<string | null> {
  const specs = Object.fromEntries(Object.entries(batches).map(([t, b]) => [t, b.specs])) as Record<StagedTable, ColumnSpec[]>;
  const worker = spawnImportWorker('import-worker', { path, opts, specs } satisfies ImportWorkerData, 'json-import');
  let settled = false;
  let contentHash: string | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: ImportWorkerMessage) => {
        if (settled) return;
        try {
          if (m.kind === 'rows') {
            for (const { table, chunk } of m.chunks) batches[table].append(chunk);
            worker.postMessage({ acked: 1 } satisfies ImportWorkerAck);
          } else if (m.kind === 'done') {
            settled = true;
            sink.adopt(m.state);
            contentHash = m.contentHash;
            resolve();
          } else {
            settled = true;
            reject(reviveError(m.error));
          }
        } catch (err) {
          settled = true;
          reject(err);
        }
      });
      worker.on('error', (err) => { settled = true; reject(err); });
      worker.on('exit', (code) => { if (!settled) { settled = true; reject(new Error(`the JSON import worker stopped (exit code ${code})`)); } });
    });
  } finally {
    settled = true;
    void worker.terminate();
  }
  return contentHash;
}
