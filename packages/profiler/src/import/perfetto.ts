/**
 * Perfetto protobuf importer (TrackEvent traces: ours and SDK-written). Streams `Trace { repeated TracePacket
 * packet = 1 }` packet by packet; per-sequence incremental state holds interned names and packet defaults.
 * Field numbers: REFERENCE §4 and Perfetto's trace_packet/track_event protos.
 */
import { isBug } from './chrome.js';
import { chromeProcessName, chromeThreadName, isRendererType } from './chrome-names.js';
import { BOOTTIME, ClockTracker, MONOTONIC, type SnapshotClock } from './clocks.js';
import { TraceFormatError } from './errors.js';
import { recordFlowNames, recordGsprofMetadata } from './metadata.js';
import { FLOW_NAMES_ARG, METADATA_ARG, METADATA_EVENT } from '../export/common.js';
import { ProtoError, ProtoReader } from './proto-reader.js';
import type { StatName } from './import-stats.js';
import { mergeArgs, type ArgKey, type ArgScalar, type CapturedArg, type TraceSink } from './sink.js';
import { BIND_DIRECT, BIND_ENCLOSING, BIND_NEXT, FLOW_END, FLOW_IN, FLOW_START, FLOW_STEP } from '../sql/schema.js';
import { realArg } from '../model/trace.js';

type Key = number | string;

interface SeqState {
  valid: boolean;
  names: Map<number, string>;
  cats: Map<number, string>;
  annNames: Map<number, string>;
  annStrings: Map<number, string>;
  defaultTrack: Key | null;
  /** TracePacketDefaults.timestamp_clock_id (0: none, the packet's timestamp is in the trace clock). */
  defaultClock: number;
  extraCounters: Key[];
  extraDoubleCounters: Key[];
  /** Running values of incremental counters: per sequence, reset with its incremental state (as Perfetto). */
  counterValues: Map<Key, number>;
  /**
   * The sequence's thread: set by a thread TrackDescriptor on it (trace_processor's legacy thread state). Legacy
   * events with no track (and pid/tid overrides) fall back to it.
   */
  thread: { pid: number; tid: number } | null;
  /**
   * The running references that TrackEvent's delta fields count from: set by a legacy ThreadDescriptor (a
   * packet, or a thread TrackDescriptor's), advanced by each delta, dropped with the incremental state. The
   * timestamp is in ns of the MONOTONIC clock, as BigInt since an epoch-based one may exceed 2^53.
   */
  refs: { tsNs: bigint; threadTimeNs: number; instructions: number } | null;
}

/** TrackDescriptor.SiblingMergeBehavior NONE: a track that is never merged with its siblings by name. */
const SIBLING_MERGE_NONE = 2;

/** trace_processor's name priorities (ThreadNamePriority, ProcessNamePriority): a name replaces one of equal or
 * lower priority only. */
const THREAD_BY_TYPE = 3, THREAD_BY_DESCRIPTOR = 4;
const PROCESS_BY_TYPE = 1, PROCESS_BY_DESCRIPTOR = 2, PROCESS_BY_RENDERER_TYPE = 3;

/** trace_processor's limit on the extra counter values of one event (TrackEventData::kMaxNumExtraCounters). */
const MAX_EXTRA_COUNTERS = 8;

/** A legacy complete event (phase X) as the importer's own event type: TrackEvent's types end at 5 (TYPE_STATE). */
const COMPLETE = -1;

/** A legacy ThreadDescriptor: pid, tid, name and the reference values (µs for times) of delta-encoded events. */
interface ThreadDesc {
  pid: number; tid: number; name: string | null;
  refTsUs: bigint; refThreadTimeUs: number; refInstructions: number;
}

interface TrackReg {
  trackId: number;
  isCounter: boolean;
  incremental: boolean;
  multiplier: number;
  /** Set for a uuid that events used before (or without) its descriptor: a global track until declared. */
  placeholder: boolean;
  hadEvent: boolean;
  /** The track's name is its first event's (its descriptor gave none): a descriptor's name replaces it later. */
  namedByEvent: boolean;
  parentUuid: Key | null;
  utid: number | null;
  upid: number | null;
  /** The descriptor's disallow_merging_with_system_tracks: the thread's own events take a track of their own. */
  noSystemMerge?: boolean;
}

/**
 * Legacy (Chrome JSON-style) fields of a TrackEvent; flow_direction 1 = in, 2 = out, 3 = in and out; scope of an
 * instant 1 = global, 2 = process, 3 = thread.
 */
interface LegacyInfo {
  phase: number; durUs: number; threadDurUs: number; id: string | null; bindId: Key | null; flowDirection: number; nameIid: number;
  bindToEnclosing: boolean;
  scope: number; pidOverride: number | null; tidOverride: number | null;
}

interface OpenSlice {
  id: number; ts: number; argSet: number | null; name: string | null; category: string | null; depth: number; parent: number | null;
  /** The begin's args, written when the end (whose args may repeat their keys) comes. */
  captured: CapturedArg[] | null;
  /** The begin's thread time in ns (slice.thread_ts), or null. */
  tts: number | null;
  /** Set when an END closed this slice while slices begun inside it were still open (its row is written). */
  endedAt?: number;
}

export interface PerfettoImportOptions {
  /** Load up to the last whole packet when the file ends mid-packet (Perfetto's behaviour); default: error. */
  allowTruncated?: boolean;
}

/** CounterDescriptor.BuiltinCounterType: 1 thread time (ns), 2 thread instruction count. */
const BUILTIN_COUNTER_NAMES: Record<number, string> = { 1: 'thread_time', 2: 'thread_instruction_count' };
const UNIT_NAMES: Record<number, string> = { 1: 'ns', 2: 'count', 3: 'bytes' };

export async function importPerfetto(path: string, chunks: AsyncIterable<Buffer>, sink: TraceSink,
  opts: PerfettoImportOptions = {}): Promise<void> {
  const imp = new PerfettoImporter(path, sink);
  sink.sameTsInFileOrder = true;
  let pending: Buffer | null = null;
  let base = 0; // file offset of pending[0]
  let packets = 0;
  for await (const chunk of chunks) {
    let buf: Buffer = pending && pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      // Whole field: tag, (length), payload. Stop when the rest of this field is not in the buffer yet.
      const r = new ProtoReader(buf, pos, buf.length);
      let payloadStart: number;
      let payloadEnd: number;
      try {
        if (!r.next()) break;
        if (r.wire === 2) {
          r.readVarint();
          const n = r.number();
          payloadStart = r.pos;
          payloadEnd = r.pos + n;
          if (payloadEnd > buf.length) break;
        } else {
          r.skip();
          pos = r.pos;
          continue;
        }
      } catch (err) {
        if (err instanceof ProtoError && /truncated/.test(err.message)) break;
        throw toFormatError(path, base, err);
      }
      if (r.field === 1) {
        try {
          imp.packet(buf, payloadStart, payloadEnd);
        } catch (err) {
          throw toFormatError(path, base, err, `in packet ${packets} at byte ${base + pos}`);
        }
        packets++;
      }
      pos = payloadEnd;
    }
    pending = buf.subarray(pos);
    base += pos;
    buf = pending;
  }
  if (pending && pending.length > 0) {
    if (!opts.allowTruncated) {
      throw new TraceFormatError(path, `byte ${base}`, `truncated: the file ends inside a packet (${pending.length} bytes left)`);
    }
    sink.stat('truncated_bytes', pending.length);
  }
  if (packets === 0) throw new TraceFormatError(path, 'byte 0', 'no trace packets found');
  imp.finish();
}

function toFormatError(path: string, base: number, err: unknown, context?: string): Error {
  if (err instanceof TraceFormatError || isBug(err)) return err as Error;
  if (err instanceof ProtoError) return new TraceFormatError(path, `byte ${base + err.pos}`, `${err.message}${context ? ` (${context})` : ''}`);
  const msg = err instanceof Error ? err.message : String(err);
  return new TraceFormatError(path, context ?? `byte ${base}`, msg.split('\n')[0]!);
}

/** ThreadDescriptor: pid 1, tid 2, chrome_thread_type 4, thread_name 5, reference_timestamp_us 6,
 *  reference_thread_time_us 7, reference_thread_instruction_count 8. Without a thread_name, trace_processor names
 *  the thread after its Chromium thread type. */
function readThreadDescriptor(r: ProtoReader): ThreadDesc {
  const d: ThreadDesc = { pid: 0, tid: 0, name: null, refTsUs: 0n, refThreadTimeUs: 0, refInstructions: 0 };
  let typeName: string | null = null;
  while (r.next()) {
    switch (r.field) {
      case 1: r.readVarint(); d.pid = r.signed(); break;
      case 2: r.readVarint(); d.tid = r.signed(); break;
      case 4: r.readVarint(); typeName = chromeThreadName(r.signed()); break;
      case 5: d.name = r.string() || null; break;
      case 6: r.readVarint(); d.refTsUs = BigInt.asIntN(64, r.bigint()); break;
      case 7: r.readVarint(); d.refThreadTimeUs = r.signed(); break;
      case 8: r.readVarint(); d.refInstructions = r.signed(); break;
      default: r.skip();
    }
  }
  d.name ??= typeName;
  return d;
}

/** The first varint of field 1 in a message (ChromeThreadDescriptor.thread_type, ChromeProcessDescriptor.process_type). */
function firstField(r: ProtoReader): number | null {
  let v: number | null = null;
  while (r.next()) {
    if (r.field === 1 && r.wire === 0) { r.readVarint(); v = r.signed(); } else r.skip();
  }
  return v;
}

class PerfettoImporter {
  private readonly seqs = new Map<number, SeqState>();
  private readonly tracks = new Map<Key, TrackReg>();
  private readonly pidToUpid = new Map<number, number>();
  private readonly processUuids = new Map<Key, number>();
  private readonly threadUuids = new Map<Key, number>();
  private readonly stacks = new Map<number, OpenSlice[]>();
  private readonly asyncTracks = new Map<string, number>();
  /** Tracks that legacy pid/tid fallback put events on, by process or by pid and tid. */
  private readonly legacyTracks = new Map<string, TrackReg>();
  /** Processes declared by a process TrackDescriptor (not only implied by a thread's). */
  private readonly declaredUpids = new Set<number>();
  /** The first descriptor track of each process (by upid) and of each thread (by pid and tid). */
  private readonly processTrackIds = new Map<number, number>();
  private readonly threadTrackIds = new Map<string, TrackReg>();
  /** Threads of legacy pids/tids (ThreadDescriptor packets, overrides) with no thread TrackDescriptor. */
  private readonly legacyThreads = new Map<string, number>();
  /** Counter tracks of TrackEvent's thread_time / thread_instruction_count fields, by name and utid. */
  private readonly threadCounterTracks = new Map<string, number>();
  private defaultTrack: number | null = null;
  private lastTs = 0;
  /** The priority of each named thread's (by utid) and process's (by upid) name so far: see `nameThread`. */
  private readonly threadNamePriority = new Map<number, number>();
  /** The tgid (pid) each atrace thread (by tid) last gave: an end without one belongs to it. */
  private readonly atraceThreadPids = new Map<number, number>();
  private readonly processNamePriority = new Map<number, number>();
  private readonly clocks = new ClockTracker();

  constructor(readonly path: string, readonly sink: TraceSink) {}

  private seq(id: number): SeqState {
    let s = this.seqs.get(id);
    if (!s) {
      s = { valid: false, names: new Map(), cats: new Map(), annNames: new Map(), annStrings: new Map(),
        defaultTrack: null, defaultClock: 0, extraCounters: [], extraDoubleCounters: [],
        counterValues: new Map(), thread: null, refs: null };
      this.seqs.set(id, s);
    }
    return s;
  }

  packet(buf: Uint8Array, start: number, end: number): void {
    const r = new ProtoReader(buf, start, end);
    let tsLo = -1;
    let tsHi = 0;
    let seqId = 0;
    let flags = 0;
    let cleared = false;
    let interned: ProtoReader | null = null;
    let event: ProtoReader | null = null;
    let descriptor: ProtoReader | null = null;
    let defaults: ProtoReader | null = null;
    let clockId = -1;
    let snapshot: ProtoReader | null = null;
    let threadDesc: ProtoReader | null = null;
    let processDesc: ProtoReader | null = null;
    let dropped = false;
    let ftrace: ProtoReader | null = null;
    while (r.next()) {
      switch (r.field) {
        case 1: ftrace = r.sub(); break;
        case 8: r.readVarint(); tsLo = r.lo; tsHi = r.hi; break;
        case 58: clockId = r.varint(); break;
        case 6: snapshot = r.sub(); break;
        case 10: seqId = r.varint(); break;
        case 12: interned = r.sub(); break;
        case 13: flags = r.varint(); break;
        case 41: cleared = r.varint() !== 0; break;
        case 11: event = r.sub(); break;
        case 60: descriptor = r.sub(); break;
        case 59: defaults = r.sub(); break;
        case 44: threadDesc = r.sub(); break;
        case 43: processDesc = r.sub(); break;
        case 42: dropped = r.varint() !== 0; break;
        default: r.skip();
      }
    }
    // Perfetto's order: state reset, then this packet's defaults (which already apply to its own timestamp).
    if (ftrace) { this.ftraceBundle(ftrace); return; }
    const seq = this.seq(seqId);
    if (cleared || (flags & 1)) this.clearIncrementalState(seq);
    else if (dropped && seqId !== 0) this.packetLoss(seq);
    if (defaults) this.defaults(seq, defaults);
    if (snapshot) { this.clockSnapshot(snapshot, seqId); return; }
    let ts = this.lastTs;
    if (tsLo >= 0) {
      const clock = clockId >= 0 ? clockId : seq.defaultClock;
      if (clock === 0 || this.clocks.isTraceClock(clock, seqId)) ts = this.sink.relParts(tsHi, tsLo);
      else {
        if (clock >= 64 && clock <= 127 && seqId === 0) { this.sink.stat('clock_sync_failure'); return; }
        const abs = this.clocks.toTrace(clock, seqId, (BigInt(tsHi >>> 0) << 32n) | BigInt(tsLo >>> 0));
        if (abs === null) { this.sink.stat('clock_sync_failure'); return; }
        ts = this.sink.rel(abs);
      }
      this.lastTs = ts;
    }
    if ((flags & 2) && !seq.valid) {
      this.sink.stat('tokenizer_skipped_packets');
      return;
    }
    if (interned) this.interned(seq, interned);
    if (processDesc) this.processDescriptorPacket(processDesc);
    if (threadDesc) this.threadDescriptorPacket(seq, seqId, threadDesc);
    if (descriptor) this.trackDescriptor(descriptor, seq);
    if (event) this.trackEvent(seq, event, ts, tsLo >= 0);
  }

  /**
   * An ftrace bundle (TracePacket field 1: event 2, each FtraceEvent with timestamp 1 in CLOCK_BOOTTIME ns, the
   * kernel pid (a thread's tid) 2 and print 3 with buf 2). Only print events are read: those that write atrace
   * slices (`B|tgid|name`, `E|tgid`, `I|tgid|name`), as trace_processor reads them; the other ftrace events
   * (scheduling, the kernel's side of a system trace) are not, nor are atrace's async slices and counters
   * (counted, ftrace_event_unread).
   */
  private ftraceBundle(r: ProtoReader): void {
    while (r.next()) {
      if (r.field !== 2 || r.wire !== 2) { r.skip(); continue; }
      const e = r.sub();
      let raw: bigint | null = null;
      let tid = 0;
      let buf: string | null = null;
      while (e.next()) {
        if (e.field === 1 && e.wire === 0) { e.readVarint(); raw = (BigInt(e.hi >>> 0) << 32n) | BigInt(e.lo >>> 0); }
        else if (e.field === 2 && e.wire === 0) tid = e.varint();
        else if (e.field === 3 && e.wire === 2) {
          const p = e.sub();
          while (p.next()) { if (p.field === 2 && p.wire === 2) buf = p.string(); else p.skip(); }
        } else e.skip();
      }
      if (buf === null || raw === null) { this.sink.stat('ftrace_event_unread'); continue; }
      const abs = this.clocks.isTraceClock(BOOTTIME, 0) ? raw : this.clocks.toTrace(BOOTTIME, 0, raw);
      if (abs === null) { this.sink.stat('clock_sync_failure'); continue; }
      this.atracePrint(this.sink.rel(abs), tid, buf);
    }
  }

  /** One atrace line of a print event (trace_processor's systrace format): a slice on its thread's track. */
  private atracePrint(ts: number, tid: number, text: string): void {
    const line = text.replace(/[\n\0]+$/, '');
    const fields = line.split('|');
    const phase = fields[0]?.charAt(0) ?? '';
    if (phase === '') { this.sink.stat('systrace_parse_failure'); return; }
    const tgidText = fields[1] ?? '';
    const tgid = /^\d+$/.test(tgidText) && Number(tgidText) <= 0xffffffff ? Number(tgidText) : null;
    if (phase !== 'B' && phase !== 'E' && phase !== 'I') {
      this.sink.stat('ftrace_event_unread');
      return;
    }
    if (phase !== 'E' && tgid === null) { this.sink.stat('systrace_parse_failure'); return; }
    // B's name is the rest of the line; I's the next field.
    const rest = line.slice(fields[0]!.length + 1 + tgidText.length + 1);
    const name = phase === 'B' ? (rest === '' ? '[empty slice name]' : rest) : (fields[2] ?? '');
    if (phase === 'I' && name === '') { this.sink.stat('systrace_parse_failure'); return; }
    // An end without a tgid (older Android) belongs to a thread seen before; none seen, nothing to end.
    const pid = tgid ?? this.atraceThreadPids.get(tid);
    if (pid === undefined) return;
    this.atraceThreadPids.set(tid, pid);
    const reg = this.systemThreadTrack(pid, tid);
    const type = phase === 'B' ? 1 : phase === 'E' ? 2 : 3;
    this.atraceSlice(reg.trackId, ts, type, phase === 'E' ? null : name);
  }

  private clearIncrementalState(seq: SeqState): void {
    seq.valid = true;
    seq.names.clear(); seq.cats.clear(); seq.annNames.clear(); seq.annStrings.clear();
    // trace_processor keeps the default track through a clear (events without a track_uuid stay on it), but
    // not the default clock or the extra counter tracks.
    seq.defaultClock = 0; seq.extraCounters = []; seq.extraDoubleCounters = [];
    seq.counterValues.clear();
    seq.refs = null;
  }

  /**
   * previous_packet_dropped: as trace_processor, the sequence's packets that need incremental state are skipped
   * until its next clear, and the delta references and incremental counter values are gone; interned data,
   * defaults and the sequence's thread stay.
   */
  private packetLoss(seq: SeqState): void {
    seq.valid = false;
    seq.refs = null;
    seq.counterValues.clear();
  }

  /**
   * The legacy ThreadDescriptor packet (TracePacket field 44): that pid/tid becomes the sequence's thread, named
   * by it, and its reference values start the sequence's delta-encoded timestamps. As trace_processor, it is
   * ignored on a sequence whose incremental state is not valid yet (delta values would count from the wrong
   * place once it is).
   */
  private threadDescriptorPacket(seq: SeqState, seqId: number, r: ProtoReader): void {
    if (seqId === 0) { this.sink.stat('thread_descriptor_missing_sequence_id'); return; }
    if (!seq.valid) { this.sink.stat('thread_descriptor_skipped_incremental_state_invalid'); return; }
    const d = readThreadDescriptor(r);
    this.setSequenceThread(seq, d);
    let upid = this.pidToUpid.get(d.pid);
    if (upid === undefined) { upid = this.sink.addProcess(d.pid); this.pidToUpid.set(d.pid, upid); }
    const utid = this.threadTrackIds.get(`${d.pid}\u0000${d.tid}`)?.utid ?? this.legacyThread(d.pid, d.tid, upid);
    this.nameThread(utid, d.name);
  }

  /**
   * The legacy ProcessDescriptor packet (TracePacket field 43): pid 1, process_name 6. It names the pid's
   * process, made if new; unlike a process TrackDescriptor it never starts a new process for a pid seen before.
   */
  private processDescriptorPacket(r: ProtoReader): void {
    let pid = 0;
    let name = '';
    while (r.next()) {
      if (r.field === 1) { r.readVarint(); pid = r.signed(); }
      else if (r.field === 6) name = r.string();
      else r.skip();
    }
    let upid = this.pidToUpid.get(pid);
    if (upid === undefined) { upid = this.sink.addProcess(pid); this.pidToUpid.set(pid, upid); }
    this.nameProcess(upid, name);
  }

  /**
   * Names a thread unless a name of higher priority named it before, as trace_processor ranks its sources: a
   * descriptor's thread_name (THREAD_BY_DESCRIPTOR) over a ChromeThreadDescriptor's type (THREAD_BY_TYPE).
   */
  private nameThread(utid: number, name: string | null, priority = THREAD_BY_DESCRIPTOR): void {
    if (!name || priority < (this.threadNamePriority.get(utid) ?? 0)) return;
    this.sink.setThreadName(utid, name);
    this.threadNamePriority.set(utid, priority);
  }

  /**
   * Names a process the same way: a Chromium process type (PROCESS_BY_TYPE) under a descriptor's process_name
   * (PROCESS_BY_DESCRIPTOR), a renderer's type (PROCESS_BY_RENDERER_TYPE) over it.
   */
  private nameProcess(upid: number, name: string | null, priority = PROCESS_BY_DESCRIPTOR): void {
    if (!name || priority < (this.processNamePriority.get(upid) ?? 0)) return;
    this.sink.setProcessName(upid, name);
    this.processNamePriority.set(upid, priority);
  }

  /** A thread descriptor on a valid sequence (packet or TrackDescriptor) makes it the sequence's thread. */
  private setSequenceThread(seq: SeqState, d: ThreadDesc): void {
    seq.thread = { pid: d.pid, tid: d.tid };
    seq.refs = { tsNs: d.refTsUs * 1000n, threadTimeNs: d.refThreadTimeUs * 1000, instructions: d.refInstructions };
  }

  /** A thread TrackDescriptor's names: its thread_name (or legacy chrome_thread_type), then its chrome_thread's type. */
  private nameDescribedThread(utid: number, thread: ThreadDesc, chromeThreadType: number | null): void {
    this.nameThread(utid, thread.name);
    if (chromeThreadType !== null) this.nameThread(utid, chromeThreadName(chromeThreadType), THREAD_BY_TYPE);
  }

  /** A process TrackDescriptor's names: process_name, then its legacy chrome_process_type, then chrome_process's type. */
  private nameDescribedProcess(
    upid: number, proc: { name: string | null; chromeType: number | null }, chromeProcessType: number | null,
  ): void {
    this.nameProcess(upid, proc.name);
    if (proc.chromeType !== null) {
      this.nameProcess(upid, chromeProcessName(proc.chromeType),
        isRendererType(proc.chromeType, false) ? PROCESS_BY_RENDERER_TYPE : PROCESS_BY_TYPE);
    }
    if (chromeProcessType !== null) {
      this.nameProcess(upid, chromeProcessName(chromeProcessType),
        isRendererType(chromeProcessType, true) ? PROCESS_BY_RENDERER_TYPE : PROCESS_BY_TYPE);
    }
  }

  /** The thread of a legacy pid/tid with no thread TrackDescriptor: one per pid and tid, made on first use. */
  private legacyThread(pid: number, tid: number, upid: number): number {
    const key = `${pid}\u0000${tid}`;
    let utid = this.legacyThreads.get(key);
    if (utid === undefined) {
      utid = this.sink.addThread(tid, upid, null);
      this.legacyThreads.set(key, utid);
    }
    return utid;
  }

  private interned(seq: SeqState, r: ProtoReader): void {
    while (r.next()) {
      const target = r.field === 1 ? seq.cats : r.field === 2 ? seq.names : r.field === 3 ? seq.annNames
        : r.field === 29 ? seq.annStrings : null;
      if (!target || r.wire !== 2) { r.skip(); continue; }
      const e = r.sub();
      let iid = 0;
      let name = '';
      while (e.next()) {
        if (e.field === 1) iid = e.varint();
        else if (e.field === 2 && e.wire === 2) name = e.string();
        else e.skip();
      }
      target.set(iid, name);
    }
  }

  private defaults(seq: SeqState, r: ProtoReader): void {
    // New defaults replace the old ones whole (Perfetto keeps only the latest TracePacketDefaults).
    seq.defaultTrack = null; seq.defaultClock = 0; seq.extraCounters = []; seq.extraDoubleCounters = [];
    while (r.next()) {
      if (r.field === 58) { seq.defaultClock = r.varint(); continue; }
      if (r.field !== 11 || r.wire !== 2) { r.skip(); continue; }
      const d = r.sub();
      const extra: Key[] = [];
      const extraD: Key[] = [];
      while (d.next()) {
        if (d.field === 11) { d.readVarint(); seq.defaultTrack = d.key(); }
        else if (d.field === 31) d.repeated(false, () => extra.push(d.key()));
        else if (d.field === 45) d.repeated(false, () => extraD.push(d.key()));
        else d.skip();
      }
      seq.extraCounters = extra;
      seq.extraDoubleCounters = extraD;
    }
  }

  private clockSnapshot(r: ProtoReader, seqId: number): void {
    const clocks: SnapshotClock[] = [];
    let primary: number | null = null;
    while (r.next()) {
      if (r.field === 2) { primary = r.varint(); continue; }
      if (r.field !== 1 || r.wire !== 2) { r.skip(); continue; }
      const c = r.sub();
      const clock: SnapshotClock = { id: 0, ts: 0n, incremental: false, multiplier: 1n };
      while (c.next()) {
        if (c.field === 1) clock.id = c.varint();
        else if (c.field === 2) { c.readVarint(); clock.ts = (BigInt(c.hi >>> 0) << 32n) | BigInt(c.lo >>> 0); }
        else if (c.field === 3) clock.incremental = c.varint() !== 0;
        else if (c.field === 4) { const m = c.varint(); clock.multiplier = BigInt(m > 0 ? m : 1); }
        else c.skip();
      }
      clocks.push(clock);
    }
    if (this.clocks.snapshot(clocks, primary, seqId) !== null) this.sink.stat('invalid_clock_snapshots');
  }

  private trackDescriptor(r: ProtoReader, seq: SeqState): void {
    let uuid: Key | null = null;
    let name: string | null = null;
    let parent: Key | null = null;
    let proc: { pid: number; name: string | null; labels: string[]; chromeType: number | null } | null = null;
    let thread: ThreadDesc | null = null;
    /** ChromeThreadDescriptor.thread_type and ChromeProcessDescriptor.process_type. */
    let chromeThreadType: number | null = null;
    let chromeProcessType: number | null = null;
    let counter: { unit: string | null; incremental: boolean; multiplier: number; builtin: number } | null = null;
    let mergeNone = false;
    let noSystemMerge = false;
    while (r.next()) {
      switch (r.field) {
        case 15: mergeNone = r.varint() === SIBLING_MERGE_NONE; break;
        case 9: noSystemMerge = r.varint() !== 0; break;
        case 1: r.readVarint(); uuid = r.key(); break;
        // name, static_name and atrace_name are one oneof: the last one present wins.
        case 2: case 10: case 13: name = r.string(); break;
        case 5: r.readVarint(); parent = r.key(); break;
        case 3: {
          const p = r.sub();
          proc = { pid: 0, name: null, labels: [], chromeType: null };
          while (p.next()) {
            if (p.field === 1) { p.readVarint(); proc.pid = p.signed(); }
            else if (p.field === 4) { p.readVarint(); proc.chromeType = p.signed(); }
            else if (p.field === 6) proc.name = p.string() || null;
            else if (p.field === 8) proc.labels.push(p.string());
            else p.skip();
          }
          break;
        }
        case 4: thread = readThreadDescriptor(r.sub()); break;
        case 6: chromeProcessType = firstField(r.sub()); break;
        case 7: chromeThreadType = firstField(r.sub()); break;
        case 8: {
          const c = r.sub();
          counter = { unit: null, incremental: false, multiplier: 1, builtin: 0 };
          while (c.next()) {
            if (c.field === 1) counter.builtin = c.varint();
            else if (c.field === 3) counter.unit = UNIT_NAMES[c.varint()] ?? counter.unit;
            else if (c.field === 6) counter.unit = c.string();
            else if (c.field === 4) { c.readVarint(); counter.multiplier = c.signed() || 1; }
            else if (c.field === 5) counter.incremental = c.varint() !== 0;
            else c.skip();
          }
          break;
        }
        default: r.skip();
      }
    }
    if (uuid === null) { this.sink.stat('track_descriptor_missing_uuid'); return; }
    // Where a Kineto JSON trace keeps them too (process_labels metadata events), for convert to write back.
    if (proc && proc.labels.length > 0) this.sink.metadata(`process_labels.${proc.pid}`, proc.labels.join(', '));
    const existing = this.tracks.get(uuid);
    if (existing && !existing.placeholder && thread && existing.utid !== null
      && this.threadTrackIds.get(`${thread.pid}\u0000${thread.tid}`)?.utid !== existing.utid) {
      // A uuid declared again for another thread (another sequence's, say): the track stays the first one's, as
      // in trace_processor, which counts the conflict and still records the thread the descriptor names.
      this.sink.stat('track_descriptor_conflicting_reservation');
      let upid = this.pidToUpid.get(thread.pid);
      if (upid === undefined) { upid = this.sink.addProcess(thread.pid); this.pidToUpid.set(thread.pid, upid); }
      const utid = this.legacyThread(thread.pid, thread.tid, upid);
      this.nameThread(utid, thread.name);
      if (chromeThreadType !== null) this.nameThread(utid, chromeThreadName(chromeThreadType), THREAD_BY_TYPE);
      return;
    }
    if (existing && !existing.placeholder) {
      // A re-emitted descriptor renames the track until its first event. After it, as trace_processor, only where
      // the name came from that event or the track is never merged with siblings by name (SIBLING_MERGE_NONE).
      const newName = name ?? (thread ? null : proc?.name ?? null);
      if (newName !== null && (!existing.hadEvent || existing.namedByEvent || mergeNone)) {
        this.sink.updateTrack(existing.trackId, { name: newName });
        existing.namedByEvent = false;
      }
      if (thread && existing.utid !== null) this.nameDescribedThread(existing.utid, thread, chromeThreadType);
      if (proc && existing.upid !== null && existing.utid === null) this.nameDescribedProcess(existing.upid, proc, chromeProcessType);
      return;
    }
    const parentReg = parent !== null ? this.tracks.get(parent) : undefined;
    let info: Parameters<TraceSink['addTrack']>[0];
    let utid: number | null = null;
    let upid: number | null = null;
    if (proc) {
      // A thread descriptor may have come first and created this pid's process: that is the same process. A
      // second process descriptor (another uuid) for the pid is pid reuse: a new process, which threads declared
      // after it join (trace_processor's rule).
      upid = this.pidToUpid.get(proc.pid) ?? null;
      if (upid === null || this.declaredUpids.has(upid)) {
        upid = this.sink.addProcess(proc.pid);
        this.pidToUpid.set(proc.pid, upid);
      }
      this.nameDescribedProcess(upid, proc, chromeProcessType);
      this.declaredUpids.add(upid);
      this.processUuids.set(uuid, upid);
      info = { type: 'process', name: name ?? proc.name ?? null, upid };
    } else if (thread) {
      upid = this.pidToUpid.get(thread.pid) ?? null;
      if (upid === null) { upid = this.sink.addProcess(thread.pid); this.pidToUpid.set(thread.pid, upid); }
      // The thread a ThreadDescriptor packet (or an override) already made for this pid/tid, if any.
      utid = this.legacyThreads.get(`${thread.pid}\u0000${thread.tid}`) ?? null;
      utid ??= this.sink.addThread(thread.tid, upid, null);
      this.nameDescribedThread(utid, thread, chromeThreadType);
      this.threadUuids.set(uuid, utid);
      if (seq.valid) this.setSequenceThread(seq, thread);
      // As trace_processor, a thread's track is not named after its thread (displays fall back to it); only
      // unnamed custom tracks take their first event's name.
      info = { type: 'thread', name, utid, upid };
    } else {
      utid = parentReg?.utid ?? null;
      upid = parentReg?.upid ?? null;
      const type = counter ? 'counter' : parentReg ? 'async' : 'global';
      info = { type, name, unit: counter?.unit ?? null, parentId: parentReg?.trackId ?? null, utid, upid };
    }
    let reg: TrackReg;
    if (existing) {
      // Events came before the descriptor: the placeholder track becomes the declared one, keeping its events.
      if (existing.hadEvent && info.name === null && info.type !== 'thread') delete info.name;
      this.sink.updateTrack(existing.trackId, info);
      reg = existing;
      reg.placeholder = false;
      reg.parentUuid = parent;
      reg.utid = utid;
      reg.upid = upid;
    } else {
      reg = this.reg(this.sink.addTrack(info), parent, utid, upid);
      this.tracks.set(uuid, reg);
    }
    if (proc && upid !== null && !this.processTrackIds.has(upid)) this.processTrackIds.set(upid, reg.trackId);
    if (thread) {
      const key = `${thread.pid}\u0000${thread.tid}`;
      reg.noSystemMerge = noSystemMerge;
      if (!this.threadTrackIds.has(key)) this.threadTrackIds.set(key, reg);
    }
    if (counter) {
      // A thread's built-in counter (thread time in ns, instruction count) is the track its events' absolute
      // thread_time / instruction fields go to, named as trace_processor names it when the descriptor does not.
      const builtinName = BUILTIN_COUNTER_NAMES[counter.builtin];
      if (builtinName && utid !== null) {
        if (name === null) this.sink.updateTrack(reg.trackId, { name: builtinName });
        const key = `${builtinName}\u0000${utid}`;
        if (!this.threadCounterTracks.has(key)) this.threadCounterTracks.set(key, reg.trackId);
      }
      if (existing?.hadEvent) this.sink.stat('counter_descriptor_after_slice_events');
      reg.isCounter = true;
      reg.incremental = counter.incremental;
      reg.multiplier = counter.multiplier;
    }
  }

  private reg(trackId: number, parentUuid: Key | null, utid: number | null, upid: number | null): TrackReg {
    return { trackId, isCounter: false, incremental: false, multiplier: 1, placeholder: false, hadEvent: false,
      namedByEvent: false, parentUuid, utid, upid };
  }

  /**
   * An event with no track (track_uuid 0, or none and no default) goes on the thread of its sequence, or of its
   * legacy pid/tid overrides, as trace_processor falls back to legacy pid/tid tracks: when the event has no
   * track_uuid or no type and the sequence has a thread, or it overrides the pid, or it overrides the tid and the
   * sequence has a thread. A process- or global-scoped legacy instant goes on its process's track or the default
   * track. Undefined: no fallback (the default track); null: pid or tid 0, dropped and counted.
   */
  private legacyPidTidTrack(
    seq: SeqState, legacy: LegacyInfo | null, hasTrackField: boolean, type: number,
  ): { trackId: number; reg: TrackReg } | null | undefined {
    const thread = seq.thread;
    const fallback = ((!hasTrackField || type === 0) && thread !== null) || legacy?.pidOverride != null
      || (legacy?.tidOverride != null && thread !== null);
    if (!fallback) return undefined;
    let pid = thread?.pid ?? 0;
    let tid = thread?.tid ?? 0;
    // trace_processor's synthetic tid for "some thread of this pid" is (pid << 32) | -1, which is -1 in int64.
    if (legacy?.pidOverride != null) { pid = legacy.pidOverride; tid = -1; }
    if (legacy?.tidOverride != null) tid = legacy.tidOverride;
    if (pid === 0 || tid === 0) { this.sink.stat('track_event_parser_errors'); return null; }
    const phase = legacy ? String.fromCharCode(legacy.phase) : '';
    const instant = phase === 'I' || phase === 'i';
    if (instant && legacy!.scope === 1) return undefined;
    let upid = this.pidToUpid.get(pid);
    if (upid === undefined) { upid = this.sink.addProcess(pid); this.pidToUpid.set(pid, upid); }
    if (instant && legacy!.scope === 2) {
      const key = `p${upid}`;
      let reg = this.legacyTracks.get(key);
      if (!reg) {
        reg = this.reg(this.processTrackIds.get(upid) ?? this.sink.addTrack({ type: 'process', upid }), null, null, upid);
        reg.hadEvent = true; // a process's track is not named after its first event
        this.legacyTracks.set(key, reg);
      }
      return { trackId: reg.trackId, reg };
    }
    const reg = this.systemThreadTrack(pid, tid);
    return { trackId: reg.trackId, reg };
  }

  /**
   * A thread's own track, which legacy pid/tid events and atrace slices go to (trace_processor's thread track
   * of the thread): its first thread TrackDescriptor's, unless that one has disallow_merging_with_system_tracks.
   */
  private systemThreadTrack(pid: number, tid: number): TrackReg {
    const key = `t${pid}\u0000${tid}`;
    let reg = this.legacyTracks.get(key);
    if (!reg) {
      const declared = this.threadTrackIds.get(`${pid}\u0000${tid}`);
      if (declared && !declared.noSystemMerge) reg = declared;
      else {
        let upid = this.pidToUpid.get(pid);
        if (upid === undefined) { upid = this.sink.addProcess(pid); this.pidToUpid.set(pid, upid); }
        const utid = declared?.utid ?? this.legacyThread(pid, tid, upid);
        reg = this.reg(this.sink.addTrack({ type: 'thread', utid, upid }), null, utid, upid);
        reg.hadEvent = true; // nor a thread's
      }
      this.legacyTracks.set(key, reg);
    }
    return reg;
  }

  private fallbackTrack(): number {
    if (this.defaultTrack === null) this.defaultTrack = this.sink.addTrack({ type: 'global', name: 'Default Track' });
    return this.defaultTrack;
  }

  private trackEvent(seq: SeqState, r: ProtoReader, packetTs: number, hasPacketTs: boolean): void {
    let ts = packetTs;
    let type = 0;
    let trackUuid: Key | null = null;
    let hasTrackField = false;
    let name: string | null = null;
    let nameIid = 0;
    let category: string | null = null;
    const cats: string[] = [];
    const annotations: ProtoReader[] = [];
    let intValue: number | null = null;
    let doubleValue: number | null = null;
    const flows: Key[] = [];
    const terminating: Key[] = [];
    let extraUuids: Key[] | null = null;
    let extraDoubleUuids: Key[] | null = null;
    const extraValues: number[] = [];
    const extraDoubleValues: number[] = [];
    let legacy: LegacyInfo | null = null;
    let correlation: number | null = null;
    let threadTimeNs: number | null = null;
    let threadInstructions: number | null = null;
    let tsDeltaUs: bigint | null = null;
    let tsAbsUs: bigint | null = null;
    let threadTimeDeltaUs: number | null = null;
    let instructionDelta: number | null = null;
    while (r.next()) {
      switch (r.field) {
        case 1: r.readVarint(); tsDeltaUs = BigInt.asIntN(64, r.bigint()); break;
        case 16: r.readVarint(); tsAbsUs = BigInt.asIntN(64, r.bigint()); break;
        case 2: r.readVarint(); threadTimeDeltaUs = r.signed(); break;
        case 17: r.readVarint(); threadTimeNs = r.signed() * 1000; break;
        case 8: r.readVarint(); instructionDelta = r.signed(); break;
        case 20: r.readVarint(); threadInstructions = r.signed(); break;
        case 9: type = r.varint(); break;
        case 11: r.readVarint(); trackUuid = r.key(); hasTrackField = true; break;
        case 23: name = r.string(); break;
        case 10: nameIid = r.varint(); break;
        case 22: cats.push(r.string()); break;
        case 3: r.repeated(false, () => { const c = seq.cats.get(r.number()); if (c !== undefined) cats.push(c); }); break;
        case 4: if (r.wire === 2) annotations.push(r.sub()); else r.skip(); break;
        case 30: r.readVarint(); intValue = r.signed(); break;
        case 44: if (r.wire === 1) doubleValue = r.double(); else r.skip(); break;
        case 47: case 36: r.repeated(r.field === 47, () => flows.push(r.key())); break;
        case 48: case 42: r.repeated(r.field === 48, () => terminating.push(r.key())); break;
        case 31: extraUuids ??= []; { const l = extraUuids; r.repeated(false, () => l.push(r.key())); } break;
        case 45: extraDoubleUuids ??= []; { const l = extraDoubleUuids; r.repeated(false, () => l.push(r.key())); } break;
        case 12: r.repeated(false, () => extraValues.push(r.signed())); break;
        case 46: this.doubles(r, extraDoubleValues); break;
        case 52: r.readVarint(); correlation = r.number(); break;
        case 6: legacy = this.legacyEvent(r.sub()); break;
        default: r.skip();
      }
    }
    category = cats.length > 0 ? cats.join(',') : null;
    // As trace_processor: an interned name (the event's, else its legacy event's) wins over a plain one, and
    // one that does not resolve leaves the event unnamed.
    const iid = nameIid || legacy?.nameIid || 0;
    if (iid !== 0) {
      name = seq.names.get(iid) ?? null;
      if (name === null) this.sink.stat('interned_data_tokenizer_errors');
    }

    // An event with no time of its own is dropped (trace_processor's track_event_missing_timestamp).
    if (tsDeltaUs === null && !tsAbsUs && !hasPacketTs) { this.sink.stat('track_event_missing_timestamp'); return; }
    // Delta-encoded fields count from the sequence's ThreadDescriptor references; without them (none yet, or a
    // clear since) trace_processor drops the whole event, and so does gsprof.
    if (tsDeltaUs !== null || threadTimeDeltaUs !== null || instructionDelta !== null) {
      const refs = seq.refs;
      if (refs === null) {
        this.sink.stat(tsDeltaUs !== null ? 'track_event_skipped_timestamp_delta_without_valid_state'
          : threadTimeDeltaUs !== null ? 'track_event_skipped_thread_time_delta_without_valid_state'
            : 'track_event_skipped_thread_instruction_delta_without_valid_state');
        return;
      }
      if (tsDeltaUs !== null) refs.tsNs += tsDeltaUs * 1000n;
      if (threadTimeDeltaUs !== null) threadTimeNs = refs.threadTimeNs += threadTimeDeltaUs * 1000;
      if (instructionDelta !== null) threadInstructions = refs.instructions += instructionDelta;
    }
    // A legacy timestamp (delta, or absolute µs; an absolute one does not move the reference) replaces the
    // packet's. It is in the MONOTONIC clock: converted when a snapshot links it to the trace clock, else taken
    // as trace time.
    const monotonicNs = tsDeltaUs !== null ? seq.refs!.tsNs : tsAbsUs ? tsAbsUs * 1000n : null;
    if (monotonicNs !== null) {
      if (monotonicNs < 0n) { this.sink.stat('track_event_invalid_timestamp'); return; }
      ts = this.sink.rel(this.clocks.toTrace(MONOTONIC, 0, monotonicNs) ?? monotonicNs);
    }

    // As trace_processor, an event whose extra counter values cannot all be placed is dropped whole.
    const extraProblem = this.extraCounterProblem(
      [extraUuids ?? seq.extraCounters, extraDoubleUuids ?? seq.extraDoubleCounters], [extraValues, extraDoubleValues]);
    if (extraProblem !== null) { this.sink.stat(extraProblem); return; }

    let trackId: number;
    let reg: TrackReg | undefined;
    const uuid = hasTrackField ? trackUuid : seq.defaultTrack;
    if (uuid !== null && uuid !== 0) {
      reg = this.tracks.get(uuid);
      if (!reg) {
        // Perfetto keeps events on a uuid with no descriptor (yet): a global track named by its first event.
        reg = this.reg(this.sink.addTrack({ type: 'global' }), null, null, null);
        reg.placeholder = true;
        this.tracks.set(uuid, reg);
      }
      trackId = reg.trackId;
    } else {
      const legacyTrack = this.legacyPidTidTrack(seq, legacy, hasTrackField, type);
      if (legacyTrack === null) return;
      if (legacyTrack === undefined) trackId = this.fallbackTrack();
      else ({ trackId, reg } = legacyTrack);
    }

    // Thread time and instruction counts ride along with any event type, as counters of the event's thread.
    const utid = reg?.utid ?? null;
    if (utid !== null) {
      if (threadTimeNs !== null) this.sink.counter(ts, this.threadCounterTrack('thread_time', utid, reg!.upid), threadTimeNs);
      if (threadInstructions !== null) {
        this.sink.counter(ts, this.threadCounterTrack('thread_instruction_count', utid, reg!.upid), threadInstructions);
      }
    }
    // Extra counter values ride along with any event type. As trace_processor, a value on a counter track named
    // thread_time is the slice's thread time too, over the legacy fields.
    const extraTts = this.extraCounters(seq, extraUuids ?? seq.extraCounters, extraValues, ts);
    const extraDoubleTts = this.extraCounters(seq, extraDoubleUuids ?? seq.extraDoubleCounters, extraDoubleValues, ts);
    let tts = extraDoubleTts ?? extraTts ?? threadTimeNs;

    if (type === 0 && legacy) {
      const ph = String.fromCharCode(legacy.phase);
      // A legacy slice phase, or a thread-scoped instant, belongs to a thread: on a process or global track
      // trace_processor rejects the event (track_event_parser_errors).
      const threadScoped = ph === 'B' || ph === 'E' || ph === 'X'
        || ((ph === 'I' || ph === 'i') && (legacy.scope === 0 || legacy.scope === 3));
      if (threadScoped && (reg?.utid ?? null) === null) { this.sink.stat('track_event_parser_errors'); return; }
      if (ph === 'B') type = 1;
      else if (ph === 'E') type = 2;
      else if (ph === 'I' || ph === 'i' || ph === 'R') type = 3;
      else if (ph === 'X') type = COMPLETE;
      else if (ph === 's' || ph === 't' || ph === 'f') {
        // A v1 flow event, as in Chrome JSON: keyed by id, category and name; s and t bind to the slice open at
        // their ts on their track, f to the next slice that begins there (the enclosing one with
        // bind_to_enclosing).
        if (legacy.id === null) { this.sink.stat('track_event_parser_errors'); return; }
        const key = `pv1\u0000${category ?? ''}\u0000${name ?? ''}\u0000${legacy.id.slice(1)}`;
        const kind = ph === 's' ? FLOW_START : ph === 't' ? FLOW_STEP : FLOW_END;
        const bind = ph === 'f' && !legacy.bindToEnclosing ? BIND_NEXT : BIND_ENCLOSING;
        this.sink.flowEvent(key, kind, ts, trackId, bind, null);
        return;
      } else if (ph === 'b' || ph === 'e' || ph === 'n' || ph === 'S' || ph === 'F' || ph === 'T' || ph === 'p') {
        // As trace_processor: only a local_id is scoped to the event's process; a global or unscoped id is one
        // async track for the whole trace, in no process. The old async phases read as the nestable ones: S
        // begins, F ends, and a step (T, p) is an instant on the track.
        const upid = legacy.id?.startsWith('l') ? reg?.upid ?? null : null;
        const key = `${legacy.id ?? ''}:${category ?? ''}:${upid ?? ''}`;
        let t = this.asyncTracks.get(key);
        if (t === undefined) {
          t = this.sink.addTrack({ type: 'async', name, upid });
          this.asyncTracks.set(key, t);
        }
        trackId = t;
        reg = undefined;
        type = ph === 'b' || ph === 'S' ? 1 : ph === 'e' || ph === 'F' ? 2 : 3;
        tts = null;
      } else { this.sink.stat('legacy_event_unsupported_phase'); return; }
    }
    // TYPE_STATE: a value of a state track (trace_processor's state table, which gsprof does not have). Not a
    // slice: dropped and counted.
    if (type === 5) { this.sink.stat('track_event_state_not_imported'); return; }
    if (reg) {
      // An unnamed custom track takes its first event's name; a thread's track stays unnamed, as in trace_processor.
      const track = this.sink.track(trackId);
      if (!reg.hadEvent && track?.name === null && track.type !== 'thread' && name !== null && !reg.isCounter) {
        this.sink.updateTrack(trackId, { name });
        reg.namedByEvent = true;
      }
      reg.hadEvent = true;
    }

    if (type === 4) {
      if (!reg?.isCounter) {
        this.sink.stat(uuid === null || uuid === 0 ? 'track_event_counter_missing_track_uuid' : 'track_event_counter_invalid_track_uuid');
        return;
      }
      const raw = doubleValue ?? intValue ?? 0;
      this.counterValue(seq, uuid!, reg, raw, ts);
      return;
    }
    if (reg?.isCounter) { this.sink.stat('slice_event_on_counter_track'); return; }
    // Only a thread's slices keep a thread time (trace_processor's async slices do not).
    if ((reg?.utid ?? null) === null) tts = null;
    if (type === 1 || type === 2 || type === 3 || type === COMPLETE) this.endMisplaced(trackId, ts);

    // gsprof's own run metadata (see PerfettoWriter.metadata) is no slice of the trace: read, not counted.
    if (type === 3 && name === METADATA_EVENT) {
      this.ownMetadata(seq, annotations);
      return;
    }
    if (type === 1 || type === 3 || type === COMPLETE) {
      const legacyDur = (legacy?.durUs ?? 0) * 1000;
      if (type === COMPLETE) {
        if (legacyDur < 0) { this.sink.stat('track_event_parser_errors'); return; }
        // A complete event that ends after the slice it starts in cannot nest. trace_processor's JSON importer
        // moves it to an overflow track; its protobuf one drops it, and so does this importer.
        if (this.sink.overflows(trackId, ts, ts + legacyDur)) { this.sink.stat('slice_drop_overlapping_complete_event'); return; }
      }
      const id = this.sink.newSliceId();
      const argSet = annotations.length > 0 || correlation !== null ? this.sink.newArgSet() : null;
      let captured: CapturedArg[] | null = null;
      if (argSet !== null) {
        if (type === 1) this.sink.beginArgCapture();
        for (const a of annotations) this.annotation(seq, a, this.sink.argKeyRoot('debug'), argSet, 0);
        if (correlation !== null) this.sink.arg(argSet, 'correlation_id', correlation);
        if (type === 1) captured = this.sink.endArgCapture();
      }
      this.flows(flows, terminating, ts, trackId, id);
      if (legacy?.bindId != null && legacy.flowDirection > 0) {
        const kind = legacy.flowDirection === 3 ? FLOW_STEP : legacy.flowDirection === 2 ? FLOW_START : FLOW_IN;
        this.sink.flowEvent(`lb${legacy.bindId}`, kind, ts, trackId, BIND_DIRECT, id);
      }
      this.sink.nestStart(trackId, id, ts, type === 3 ? ts : type === COMPLETE ? ts + legacyDur : Infinity);
      const { depth, parent } = this.sink;
      if (type === 3) {
        this.sink.slice(id, ts, 0, trackId, category, name, argSet, depth, parent);
        if (tts !== null) this.sink.threadTime(id, tts, 0);
      } else if (type === COMPLETE) {
        this.sink.slice(id, ts, legacyDur, trackId, category, name, argSet, depth, parent);
        if (legacyDur === 0) this.sink.zeroDurSlice(id);
        if (tts !== null) this.sink.threadTime(id, tts, (legacy?.threadDurUs ?? 0) * 1000);
      }
      else {
        let st = this.stacks.get(trackId);
        if (!st) { st = []; this.stacks.set(trackId, st); }
        // The row is written when the slice ends; keep its name and category until then.
        st.push({ id, ts, argSet, name, category, depth, parent, captured, tts });
      }
      return;
    }
    if (type === 2) {
      const open = this.endOpenSlice(trackId, ts, name, category);
      if (open === null) return;
      let argSet = open.argSet;
      if (annotations.length > 0) {
        argSet ??= this.sink.newArgSet();
        this.sink.beginArgCapture();
        for (const a of annotations) this.annotation(seq, a, this.sink.argKeyRoot('debug'), argSet, 0);
        const end = this.sink.endArgCapture();
        this.sink.writeCaptured(argSet, open.captured ? mergeArgs(open.captured, end) : end);
      } else if (open.captured && argSet !== null) this.sink.writeCaptured(argSet, open.captured);
      this.flows(flows, terminating, ts, trackId, open.id);
      this.writeEnded(trackId, open, ts, argSet, tts);
      return;
    }
    this.sink.stat('track_event_without_type');
  }

  /**
   * The open slice an END at `ts` closes, taken off its track's stack (or marked ended under slices still open),
   * or null. As trace_processor, an END closes the innermost open slice its name and category match (an END
   * without them, as the SDK writes it, matches the innermost); one that matches none is dropped. Slices still
   * open above the one it closes end with it at the next event (endMisplaced).
   */
  private endOpenSlice(trackId: number, ts: number, name: string | null, category: string | null): OpenSlice | null {
    const st = this.stacks.get(trackId);
    if (!st || st.length === 0) { this.sink.stat('slice_end_without_begin'); return null; }
    let i = st.length - 1;
    while (i >= 0 && (st[i]!.endedAt !== undefined || !endMatches(st[i]!, name, category))) i--;
    if (i < 0) return null;
    // An END earlier than the BEGIN it would close (a BEGIN with timestamp_absolute_us ahead of the deltas):
    // trace_processor sorts by time, so the END comes first, finds nothing open, and the slice stays open
    // (dur -1, counted in slice_without_end at the end); the events after it nest inside it.
    if (ts < st[i]!.ts) { this.sink.stat('slice_end_without_begin'); return null; }
    const open = st[i]!;
    if (i === st.length - 1) st.pop();
    else open.endedAt = ts;
    return open;
  }

  /** The row of a slice an END at `ts` closed (`tts`: the END's thread time, or null). */
  private writeEnded(trackId: number, open: OpenSlice, ts: number, argSet: number | null, tts: number | null): void {
    this.sink.nestEnd(trackId, open.id, ts);
    this.sink.slice(open.id, open.ts, ts - open.ts, trackId, open.category, open.name, argSet, open.depth, open.parent);
    if (ts === open.ts) this.sink.zeroDurSlice(open.id);
    // trace_processor sets thread_dur from an end with a thread time unless it equals the begin's (then NULL).
    if (open.tts !== null) this.sink.threadTime(open.id, open.tts, tts !== null && tts !== open.tts ? tts - open.tts : null);
  }

  /** An atrace begin (1), end (2) or instant (3) on a thread's track: no category, args or flows. */
  private atraceSlice(trackId: number, ts: number, type: number, name: string | null): void {
    this.endMisplaced(trackId, ts);
    if (type === 2) {
      const open = this.endOpenSlice(trackId, ts, null, null);
      if (open !== null) this.writeEnded(trackId, open, ts, open.argSet, null);
      return;
    }
    const id = this.sink.newSliceId();
    this.sink.nestStart(trackId, id, ts, type === 3 ? ts : Infinity);
    const { depth, parent } = this.sink;
    if (type === 3) { this.sink.slice(id, ts, 0, trackId, null, name, null, depth, parent); return; }
    let st = this.stacks.get(trackId);
    if (!st) { st = []; this.stacks.set(trackId, st); }
    st.push({ id, ts, argSet: null, name, category: null, depth, parent, captured: null, tts: null });
  }

  /**
   * What trace_processor does before each slice event on a track: a slice an END closed under slices still
   * open ends them at its end once an event comes after it (misplaced_end_event), and leaves the stack with them.
   */
  private endMisplaced(trackId: number, ts: number): void {
    const st = this.stacks.get(trackId);
    if (!st) return;
    for (let i = st.length - 1; i >= 0; i--) {
      const ended = st[i]!;
      if (ended.endedAt === undefined || ts <= ended.endedAt) continue;
      for (let j = st.length - 1; j > i; j--) {
        const o = st[j]!;
        if (o.endedAt !== undefined) continue;
        if (o.captured && o.argSet !== null) this.sink.writeCaptured(o.argSet, o.captured);
        this.sink.nestEnd(trackId, o.id, ended.endedAt);
        this.sink.slice(o.id, o.ts, ended.endedAt - o.ts, trackId, o.category, o.name, o.argSet, o.depth, o.parent);
        this.sink.threadTime(o.id, o.tts, null);
      }
      st.length = i;
      this.sink.stat('misplaced_end_event');
    }
  }

  private threadCounterTrack(name: string, utid: number, upid: number | null): number {
    const key = `${name}\u0000${utid}`;
    let track = this.threadCounterTracks.get(key);
    if (track === undefined) {
      track = this.sink.addTrack({ type: 'counter', name, utid, upid });
      this.threadCounterTracks.set(key, track);
    }
    return track;
  }

  private doubles(r: ProtoReader, out: number[]): void {
    if (r.wire === 1) { out.push(r.double()); return; }
    if (r.wire !== 2) { r.skip(); return; }
    const n = r.length();
    const end = r.pos + n;
    if (n % 8 !== 0) throw new ProtoError(r.pos, 'packed doubles length is not a multiple of 8');
    while (r.pos < end) out.push(r.double());
  }

  private legacyEvent(r: ProtoReader): LegacyInfo {
    let phase = 0;
    let durUs = 0;
    let threadDurUs = 0;
    let id: string | null = null;
    let bindId: Key | null = null;
    let flowDirection = 0;
    let scope = 0;
    let nameIid = 0;
    let pidOverride: number | null = null;
    let tidOverride: number | null = null;
    let bindToEnclosing = false;
    while (r.next()) {
      switch (r.field) {
        case 1: nameIid = r.varint(); break;
        case 2: phase = r.varint(); break;
        case 3: r.readVarint(); durUs = r.signed(); break;
        case 4: r.readVarint(); threadDurUs = r.signed(); break;
        case 6: r.readVarint(); id = `u${r.key()}`; break;
        case 10: r.readVarint(); id = `l${r.key()}`; break;
        case 11: r.readVarint(); id = `g${r.key()}`; break;
        case 8: r.readVarint(); bindId = r.key(); break;
        case 12: bindToEnclosing = r.varint() !== 0; break;
        case 13: flowDirection = r.varint(); break;
        case 14: scope = r.varint(); break;
        case 18: r.readVarint(); pidOverride = r.signed(); break;
        case 19: r.readVarint(); tidOverride = r.signed(); break;
        default: r.skip();
      }
    }
    return { phase, durUs, threadDurUs, id, bindId, flowDirection, nameIid, scope, pidOverride, tidOverride, bindToEnclosing };
  }

  private flows(flows: Key[], terminating: Key[], ts: number, trackId: number, sliceId: number): void {
    for (const f of flows) this.sink.flowEvent(`p${f}`, FLOW_STEP, ts, trackId, BIND_DIRECT, sliceId);
    for (const f of terminating) this.sink.flowEvent(`p${f}`, FLOW_END, ts, trackId, BIND_DIRECT, sliceId);
  }

  /**
   * Why trace_processor drops an event for its extra counter values (int ones, then double ones, counted on
   * together), or null: values without track uuids (here or in the defaults), a uuid 0, more than 8 values, a
   * uuid that is not a counter track's or none for a value.
   */
  private extraCounterProblem(uuidLists: Key[][], valueLists: number[][]): StatName | null {
    let index = 0;
    for (let l = 0; l < valueLists.length; l++) {
      const values = valueLists[l]!, uuids = uuidLists[l]!;
      if (values.length === 0) continue;
      if (uuids.length === 0) return 'track_event_extra_counter_missing_track_uuids';
      for (let i = 0; i < values.length; i++, index++) {
        const u = uuids[i];
        if (u === 0) return 'track_event_extra_counter_track_uuid_mismatch';
        if (index >= MAX_EXTRA_COUNTERS) return 'track_event_extra_counter_exceeds_max';
        // A value past the last uuid is counted as trace_processor v58.2 counts it: an invalid track.
        if (u === undefined || !this.tracks.get(u)?.isCounter) return 'track_event_extra_counter_invalid_track';
      }
    }
    return null;
  }

  /** Writes the extra counter values; returns the last one on a track named thread_time (truncated), or null. */
  private extraCounters(seq: SeqState, uuids: Key[], values: number[], ts: number): number | null {
    let threadTime: number | null = null;
    for (let i = 0; i < values.length; i++) {
      const u = uuids[i];
      const reg = u === undefined ? undefined : this.tracks.get(u);
      // extraCounterProblem dropped the event otherwise.
      if (!reg?.isCounter) continue;
      const v = this.counterValue(seq, u!, reg, values[i]!, ts);
      if (this.sink.track(reg.trackId)?.name === 'thread_time') threadTime = Math.trunc(v);
    }
    return threadTime;
  }

  private counterValue(seq: SeqState, uuid: Key, reg: TrackReg, raw: number, ts: number): number {
    let v = raw * reg.multiplier;
    if (reg.incremental) { v += seq.counterValues.get(uuid) ?? 0; seq.counterValues.set(uuid, v); }
    reg.hadEvent = true;
    this.sink.counter(ts, reg.trackId, v);
    return v;
  }

  /** The 'json' (run metadata) and 'flows' (flow names) string annotations of a gsprof.metadata instant. */
  private ownMetadata(seq: SeqState, annotations: ProtoReader[]): void {
    for (const r of annotations) {
      let name: string | null = null;
      let value: string | null = null;
      while (r.next()) {
        if (r.field === 10) name = r.string();
        else if (r.field === 1) name = seq.annNames.get(r.varint()) ?? null;
        else if (r.field === 6) value = r.string();
        else r.skip();
      }
      if (value === null) continue;
      if (name === METADATA_ARG) recordGsprofMetadata(this.sink, value);
      else if (name === FLOW_NAMES_ARG) recordFlowNames(this.sink, value);
    }
  }

  /**
   * One DebugAnnotation (or a dict entry / array element) as args under the arg key `parent` (its own key when not
   * `named`: an array element's). Keys are the sink's made keys: building and hashing a key string anew for every
   * arg was a seventh of a Kineto pftrace's import. Returns whether it takes an index as an array element, as in
   * trace_processor: not when it has no value (how a null is written), nor when it is an array none of whose
   * elements takes one.
   */
  private annotation(seq: SeqState, r: ProtoReader, parent: ArgKey, argSet: number, depth: number, named = true): boolean {
    let name: string | null = null;
    let value: ArgScalar | undefined;
    const children: ProtoReader[] = [];
    const elements: ProtoReader[] = [];
    let nested: ProtoReader | null = null;
    let json: string | null = null;
    /** Whether the annotation had a field besides its name and array values. */
    let valued = false;
    while (r.next()) {
      if (r.field !== 1 && r.field !== 10 && r.field !== 12) valued = true;
      switch (r.field) {
        case 10: name = r.string(); break;
        case 1: name = seq.annNames.get(r.varint()) ?? null; break;
        case 2: value = r.varint() !== 0; break;
        case 3: r.readVarint(); value = r.hi < 0x200000 ? r.number() : r.bigint(); break;
        case 4: r.readVarint(); value = Math.abs(r.signed()) <= Number.MAX_SAFE_INTEGER ? r.signed() : BigInt.asIntN(64, r.bigint()); break;
        case 5: if (r.wire === 1) value = realArg(r.double()); else r.skip(); break;
        case 6: value = r.string(); break;
        case 17: value = seq.annStrings.get(r.varint()) ?? null; break;
        case 7: r.readVarint(); value = `0x${r.bigint().toString(16)}`; break;
        case 8: nested = r.sub(); break;
        case 9: json = r.string(); break;
        case 11: children.push(r.sub()); break;
        case 12: elements.push(r.sub()); break;
        default: r.skip();
      }
    }
    const node = named ? this.sink.argKeyAnnotation(parent, name ?? '<unnamed>') : parent;
    if (depth > 32) { this.sink.stat('debug_annotation_too_deep'); return valued; }
    if (value !== undefined) this.sink.argAt(argSet, node, value);
    // An annotation with nothing but a name is how a null is written (gsprof's writer: trace_processor aborts on
    // a legacy_json_value of "null"). trace_processor reads it as no arg; it is kept apart for convert, as a null
    // in JSON args is.
    if (!valued && elements.length === 0) this.sink.argTreeAt(argSet, node, null, depth);
    if (json !== null) {
      let parsed: unknown;
      try { parsed = JSON.parse(json); } catch { parsed = json; }
      this.sink.argTreeAt(argSet, node, parsed, 0);
    }
    if (nested) this.nestedValue(nested, node, argSet, depth + 1);
    for (const c of children) this.annotation(seq, c, node, argSet, depth + 1, true);
    // As trace_processor indexes array values: an element without a value (a null) takes no index.
    let index = 0;
    elements.forEach((e, i) => { if (this.annotation(seq, e, this.sink.argKeyElement(node, index, i), argSet, depth + 1, false)) index++; });
    return valued || index > 0;
  }

  private nestedValue(r: ProtoReader, node: ArgKey, argSet: number, depth: number): void {
    if (depth > 32) { this.sink.stat('debug_annotation_too_deep'); return; }
    const keys: string[] = [];
    const dictValues: ProtoReader[] = [];
    const arrayValues: ProtoReader[] = [];
    let value: ArgScalar | undefined;
    while (r.next()) {
      switch (r.field) {
        case 2: keys.push(r.string()); break;
        case 3: dictValues.push(r.sub()); break;
        case 4: arrayValues.push(r.sub()); break;
        case 5: r.readVarint(); value = r.signed(); break;
        case 6: if (r.wire === 1) value = realArg(r.double()); else r.skip(); break;
        case 7: value = r.varint() !== 0; break;
        case 8: value = r.string(); break;
        default: r.skip();
      }
    }
    if (value !== undefined) this.sink.argAt(argSet, node, value);
    dictValues.forEach((v, i) => { this.nestedValue(v, this.sink.argKeyChild(node, keys[i] ?? String(i)), argSet, depth + 1); });
    arrayValues.forEach((v, i) => { this.nestedValue(v, this.sink.argKeyChild(node, i), argSet, depth + 1); });
  }

  finish(): void {
    for (const [trackId, st] of this.stacks) {
      for (const open of st) {
        if (open.endedAt !== undefined) continue;
        if (open.captured && open.argSet !== null) this.sink.writeCaptured(open.argSet, open.captured);
        this.sink.slice(open.id, open.ts, -1, trackId, open.category, open.name, open.argSet, open.depth, open.parent);
        this.sink.threadTime(open.id, open.tts, null);
        this.sink.stat('slice_without_end');
      }
    }
    // Resolve parents declared after their children.
    for (const reg of this.tracks.values()) {
      if (reg.parentUuid === null) continue;
      const parent = this.tracks.get(reg.parentUuid);
      const t = this.sink.track(reg.trackId);
      if (!parent || !t || t.parentId !== null) continue;
      // The parent was declared after the child: the child belongs to the parent's thread/process all the same.
      const patch: Parameters<TraceSink['updateTrack']>[1] = { parentId: parent.trackId, utid: t.utid ?? parent.utid, upid: t.upid ?? parent.upid };
      if (t.type === 'global') patch.type = 'async';
      this.sink.updateTrack(reg.trackId, patch);
    }
  }
}

/** Whether an END with this name and category closes `open` (trace_processor: a missing one matches any). */
function endMatches(open: OpenSlice, name: string | null, category: string | null): boolean {
  return (category === null || open.category === category) && (name === null || open.name === null || open.name === name);
}
