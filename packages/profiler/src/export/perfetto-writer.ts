// The Perfetto packet writer: one packet sequence streamed to a file. A file is a bare sequence of
// `Trace.packet` fields (tag 0x0A, length, TracePacket), so whole packets go out in ~256 KiB chunks and a file cut anywhere still
// loads up to its last whole packet. All packets belong to one sequence: the first sets "incremental state
// cleared" and carries the interned names; every later event packet refers to names by iid (interning starts
// afresh every 4096 names so the tables stay small). Track events are encoded by hand (packet-buffer.ts);
// descriptors, and everything when asked, go through protobufjs with the .proto subset in ../../proto.
import protobuf from 'protobufjs';
import { RealArg, type ArgValue, type Args, type EnvTimerSample, type TraceMetadata, type TraceTrack, type TrackKind } from '../model/trace.js';
import {
  ENV_TIMERS_CATEGORY, ENV_TIMERS_EVENT, FLOW_NAMES_ARG, METADATA_ARG, METADATA_CATEGORY, METADATA_EVENT, envTimerArgs, laneName, metadataJson,
} from './common.js';
import { FileSink } from './file-sink.js';
import { PacketBuffer, putVarint, putVarint64 } from './packet-buffer.js';
import { loadPerfettoSchema } from './schema.js';

export const SEQ_INCREMENTAL_STATE_CLEARED = 1;
export const SEQ_NEEDS_INCREMENTAL_STATE = 2;
export const TYPE_SLICE_BEGIN = 1;
export const TYPE_SLICE_END = 2;
export const TYPE_INSTANT = 3;
export const TYPE_COUNTER = 4;

const COUNTER_UNITS: Record<string, number> = { ns: 1, count: 2, bytes: 3 };
const TWO_32 = 4294967296;
/** Interned names per table before the writer starts a fresh interning state (see clearIncrementalState). */
const INTERN_LIMIT = 4096;
/** Track keys below this are looked up in an array rather than a Map (one lookup per event). */
const TRACK_ARRAY_LIMIT = 1 << 16;

export interface PerfettoStreamWriterOptions {
  /** Host wall clock (epoch ns) of relative time 0; packet timestamps are baseTimeNs + ts. */
  baseTimeNs: bigint;
  /** trusted_packet_sequence_id of this writer's packets (default 1). */
  sequenceId?: number;
  /** Bytes of encoded packets gathered before they are handed to the file (default 256 KiB). */
  chunkBytes?: number;
  /**
   * 'direct' (default): track events are encoded by hand (packet-buffer.ts), several times faster;
   * 'protobufjs': every packet goes through protobufjs's encode. Both produce the same bytes.
   */
  encoder?: 'direct' | 'protobufjs';
}

interface DeclaredTrack {
  uuid: number;
  /** The track_uuid field (tag and varint) of TrackEvent, pre-encoded for the hand-written encoder. */
  uuidField: Uint8Array;
  kind: TrackKind;
  name: string;
}

interface InternTable {
  ids: Map<string, number>;
  /** Every name interned since the last reset, by iid - 1 (the table never holds more than INTERN_LIMIT). */
  byIid: string[];
  /** How many of `byIid` have been written in a packet's interned_data; the rest are fresh. */
  sent: number;
  /** The name interned last and its iid: runs of one category skip the Map lookup. */
  lastName: string | undefined;
  lastIid: number;
}

const newTable = (): InternTable => ({ ids: new Map(), byIid: [], sent: 0, lastName: undefined, lastIid: 0 });

const hasFresh = (table: InternTable): boolean => table.byIid.length > table.sent;

/** The fresh names of `table` as InternedData entries, marked as sent. */
function takeFresh(table: InternTable): Array<{ iid: number; name: string }> {
  const entries = table.byIid.slice(table.sent).map((name, k) => ({ iid: table.sent + k + 1, name }));
  table.sent = table.byIid.length;
  return entries;
}

/** No category ('') is no category_iids, which trace_processor reads as a NULL category (it reads "" as ""). */
function categoryIid(table: InternTable, category: string): number {
  return category === '' ? 0 : intern(table, category);
}

function intern(table: InternTable, name: string): number {
  if (name === table.lastName) return table.lastIid;
  let iid = table.ids.get(name);
  if (iid === undefined) {
    iid = table.ids.size + 1;
    table.ids.set(name, iid);
    table.byIid.push(name);
  }
  table.lastName = name;
  table.lastIid = iid;
  return iid;
}

/**
 * The JSON text that stands for an empty array or object in a DebugAnnotation; undefined for others. A null has
 * no value field at all: trace_processor (v58.2) aborts on a legacy_json_value of "null", and reads an
 * annotation without a value as no arg, as it drops a null in JSON args.
 */
function emptyJson(v: ArgValue): string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) return v.length === 0 ? '[]' : undefined;
  for (const _ in v) return undefined;
  return '{}';
}

/** An int64 as protobufjs takes it (two's complement halves), exact beyond 2^53. */
function longOf(v: bigint): { low: number; high: number; unsigned: boolean } {
  return { low: Number(BigInt.asIntN(32, v)), high: Number(BigInt.asIntN(32, v >> 32n)), unsigned: false };
}

/** structuredValue's fields as a protobufjs object. */
function structuredObject(v: ArgValue): Record<string, unknown> {
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'bigint') return { intValue: longOf(v) };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { intValue: v } : { doubleValue: v };
  if (v instanceof RealArg) return { doubleValue: v.value };
  if (typeof v === 'string') return { stringValue: v };
  if (v === null) return {};
  const json = emptyJson(v);
  if (json !== undefined) return { legacyJsonValue: json };
  if (Array.isArray(v)) return { arrayValues: v.map(structuredObject) };
  return { dictEntries: Object.keys(v).map((k) => ({ name: k, ...structuredObject(v[k]!) })) };
}

const isSmallKey = (key: number): boolean => (key >>> 0) === key && key < TRACK_ARRAY_LIMIT;

/** A varint field: tag byte, then the value. */
function encodeField(tag: number, value: number): Uint8Array {
  const b = new PacketBuffer(16);
  b.varint(tag);
  b.varint(value);
  return b.take();
}

/** A small deterministic hash, to keep track uuids of different traces apart when files are merged. */
function uuidSeed(base: bigint, sequenceId: number): number {
  let h = 2166136261;
  for (const ch of `${base}:${sequenceId}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return (h & 0xfffff) + 1;
}

/**
 * Writes one Perfetto packet sequence to `${path}.partial` and renames it on close. Tracks and processes must be
 * added before events use them. Events may be written as they happen (begin/end) or as complete slices; on one
 * track, begins and ends must nest (Perfetto sorts packets by timestamp when it loads them).
 * Synchronous methods only buffer; await `drain()` when `needsDrain` is true to keep memory bounded.
 */
export class PerfettoStreamWriter {
  private readonly schema = loadPerfettoSchema();
  private readonly sink: FileSink;
  private readonly sequenceId: number;
  private readonly chunkBytes: number;
  private readonly baseHi: number;
  private readonly baseLo: number;
  private readonly uuidHigh: number;
  private nextUuid = 1;
  private readonly direct: boolean;
  /** Encoders: protobufjs's Writer for object-encoded packets, PacketBuffer for the hand-written path. */
  private readonly writer = protobuf.Writer.create();
  private readonly packets = new PacketBuffer();
  private packetCount = 0;
  /** trusted_packet_sequence_id field plus the track_event tag, pre-encoded. */
  private readonly eventHead: Uint8Array;
  /** One relative time, for the public methods that take `ts` (see beginAt). */
  private readonly time = new Float64Array(1);
  /** Absolute timestamp of the event being written, as 32-bit halves (see absolute()). */
  private tsLow = 0;
  private tsHigh = 0;
  /** Set when the interning tables were reset; the next packet carries SEQ_INCREMENTAL_STATE_CLEARED. */
  private stateCleared = false;
  private readonly names = newTable();
  private readonly categories = newTable();
  private readonly annotationNames = newTable();
  private readonly tracks = new Map<number, DeclaredTrack>();
  /** The same tracks by key, for small integer keys. */
  private readonly trackAt: Array<DeclaredTrack | undefined> = [];
  /**
   * Annotation names by position in the args object, with their iids: args of one event kind share their
   * keys, so most lookups are a string comparison instead of a Map lookup. Emptied with the intern tables.
   */
  private argKeyAt: string[] = [];
  private argIidAt: number[] = [];
  private readonly processes = new Map<number, number>();
  /** "pid:tid" of the threads declared: Perfetto folds two descriptors of one thread into one track. */
  private readonly threadIds = new Set<string>();

  private constructor(sink: FileSink, options: PerfettoStreamWriterOptions) {
    this.sink = sink;
    this.sequenceId = options.sequenceId ?? 1;
    this.chunkBytes = options.chunkBytes ?? 256 * 1024;
    this.direct = (options.encoder ?? 'direct') === 'direct';
    this.eventHead = Buffer.concat([encodeField(0x50, this.sequenceId), Buffer.from([0x5a])]);
    if (options.baseTimeNs < 0n) throw new Error(`perfetto: baseTimeNs must not be negative (${options.baseTimeNs})`);
    this.baseHi = Number(options.baseTimeNs / 4294967296n);
    this.baseLo = Number(options.baseTimeNs % 4294967296n);
    this.uuidHigh = uuidSeed(options.baseTimeNs, this.sequenceId) * TWO_32;
  }

  static async open(path: string, options: PerfettoStreamWriterOptions): Promise<PerfettoStreamWriter> {
    return new PerfettoStreamWriter(await FileSink.open(path), options);
  }

  /** Registers names up front so that the first packet carries them (later packets intern only new ones). */
  preIntern(names: Iterable<string>, categories: Iterable<string> = [], annotationNames: Iterable<string> = []): void {
    for (const n of names) intern(this.names, n);
    for (const c of categories) intern(this.categories, c);
    for (const a of annotationNames) intern(this.annotationNames, a);
  }

  get packetsWritten(): number {
    return this.packetCount;
  }

  get needsDrain(): boolean {
    return this.sink.needsDrain;
  }

  drain(): Promise<void> {
    return this.sink.drain();
  }

  private get pendingBytes(): number {
    return this.direct ? this.packets.pos : this.writer.pos;
  }

  /** Moves the packets gathered so far to the file sink (copy, then reuse the encoder's buffer). */
  private handOver(): void {
    if (this.pendingBytes === 0) return;
    if (this.direct) {
      const chunk = this.packets.takeShared();
      this.sink.write(chunk, () => this.packets.recycle(chunk));
    } else {
      this.sink.write(this.writer.finish());
      this.writer.reset();
    }
  }

  /** Writes every whole packet so far to the partial file (so a crash after this loses nothing before it). */
  async flush(): Promise<void> {
    this.handOver();
    await this.sink.flush();
  }

  async close(): Promise<void> {
    this.handOver();
    await this.sink.close();
  }

  /** Stops and deletes the temporary file. */
  async abort(): Promise<void> {
    await this.sink.abort();
  }

  /** Declares a process track (ProcessDescriptor); returns its uuid. Idempotent per pid. */
  addProcess(pid: number, name: string, labels?: string): number {
    let uuid = this.processes.get(pid);
    if (uuid === undefined) {
      uuid = this.uuidHigh + this.nextUuid++;
      this.processes.set(pid, uuid);
      const process = { pid, ...(name !== '' ? { processName: name } : {}), ...(labels !== undefined ? { processLabels: [labels] } : {}) };
      this.writePacket({ trackDescriptor: { uuid, process } });
    }
    return uuid;
  }

  /**
   * Declares a track under the key `track.id`: a thread or GPU queue (ThreadDescriptor with the track's pid and
   * tid) or a counter (CounterDescriptor with unit ns/count/bytes or unit_name). A process-scoped track is its
   * process's own track; a global-scoped one has no parent.
   * With `lane` > 0 it declares overflow lane `lane` of the track under the key `key` instead (see layout.ts).
   */
  addTrack(track: TraceTrack, lane = 0, key = track.id): void {
    if (this.tracks.has(key)) throw new Error(`perfetto: track ${key} ('${track.name}') is declared twice`);
    const global = track.scope === 'global' && lane === 0;
    const parentUuid = global ? undefined : this.addProcess(track.pid, '');
    const name = laneName(track, lane);
    if (track.scope === 'process' && lane === 0) { this.declare(key, { uuid: parentUuid!, kind: track.kind, name, uuidField: encodeField(0x58, parentUuid!) }); return; }
    const uuid = this.uuidHigh + this.nextUuid++;
    let descriptor: Record<string, unknown>;
    if (global) {
      descriptor = { uuid, name };
    } else if (track.kind === 'counter') {
      const unit = COUNTER_UNITS[track.unit ?? ''];
      const counter = unit !== undefined ? { unit } : track.unit ? { unitName: track.unit } : {};
      descriptor = { uuid, parentUuid, name, counter };
    } else if (lane === 0 && this.claimThread(track.pid, track.tid ?? track.id)) {
      // A GPU queue too: Kineto's streams are (pid = device, tid = stream) threads, and as a thread its tid survives.
      descriptor = { uuid, thread: { pid: track.pid, tid: track.tid ?? track.id, ...(name !== '' ? { threadName: name } : {}) } };
    } else {
      descriptor = { uuid, parentUuid, name };
    }
    this.declare(key, { uuid, kind: track.kind, name, uuidField: encodeField(0x58, uuid) });
    this.writePacket({ trackDescriptor: descriptor });
  }

  /** Whether (pid, tid) is still free to declare as a thread; a second track with it is declared by name instead. */
  private claimThread(pid: number, tid: number): boolean {
    const id = `${pid}:${tid}`;
    if (this.threadIds.has(id)) return false;
    this.threadIds.add(id);
    return true;
  }

  private declare(key: number, declared: DeclaredTrack): void {
    this.tracks.set(key, declared);
    if (isSmallKey(key)) {
      while (this.trackAt.length < key) this.trackAt.push(undefined);
      this.trackAt[key] = declared;
    }
  }

  /**
   * Forgets every interned name: the next packet says "incremental state cleared" and interns afresh. Keeps
   * the tables (and the importer's) small when names are unique, e.g. one `ProfilerStep#k` per step.
   */
  private internTablesFull(): boolean {
    return this.names.ids.size >= INTERN_LIMIT || this.categories.ids.size >= INTERN_LIMIT || this.annotationNames.ids.size >= INTERN_LIMIT;
  }

  private clearIncrementalState(): void {
    for (const table of [this.names, this.categories, this.annotationNames]) {
      table.ids.clear();
      table.byIid = [];
      table.sent = 0;
      table.lastName = undefined;
    }
    this.argKeyAt = [];
    this.argIidAt = [];
    this.stateCleared = true;
  }

  /** The declared non-counter track `key`; the error message is only built when it is needed. */
  private track(key: number, what: string, name?: string): DeclaredTrack {
    const t = isSmallKey(key) ? this.trackAt[key] : this.tracks.get(key);
    if (t !== undefined && t.kind !== 'counter') return t;
    const event = name === undefined ? what : `${what} '${name}'`;
    if (!t) throw new Error(`perfetto: ${event} on track ${key}, which was not declared with addTrack`);
    throw new Error(`perfetto: ${event} on counter track ${key} ('${t.name}')`);
  }

  begin(track: number, name: string, category: string, ts: number, args?: Args, flowIds?: number[], terminatingFlowIds?: number[]): void {
    this.time[0] = ts;
    this.beginAt(track, name, category, this.time, 0, args, flowIds, terminatingFlowIds);
  }

  /**
   * begin() with its time read from `times[i]`. Times are doubles beyond 2^31 ns: passed as arguments to a
   * call V8 does not inline, each one is boxed into a new heap number, and on a million slices that garbage
   * cost more than the encoding. Reading them from the layout's Float64Array allocates nothing.
   */
  beginAt(track: number, name: string, category: string, times: Float64Array, i: number, args?: Args, flowIds?: number[], terminatingFlowIds?: number[]): void {
    if (this.internTablesFull()) this.clearIncrementalState();
    const t = this.track(track, 'slice', name);
    this.absolute(times, i);
    this.event(TYPE_SLICE_BEGIN, t, intern(this.names, name), categoryIid(this.categories, category), args, flowIds, terminatingFlowIds);
  }

  end(track: number, ts: number): void {
    this.time[0] = ts;
    this.endAt(track, this.time, 0);
  }

  /** end() with its time read from `times[i]` (see beginAt). */
  endAt(track: number, times: Float64Array, i: number): void {
    const t = this.track(track, 'slice end');
    this.absolute(times, i);
    if (this.direct && this.packetCount > 0 && !this.stateCleared && !this.hasFreshNames()) this.directEnd(t);
    else this.event(TYPE_SLICE_END, t, 0, 0);
  }

  /** A complete slice as a BEGIN/END pair (there is no complete-event type in Perfetto's TrackEvent). */
  slice(track: number, name: string, category: string, ts: number, dur: number, args?: Args, flowIds?: number[], terminatingFlowIds?: number[]): void {
    this.begin(track, name, category, ts, args, flowIds, terminatingFlowIds);
    this.end(track, ts + dur);
  }

  /** An instant; `flowIds`/`terminatingFlowIds` as `begin`'s (a flow may start or end at an instant). */
  instant(track: number, name: string, category: string, ts: number, args?: Args, flowIds?: number[], terminatingFlowIds?: number[]): void {
    if (this.internTablesFull()) this.clearIncrementalState();
    const t = this.track(track, 'instant', name);
    this.time[0] = ts;
    this.absolute(this.time, 0);
    this.event(TYPE_INSTANT, t, intern(this.names, name), categoryIid(this.categories, category), args, flowIds, terminatingFlowIds);
  }

  counter(track: number, ts: number, value: number): void {
    const t = isSmallKey(track) ? this.trackAt[track] : this.tracks.get(track);
    if (t?.kind !== 'counter') throw new Error(`perfetto: counter sample on ${t ? 'non-counter' : 'undeclared'} track ${track}`);
    this.time[0] = ts;
    this.absolute(this.time, 0);
    this.event(TYPE_COUNTER, t, 0, 0, undefined, undefined, undefined, value);
  }

  /**
   * TraceMetadata as JSON on an instant 'gsprof.metadata' (category '__metadata') at ts 0, with the flows'
   * categories and names (flowNamesJson) when there are any to say.
   */
  metadata(track: number, metadata: TraceMetadata, flowNames?: string): void {
    const args: Args = { [METADATA_ARG]: metadataJson(metadata) };
    if (flowNames !== undefined) args[FLOW_NAMES_ARG] = flowNames;
    this.instant(track, METADATA_EVENT, METADATA_CATEGORY, 0, args);
  }

  /** One step's per-env timers as an instant 'env_timers' with step, n_envs, labels, values_b64. */
  envTimers(track: number, sample: EnvTimerSample, labels: readonly string[] | undefined): void {
    this.instant(track, ENV_TIMERS_EVENT, ENV_TIMERS_CATEGORY, sample.ts, envTimerArgs(sample, labels));
  }

  /**
   * Absolute uint64 ns of the relative time `times[i]`, as two 32-bit halves (exact beyond 2^53). The low half
   * is kept as a signed int32 so that it stays a small integer rather than a heap number.
   */
  private absolute(times: Float64Array, i: number): void {
    const ts = times[i]!;
    const sum = this.baseLo + Math.round(ts);
    const carry = Math.floor(sum / TWO_32);
    const high = this.baseHi + carry;
    if (high < 0 || !Number.isFinite(sum)) throw new Error(`perfetto: time ${ts} ns is before the Unix epoch or not finite`);
    this.tsLow = (sum - carry * TWO_32) | 0;
    this.tsHigh = high;
  }

  private flags(): number {
    if (this.packetCount === 0 || this.stateCleared) {
      this.stateCleared = false;
      return SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE;
    }
    return SEQ_NEEDS_INCREMENTAL_STATE;
  }

  /** One TrackEvent packet. nameIid/categoryIid 0 = none; counterValue set only for COUNTER events. */
  private event(
    type: number, track: DeclaredTrack, nameIid: number, categoryIid: number,
    args?: Args, flowIds?: number[], terminatingFlowIds?: number[], counterValue?: number,
  ): void {
    if (this.direct) this.directEvent(type, track, nameIid, categoryIid, args, flowIds, terminatingFlowIds, counterValue);
    else this.objectEvent(type, track.uuid, nameIid, categoryIid, args, flowIds, terminatingFlowIds, counterValue);
  }

  private objectEvent(
    type: number, trackUuid: number, nameIid: number, categoryIid: number,
    args?: Args, flowIds?: number[], terminatingFlowIds?: number[], counterValue?: number,
  ): void {
    const event: Record<string, unknown> = { type, trackUuid };
    if (nameIid) event.nameIid = nameIid;
    if (categoryIid) event.categoryIids = [categoryIid];
    if (args) {
      const annotations: Array<Record<string, unknown>> = [];
      for (const key in args) {
        const v = args[key];
        const iid = intern(this.annotationNames, key);
        if (typeof v === 'string') annotations.push({ nameIid: iid, stringValue: v });
        else if (typeof v === 'boolean') annotations.push({ nameIid: iid, boolValue: v });
        else if (typeof v === 'number') annotations.push(Number.isSafeInteger(v) ? { nameIid: iid, intValue: v } : { nameIid: iid, doubleValue: v });
        else if (typeof v === 'bigint') annotations.push({ nameIid: iid, intValue: longOf(v) });
        else if (typeof v === 'object') annotations.push({ nameIid: iid, ...structuredObject(v) });
      }
      event.debugAnnotations = annotations;
    }
    if (counterValue !== undefined) event.doubleCounterValue = counterValue;
    if (flowIds && flowIds.length > 0) event.flowIds = flowIds;
    if (terminatingFlowIds && terminatingFlowIds.length > 0) event.terminatingFlowIds = terminatingFlowIds;
    const timestamp = { low: this.tsLow | 0, high: this.tsHigh | 0, unsigned: true };
    this.writePacket({ timestamp, trackEvent: event, sequenceFlags: this.flags() });
  }

  /**
   * The same packet as objectEvent, encoded by hand (fields in number order, as protobufjs writes them).
   * The fixed parts are pre-encoded: the sequence-id field and each track's uuid field.
   */
  private directEvent(
    type: number, track: DeclaredTrack, nameIid: number, categoryIid: number,
    args?: Args, flowIds?: number[], terminatingFlowIds?: number[], counterValue?: number,
  ): void {
    const b = this.packets;
    const nFlows = (flowIds ? flowIds.length : 0) + (terminatingFlowIds ? terminatingFlowIds.length : 0);
    // Room for everything but the args: tags, marks, 64-bit timestamp, iids, uuid, counter, flags.
    b.ensure(96 + nFlows * 10);
    let buf = b.buf;
    let p = b.pos;
    buf[p++] = 0x0a; // Trace.packet
    const packet = p++;
    buf[p++] = 0x40; // timestamp = 8
    p = putVarint64(buf, p, this.tsLow, this.tsHigh);
    const head = this.eventHead; // trusted_packet_sequence_id = 10, then the track_event = 11 tag
    for (let i = 0; i < head.length; i++) buf[p++] = head[i]!;
    const event = p++;
    if (categoryIid) { buf[p++] = 0x18; p = putVarint(buf, p, categoryIid); } // category_iids = 3
    if (args) {
      b.pos = p;
      this.directAnnotations(args);
      b.ensure(96 + nFlows * 10);
      buf = b.buf;
      p = b.pos;
    }
    buf[p++] = 0x48; buf[p++] = type; // type = 9
    if (nameIid) { buf[p++] = 0x50; p = putVarint(buf, p, nameIid); } // name_iid = 10
    const uuid = track.uuidField; // track_uuid = 11
    for (let i = 0; i < uuid.length; i++) buf[p++] = uuid[i]!;
    b.pos = p;
    if (counterValue !== undefined) { b.varint(353); b.double(counterValue); } // double_counter_value = 44
    if (flowIds) for (const id of flowIds) { b.varint(377); b.fixed64(id); } // flow_ids = 47
    if (terminatingFlowIds) for (const id of terminatingFlowIds) { b.varint(385); b.fixed64(id); } // terminating_flow_ids = 48
    b.close(event);
    if (this.hasFreshNames()) { // interned_data = 12: names used for the first time since the last reset
      b.varint(0x62);
      const interned = b.open();
      this.directInterned(0x0a, this.categories); // event_categories = 1
      this.directInterned(0x12, this.names); // event_names = 2
      this.directInterned(0x1a, this.annotationNames); // debug_annotation_names = 3
      b.close(interned);
    }
    b.varint(0x68); b.varint(this.flags()); // sequence_flags = 13
    if (this.packetCount === 0) { b.varint(696); b.varint(1); } // first_packet_on_sequence = 87
    b.close(packet);
    this.packetCount++;
    if (b.pos >= this.chunkBytes) this.handOver();
  }

  /**
   * The commonest packet, a SLICE_END with nothing to intern, written in one go: the same bytes directEvent
   * writes for it (every length fits one byte).
   */
  private directEnd(track: DeclaredTrack): void {
    const b = this.packets;
    b.ensure(64);
    const buf = b.buf;
    let p = b.pos;
    buf[p++] = 0x0a; // Trace.packet
    const packet = p++;
    buf[p++] = 0x40; // timestamp = 8
    p = putVarint64(buf, p, this.tsLow, this.tsHigh);
    const head = this.eventHead; // trusted_packet_sequence_id = 10, track_event = 11
    for (let i = 0; i < head.length; i++) buf[p++] = head[i]!;
    const event = p++;
    buf[p++] = 0x48; buf[p++] = TYPE_SLICE_END; // type = 9
    const uuid = track.uuidField; // track_uuid = 11
    for (let i = 0; i < uuid.length; i++) buf[p++] = uuid[i]!;
    buf[event] = p - event - 1;
    buf[p++] = 0x68; buf[p++] = SEQ_NEEDS_INCREMENTAL_STATE; // sequence_flags = 13
    buf[packet] = p - packet - 1;
    b.pos = p;
    this.packetCount++;
    if (p >= this.chunkBytes) this.handOver();
  }

  /** The names of `table` interned since the last packet, as InternedData entries {iid = 1, name = 2} under `tag`. */
  private directInterned(tag: number, table: InternTable): void {
    const b = this.packets;
    const names = table.byIid;
    for (let k = table.sent; k < names.length; k++) {
      b.varint(tag);
      const entry = b.open();
      b.varint(0x08); b.varint(k + 1);
      b.varint(0x12); b.string(names[k]!);
      b.close(entry);
    }
    table.sent = names.length;
  }

  /**
   * debug_annotations = 4: {name_iid = 1, then bool = 2 | int = 4 | double = 5 | string = 6}, or a structured
   * value's fields (structuredValue).
   */
  private directAnnotations(args: Args): void {
    const b = this.packets;
    let j = 0;
    for (const key in args) {
      const v = args[key];
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'object' && typeof v !== 'bigint') continue;
      let keyIid: number;
      if (this.argKeyAt[j] === key) keyIid = this.argIidAt[j]!;
      else {
        keyIid = intern(this.annotationNames, key);
        this.argKeyAt[j] = key;
        this.argIidAt[j] = keyIid;
      }
      j++;
      if (typeof v === 'object' || typeof v === 'bigint') {
        b.varint(0x22);
        const annotation = b.open();
        b.varint(0x08);
        b.varint(keyIid);
        this.structuredValue(v);
        b.close(annotation);
        continue;
      }
      if (typeof v === 'string') {
        b.ensure(16);
        b.buf[b.pos++] = 0x22;
        const annotation = b.open();
        b.buf[b.pos++] = 0x08;
        b.varint(keyIid);
        b.buf[b.pos++] = 0x32;
        b.string(v);
        b.close(annotation);
        continue;
      }
      b.ensure(32);
      const buf = b.buf;
      let p = b.pos;
      buf[p++] = 0x22;
      const annotation = p++;
      buf[p++] = 0x08;
      p = putVarint(buf, p, keyIid);
      if (typeof v === 'boolean') { buf[p++] = 0x10; buf[p++] = v ? 1 : 0; }
      else if (v >= 0 && v < TWO_32 && Number.isInteger(v)) { buf[p++] = 0x20; p = putVarint(buf, p, v); }
      else { b.pos = p; if (Number.isSafeInteger(v)) { b.varint(0x20); b.int64(v); } else { b.varint(0x29); b.double(v); } p = b.pos; }
      buf[annotation] = p - annotation - 1; // at most 1 + 10 + 1 + 10 bytes: the length fits one byte
      b.pos = p;
    }
  }

  /**
   * The value fields of a DebugAnnotation for any arg value, in field order as protobufjs writes them: a scalar
   * (2, 4, 5, 6), or empty containers as legacy_json_value = 9 (which Perfetto reads as JSON), or none for a null, then
   * `name` = 10 for a dict entry, then dict_entries = 11 (each named by its key) or array_values = 12.
   */
  private structuredValue(v: ArgValue, name?: string): void {
    const b = this.packets;
    const json = emptyJson(v);
    if (typeof v === 'boolean') { b.varint(0x10); b.varint(v ? 1 : 0); }
    else if (typeof v === 'bigint') { b.varint(0x20); b.varint64(Number(BigInt.asUintN(32, v)), Number(BigInt.asUintN(32, v >> 32n))); }
    else if (typeof v === 'number') {
      if (Number.isSafeInteger(v)) { b.varint(0x20); b.int64(v); } else { b.varint(0x29); b.double(v); }
    } else if (v instanceof RealArg) { b.varint(0x29); b.double(v.value); }
    else if (typeof v === 'string') { b.varint(0x32); b.string(v); }
    else if (json !== undefined) { b.varint(0x4a); b.string(json); }
    if (name !== undefined) { b.varint(0x52); b.string(name); }
    if (v === null || typeof v !== 'object' || v instanceof RealArg || json !== undefined) return;
    if (Array.isArray(v)) {
      for (const e of v) { b.varint(0x62); const m = b.open(); this.structuredValue(e); b.close(m); }
    } else {
      for (const k in v) { b.varint(0x5a); const m = b.open(); this.structuredValue(v[k]!, k); b.close(m); }
    }
  }

  private hasFreshNames(): boolean {
    return hasFresh(this.names) || hasFresh(this.categories) || hasFresh(this.annotationNames);
  }

  private takeInterned(): Record<string, unknown> | undefined {
    const { names, categories, annotationNames } = this;
    if (!this.hasFreshNames()) return undefined;
    const interned: Record<string, unknown> = {};
    if (hasFresh(categories)) interned.eventCategories = takeFresh(categories);
    if (hasFresh(names)) interned.eventNames = takeFresh(names);
    if (hasFresh(annotationNames)) interned.debugAnnotationNames = takeFresh(annotationNames);
    return interned;
  }

  /** A packet given as an object (descriptors, and every packet with the protobufjs encoder). */
  private writePacket(packet: Record<string, unknown>): void {
    packet.trustedPacketSequenceId = this.sequenceId;
    if (this.packetCount === 0 || this.stateCleared) packet.sequenceFlags = this.flags();
    if (this.packetCount === 0) packet.firstPacketOnSequence = true;
    const interned = this.takeInterned();
    if (interned) packet.internedData = interned;
    if (this.direct) {
      const bytes = this.schema.TracePacket.encode(packet).finish();
      this.packets.varint(0x0a);
      this.packets.varint(bytes.length);
      this.packets.bytes(bytes);
    } else {
      this.schema.TracePacket.encode(packet, this.writer.uint32(10).fork()).ldelim();
    }
    this.packetCount++;
    if (this.pendingBytes >= this.chunkBytes) this.handOver();
  }
}
