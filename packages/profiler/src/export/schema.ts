// Loads the Perfetto .proto subset (packages/profiler/proto) at run time with protobufjs; no codegen step.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** Absolute path of the .proto subset gsprof writes (shipped in the package's `proto/` folder). */
export const perfettoProtoPath = fileURLToPath(new URL('../../proto/perfetto_trace.proto', import.meta.url));

export interface PerfettoSchema {
  root: protobuf.Root;
  Trace: protobuf.Type;
  TracePacket: protobuf.Type;
  TrackEvent: protobuf.Type;
  InternedData: protobuf.Type;
  TrackDescriptor: protobuf.Type;
}

let cached: PerfettoSchema | undefined;

/** The message types of the subset, loaded once per process. Field names are camelCase (protobufjs default). */
export function loadPerfettoSchema(): PerfettoSchema {
  if (!cached) {
    const root = protobuf.loadSync(perfettoProtoPath);
    const type = (name: string): protobuf.Type => root.lookupType(`perfetto.protos.${name}`);
    cached = {
      root,
      Trace: type('Trace'),
      TracePacket: type('TracePacket'),
      TrackEvent: type('TrackEvent'),
      InternedData: type('InternedData'),
      TrackDescriptor: type('TrackDescriptor'),
    };
  }
  return cached;
}
