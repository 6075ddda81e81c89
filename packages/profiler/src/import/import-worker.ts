/**
 * Worker thread entry of the threaded JSON import (import-thread.ts): reads and handles the trace's events into
 * a TraceSink whose staged rows are posted to the parent thread, then posts the sink's state.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ColumnBuffer, detachChunk, type ColumnChunk } from './column-buffer.js';
import { TraceFormatError } from './errors.js';
import { isBug } from './chrome.js';
import type { ImportWorkerAck, ImportWorkerData, ImportWorkerMessage, WorkerError } from './import-thread.js';
import { readTrace } from './read-trace.js';
import { STAGED_TABLES, TraceSink, type StagedRows, type StagedTable } from './sink.js';
import { openTraceSource } from './source.js';

const port = parentPort;
if (port === null) throw new Error('import-worker runs as a worker thread');

/** Chunks per message: fewer, larger messages cost less than one per chunk. */
const CHUNKS_PER_MESSAGE = 8;
/** Messages the parent has not yet appended: beyond this the worker waits, so memory stays bounded. */
const MAX_UNACKED = 16;

const { path, opts, specs } = workerData as ImportWorkerData;

let outgoing: { table: StagedTable; chunk: ColumnChunk }[] = [];
let transfer: ArrayBuffer[] = [];
let unacked = 0;
let wake: (() => void) | null = null;

function post(): void {
  if (outgoing.length === 0) return;
  port!.postMessage({ kind: 'rows', chunks: outgoing } satisfies ImportWorkerMessage, transfer);
  outgoing = [];
  transfer = [];
  unacked++;
}

port.on('message', (m: ImportWorkerAck) => {
  unacked -= m.acked;
  if (wake !== null && unacked <= MAX_UNACKED / 2) { const w = wake; wake = null; w(); }
});

const rows = {} as StagedRows;
for (const table of STAGED_TABLES) {
  rows[table] = new ColumnBuffer(specs[table], (c) => {
    const d = detachChunk(c);
    outgoing.push({ table, chunk: d.chunk });
    for (const b of d.transfer) transfer.push(b);
    if (outgoing.length >= CHUNKS_PER_MESSAGE) post();
  });
}

/** The file's chunks, each handed on only while the parent keeps up with the rows. */
async function* paced(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    if (unacked > MAX_UNACKED) await new Promise<void>((resolve) => { wake = resolve; });
    yield c;
  }
}

function describe(err: unknown): WorkerError {
  const e = err instanceof Error ? err : new Error(String(err));
  return {
    kind: err instanceof TraceFormatError ? 'format' : isBug(err) ? 'bug' : 'other',
    name: e.name, message: e.message, stack: e.stack,
    format: err instanceof TraceFormatError ? { file: err.file, where: err.where, reason: err.reason } : null,
  };
}

try {
  const source = await openTraceSource(path, opts.strict ?? false);
  const sink = new TraceSink(null, rows);
  const chunks = paced(source.chunks);
  await readTrace(path, {
    format: source.format, gzipped: source.gzipped, size: source.size, chunks,
    get gzipError() { return source.gzipError; }, get contentHash() { return source.contentHash; }, close: () => source.close(),
  }, sink, opts);
  await sink.finalize();
  post();
  port.postMessage({ kind: 'done', state: sink.exportState(), contentHash: source.contentHash } satisfies ImportWorkerMessage);
} catch (err) {
  post();
  port.postMessage({ kind: 'error', error: describe(err) } satisfies ImportWorkerMessage);
}
