// Exporters: TraceModel -> Perfetto protobuf (.pftrace) and Chrome JSON (.json, .json.gz).
import type { TraceModel } from '../model/trace.js';
import { writeChromeTraceFile } from './chrome.js';

export { formatMicros } from './chrome.js';
export { METADATA_EVENT, METADATA_CATEGORY, METADATA_ARG, ENV_TIMERS_EVENT, ENV_TIMERS_CATEGORY } from './common.js';
export { PARTIAL_SUFFIX } from './file-sink.js';

/** Streams the trace to `path` (temporary name, then rename). */
export async function writePerfettoTrace(trace: TraceModel, path: string): Promise<void> {
  void trace; void path;
  throw new Error('writePerfettoTrace: not implemented yet');
}

/** Streams Kineto-style Chrome JSON to `path`; gzip when it ends in .gz (temporary name, then rename). */
export async function writeChromeTrace(trace: TraceModel, path: string): Promise<void> {
  await writeChromeTraceFile(trace, path);
}
