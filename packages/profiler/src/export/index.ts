// Exporters: TraceModel -> Perfetto protobuf (.pftrace) and Chrome JSON (.json, .json.gz).
// Contract used by the recorder's handlers (the bodies are filled in by the exporter work):
import type { TraceModel } from '../model/trace.js';

/** Streams the trace to `path` (temporary name, then rename). */
export async function writePerfettoTrace(trace: TraceModel, path: string): Promise<void> {
  void trace; void path;
  throw new Error('writePerfettoTrace: not implemented yet');
}

/** Streams Kineto-style Chrome JSON to `path`; gzip when it ends in .gz (temporary name, then rename). */
export async function writeChromeTrace(trace: TraceModel, path: string): Promise<void> {
  void trace; void path;
  throw new Error('writeChromeTrace: not implemented yet');
}
