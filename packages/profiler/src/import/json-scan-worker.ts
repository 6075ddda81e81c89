/**
 * Worker thread entry of the threaded JSON scan (json-scan.ts): runs ChromeJsonScanner over the chunks the main
 * thread posts and posts back, per chunk, the bytes of the events it completed with their positions, so that the
 * main thread only parses and handles them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChromeJsonScanner, JsonScanError } from './json-scanner.js';
import { SCAN_FIELDS, type ScanBatch, type ScanExtra, type ScanRequest, type ScanWorkerData } from './json-scan-protocol.js';

const port = parentPort;
if (port === null) throw new Error('json-scan-worker runs as a worker thread');

let events = new Float64Array(SCAN_FIELDS * 4096);
let nEvents = 0;
let eventBuf: Buffer | null = null;
let extras: ScanExtra[] = [];
const { nullEvents } = workerData as ScanWorkerData;

const scanner = new ChromeJsonScanner({
  event: (buf, start, end, line, offset, tsAt, durAt, numberFlags) => {
    eventBuf = buf;
    if ((nEvents + 1) * SCAN_FIELDS > events.length) {
      const grown = new Float64Array(events.length * 2);
      grown.set(events);
      events = grown;
    }
    const o = nEvents++ * SCAN_FIELDS;
    events[o] = start; events[o + 1] = end; events[o + 2] = line; events[o + 3] = offset; events[o + 4] = tsAt; events[o + 5] = durAt;
    events[o + 6] = numberFlags;
  },
  topLevel: (key, raw, line) => { extras.push({ at: nEvents, kind: 'top', key, raw, line, offset: 0 }); },
  nullEvent: nullEvents ? (line, offset) => { extras.push({ at: nEvents, kind: 'null', key: '', raw: null, line, offset }); } : undefined,
});

/** Posts what the last push or end completed: the events' bytes copied out (the scanner's buffer moves on). */
function post(error: JsonScanError | null, done: boolean): void {
  let bytes = new Uint8Array(0);
  const ev = events.slice(0, nEvents * SCAN_FIELDS);
  if (nEvents > 0 && eventBuf !== null) {
    const lo = ev[0]!, hi = ev[(nEvents - 1) * SCAN_FIELDS + 1]!;
    bytes = new Uint8Array(hi - lo);
    bytes.set(eventBuf.subarray(lo, hi));
    for (let o = 0; o < ev.length; o += SCAN_FIELDS) {
      ev[o] = ev[o]! - lo; ev[o + 1] = ev[o + 1]! - lo;
      if (ev[o + 4]! >= 0) ev[o + 4] = ev[o + 4]! - lo;
      if (ev[o + 5]! >= 0) ev[o + 5] = ev[o + 5]! - lo;
    }
  }
  const batch: ScanBatch = {
    bytes, events: ev, extras, done, hasEventArray: scanner.hasEventArray,
    error: error === null ? null : { offset: error.offset, line: error.line, message: error.message },
  };
  port!.postMessage(batch, [bytes.buffer, ev.buffer]);
  nEvents = 0;
  eventBuf = null;
  extras = [];
}

/** Set once an error ended the scan: chunks already on their way are not read. */
let stopped = false;

port.on('message', (req: ScanRequest) => {
  if (stopped) return;
  try {
    if (req.chunk) scanner.push(Buffer.from(req.chunk.buffer, req.chunk.byteOffset, req.chunk.byteLength));
    else scanner.end();
  } catch (err) {
    if (!(err instanceof JsonScanError)) throw err;
    stopped = true;
    post(err, true);
    return;
  }
  post(null, !req.chunk);
});
