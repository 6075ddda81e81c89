// Exporters: TraceModel -> Perfetto protobuf (.pftrace) and Chrome JSON (.json, .json.gz).
import type { TraceModel } from '../model/trace.js';
import { writeChromeTraceFile } from './chrome.js';
import { writeChromeStream } from './chrome-stream.js';
import { spilledStream } from './event-stream.js';
import { writePerfettoTraceFile } from './perfetto.js';
import { writePerfettoStream } from './perfetto-stream.js';

export { PerfettoStreamWriter, type PerfettoStreamWriterOptions } from './perfetto-writer.js';
export { writePerfettoTraceFile as writePerfettoTraceWithOptions } from './perfetto.js';
export { perfettoProtoPath, loadPerfettoSchema, type PerfettoSchema } from './schema.js';
export { formatMicros as chromeMicros } from './chrome.js';
export { DEFAULT_FLOW, flowNamesOfGroups } from './common.js';
export { outputTarget, removeOpenPartials, writeFileAtomic } from './file-sink.js';

/** Streams the trace to `path` (temporary name, then rename); a spilled recording's events from its runs. */
export async function writePerfettoTrace(trace: TraceModel, path: string): Promise<void> {
  const stream = spilledStream(trace);
  if (stream) await writePerfettoStream(stream(), path);
  else await writePerfettoTraceFile(trace, path);
}

/** Streams Kineto-style Chrome JSON to `path`; gzip when it ends in .gz (temporary name, then rename). */
export async function writeChromeTrace(trace: TraceModel, path: string): Promise<void> {
  const stream = spilledStream(trace);
  if (stream) await writeChromeStream(stream(), path);
  else await writeChromeTraceFile(trace, path);
}

export type { EventStream, StreamEvent, StreamFlow, ThreadTime } from './event-stream.js';
export { spilledStream } from './event-stream.js';
export { writePerfettoStream } from './perfetto-stream.js';
export { writeChromeStream } from './chrome-stream.js';
