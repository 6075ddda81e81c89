/**
 * Splits a Chrome JSON trace into events for a JsonScanHandler, on this thread or on a worker thread. On the
 * worker the splitting of the next chunks runs while this thread parses and handles the events of the chunk
 * before: on a 200 MB trace the splitting is about a sixth of the import's time on the main thread.
 *
 * Both ways hand the handler the same calls in the same order, and call `afterChunk` where the buffer the events
 * point into is about to change, so the caller can parse what it has kept.
 */
import { ChromeJsonScanner, JsonScanError, type JsonScanHandler } from './json-scanner.js';
import { spawnImportWorker } from './worker-spawn.js';
import { SCAN_FIELDS, type ScanBatch, type ScanRequest, type ScanWorkerData } from './json-scan-protocol.js';

/** Files from this size up are split on a worker thread; below it the thread's start-up (~30 ms) is not repaid. */
export const SCAN_THREAD_MIN_BYTES = 8 << 20;

/** Chunks handed to the worker and not yet answered: enough to keep it busy, few enough to bound memory. */
const MAX_IN_FLIGHT = 3;

export interface ScanOutcome {
  hasEventArray: boolean;
  /** The scan error that stopped it, or null. */
  error: JsonScanError | null;
  /** Whether the whole input was read before the error (a truncated file, not a malformed one). */
  inputDone: boolean;
}

export async function scanJson(
  chunks: AsyncIterable<Buffer>, handler: JsonScanHandler, afterChunk: () => void, threaded: boolean,
): Promise<ScanOutcome> {
  return threaded ? scanOnWorker(chunks, handler, afterChunk) : scanHere(chunks, handler, afterChunk);
}

async function scanHere(chunks: AsyncIterable<Buffer>, handler: JsonScanHandler, afterChunk: () => void): Promise<ScanOutcome> {
  const scanner = new ChromeJsonScanner(handler);
  let inputDone = false;
  try {
    for await (const chunk of chunks) { scanner.push(chunk); afterChunk(); }
    inputDone = true;
    scanner.end();
    afterChunk();
  } catch (err) {
    if (err instanceof JsonScanError) return { hasEventArray: scanner.hasEventArray, error: err, inputDone };
    throw err;
  }
  return { hasEventArray: scanner.hasEventArray, error: null, inputDone: true };
}

/** The worker's answers in order; `next` waits for the next one, or rejects once the worker failed. */
class BatchQueue {
  private readonly ready: ScanBatch[] = [];
  private waiting: { resolve: (b: ScanBatch) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  put(b: ScanBatch): void {
    if (this.waiting) { this.waiting.resolve(b); this.waiting = null; } else this.ready.push(b);
  }

  fail(e: Error): void {
    this.failure ??= e;
    if (this.waiting) { this.waiting.reject(e); this.waiting = null; }
  }

  next(): Promise<ScanBatch> {
    const b = this.ready.shift();
    if (b !== undefined) return Promise.resolve(b);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => { this.waiting = { resolve, reject }; });
  }
}

async function scanOnWorker(chunks: AsyncIterable<Buffer>, handler: JsonScanHandler, afterChunk: () => void): Promise<ScanOutcome> {
  const worker = spawnImportWorker('json-scan-worker', { nullEvents: handler.nullEvent !== undefined } satisfies ScanWorkerData, 'json-scan');
  const queue = new BatchQueue();
  let finished = false;
  worker.on('message', (b: ScanBatch) => queue.put(b));
  worker.on('error', (e) => queue.fail(e));
  worker.on('exit', (code) => { if (!finished) queue.fail(new Error(`the JSON scan worker stopped (exit code ${code})`)); });
  const input = chunks[Symbol.asyncIterator]();
  /** What each request in flight was: a chunk, or the end of the input. */
  const asked: ('chunk' | 'end')[] = [];
  let ended = false;
  try {
    for (;;) {
      while (!ended && asked.length < MAX_IN_FLIGHT) {
        const r = await input.next();
        if (r.done) {
          ended = true;
          asked.push('end');
          worker.postMessage({} satisfies ScanRequest);
        } else {
          // A copy the worker can own: a stream's chunk may share its memory with other chunks.
          const chunk = new Uint8Array(r.value);
          asked.push('chunk');
          worker.postMessage({ chunk } satisfies ScanRequest, [chunk.buffer]);
        }
      }
      const batch = await queue.next();
      const answered = asked.shift();
      replay(batch, handler);
      // As on this thread: a scan error comes before the events of its chunk are parsed.
      if (batch.error === null) afterChunk();
      if (batch.error !== null) {
        const { offset, line, message } = batch.error;
        return { hasEventArray: batch.hasEventArray, error: new JsonScanError(offset, line, message), inputDone: answered === 'end' };
      }
      if (batch.done) return { hasEventArray: batch.hasEventArray, error: null, inputDone: true };
    }
  } finally {
    finished = true;
    void worker.terminate();
  }
}

/** Hands the batch's events, top-level values and null elements to the handler in the order they were read. */
function replay(batch: ScanBatch, handler: JsonScanHandler): void {
  const buf = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  const ev = batch.events, extras = batch.extras, n = ev.length / SCAN_FIELDS;
  let x = 0;
  for (let i = 0; i <= n; i++) {
    for (; x < extras.length && extras[x]!.at === i; x++) {
      const e = extras[x]!;
      if (e.kind === 'top') handler.topLevel(e.key, e.raw, e.line);
      else handler.nullEvent?.(e.line, e.offset);
    }
    if (i === n) break;
    const o = i * SCAN_FIELDS;
    handler.event(buf, ev[o]!, ev[o + 1]!, ev[o + 2]!, ev[o + 3]!, ev[o + 4]!, ev[o + 5]!, ev[o + 6]!);
  }
}
