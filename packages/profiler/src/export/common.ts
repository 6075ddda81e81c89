// Conventions both exporters share, so that a trace read back from either format says the same thing.
import type { Args, EnvTimerSample, FlowEvent, TraceMetadata, TraceModel, TraceTrack } from '../model/trace.js';

/** Name and category of the instant event that carries TraceMetadata as JSON (Perfetto). */
export const METADATA_EVENT = 'gsprof.metadata';
export const METADATA_CATEGORY = '__metadata';
export const METADATA_ARG = 'json';
/** The metadata instant's annotation with the flows' categories and names (pftrace; see flowNamesJson). */
export const FLOW_NAMES_ARG = 'flows';
/** What a flow without a category or name is taken for: Kineto's CPU -> GPU arrow. */
export const DEFAULT_FLOW = 'ac2g';

/**
 * The categories and names of the flows, which a pftrace's TrackEvent flows cannot carry, as
 * {"default": [category, name], "other": [[category, name, [flow ids]], ...]} (the commonest pair as the
 * default); undefined without flows.
 */
export function flowNamesJson(flows: readonly FlowEvent[]): string | undefined {
  const byPair = new Map<string, { category: string; name: string; ids: number[] }>();
  for (const f of flows) {
    const name = f.name ?? f.category;
    const key = `${f.category}\u0000${name}`;
    let group = byPair.get(key);
    if (!group) { group = { category: f.category, name, ids: [] }; byPair.set(key, group); }
    group.ids.push(f.id);
  }
  return flowNamesOfGroups([...byPair.values()].sort((a, b) => b.ids.length - a.ids.length));
}

/**
 * flowNamesJson from the flows grouped by (category, name), commonest group first; the ids of that first
 * group are not needed (a reader that streams the flows need not gather them).
 */
export function flowNamesOfGroups(groups: ReadonlyArray<{ category: string; name: string; ids: readonly number[] }>): string | undefined {
  const [first] = groups;
  if (!first) return undefined;
  return JSON.stringify({ default: [first.category, first.name], other: groups.slice(1).map((g) => [g.category, g.name, g.ids]) });
}

/** Name and category of the instant event that carries one step's per-env timers. */
export const ENV_TIMERS_EVENT = 'env_timers';
export const ENV_TIMERS_CATEGORY = 'gsprof_timers';

/** TraceMetadata as JSON; the bigint baseTimeNs becomes a decimal string so it stays exact. */
export function metadataJson(metadata: TraceMetadata): string {
  return JSON.stringify(metadata, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Base64 of the values as little-endian float64, whatever the host's byte order. */
export function float64Base64(values: Float64Array): string {
  let bytes: Uint8Array;
  if (littleEndian) {
    bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  } else {
    bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i]!, true);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The args of an 'env_timers' event: step, n_envs, labels (comma-joined), values_b64. */
export function envTimerArgs(sample: EnvTimerSample, labels: readonly string[] | undefined): Args {
  return {
    step: sample.step,
    n_envs: sample.nEnvs,
    labels: (labels ?? []).join(','),
    values_b64: float64Base64(sample.values),
  };
}

/**
 * The thread track that carries the metadata and env-timer events: the first thread track of the recording
 * process, else the first thread track. When the trace has none, a synthetic host thread is returned
 * (with an id no other track uses) and the exporter declares it.
 */
export function hostThreadTrack(trace: TraceModel): { track: TraceTrack; synthetic: boolean } {
  const threads = trace.tracks.filter((t) => t.kind === 'thread');
  const own = threads.find((t) => t.pid === trace.metadata.pid) ?? threads[0];
  if (own) return { track: own, synthetic: false };
  const id = trace.tracks.reduce((m, t) => Math.max(m, t.id), 0) + 1;
  return {
    track: { id, kind: 'thread', name: 'host', pid: trace.metadata.pid, tid: trace.metadata.pid },
    synthetic: true,
  };
}

/** Name shown for an overflow lane of a track (see layout.ts). */
export function laneName(track: TraceTrack, laneIndex: number): string {
  return laneIndex === 0 ? track.name : `${track.name}${track.name === '' ? '' : ' '}(overlap ${laneIndex})`;
}
