// Exporters: TraceModel -> Perfetto protobuf (.pftrace) and Chrome JSON (.json, .json.gz).
import type { TraceModel } from '../model/trace.js';
import { writeChromeTraceFile } from './chrome.js';
import {
  ENV_TIMERS_CATEGORY, ENV_TIMERS_EVENT, METADATA_ARG, METADATA_CATEGORY, METADATA_EVENT,
} from './common.js';
import { PARTIAL_SUFFIX } from './file-sink.js';
import { writePerfettoTraceFile } from './perfetto.js';

export { PerfettoStreamWriter, type PerfettoStreamWriterOptions } from './perfetto-writer.js';
export { writePerfettoTraceFile as writePerfettoTraceWithOptions } from './perfetto.js';
export { perfettoProtoPath, loadPerfettoSchema, type PerfettoSchema } from './schema.js';
export { formatMicros as chromeMicros } from './chrome.js';
export { outputTarget, writeFileAtomic } from './file-sink.js';

/** Names the exporters give gsprof-specific data, for importers that read our traces back. */
export const TRACE_CONVENTIONS = {
  /** Instant at ts 0 on the host thread (Perfetto) whose debug annotation `json` holds TraceMetadata;
   *  in Chrome JSON the same object is the top-level `gsprofMetadata`. baseTimeNs is a decimal string. */
  metadataEvent: METADATA_EVENT,
  metadataCategory: METADATA_CATEGORY,
  metadataArg: METADATA_ARG,
  /** One instant per sample on the host thread, args: step, n_envs, labels (comma-joined),
   *  values_b64 (base64 of the little-endian Float64Array, values[slot * nEnvs + env]). */
  envTimersEvent: ENV_TIMERS_EVENT,
  envTimersCategory: ENV_TIMERS_CATEGORY,
  /** Traces are written to `${path}${partialSuffix}` and renamed when complete. */
  partialSuffix: PARTIAL_SUFFIX,
} as const;

/** Streams the trace to `path` (temporary name, then rename). */
export async function writePerfettoTrace(trace: TraceModel, path: string): Promise<void> {
  await writePerfettoTraceFile(trace, path);
}

/** Streams Kineto-style Chrome JSON to `path`; gzip when it ends in .gz (temporary name, then rename). */
export async function writeChromeTrace(trace: TraceModel, path: string): Promise<void> {
  await writeChromeTraceFile(trace, path);
}
