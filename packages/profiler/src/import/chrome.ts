/**
 * Chrome trace JSON importer with PyTorch/Kineto conventions: relative µs ts plus baseTimeNanoseconds or
 * absolute epoch µs (kept exact to the ns by reading the ts token text), string pids/tids, ac2g flows (s/f with
 * bp "e"), v2 flows (bind_id), M naming events, deviceProperties and distributedInfo as metadata.
 */
import { isAscii } from 'node:buffer';
import { TraceFormatError } from './errors.js';
import { scanJson } from './json-scan.js';
import { INTEGRAL_REAL, LONG_DIGITS } from './json-scanner.js';
import { recordGsprofMetadata } from './metadata.js';
import { METADATA_EVENT } from '../export/common.js';
import type { StatName } from './import-stats.js';
import type { TraceSink } from './sink.js';
import { RealArg } from '../model/trace.js';
import {
  BIND_DIRECT, BIND_ENCLOSING, BIND_NEXT, FLOW_END, FLOW_IN, FLOW_START, FLOW_STEP,
} from '../sql/schema.js';

/** A begin or end event (B/E, async b/e and S/F), kept until the end: they are matched in time order. */
interface Edge {
  begin: boolean; ts: number; order: number; id: number; name: string | null; category: string | null; args: unknown;
  /** The exact ts where `ts` is not (2^53 ns or more from the origin), else null. */
  exact: bigint | null;
  /** The event's tts in ns (null: none). */
  tts: number | null;
}

/** A begin event with what its end gave (`dur` -1 while none did); `open` until ended. */
interface Paired { b: Edge; dur: number; endArgs: unknown; open: boolean; endTts: number | null }

/** A slice on a track's stack while pairing: an X (`slice` null) or a begin event, ending at `end`. */
interface Open { end: number; slice: Paired | null }

type Json = Record<string, unknown>;

/** What names a process or thread whose id is a string: its last event so far in time order (see `owners`). */
interface StringNaming { label: string; ts: number; name: string | null }

/** A string pid or tid that gsprof reads as a number (decimal or 0x hex), or null. */
function numericId(text: string): number | null {
  const s = text.trim();
  if (/^-?\d+$/.test(s) && Number.isSafeInteger(Number(s))) return Number(s);
  if (/^0x[0-9a-f]+$/i.test(s) && Number.isSafeInteger(Number(s))) return Number(s);
  return null;
}

/**
 * An event at `ts` (µs) of a string-id process or thread: trace_processor parses events in time order (those of
 * one ts in file order), and each names it after the string, or a process_name/thread_name event after its arg.
 */
function noteName(n: StringNaming, ts: number, name: string | null): void {
  if (ts >= n.ts) { n.ts = ts; n.name = name; }
}

/** start, end, line, offset, tsAt, durAt, numberFlags of an event waiting to be parsed. */
const PENDING_FIELDS = 7;
const MAX_PENDING = 4096;

const SUPPORTED = new Set(['B', 'E', 'X', 'i', 'I', 'n', 'C', 's', 't', 'f', 'M', 'b', 'e', 'S', 'F', 'T', 'p']);

/**
 * Lenient by default, as Perfetto: an event that does not parse, a `null` element and a last event cut off are
 * skipped and counted (stats json_parser_failure, json_tokenizer_failure); `strict` makes each an error.
 */
export async function importChrome(
  path: string, chunks: AsyncIterable<Buffer>, sink: TraceSink, strict = false, threaded = false,
): Promise<void> {
  const imp = new ChromeImporter(path, sink, strict);
  const scan = await scanJson(chunks, {
    event: (buf, start, end, line, offset, tsAt, durAt, numberFlags) => imp.event(buf, start, end, line, offset, tsAt, durAt, numberFlags),
    topLevel: (key, raw, line) => imp.topLevel(key, raw, line),
    nullEvent: strict ? undefined : () => sink.stat('json_parser_failure'),
  }, () => imp.flush(), threaded);
  const err = scan.error;
  if (err !== null) {
    // A file cut short: keep every whole event before the cut.
    if (!strict && scan.inputDone && scan.hasEventArray && /truncated/.test(err.message)) {
      sink.stat('json_tokenizer_failure');
      imp.flush();
    } else throw new TraceFormatError(path, `line ${err.line} (byte ${err.offset})`, err.message);
  }
  if (!scan.hasEventArray) {
    throw new TraceFormatError(path, 'top level', 'read as JSON: an object without a "traceEvents" array is not a Chrome/Kineto trace');
  }
  imp.finish();
}

class ChromeImporter {
  private readonly processes = new Map<string, number>();
  private readonly threads = new Map<string, number>();
  private readonly threadTracks = new Map<string, number>();
  /** The number given to each string pid or tid: one per string, as trace_processor interns it. */
  private readonly stringIds = new Map<string, number>();
  /**
   * The processes (by upid) and threads (by utid) whose pid or tid is a string, with the name trace_processor
   * ends with: every event names them after the string, a process_name or thread_name event after its arg, and
   * the last event in time order wins (see `noteName`).
   */
  private readonly processNaming = new Map<number, StringNaming>();
  private readonly threadNaming = new Map<number, StringNaming>();
  private readonly processTracks = new Map<number, number>();
  private readonly counterTracks = new Map<string, number>();
  /** Begin/end events per track, matched in time order at the end (as Perfetto sorts before parsing). */
  private readonly edges = new Map<number, Edge[]>();
  private readonly asyncTracks = new Map<string, number>();
  /** Tracks that got slices or flow events while reading (the begin/end events come after them). */
  private readonly streamed = new Set<number>();
  /** Start and end of each X slice of dur > 0 per track, in file order: B/E matching needs them (`matchEdges`). */
  private readonly xSpans = new Map<number, number[]>();
  /** The last ts of the instants per track, which end slices left open in an ended X as B/E/X events do. */
  private readonly lastInstant = new Map<number, number>();
  private globalTrack: number | null = null;
  /** Counters gsprof wrote under their whole name with the key "value" (TraceMetadata.jsonCounterNames). */
  private readonly wholeCounterNames = new Set<string>();
  /** The top-level members to keep for convert (see TraceMetadata.jsonTopLevel). */
  private readonly topLevelMembers: [string, string][] = [];
  /** Integer µs of relative time 0; ts are kept as ns relative to it. */
  private originUs: number | null = null;
  /**
   * The last tsOf's exact value where the number it returned is not exact (2^53 ns or more from the origin: an
   * event of another day than the first one), else null. Rows take it; nesting takes the number near it.
   */
  private exactTs: bigint | null = null;
  private nextSynthetic = 1 << 30;
  private events = 0;
  /**
   * Events of the current buffer not yet parsed, PENDING_FIELDS numbers each: one JSON.parse of many events is
   * cheaper than one per event. They are parsed before the buffer changes (`flush` after every chunk).
   */
  private readonly pending = new Float64Array(PENDING_FIELDS * MAX_PENDING);
  private nPending = 0;
  private pendingBuf: Buffer | null = null;
  /** The thread track of the last event's pid and tid (consecutive events mostly share one). */
  private lastPid: unknown = undefined;
  /** The numeric pid of the last event whose process `owners` saw (undefined: none, or a string pid). */
  private lastOwnerPid: number | undefined = undefined;
  private lastTid: unknown = undefined;
  private lastTrack = -1;
  /**
   * The scanner's numberFlags for the event being handled: only with LONG_DIGITS are its args walked for an
   * integer past 2^53 (a Kineto ts has 16 digits from a 1, and is not one), and only with INTEGRAL_REAL (`1.0`,
   * which JSON.parse makes an integer where trace_processor types it real) are they read again from the text.
   */
  private numberFlags = LONG_DIGITS | INTEGRAL_REAL;
  /** Why the last tsOf or durOf gave NaN. */
  private problem: string | null = null;

  constructor(readonly path: string, readonly sink: TraceSink, readonly strict: boolean) {}

  event(buf: Buffer, start: number, end: number, line: number, offset: number, tsAt: number, durAt: number, numberFlags: number): void {
    if (buf !== this.pendingBuf) { this.flush(); this.pendingBuf = buf; }
    const p = this.pending, o = this.nPending++ * PENDING_FIELDS;
    p[o] = start; p[o + 1] = end; p[o + 2] = line; p[o + 3] = offset; p[o + 4] = tsAt; p[o + 5] = durAt;
    p[o + 6] = numberFlags;
    if (this.nPending === MAX_PENDING) this.flush();
  }

  /**
   * Parses and handles the pending events: all at once as one array when that parses to exactly them and no
   * event has a "__proto__" key; otherwise one by one, which repairs, counts or reports each bad event.
   */
  flush(): void {
    const p = this.pending, buf = this.pendingBuf, n = this.nPending;
    if (n === 0 || buf === null) return;
    this.nPending = 0;
    const text = n > 1 ? decodeText(buf.subarray(p[0]!, p[(n - 1) * PENDING_FIELDS + 1]!)) : null;
    const all = text === null ? null : parseAll(text, n);
    for (let i = 0; i < n; i++) {
      const o = i * PENDING_FIELDS;
      const e = all?.[i];
      this.numberFlags = p[o + 6]!;
      if (e !== null && typeof e === 'object' && !Array.isArray(e)) {
        this.events++;
        this.handleAt(e as Json, buf, p[o]!, p[o + 1]!, p[o + 2]!, p[o + 3]!, p[o + 4]!, p[o + 5]!);
      } else this.eventOne(buf, p[o]!, p[o + 1]!, p[o + 2]!, p[o + 3]!, p[o + 4]!, p[o + 5]!);
    }
  }

  private eventOne(buf: Buffer, start: number, end: number, line: number, offset: number, tsAt: number, durAt: number): void {
    const text = buf.toString('utf8', start, end);
    let e: Json;
    try {
      e = JSON.parse(text) as Json;
    } catch (err) {
      const deep = tooDeep(err);
      if (this.strict || deep !== null) {
        throw new TraceFormatError(this.path, `line ${line} (byte ${offset})`, `malformed event: ${deep ?? (err as Error).message}`);
      }
      // Perfetto's parser accepts trailing commas and raw control characters in strings: so do we (counted);
      // an event that still does not parse (NaN, say) is skipped and counted.
      const repaired = repairJson(text);
      try {
        e = JSON.parse(repaired) as Json;
        this.sink.stat('json_repaired_events');
      } catch {
        this.sink.stat('json_parser_failure');
        return;
      }
    }
    if (text.includes('"__proto__"') && hasProtoKey(e)) {
      throw new TraceFormatError(this.path, `line ${line} (byte ${offset})`, 'forbidden key "__proto__" in event');
    }
    this.events++;
    this.handleAt(e, buf, start, end, line, offset, tsAt, durAt);
  }

  private handleAt(e: Json, buf: Buffer, start: number, end: number, line: number, offset: number, tsAt: number, durAt: number): void {
    try {
      this.handle(e, buf, start, end, tsAt, durAt);
    } catch (err) {
      if (err instanceof TraceFormatError || isBug(err)) throw err;
      throw new TraceFormatError(this.path, `line ${line} (byte ${offset})`, tooDeep(err) ?? (err as Error).message.split('\n')[0]!);
    }
  }

  private handle(e: Json, buf: Buffer, start: number, end: number, tsAt: number, durAt: number): void {
    // Perfetto reads the phase by its first character.
    const ph = typeof e.ph === 'string' ? e.ph.charAt(0) : '';
    if (!SUPPORTED.has(ph)) {
      this.sink.stat('json_dropped_events');
      return;
    }
    if (!storableId(e.pid) || !storableId(e.tid)) { this.drop('json_parser_failure', `pid or tid past int64: ${String(e.pid)}, ${String(e.tid)}`); return; }
    if (ph === 'M') { this.owners(e, 'M'); this.metadataEvent(e); return; }
    const flags = this.numberFlags;
    if (ph !== 'C' && hasArgs(e) && ((flags & INTEGRAL_REAL) !== 0 || ((flags & LONG_DIGITS) !== 0 && hasUnsafeInt(e.args, 0)))) {
      exactArgs(e, buf.toString('utf8', start, end));
    }
    numberToken(buf, tsAt, end, tokens.ts);
    numberToken(buf, durAt, end, tokens.dur);
    const ts = this.tsOf(e, buf);
    // trace_processor's tokenizer drops an event without a numeric ts (json_tokenizer_failure).
    if (Number.isNaN(ts)) { this.drop('json_tokenizer_failure', this.problem ?? 'no ts'); return; }
    this.owners(e, ph);
    const name = typeof e.name === 'string' ? e.name : e.name === undefined ? null : String(e.name);
    // trace_processor reads an empty category as none (NULL), as an absent one.
    const category = typeof e.cat === 'string' && e.cat !== '' ? e.cat : null;
    const pid = e.pid;
    const tid = e.tid ?? pid;

    switch (ph) {
      case 'X': {
        const dur = this.durOf(e, buf);
        if (Number.isNaN(dur)) { this.drop('json_parser_failure', this.problem ?? 'no dur'); return; }
        if (dur < 0) { this.drop('slice_negative_duration', `negative dur ${String(e.dur)}`); return; }
        const track = this.threadTrack(pid, tid);
        const id = this.sink.newSliceId();
        const argSet = this.args(e);
        this.streamed.add(track);
        if (dur > 0) {
          const spans = this.xSpans.get(track);
          if (spans) spans.push(ts, ts + dur);
          else this.xSpans.set(track, [ts, ts + dur]);
        }
        this.sink.nestStart(track, id, ts, ts + dur, true);
        this.v2Flow(e, id, ts, track);
        this.sink.slice(id, this.exactTs ?? ts, dur, track, category, name, argSet, this.sink.depth, this.sink.parent);
        if (dur === 0) this.sink.zeroDurSlice(id);
        if (e.tts !== undefined || e.tdur !== undefined) this.sink.threadTime(id, threadNs(e.tts), threadNs(e.tdur));
        return;
      }
      case 'B': case 'E': case 'b': case 'e': case 'S': case 'F': {
        const sync = ph === 'B' || ph === 'E';
        const track = sync ? this.threadTrack(pid, tid) : this.asyncTrack(e, pid, name, category);
        if (track === null) return;
        const begin = ph === 'B' || ph === 'b' || ph === 'S';
        const id = begin ? this.sink.newSliceId() : -1;
        let list = this.edges.get(track);
        if (!list) { list = []; this.edges.set(track, list); }
        // As trace_processor, thread time is read for B/E only, not for async events.
        const tts = sync && e.tts !== undefined ? threadNs(e.tts) : null;
        list.push({ begin, ts, exact: this.exactTs, order: this.events, id, name, category, args: hasArgs(e) ? e.args : undefined, tts });
        if (begin) this.v2Flow(e, id, ts, track);
        return;
      }
      case 'i': case 'I': case 'n': case 'T': case 'p': {
        const scope = e.s;
        const track = ph === 'n' || ph === 'T' || ph === 'p' ? this.asyncTrack(e, pid, name, category)
          : scope === 'g' ? this.global() : scope === 'p' ? this.processTrack(pid) : this.threadTrack(pid, tid);
        if (track === null) return;
        // gsprof's run metadata as an instant (what a pftrace carries it on) is read, not made a slice.
        if (name === METADATA_EVENT) {
          const json = (e.args as Json | undefined)?.json;
          if (typeof json === 'string') recordGsprofMetadata(this.sink, json);
          return;
        }
        const id = this.sink.newSliceId();
        this.streamed.add(track);
        if (!(ts <= (this.lastInstant.get(track) ?? -Infinity))) this.lastInstant.set(track, ts);
        this.sink.nestStart(track, id, ts, ts);
        this.sink.slice(id, this.exactTs ?? ts, 0, track, category, name, this.args(e), this.sink.depth, this.sink.parent);
        // trace_processor keeps the tts of a thread's instant (with no thread_dur), not of another scope's.
        if (e.tts !== undefined && scope !== 'g' && scope !== 'p' && ph !== 'n' && ph !== 'T' && ph !== 'p') {
          this.sink.threadTime(id, threadNs(e.tts), null);
        }
        return;
      }
      case 'C': {
        const upid = this.process(pid);
        const args = e.args;
        if (!args || typeof args !== 'object') return;
        for (const key of Object.keys(args)) {
          const v = (args as Json)[key];
          const num = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
          if (!Number.isFinite(num)) { this.sink.stat('json_parser_failure'); continue; }
          const whole = key === 'value' && e.id === undefined && name !== null && this.wholeCounterNames.has(name);
          const trackName = whole ? name : `${name ?? ''}${e.id !== undefined ? ` id: ${String(e.id)}` : ''} ${key}`;
          const k = `${upid}\u0000${trackName}`;
          let track = this.counterTracks.get(k);
          if (track === undefined) {
            track = this.sink.addTrack({ type: 'counter', name: trackName, upid, parentId: this.processTrack(pid) });
            this.counterTracks.set(k, track);
          }
          this.sink.counter(this.exactTs ?? ts, track, num);
        }
        return;
      }
      case 's': case 't': case 'f': {
        const track = this.threadTrack(pid, tid);
        const id = e.id ?? (e.id2 as Json | undefined)?.global ?? (e.id2 as Json | undefined)?.local;
        if (id === undefined) { this.sink.stat('flow_invalid_id'); return; }
        const key = `j\u0000${category ?? ''}\u0000${name ?? ''}\u0000${String(id)}`;
        const kind = ph === 's' ? FLOW_START : ph === 't' ? FLOW_STEP : FLOW_END;
        const bind = ph === 'f' && e.bp !== 'e' ? BIND_NEXT : BIND_ENCLOSING;
        this.streamed.add(track);
        this.sink.flowEvent(key, kind, ts, track, bind, null);
        return;
      }
    }
  }

  /** Flow v2: `bind_id` with flow_out / flow_in on the slice itself. */
  private v2Flow(e: Json, sliceId: number, ts: number, track: number): void {
    if (e.bind_id === undefined) return;
    const out = e.flow_out === true;
    const inn = e.flow_in === true;
    if (!out && !inn) return;
    const kind = out && inn ? FLOW_STEP : out ? FLOW_START : FLOW_IN;
    this.sink.flowEvent(`v2\u0000${String(e.bind_id)}`, kind, ts, track, BIND_DIRECT, sliceId);
  }

  /**
   * The process and thread of any event that trace_processor parses (every phase, metadata events of any name
   * and global instants included), as it creates them: the process of its pid always; the thread only where the
   * tid is a string, since that names it (a numeric tid's thread without a track or name shows nowhere).
   */
  private owners(e: Json, ph: string): void {
    // Most events repeat the last numeric pid, with a numeric tid: nothing to create or name.
    if (typeof e.pid === 'number' && e.pid === this.lastOwnerPid && typeof e.tid !== 'string') return;
    const upid = this.process(e.pid);
    this.lastOwnerPid = typeof e.pid === 'number' ? e.pid : undefined;
    const us = typeof e.ts === 'number' ? e.ts : Number(e.ts);
    // trace_processor gives a metadata event without a ts the ts 0.
    const at = Number.isFinite(us) ? us : 0;
    const args = (e.args ?? null) as Json | null;
    const named = (what: string): string | null =>
      ph === 'M' && e.name === what && typeof args?.name === 'string' && args.name !== '' ? args.name : null;
    const pNaming = this.processNaming.get(upid);
    if (pNaming) noteName(pNaming, at, named('process_name'));
    if (typeof e.tid === 'string' && numericId(e.tid) === null) {
      const utid = this.thread(e.pid, e.tid);
      const tNaming = this.threadNaming.get(utid);
      if (tNaming) noteName(tNaming, at, named('thread_name'));
    }
  }

  private metadataEvent(e: Json): void {
    const args = (e.args ?? {}) as Json;
    if (e.name === 'process_name' || e.name === 'thread_name') {
      // trace_processor counts a name that is empty or not a string, and names nothing.
      if (typeof args.name !== 'string' || args.name === '') { this.sink.stat('json_parser_failure'); return; }
      if (e.name === 'process_name') this.sink.setProcessName(this.process(e.pid), args.name);
      else {
        const track = this.threadTrack(e.pid, e.tid);
        const utid = this.sink.track(track)?.utid;
        if (utid !== null && utid !== undefined) this.sink.setThreadName(utid, args.name);
      }
    } else if (e.name === 'process_labels' && typeof args.labels === 'string') {
      // Kept for convert; trace_processor does not name a process by its labels, nor does gsprof.
      this.process(e.pid);
      this.sink.metadata(`process_labels.${String(e.pid)}`, args.labels);
    }
  }

  private args(e: Json): number | null {
    if (!hasArgs(e)) return null;
    const set = this.sink.newArgSet();
    this.sink.argTree(set, 'args', e.args);
    return set;
  }

  // ---- time -----------------------------------------------------------------------------------------------

  /**
   * ts in ns relative to the origin, from the token bytes so 16+ digit µs values stay exact; NaN (the event is
   * dropped) when it has none, or one that is not a number or cannot be stored.
   */
  private tsOf(e: Json, buf: Buffer): number {
    if (e.ts === undefined) { this.problem = 'no ts'; return Number.NaN; }
    this.problem = micros(buf, tokens.ts.start, tokens.ts.end, e.ts, split);
    if (this.problem !== null) return Number.NaN;
    if (this.originUs === null) {
      this.originUs = split.intUs;
      this.sink.origin = BigInt(split.intUs) * 1000n;
    }
    const rel = (split.intUs - this.originUs) * 1000 + split.fracNs;
    // Past 2^53 ns the double may be off by up to 256 ns at an epoch µs ts: the exact value is kept beside it.
    this.exactTs = Number.isSafeInteger(rel) ? null : (BigInt(split.intUs) - BigInt(this.originUs)) * 1000n + BigInt(split.fracNs);
    return rel;
  }

  /** An X event's dur in ns; NaN (the event is dropped) when it has none or one that cannot be stored. */
  private durOf(e: Json, buf: Buffer): number {
    if (e.dur === undefined) { this.problem = 'no dur'; return Number.NaN; }
    this.problem = micros(buf, tokens.dur.start, tokens.dur.end, e.dur, split);
    return this.problem === null ? split.intUs * 1000 + split.fracNs : Number.NaN;
  }

  /**
   * Drops the event being handled and counts it under trace_processor's stat for the same flaw (`strict`: an
   * error naming it instead). trace_processor drops such an event too, or where it keeps one it makes a value
   * up (ts 0 for ts 1e20, dur 0 for dur 1e19, pid 0 for pid 2^64-1); gsprof keeps no made-up value.
   */
  private drop(stat: StatName, why: string): void {
    if (this.strict) throw new Error(why);
    this.sink.stat(stat);
  }

  // ---- processes, threads, tracks -------------------------------------------------------------------------

  private idOf(v: unknown): { num: number; label: string | null } {
    if (typeof v === 'number' && Number.isFinite(v)) return { num: Math.trunc(v), label: null };
    if (typeof v === 'string') {
      const s = v.trim();
      const n = numericId(s);
      if (n !== null) return { num: n, label: null };
      let num = this.stringIds.get(s);
      if (num === undefined) {
        num = this.nextSynthetic++;
        this.stringIds.set(s, num);
        // convert writes the string back where the output is JSON (see TraceTrack.pidText).
        this.sink.metadata(`json_string_id.${num}`, s);
      }
      return { num, label: s };
    }
    return { num: 0, label: null };
  }

  private process(pid: unknown): number {
    const key = String(pid);
    let upid = this.processes.get(key);
    if (upid === undefined) {
      const { num, label } = this.idOf(pid);
      upid = this.sink.addProcess(num, label);
      this.processes.set(key, upid);
      if (label !== null) this.processNaming.set(upid, { label, ts: -Infinity, name: null });
    }
    return upid;
  }

  private thread(pid: unknown, tid: unknown): number {
    const key = `${String(pid)}\u0000${String(tid)}`;
    let utid = this.threads.get(key);
    if (utid === undefined) {
      const upid = this.process(pid);
      const { num, label } = this.idOf(tid);
      utid = this.sink.addThread(num, upid, label);
      this.threads.set(key, utid);
      if (label !== null) this.threadNaming.set(utid, { label, ts: -Infinity, name: null });
    }
    return utid;
  }

  private threadTrack(pid: unknown, tid: unknown): number {
    if (pid === this.lastPid && tid === this.lastTid && this.lastTrack >= 0) return this.lastTrack;
    const key = `${String(pid)}\u0000${String(tid)}`;
    let track = this.threadTracks.get(key);
    if (track === undefined) {
      const utid = this.thread(pid, tid);
      track = this.sink.addTrack({ type: 'thread', utid, upid: this.process(pid) });
      this.threadTracks.set(key, track);
    }
    if (typeof pid !== 'object' && typeof tid !== 'object') { this.lastPid = pid; this.lastTid = tid; this.lastTrack = track; }
    return track;
  }

  private processTrack(pid: unknown): number {
    const upid = this.process(pid);
    let track = this.processTracks.get(upid);
    if (track === undefined) {
      track = this.sink.addTrack({ type: 'process', upid });
      this.processTracks.set(upid, track);
    }
    return track;
  }

  /**
   * The async track of an async event (b/e/n, S/F/T/p): one per process, category and id (`id`, or `id2` local
   * or global), named by the first event on it, as Perfetto's JSON importer does. Null (counted) without an id.
   */
  private asyncTrack(e: Json, pid: unknown, name: string | null, category: string | null): number | null {
    const id2 = (e.id2 ?? null) as Json | null;
    const id = e.id ?? id2?.local ?? id2?.global;
    if (id === undefined || id === null) { this.sink.stat('json_parser_failure'); return null; }
    const global = e.id === undefined && id2?.global !== undefined;
    const key = `${global ? '' : String(pid)}\u0000${category ?? ''}\u0000${global ? 'g' : 'l'}${String(id)}`;
    let track = this.asyncTracks.get(key);
    if (track === undefined) {
      const upid = global ? null : this.process(pid);
      track = this.sink.addTrack({ type: 'async', name, upid, parentId: upid === null ? null : this.processTrack(pid) });
      this.asyncTracks.set(key, track);
    }
    return track;
  }

  private global(): number {
    this.globalTrack ??= this.sink.addTrack({ type: 'global', name: 'Global instants' });
    return this.globalTrack;
  }

  // ---- top level ------------------------------------------------------------------------------------------

  topLevel(key: string, raw: string | null, line: number): void {
    this.flush();
    if (raw === null) { this.sink.stat('json_toplevel_value_too_large'); return; }
    if (key !== 'baseTimeNanoseconds' && key !== 'gsprofMetadata' && key !== '__proto__') this.topLevelMembers.push([key, raw.trim()]);
    if (key === '__proto__') throw new TraceFormatError(this.path, `line ${line}`, 'forbidden top-level key "__proto__"');
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new TraceFormatError(this.path, `line ${line}`, `malformed value of "${key}": ${(err as Error).message}`);
    }
    if (key === 'baseTimeNanoseconds') {
      const t = raw.trim();
      if (/^\d+$/.test(t)) { this.sink.baseOffsetNs = BigInt(t); this.sink.metadata(key, null, BigInt(t)); }
      else if (typeof value === 'number') { this.sink.baseOffsetNs = BigInt(Math.round(value)); this.sink.metadata(key, t); }
      return;
    }
    if (key === 'gsprofMetadata') {
      recordGsprofMetadata(this.sink, raw);
      const names = (value as { jsonCounterNames?: unknown } | null)?.jsonCounterNames;
      if (Array.isArray(names)) for (const n of names) if (typeof n === 'string') this.wholeCounterNames.add(n);
      return;
    }
    if (typeof value === 'string') this.sink.metadata(key, value);
    else if (typeof value === 'number' && Number.isSafeInteger(value)) this.sink.metadata(key, null, value);
    else if (typeof value === 'boolean') this.sink.metadata(key, null, value ? 1 : 0);
    else {
      if (value !== null && typeof value === 'object' && hasProtoKey(value)) {
        throw new TraceFormatError(this.path, `line ${line}`, `forbidden key "__proto__" in "${key}"`);
      }
      this.sink.metadata(key, JSON.stringify(value));
      if (key === 'deviceProperties' && Array.isArray(value)) this.sink.metadata('deviceCount', null, value.length);
      if (key === 'distributedInfo' && value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if (typeof v === 'number' && Number.isSafeInteger(v)) this.sink.metadata(`distributedInfo.${k}`, null, v);
          else if (typeof v === 'string') this.sink.metadata(`distributedInfo.${k}`, v);
        }
      }
    }
  }

  /**
   * Matches each track's begin/end events in time order (file order among equal times), as Perfetto does, with
   * the track's X slices in the same stack: a B still open when an enclosing X has ended is ended with that X
   * at the next event on the track (counted as misplaced_end_event), and the E that would have ended it then
   * finds nothing open, as in trace_processor's slice tracker.
   */
  private matchEdges(): void {
    for (const [track, list] of this.edges) {
      // Slices and flows already streamed on this track were placed without these: redo the track in SQL.
      if (this.streamed.has(track)) this.sink.nestInSql(track);
      list.sort((a, b) => a.ts - b.ts || a.order - b.order);
      const slices = this.pairEdges(list, this.xSpans.get(track) ?? [], this.lastInstant.get(track));
      // slices are in start order; among equal starts the outer (earlier in file) one comes first.
      for (const s of slices) {
        const { b } = s;
        if (s.dur < 0) this.sink.stat('json_begin_without_end');
        let argSet: number | null = null;
        if (b.args !== undefined || s.endArgs !== undefined) {
          argSet = this.sink.newArgSet();
          this.sink.argTree(argSet, 'args', mergeEndArgs(b.args, s.endArgs));
        }
        this.sink.nestStart(track, b.id, b.ts, s.dur < 0 ? Infinity : b.ts + s.dur);
        this.sink.slice(b.id, b.exact ?? b.ts, s.dur, track, b.category, b.name, argSet, this.sink.depth, this.sink.parent);
        if (s.dur === 0) this.sink.zeroDurSlice(b.id);
        else this.sink.startsInFileOrder(b.id);
        // thread_dur only from an E that ended the slice, both ends with a tts (as trace_processor).
        if (b.tts !== null) this.sink.threadTime(b.id, b.tts, s.endTts === null ? null : s.endTts - b.tts);
      }
    }
    this.edges.clear();
    this.xSpans.clear();
    this.lastInstant.clear();
  }

  /**
   * The slices of one track's sorted begin/end events, each with its duration (-1: never ended). `spans` are
   * the track's X slices (start, end pairs); at one ts an X comes after the ends and before the begins there.
   */
  private pairEdges(list: Edge[], spans: number[], lastInstant: number | undefined): Paired[] {
    const xs: number[] = [];
    for (let i = 0; i < spans.length; i += 2) xs.push(i);
    // Longest first among equal starts, as trace_processor orders X events at one ts.
    xs.sort((a, b) => spans[a]! - spans[b]! || spans[b + 1]! - spans[a + 1]! || a - b);
    const slices: Paired[] = [];
    const stack: Open[] = [];
    let x = 0;
    // Begins an X ended before their E came: that E finds nothing open, which is not another problem.
    let endedByX = 0;
    for (const ev of list) {
      while (x < xs.length && (spans[xs[x]!]! < ev.ts || (spans[xs[x]!]! === ev.ts && ev.begin))) {
        const at = xs[x++]!;
        endedByX += this.endEnclosed(stack, spans[at]!);
        const start = spans[at]!, end = spans[at + 1]!;
        // An X that ends after a complete slice it starts in is not nested in it (see the sink's spill).
        if (!stack.some((o) => o.slice === null && start < o.end && end > o.end)) stack.push({ end, slice: null });
      }
      endedByX += this.endEnclosed(stack, ev.ts);
      if (ev.begin) {
        const s: Paired = { b: ev, dur: -1, endArgs: undefined, open: true, endTts: null };
        slices.push(s);
        stack.push({ end: Infinity, slice: s });
        continue;
      }
      // As trace_processor, an end closes the innermost open slice its name and category match: a named end
      // matches a slice of that name (an unnamed B is "[No name]" there), an end with a category one of that
      // category; an end that matches none is dropped.
      let i = stack.length - 1;
      while (i >= 0 && !(stack[i]!.slice?.open && endMatches(stack[i]!.slice!.b, ev))) i--;
      if (i < 0) {
        if (endedByX > 0) endedByX--;
        else this.sink.stat('json_end_without_begin');
        continue;
      }
      const s = stack[i]!.slice!;
      s.dur = ev.exact === null && s.b.exact === null ? ev.ts - s.b.ts : Number((ev.exact ?? BigInt(ev.ts)) - (s.b.exact ?? BigInt(s.b.ts)));
      s.endArgs = ev.args;
      s.endTts = ev.tts;
      s.open = false;
      if (i === stack.length - 1) stack.pop();
      else stack[i]!.end = ev.ts;
    }
    // Events after the last begin/end (X slices, instants) still end what an ended X left open.
    const last = Math.max(spans.length > 0 ? spans[xs[xs.length - 1]!]! : -Infinity, lastInstant ?? -Infinity);
    if (last > -Infinity) this.endEnclosed(stack, last);
    return slices;
  }

  /**
   * What trace_processor does before each event at `ts` on a track: slices that ended before it leave the
   * stack, and slices still open inside a complete slice that has ended end with it (misplaced_end_event).
   * Returns how many slices it ended so.
   */
  private endEnclosed(stack: Open[], ts: number): number {
    let openAbove = false;
    let ended = 0;
    for (let i = stack.length - 1; i >= 0; i--) {
      const o = stack[i]!;
      if (o.slice?.open) { openAbove = true; continue; }
      if (!openAbove) {
        if (o.end <= ts) stack.length = i;
        continue;
      }
      if (ts <= o.end) continue;
      for (let j = i + 1; j < stack.length; j++) {
        const s = stack[j]!.slice;
        if (s?.open) { s.dur = o.end - s.b.ts; s.open = false; ended++; }
      }
      stack.length = i;
      openAbove = false;
      this.sink.stat('misplaced_end_event');
    }
    return ended;
  }

  finish(): void {
    this.matchEdges();
    for (const [upid, n] of this.processNaming) this.sink.setProcessName(upid, n.name ?? n.label);
    for (const [utid, n] of this.threadNaming) this.sink.setThreadName(utid, n.name ?? n.label);
    this.sink.metadata('trace_format', 'chrome_json');
    if (this.topLevelMembers.length > 0) this.sink.metadata('json_top_level', JSON.stringify(this.topLevelMembers));
    this.sink.metadata('event_count', null, this.events);
  }
}

/**
 * The args of a B/E pair, as trace_processor merges them: a key the end repeats takes the end's value in the
 * begin's place, arrays under one key are appended (indices go on), objects merge key by key.
 */
function mergeEndArgs(begin: unknown, end: unknown): unknown {
  if (begin === undefined) return end;
  // trace_processor drops a JSON null, so the end's null leaves the begin's value as it is.
  if (end === undefined || end === null) return begin;
  if (Array.isArray(begin) && Array.isArray(end)) return [...begin, ...end];
  if (!isObject(begin) || !isObject(end)) return end;
  const out: Json = { ...begin };
  for (const k of Object.keys(end)) out[k] = mergeEndArgs(out[k], end[k]);
  return out;
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RealArg);
}

/** Errors that mean a bug in the importer rather than bad input: never disguised as a format error. */
export function isBug(err: unknown): boolean {
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof SyntaxError && !/JSON/.test(err.message);
}

/** Drops trailing commas before '}' or ']' and escapes raw control characters inside strings. */
function repairJson(text: string): string {
  let out = '';
  let inStr = false;
  let esc = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = ch.charCodeAt(0);
    if (inStr) {
      if (esc) esc = false;
      else if (ch === '\\') esc = true;
      else if (ch === '"') inStr = false;
      else if (code < 0x20) { out += `\\u${code.toString(16).padStart(4, '0')}`; continue; }
      out += ch;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}

/** The engine's stack overflow on deeply nested JSON, said plainly. */
function tooDeep(err: unknown): string | null {
  return err instanceof RangeError && /call stack/i.test(err.message) ? 'event nested too deeply to read' : null;
}

function endMatches(begin: Edge, end: Edge): boolean {
  return (end.category === null || begin.category === end.category) && (end.name === null || (begin.name ?? '[No name]') === end.name);
}

/** A thread time field (µs, a number or a numeric string) in ns, rounded as trace_processor does; null if none. */
function threadNs(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? Math.round(n * 1000) : null;
}

/** The text of events: an ASCII run (most traces) decodes as latin1, byte for byte, at about half UTF-8's cost. */
function decodeText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** `n` events' text (commas between them) as one array, or null when it does not parse to exactly `n` elements. */
function parseAll(events: string, n: number): unknown[] | null {
  // An event with a "__proto__" key goes through the one-by-one path, which refuses it.
  if (events.includes('"__proto__"')) return null;
  try {
    const all: unknown = JSON.parse(`[${events}]`);
    return Array.isArray(all) && all.length === n ? all : null;
  } catch {
    return null;
  }
}

/** Any number in `v` at or past ±2^53, where a double may not be the integer the text holds (rare). */
function hasUnsafeInt(v: unknown, depth: number): boolean {
  if (typeof v === 'number') return v >= 9007199254740992 || v <= -9007199254740992;
  if (v === null || typeof v !== 'object' || depth > 64) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (hasUnsafeInt(x, depth + 1)) return true;
    return false;
  }
  for (const k in v) if (hasUnsafeInt((v as Json)[k], depth + 1)) return true;
  return false;
}

/** What a marked token reads as once parsed (the NUL keeps it apart from any ordinary string). */
const EXACT_INT = '\u0000gsprof-int:';
const EXACT_REAL = '\u0000gsprof-real:';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Re-reads an event's args from its text with integer tokens past 2^53 as exact bigints (int64 args, as
 * trace_processor keeps them), and reals whose value is an integer (`1.0`) as RealArg (trace_processor types them
 * real, JSON.parse gives an integer); tokens past int64 stay doubles. Each such token becomes a marked string for
 * JSON.parse, turned back after. Only events that may hold such a number come here.
 */
function exactArgs(e: Json, text: string): void {
  if (text.includes('gsprof-int:') || text.includes('gsprof-real:')) return;
  let out = '';
  let from = 0;
  let i = 0;
  let replaced = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, escapes included.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) { i++; continue; }
    let j = i + 1;
    while (j < text.length && /[0-9eE.+-]/.test(text[j]!)) j++;
    const token = text.slice(i, j);
    if (/^-?\d{16,}$/.test(token)) {
      const v = BigInt(token);
      if (v >= INT64_MIN && v <= INT64_MAX && !Number.isSafeInteger(Number(v))) {
        out += `${text.slice(from, i)}"\\u0000gsprof-int:${token}"`;
        from = j;
        replaced = true;
      }
    } else if (/[.eE]/.test(token) && Number.isInteger(Number(token))) {
      out += `${text.slice(from, i)}"\\u0000gsprof-real:${token}"`;
      from = j;
      replaced = true;
    }
    i = j;
  }
  if (!replaced) return;
  out += text.slice(from);
  let exact: unknown;
  try {
    exact = JSON.parse(out);
  } catch {
    // An event that parsed only once repaired (see repairJson); one that still does not keeps its doubles.
    try { exact = JSON.parse(repairJson(out)); } catch { return; }
  }
  e.args = withExactNumbers((exact as Json).args, 0);
}

function withExactNumbers(v: unknown, depth: number): unknown {
  if (typeof v === 'string') {
    return v.startsWith(EXACT_INT) ? BigInt(v.slice(EXACT_INT.length))
      : v.startsWith(EXACT_REAL) ? new RealArg(Number(v.slice(EXACT_REAL.length))) : v;
  }
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => withExactNumbers(x, depth + 1));
  for (const k of Object.keys(v)) (v as Json)[k] = withExactNumbers((v as Json)[k], depth + 1);
  return v;
}

function hasArgs(e: Json): boolean {
  const a = e.args;
  if (a === undefined || a === null) return false;
  if (typeof a !== 'object') return true;
  for (const _ in a) return true;
  return false;
}

function hasProtoKey(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object' || depth > 64) return false;
  if (Object.hasOwn(v, '__proto__')) return true;
  for (const k of Object.keys(v)) if (hasProtoKey((v as Json)[k], depth + 1)) return true;
  return false;
}

/** Byte range of the number token of the event's top-level "ts" or "dur" ([-1, -1] when absent or not a number). */
interface TokenRange { start: number; end: number }
const tokens = { ts: { start: -1, end: -1 }, dur: { start: -1, end: -1 } };
const split = { intUs: 0, fracNs: 0 };
/** |µs| past which the ns no longer fit in int64 (2^63 ns ≈ 9.22e18 ns = 9.22e15 µs). */
const MAX_US = 9.2e15;

function isWs(c: number | undefined): boolean { return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; }

/** The number token that starts after optional whitespace at `at` (just past a key's colon, or -1). */
function numberToken(buf: Buffer, at: number, end: number, out: TokenRange): void {
  out.start = out.end = -1;
  if (at < 0) return;
  let k = at;
  while (k < end && isWs(buf[k])) k++;
  let m = k;
  while (m < end) {
    const d = buf[m]!;
    if ((d >= 0x30 && d <= 0x39) || d === 0x2d || d === 0x2b || d === 0x2e || d === 0x65 || d === 0x45) m++;
    else break;
  }
  if (m > k) { out.start = k; out.end = m; }
}

/**
 * Splits a µs number token into integer µs and the remaining ns (rounded half up), exactly for plain decimals
 * whose integer part is below 2^53, a string holding one too ("5.5" reads as trace_processor reads it); other
 * forms (exponents) go through the parsed double.
 */
function micros(buf: Buffer, s: number, e: number, parsed: unknown, out: { intUs: number; fracNs: number }): string | null {
  if (s >= 0) {
    const done = plainMicros(buf, s, e, out);
    if (done !== undefined) return done;
  } else if (typeof parsed === 'string' && /^\s*-?\d+(\.\d*)?\s*$/.test(parsed)) {
    const text = Buffer.from(parsed.trim(), 'latin1');
    const done = plainMicros(text, 0, text.length, out);
    if (done !== undefined) return done;
  }
  // A number, or a string holding one ("5.5" reads as trace_processor reads it); true, null or "" are no time.
  const v = typeof parsed === 'number' ? parsed : typeof parsed === 'string' && parsed.trim() !== '' ? Number(parsed) : Number.NaN;
  if (!Number.isFinite(v)) return `time ${JSON.stringify(parsed)} is not a number`;
  // Trace tables hold int64 ns: past ±9.2e12 µs a time cannot be stored.
  if (Math.abs(v) > MAX_US) return `time ${String(parsed)} µs is out of range (at most ±${MAX_US} µs)`;
  const intUs = Math.floor(v);
  out.intUs = intUs;
  out.fracNs = Math.round((v - intUs) * 1000);
  return null;
}

/**
 * The exact split of a plain decimal (`-123.4567`) of at most 16 integer digits in bytes [s, e); undefined when
 * the bytes are not one; an error text when it is out of range.
 */
function plainMicros(buf: Buffer, s: number, e: number, out: { intUs: number; fracNs: number }): string | null | undefined {
  let i = s;
  const neg = buf[i] === 0x2d;
  if (neg) i++;
  let intAbs = 0;
  const intStart = i;
  while (i < e && buf[i]! >= 0x30 && buf[i]! <= 0x39) { intAbs = intAbs * 10 + (buf[i]! - 0x30); i++; }
  if (!(i > intStart && i - intStart <= 16 && Number.isSafeInteger(intAbs))) return undefined;
  let fracNs = 0;
  if (i < e) {
    if (buf[i] !== 0x2e) return undefined;
    i++;
    let digits = 0;
    let round = 0;
    while (i < e && buf[i]! >= 0x30 && buf[i]! <= 0x39) {
      if (digits < 3) fracNs = fracNs * 10 + (buf[i]! - 0x30);
      else if (digits === 3) round = buf[i]! >= 0x35 ? 1 : 0;
      digits++;
      i++;
    }
    for (let d = digits; d < 3; d++) fracNs *= 10;
    fracNs += round;
    if (i < e) return undefined;
  }
  if (intAbs > MAX_US) return `time ${buf.toString('latin1', s, e)} µs is out of range (at most ±${MAX_US} µs)`;
  if (neg && fracNs > 0) { out.intUs = -intAbs - 1; out.fracNs = 1000 - fracNs; }
  else { out.intUs = neg ? -intAbs : intAbs; out.fracNs = fracNs; }
  return null;
}

/** An integer pid or tid that fits the int64 id columns (a string is an id of its own; absent is 0). */
function storableId(v: unknown): boolean {
  return typeof v !== 'number' || (Number.isFinite(v) && Math.abs(v) < 2 ** 63);
}
