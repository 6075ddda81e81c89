// Reads a .pftrace with protobufjs under our schema and checks the rules Perfetto's importer relies on
// (REFERENCE §4): first packet flags, iids defined before use per sequence, tracks declared before use,
// BEGIN/END balanced per track, counters only on counter tracks, flows that terminate were started.
import { loadPerfettoSchema } from '../../src/export/schema.js';

/** A decoded TracePacket as a plain object: camelCase fields, 64-bit integers as decimal strings. */
// biome-ignore lint/suspicious/noExplicitAny: protobufjs decodes to plain objects whose shape the checks below test
export type Packet = Record<string, any>;

export interface ReadResult {
  packets: Packet[];
  /** Bytes covered by whole packets. */
  consumed: number;
  /** True when the data ends inside a packet (a cut file). */
  truncated: boolean;
}

function readVarint(bytes: Uint8Array, pos: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = pos; i < bytes.length && i < pos + 10; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return { value, next: i + 1 };
  }
  return undefined;
}

/** Splits `Trace.packet` fields one by one, stopping cleanly at a cut; throws on bytes that are not a trace. */
export function readPackets(bytes: Uint8Array): ReadResult {
  const { TracePacket } = loadPerfettoSchema();
  const packets: Packet[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    if (bytes[pos] !== 0x0a) throw new Error(`pftrace: byte offset ${pos}: expected a Trace.packet tag (0x0a), found 0x${bytes[pos]!.toString(16)}`);
    const len = readVarint(bytes, pos + 1);
    if (!len || len.next + len.value > bytes.length) return { packets, consumed: pos, truncated: true };
    const message = TracePacket.decode(bytes.subarray(len.next, len.next + len.value));
    packets.push(TracePacket.toObject(message, { longs: String, enums: Number, arrays: true }));
    pos = len.next + len.value;
  }
  return { packets, consumed: pos, truncated: false };
}

interface SequenceState {
  names: Set<string>;
  categories: Set<string>;
  annotations: Set<string>;
}

/** Returns every rule violation found (empty when the trace is valid). */
export function validatePackets(packets: Packet[]): string[] {
  const problems: string[] = [];
  const sequences = new Map<number, SequenceState>();
  const tracks = new Map<string, { counter: boolean; name: string }>();
  const started = new Set<string>();
  const terminated: Array<{ id: string; at: number }> = [];
  const events: Array<{ at: number; ts: bigint; track: string; type: number }> = [];

  if (packets.length === 0) problems.push('no packets');
  else if (((packets[0]!.sequenceFlags ?? 0) & 3) !== 3) {
    problems.push(`packet 0: sequence_flags ${packets[0]!.sequenceFlags} lacks INCREMENTAL_STATE_CLEARED|NEEDS_INCREMENTAL_STATE`);
  }

  packets.forEach((p, at) => {
    const seq = p.trustedPacketSequenceId as number | undefined;
    if (seq === undefined) { problems.push(`packet ${at}: no trusted_packet_sequence_id`); return; }
    const flags = (p.sequenceFlags ?? 0) as number;
    let state = sequences.get(seq);
    if (flags & 1) {
      state = { names: new Set(), categories: new Set(), annotations: new Set() };
      sequences.set(seq, state);
    }
    const interned = p.internedData;
    if (interned) {
      if (!state) { problems.push(`packet ${at}: interned data before incremental state was cleared on sequence ${seq}`); return; }
      for (const e of interned.eventNames ?? []) state.names.add(e.iid);
      for (const e of interned.eventCategories ?? []) state.categories.add(e.iid);
      for (const e of interned.debugAnnotationNames ?? []) state.annotations.add(e.iid);
    }

    const td = p.trackDescriptor;
    if (td) {
      if (td.uuid === undefined) problems.push(`packet ${at}: track descriptor without uuid`);
      else if (tracks.has(td.uuid)) problems.push(`packet ${at}: track ${td.uuid} declared twice`);
      if (td.parentUuid !== undefined && !tracks.has(td.parentUuid)) problems.push(`packet ${at}: track ${td.uuid} has undeclared parent ${td.parentUuid}`);
      tracks.set(td.uuid, { counter: td.counter !== undefined, name: td.name ?? td.thread?.threadName ?? td.process?.processName ?? '' });
    }

    const te = p.trackEvent;
    if (te) {
      const usesIids = te.nameIid !== undefined || (te.categoryIids ?? []).length > 0 || (te.debugAnnotations ?? []).some((d: Packet) => d.nameIid !== undefined);
      if (usesIids) {
        if (!state) problems.push(`packet ${at}: uses iids before incremental state was cleared on sequence ${seq}`);
        if ((flags & 2) === 0) problems.push(`packet ${at}: uses iids without NEEDS_INCREMENTAL_STATE`);
      }
      if (state) {
        if (te.nameIid !== undefined && !state.names.has(te.nameIid)) problems.push(`packet ${at}: event name iid ${te.nameIid} not defined`);
        for (const c of te.categoryIids ?? []) if (!state.categories.has(c)) problems.push(`packet ${at}: category iid ${c} not defined`);
        for (const d of te.debugAnnotations ?? []) {
          if (d.nameIid !== undefined && !state.annotations.has(d.nameIid)) problems.push(`packet ${at}: debug annotation name iid ${d.nameIid} not defined`);
        }
      }
      const track = tracks.get(te.trackUuid);
      if (!track) problems.push(`packet ${at}: event on undeclared track ${te.trackUuid}`);
      else if ((te.type === 4) !== track.counter) {
        problems.push(`packet ${at}: ${te.type === 4 ? 'counter event on non-counter' : `event type ${te.type} on counter`} track '${track.name}'`);
      }
      if (p.timestamp === undefined) problems.push(`packet ${at}: track event without timestamp`);
      else events.push({ at, ts: BigInt(p.timestamp), track: te.trackUuid, type: te.type });
      for (const id of te.flowIds ?? []) started.add(id);
      for (const id of te.terminatingFlowIds ?? []) terminated.push({ id, at });
    }
  });

  // Perfetto sorts packets by timestamp (stably) before it pairs BEGINs with ENDs on each track.
  events.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.at - b.at));
  const depth = new Map<string, number>();
  for (const e of events) {
    const d = depth.get(e.track) ?? 0;
    if (e.type === 1) depth.set(e.track, d + 1);
    else if (e.type === 2) {
      if (d === 0) problems.push(`packet ${e.at}: SLICE_END without an open slice on track ${e.track}`);
      else depth.set(e.track, d - 1);
    }
  }
  for (const [track, d] of depth) if (d !== 0) problems.push(`track ${track}: ${d} slice(s) never ended`);
  for (const t of terminated) if (!started.has(t.id)) problems.push(`packet ${t.at}: terminating flow ${t.id} was never started`);
  return problems;
}

export interface DecodedSlice {
  track: string;
  trackName: string;
  name: string;
  category: string;
  ts: bigint;
  dur: bigint;
  args: Record<string, string | number | boolean>;
  flowIds: string[];
  terminatingFlowIds: string[];
}

export interface DecodedTrace {
  tracks: Map<string, Packet>;
  slices: DecodedSlice[];
  instants: Array<Omit<DecodedSlice, 'dur' | 'flowIds' | 'terminatingFlowIds'>>;
  counters: Array<{ track: string; trackName: string; ts: bigint; value: number }>;
}

/** Rebuilds slices, instants and counters from valid packets (a minimal importer, for content checks). */
export function decodeEvents(packets: Packet[]): DecodedTrace {
  const names = new Map<string, string>(), categories = new Map<string, string>(), annotations = new Map<string, string>();
  const tracks = new Map<string, Packet>();
  const trackName = (uuid: string): string => {
    const td = tracks.get(uuid);
    return td?.name ?? td?.thread?.threadName ?? '';
  };
  const out: DecodedTrace = { tracks, slices: [], instants: [], counters: [] };
  const open = new Map<string, DecodedSlice[]>();
  const ordered = packets.map((p, at) => ({ p, at })).sort((a, b) => {
    const ta = BigInt(a.p.timestamp ?? 0), tb = BigInt(b.p.timestamp ?? 0);
    const ea = a.p.trackEvent ? 1 : 0, eb = b.p.trackEvent ? 1 : 0;
    // Descriptors and interning apply in file order, before any event.
    if (ea !== eb) return ea - eb;
    return ta < tb ? -1 : ta > tb ? 1 : a.at - b.at;
  });
  for (const p of packets) {
    for (const e of p.internedData?.eventNames ?? []) names.set(e.iid, e.name);
    for (const e of p.internedData?.eventCategories ?? []) categories.set(e.iid, e.name);
    for (const e of p.internedData?.debugAnnotationNames ?? []) annotations.set(e.iid, e.name);
    if (p.trackDescriptor) tracks.set(p.trackDescriptor.uuid, p.trackDescriptor);
  }
  for (const { p } of ordered) {
    const te = p.trackEvent;
    if (!te) continue;
    const ts = BigInt(p.timestamp);
    const args: Record<string, string | number | boolean> = {};
    for (const d of te.debugAnnotations ?? []) {
      const key = d.name ?? annotations.get(d.nameIid) ?? `iid${d.nameIid}`;
      args[key] = d.stringValue ?? d.boolValue ?? (d.intValue !== undefined ? Number(d.intValue) : d.doubleValue);
    }
    const base = {
      track: te.trackUuid as string, trackName: trackName(te.trackUuid),
      name: te.name ?? names.get(te.nameIid) ?? '', category: (te.categoryIids ?? []).map((c: string) => categories.get(c)).join(','), ts, args,
    };
    if (te.type === 1) {
      const slice: DecodedSlice = { ...base, dur: -1n, flowIds: te.flowIds ?? [], terminatingFlowIds: te.terminatingFlowIds ?? [] };
      out.slices.push(slice);
      open.set(te.trackUuid, [...(open.get(te.trackUuid) ?? []), slice]);
    } else if (te.type === 2) {
      const slice = open.get(te.trackUuid)!.pop()!;
      slice.dur = ts - slice.ts;
    } else if (te.type === 3) {
      out.instants.push(base);
    } else if (te.type === 4) {
      out.counters.push({ track: base.track, trackName: base.trackName, ts, value: te.doubleCounterValue ?? Number(te.counterValue) });
    }
  }
  return out;
}
