/**
 * Where importers put what they read: rows go to DuckDB in 2048-row chunks (so memory does not grow with the
 * file), while the few processes, threads and tracks are kept in maps and written at the end.
 * `finalize` nests again the tracks whose events came out of time order (from their kept events, else in SQL)
 * and binds their flows, then builds the public tables.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { childArgPath, pathOfArgKey, type ArgPath } from './arg-path.js';
import { nullRowSink, type Cell, type RowSink } from './column-buffer.js';
import { statRows, type StatName } from './import-stats.js';
import { RealArg } from '../model/trace.js';
import {
  BIND_DIRECT, BIND_ENCLOSING, BIND_NEXT, FLOW_DDL, FLOW_START, LAUNCH_DDL, publicViewsDdl,
} from '../sql/schema.js';

export type ArgScalar = string | number | boolean | bigint | null | RealArg;

/** An arg held back by `beginArgCapture`; `empty` marks an empty array or object (value '[]' or '{}'). */
export interface CapturedArg { key: string; value: ArgScalar; path: ArgPath | null; empty?: boolean }

/**
 * The args of a slice's begin and end, as trace_processor merges them: an arg whose key the begin has takes the
 * end's value in the begin's place; the end's array elements go on from the begin's last index under that key.
 */
export function mergeArgs(begin: CapturedArg[], end: CapturedArg[]): CapturedArg[] {
  const counts = new Map<string, number>();
  for (const a of begin) {
    for (const m of a.key.matchAll(/\[(\d+)\]/g)) {
      const prefix = a.key.slice(0, m.index);
      counts.set(prefix, Math.max(counts.get(prefix) ?? 0, Number(m[1]) + 1));
    }
  }
  const out = [...begin];
  const byKey = new Map(out.map((a, i) => [a.key, i]));
  for (const a of end) {
    let key = '';
    let last = 0;
    const shifts: number[] = [];
    for (const m of a.key.matchAll(/\[(\d+)\]/g)) {
      key += a.key.slice(last, m.index);
      const shift = counts.get(key) ?? 0;
      shifts.push(shift);
      key += `[${Number(m[1]) + shift}]`;
      last = m.index + m[0].length;
    }
    key += a.key.slice(last);
    let k = 0;
    const path = a.path === null ? null : a.path.map((p) => (typeof p === 'number' ? p + (shifts[k++] ?? 0) : p));
    const moved = { ...a, key, path };
    const at = byKey.get(key);
    // trace_processor drops a JSON null: the end's null leaves the begin's value as it is.
    if (a.empty && a.value === 'null' && at !== undefined) continue;
    if (at === undefined) { byKey.set(key, out.length); out.push(moved); } else out[at] = moved;
  }
  return out;
}

/**
 * A relative ns time given as a number that is no safe integer, for a BIGINT ts column: past 2^53 ns from the
 * origin (an importer that has no exact value, as pftrace's relParts far from the origin) the nearest integer,
 * as the DOUBLE staging stored it before; not finite, left for the column to refuse.
 */
function timeCell(ts: number): Cell {
  return Number.isFinite(ts) && Math.abs(ts) < 2 ** 63 ? BigInt(Math.round(ts)) : ts;
}

export type TrackType = 'thread' | 'process' | 'async' | 'counter' | 'global';

interface TrackInfo {
  id: number;
  name: string | null;
  type: TrackType;
  parentId: number | null;
  utid: number | null;
  upid: number | null;
  unit: string | null;
}

interface PendingFlow { key: string; seq: number; kind: number; ts: number }

/** Open slices of one track (innermost last) and the order check of its events. */
interface NestState {
  ids: number[];
  starts: number[];
  ends: number[];
  lastTs: number;
  lastDur: number;
  unordered: boolean;
  /** Flow events waiting for the next slice to start on this track. */
  pendingNext: PendingFlow[];
  /** What the track's nesting needs, kept to nest it again in time order (see `replayUnordered`); null: not kept. */
  kept: KeptEvents | null;
}

/**
 * A track's slices (id, start, end) and flow events bound to their enclosing slice, in file order. The flow
 * events are written at the end, bound in time order; those of a track that is never replayed, as streamed.
 */
interface KeptEvents { ids: number[]; starts: number[]; ends: number[]; flows: KeptFlow[] }
interface KeptFlow { key: string; seq: number; kind: number; ts: number; streamed: number | null }

/**
 * Slices kept for replay over all tracks: 24 bytes each, so at most about 24 MiB. Past it nothing more is kept
 * and the tracks found out of order are nested in SQL, as every such track was before replays.
 */
const MAX_KEPT_SLICES = 1 << 20;
/** A kept flow event, an object of about 100 bytes, counts as this many slices. */
const KEPT_FLOW_WEIGHT = 4;

function newNestState(keep: boolean): NestState {
  return { ids: [], starts: [], ends: [], lastTs: -Infinity, lastDur: Infinity, unordered: false, pendingNext: [],
    kept: keep ? { ids: [], starts: [], ends: [], flows: [] } : null };
}

interface ProcessInfo { upid: number; pid: number; name: string | null }
interface ThreadInfo { utid: number; tid: number; name: string | null; upid: number | null }

/**
 * A flattened arg key, made once (see `argKeyRoot`, `argKeyChild`): its id in _string once a row used it (-1
 * before), its path (see `arg`), the JSON of that path (`path`, else the key's own; every arg row under it may need
 * it), its children, and its children as pftrace annotations name them (`annotated`, see `argKeyAnnotation`).
 */
export interface ArgKey {
  key: string; id: number; path: ArgPath | null; pathJson: string | null; children: Map<string | number, ArgKey> | null;
  annotated: Map<string, ArgKey> | null;
}

/** A made key, with nothing found for it yet (its id, path JSON, children). */
function newArgKey(key: string, path: ArgPath | null): ArgKey {
  return { key, id: -1, path, pathJson: null, children: null, annotated: null };
}

/** The path of an arg key's value: its own where the key does not read back as it, else the key's. */
function argKeyPath(node: ArgKey): ArgPath {
  return node.path ?? pathOfArgKey(node.key);
}

/** The staging tables that importers' rows stream into, in STAGING_DDL. */
export const STAGED_TABLES = ['_slice_raw', '_counter_raw', '_args_int', '_args_real', '_args_str', '_args_bool', '_flow_event', '_string', 'arg_shape', '_nest'] as const;
export type StagedTable = (typeof STAGED_TABLES)[number];
export type StagedRows = Record<StagedTable, RowSink>;

/** A sink's tables and counts that are not staged rows (see `exportState`): plain data another thread can take. */
export interface SinkState {
  origin: bigint | null;
  baseOffsetNs: bigint;
  sameTsInFileOrder: boolean;
  processes: ProcessInfo[];
  threads: ThreadInfo[];
  tracks: TrackInfo[];
  meta: Map<string, { str: string | null; int: bigint | null }>;
  flowNames: Map<string | null, { category: string; name: string }>;
  stats: Map<string, number>;
  unordered: Set<number>;
  tracksReplayed: number;
  spills: { trackId: number; renested: boolean }[];
  zeroDurSlices: number[];
  threadTimes: number[];
  fileOrderStarts: number[];
}

export class TraceSink {
  /** Absolute ns of relative time 0 (set from the first timestamp an importer sees). */
  origin: bigint | null = null;
  /** Added to every timestamp at the end (Kineto baseTimeNanoseconds, known only after the events). */
  baseOffsetNs = 0n;

  private readonly processes: ProcessInfo[] = [];
  private readonly threads: ThreadInfo[] = [];
  private readonly tracks: TrackInfo[] = [];
  private readonly meta = new Map<string, { str: string | null; int: bigint | null }>();
  private readonly flowNames = new Map<string | null, { category: string; name: string }>();
  private readonly stats = new Map<string, number>();
  private nextSlice = 0;
  private nextCounter = 0;
  private nextArgSet = 0;
  private nextFlowSeq = 0;

  /** Arg keys by prefix (`args`, `debug`), each with its children (see `argKeyChild`). */
  private readonly argKeys = new Map<string, ArgKey>();
  private argKeyCount = 0;
  /** Interned strings (names, categories, arg keys) -> id in _string; cleared when large to bound memory. */
  private readonly strings = new Map<string, number>();
  private nextString = 0;
  private readonly sliceRow: Cell[] = new Array<Cell>(9);
  private readonly flowRow: Cell[] = new Array<Cell>(8);
  private readonly nests = new Map<number, NestState>();
  /**
   * Slices starting at one ts nest in the order they were written (Perfetto protobuf: trace_processor sorts by
   * ts only, so an instant written before a begin at its ts stays outside it), not longest first (JSON).
   */
  sameTsInFileOrder = false;
  /** Depth and parent id of the slice passed to the last `nestStart`. */
  depth = 0;
  parent: number | null = null;
  /** Tracks whose events did not arrive in time order: their nesting and flow binding are done in SQL. */
  private readonly unordered = new Set<number>();
  /** Tracks out of order that were nested again from their kept events (see `replayUnordered`). */
  private tracksReplayed = 0;
  /** Slices kept for replays so far; past MAX_KEPT_SLICES none are. */
  private keptSlices = 0;
  /** Complete slices that overflow the slice they start in (see `place`). */
  private readonly spills: { trackId: number; renested: boolean }[] = [];
  /** The (set, key id, value, id) row of an arg, for whichever of the args tables takes it. */
  private readonly argRow: Cell[] = new Array<Cell>(4);
  private captured: CapturedArg[] | null = null;
  /**
   * The next arg's place, in read order: args.id, and arg_shape.arg_id of a null, an empty array or object
   * (which have no args row). Staged, since the row order of a DuckDB table is not kept (preserve_insertion_order off).
   */
  private nextArg = 0;
  /** Slices of dur 0 that are not instants (the zero_dur_slice table). */
  private readonly zeroDurSlices: number[] = [];
  /** (slice id, thread_ts, thread_dur) triples, NaN for NULL: few traces carry thread time, so it stays apart. */
  private readonly threadTimes: number[] = [];
  /** Slices that start in file order among those at their ts whatever their duration (see `startsInFileOrder`). */
  private readonly fileOrderStarts: number[] = [];

  private readonly sliceOut: RowSink;
  private readonly counterOut: RowSink;
  private readonly argsIntOut: RowSink;
  private readonly argsRealOut: RowSink;
  private readonly argsStrOut: RowSink;
  private readonly argsBoolOut: RowSink;
  private readonly flowOut: RowSink;
  private readonly stringOut: RowSink;
  private readonly argShapeOut: RowSink;
  private readonly nestOut: RowSink;

  /** `connection` holds the staging tables (STAGING_DDL) that `rows` fill; without one, `finalize` only closes `rows`. */
  constructor(private readonly connection: DuckDBConnection | null, rows: StagedRows) {
    this.sliceOut = rows._slice_raw;
    this.counterOut = rows._counter_raw;
    this.argsIntOut = rows._args_int;
    this.argsRealOut = rows._args_real;
    this.argsStrOut = rows._args_str;
    this.argsBoolOut = rows._args_bool;
    this.flowOut = rows._flow_event;
    this.stringOut = rows._string;
    this.argShapeOut = rows.arg_shape;
    this.nestOut = rows._nest;
  }

  /** A sink that discards rows: runs an importer's parsing and checks only (see validateTrace). */
  static detached(): TraceSink {
    return new TraceSink(null, Object.fromEntries(STAGED_TABLES.map((t) => [t, nullRowSink])) as StagedRows);
  }

  /**
   * What `finalize` needs besides the staged rows, from a sink without a database whose rows went to the database
   * another way (the JSON import worker's sink; see import-thread.ts). Valid once that sink's `finalize` ran.
   */
  exportState(): SinkState {
    return {
      origin: this.origin, baseOffsetNs: this.baseOffsetNs, sameTsInFileOrder: this.sameTsInFileOrder,
      processes: this.processes, threads: this.threads, tracks: this.tracks, meta: this.meta,
      flowNames: this.flowNames, stats: this.stats, unordered: this.unordered, tracksReplayed: this.tracksReplayed,
      spills: this.spills,
      zeroDurSlices: this.zeroDurSlices, threadTimes: this.threadTimes, fileOrderStarts: this.fileOrderStarts,
    };
  }

  /** Takes over another sink's `exportState`, for a sink whose staging tables got that sink's rows. */
  adopt(s: SinkState): void {
    this.origin = s.origin;
    this.baseOffsetNs = s.baseOffsetNs;
    this.sameTsInFileOrder = s.sameTsInFileOrder;
    // Loops, not push(...a): a spread of a long array overflows the call stack.
    for (const p of s.processes) this.processes.push(p);
    for (const t of s.threads) this.threads.push(t);
    for (const t of s.tracks) this.tracks.push(t);
    for (const [k, v] of s.meta) this.meta.set(k, v);
    for (const [k, v] of s.flowNames) this.flowNames.set(k, v);
    for (const [k, v] of s.stats) this.stats.set(k, v);
    for (const t of s.unordered) this.unordered.add(t);
    this.tracksReplayed += s.tracksReplayed;
    for (const x of s.spills) this.spills.push(x);
    for (const id of s.zeroDurSlices) this.zeroDurSlices.push(id);
    for (const v of s.threadTimes) this.threadTimes.push(v);
    for (const id of s.fileOrderStarts) this.fileOrderStarts.push(id);
  }

  private intern(s: string | null): number | null {
    if (s === null) return null;
    let id = this.strings.get(s);
    if (id === undefined) {
      if (this.strings.size >= 1 << 20) this.strings.clear(); // ids stay valid: _string keeps every row
      id = this.nextString++;
      this.strings.set(s, id);
      this.stringOut.row([id, s]);
    }
    return id;
  }

  private get conn(): DuckDBConnection {
    if (!this.connection) throw new Error('detached trace sink has no database');
    return this.connection;
  }

  // ---- processes, threads, tracks -------------------------------------------------------------------------

  addProcess(pid: number, name: string | null = null): number {
    const upid = this.processes.length;
    this.processes.push({ upid, pid, name });
    return upid;
  }
  setProcessName(upid: number, name: string): void {
    const p = this.processes[upid];
    if (p) p.name = name;
  }
  processName(upid: number): string | null { return this.processes[upid]?.name ?? null; }

  addThread(tid: number, upid: number | null, name: string | null = null): number {
    const utid = this.threads.length;
    this.threads.push({ utid, tid, name, upid });
    return utid;
  }
  setThreadName(utid: number, name: string): void {
    const t = this.threads[utid];
    if (t) t.name = name;
  }
  threadName(utid: number): string | null { return this.threads[utid]?.name ?? null; }

  addTrack(t: Partial<Omit<TrackInfo, 'id'>> & { type: TrackType }): number {
    const id = this.tracks.length;
    this.tracks.push({ id, name: t.name ?? null, type: t.type, parentId: t.parentId ?? null, utid: t.utid ?? null,
      upid: t.upid ?? null, unit: t.unit ?? null });
    return id;
  }
  updateTrack(id: number, patch: Partial<Omit<TrackInfo, 'id'>>): void {
    const t = this.tracks[id];
    if (t) Object.assign(t, patch);
  }
  track(id: number): Readonly<TrackInfo> | undefined { return this.tracks[id]; }

  // ---- rows ------------------------------------------------------------------------------------------------

  newSliceId(): number { return this.nextSlice++; }

  /**
   * One slice row. `depth`/`parent` are what `nestStart` gave this slice (`this.depth`, `this.parent` right after
   * the call); tracks found out of order get theirs recomputed at the end. `ts` is a bigint where a number
   * would not be exact (2^53 ns or more from the origin); what nests it may take the number near it.
   */
  slice(id: number, ts: number | bigint, dur: number, trackId: number, category: string | null, name: string | null,
    argSetId: number | null, depth: number, parent: number | null): void {
    const r = this.sliceRow;
    r[0] = id; r[1] = typeof ts === 'number' && !Number.isSafeInteger(ts) ? timeCell(ts) : ts; r[2] = dur; r[3] = trackId; r[4] = this.intern(category); r[5] = this.intern(name);
    r[6] = argSetId; r[7] = depth; r[8] = parent;
    this.sliceOut.row(r);
  }

  /** The slice `id`, of dur 0, was written as a slice (a JSON X, a pftrace BEGIN/END), not as an instant. */
  zeroDurSlice(id: number): void { this.zeroDurSlices.push(id); }

  /** The slice's thread time (slice.thread_ts, thread_dur, in ns; null: NULL, as trace_processor leaves it). */
  threadTime(id: number, ts: number | null, dur: number | null): void {
    if (ts !== null || dur !== null) this.threadTimes.push(id, ts ?? NaN, dur ?? NaN);
  }

  /**
   * The slice `id` (a JSON B/E pair) starts in file order among the slices that start at its ts, after those
   * that sort longest first (JSON X): trace_processor sorts the events at one ts by duration for X events only.
   */
  startsInFileOrder(id: number): void { this.fileOrderStarts.push(id); }

  /** One counter value; `ts` a bigint where a number would not be exact, as for `slice`. */
  counter(ts: number | bigint, trackId: number, value: number): void {
    this.counterOut.row([this.nextCounter++, typeof ts === 'number' && !Number.isSafeInteger(ts) ? timeCell(ts) : ts, trackId, value]);
  }

  // ---- nesting, computed while reading when a track's events come in time order ------------------------------

  /**
   * A slice starts on a track (`end` = Infinity while a B/BEGIN is open). When every slice and flow event of a
   * track arrives in (ts, longest first) order, a stack of open slices gives depth and parent right here, in
   * memory proportional to the nesting depth. A track that breaks the order is redone in SQL at the end.
   */
  nestStart(trackId: number, id: number, ts: number, end: number, complete = false): void {
    const st = this.nestState(trackId);
    if (!st.unordered) {
      const dur = end - ts;
      if (ts < st.lastTs || (ts === st.lastTs && dur > st.lastDur && !this.sameTsInFileOrder)) this.markUnordered(trackId, st);
      st.lastTs = ts;
      st.lastDur = dur;
    }
    const kept = st.kept;
    if (kept !== null) {
      // A replay nests complete slices and instants only: a B/BEGIN's end and a legacy X's dropping belong to SQL.
      if (!complete && end !== ts) this.dropKept(trackId, st);
      else {
        kept.ids.push(id); kept.starts.push(ts); kept.ends.push(end);
        this.keepMore(1);
      }
    }
    if (this.place(st, id, ts, end, complete)) this.spills.push({ trackId, renested: false });
    if (st.pendingNext.length > 0) {
      for (const f of st.pendingNext) this.writeFlow(f.key, f.seq, f.kind, f.ts, trackId, BIND_NEXT, null, id);
      st.pendingNext = [];
    }
  }

  /**
   * Puts a slice on a track's stack of open slices: sets `depth` and `parent`, and says whether it spills. As
   * trace_processor, a complete slice (X) that ends after the open slice it starts in cannot nest there: it
   * goes to depth 0 with no parent, and later slices nest as if it were not there. trace_processor puts it on
   * an overflow track of the thread, merged back onto the thread for display; here it stays on its track, so
   * that what is reported per track (a thread, a GPU stream) is not split in two.
   */
  private place(st: NestState, id: number, ts: number, end: number, complete: boolean): boolean {
    const { ids, starts, ends } = st;
    // As trace_processor: a zero-length slice stays open for the zero-length slices that start at its ts (they
    // nest: 0, 1, 2...), and only a longer one closes it; a longer slice closes where it ends.
    for (let top = ends.length - 1; top >= 0; top--) {
      const e = ends[top]!;
      if (e > ts || (e === ts && starts[top] === e && end === ts)) break;
      ids.pop(); starts.pop(); ends.pop();
    }
    if (complete && ends.length > 0 && end > ends[ends.length - 1]!) {
      this.depth = 0;
      this.parent = null;
      return true;
    }
    this.depth = ids.length;
    this.parent = this.depth === 0 ? null : ids[this.depth - 1]!;
    ids.push(id); starts.push(ts); ends.push(end);
    return false;
  }

  /**
   * Whether a complete slice [ts, end) would end after the innermost slice still open at ts, on a track read in
   * time order so far (false when that slice is a B/BEGIN not yet ended, or the track's nesting is left to SQL).
   */
  overflows(trackId: number, ts: number, end: number): boolean {
    const st = this.nests.get(trackId);
    if (!st || st.unordered || ts < st.lastTs) return false;
    for (let k = st.ends.length - 1; k >= 0; k--) if (st.ends[k]! > ts) return end > st.ends[k]!;
    return false;
  }

  /** A B/BEGIN slice ends: its stack entry gets its end time. */
  nestEnd(trackId: number, id: number, end: number): void {
    const st = this.nestState(trackId);
    const { ids, ends } = st;
    for (let k = ids.length - 1; k >= 0; k--) {
      if (ids[k] !== id) continue;
      ends[k] = end;
      // A slice still open above it that outlives it means improper nesting: let SQL sort it out.
      for (let j = k + 1; j < ids.length; j++) if (ends[j]! > end) this.markUnordered(trackId, st);
      // In a pftrace an END closes its slice for what follows in the file, a zero-length one too (place keeps
      // a zero-length slice open for what starts at its ts): as trace_processor, an instant after it is a sibling.
      if (this.sameTsInFileOrder && k === ids.length - 1 && st.starts[k] === end) { ids.pop(); st.starts.pop(); ends.pop(); }
      return;
    }
  }

  private nestState(trackId: number): NestState {
    let st = this.nests.get(trackId);
    if (!st) {
      st = newNestState(this.keptSlices < MAX_KEPT_SLICES);
      this.nests.set(trackId, st);
    }
    return st;
  }

  /** Has a track's nesting and flow binding done in SQL (an importer emits its slices out of time order). */
  nestInSql(trackId: number): void {
    const st = this.nestState(trackId);
    this.dropKept(trackId, st);
    this.markUnordered(trackId, st);
  }

  /** Counts what was kept for replays; past MAX_KEPT_SLICES every track stops keeping. */
  private keepMore(slices: number): void {
    this.keptSlices += slices;
    if (this.keptSlices >= MAX_KEPT_SLICES) for (const [t, s] of this.nests) this.dropKept(t, s);
  }

  /** Stops keeping a track's events for a replay: its kept flow events are written as streamed. */
  private dropKept(trackId: number, st: NestState): void {
    if (st.kept === null) return;
    for (const f of st.kept.flows) this.writeFlow(f.key, f.seq, f.kind, f.ts, trackId, BIND_ENCLOSING, null, f.streamed);
    st.kept = null;
  }

  /**
   * Nests each track found out of order whose events were kept again, in time order: its slices sorted as SQL
   * sorts them (ts, then longest first or file order, then id), its flow events after the slices starting at
   * their ts, through the same stack as streaming. Each slice's depth and parent go to _nest. This is what
   * `nestAndBind` computes in SQL, in a fraction of its time; the tracks not kept are left to it.
   */
  private replayUnordered(): void {
    for (const [trackId, st] of this.nests) {
      const kept = st.kept;
      if (kept === null) continue;
      if (!st.unordered) { this.dropKept(trackId, st); continue; }
      st.kept = null;
      const { ids, starts, ends, flows } = kept;
      const fileOrder = this.sameTsInFileOrder;
      const order = Array.from(ids.keys()).sort((a, b) => starts[a]! - starts[b]!
        || (fileOrder ? 0 : (ends[b]! - starts[b]!) - (ends[a]! - starts[a]!)) || ids[a]! - ids[b]!);
      flows.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
      const replay = newNestState(false);
      const row: Cell[] = [0, 0, null];
      let f = 0;
      for (let k = 0; k <= order.length; k++) {
        const i = order[k];
        const ts = i === undefined ? Infinity : starts[i]!;
        for (; f < flows.length && flows[f]!.ts < ts; f++) {
          const fl = flows[f]!;
          this.writeFlow(fl.key, fl.seq, fl.kind, fl.ts, trackId, BIND_ENCLOSING, null, this.enclosing(replay, fl.ts));
        }
        if (i === undefined) break;
        if (this.place(replay, ids[i]!, ts, ends[i]!, true)) this.spills.push({ trackId, renested: true });
        row[0] = ids[i]!; row[1] = this.depth; row[2] = this.parent;
        this.nestOut.row(row);
      }
      // What streaming found on this track is void; the replay's spills stand.
      for (let k = this.spills.length - 1; k >= 0; k--) {
        const s = this.spills[k]!;
        if (s.trackId === trackId && !s.renested) this.spills.splice(k, 1);
      }
      this.unordered.delete(trackId);
      this.tracksReplayed++;
    }
  }

  private markUnordered(trackId: number, st: NestState): void {
    if (st.unordered) return;
    st.unordered = true;
    this.unordered.add(trackId);
  }

  newArgSet(): number { return this.nextArgSet++; }

  /**
   * One arg row; `key` keeps array indices (`a[1]`), `flat_key` (made in SQL) drops them, as in Perfetto.
   * `path` is given where the key would read back as another structure (an object key with a dot or a bracket:
   * Kineto's "est. achieved occupancy %"), so that convert can rebuild the value (see arg-path.ts); it goes to
   * the arg_shape table, not into a column of args, which would cost every row of a large import.
   * Staged as (set, key id, value, id) in the args table of its type (see STAGING_DDL).
   */
  arg(argSetId: number, key: string, value: ArgScalar, path: ArgPath | null = null): void {
    if (this.captured) { this.captured.push({ key, value, path }); return; }
    this.stageArg(argSetId, this.intern(key)!, value, path === null ? null : JSON.stringify(path));
  }

  /** `pathJson`: the JSON of the arg's path, where its key does not read back as it (see `arg`). */
  private stageArg(argSetId: number, keyId: number, value: ArgScalar, pathJson: string | null): void {
    const r = this.argRow;
    r[0] = argSetId; r[1] = keyId;
    let out: RowSink;
    if (value === null) { r[2] = null; out = this.argsIntOut; }
    else if (typeof value === 'string') { r[2] = value; out = this.argsStrOut; }
    else if (typeof value === 'boolean') { r[2] = value ? 1 : 0; out = this.argsBoolOut; }
    else if (typeof value === 'bigint') {
      const int64 = BigInt.asIntN(64, value) === value;
      r[2] = int64 ? value : value.toString();
      out = int64 ? this.argsIntOut : this.argsStrOut;
    } else if (value instanceof RealArg) { r[2] = value.value; out = this.argsRealOut; }
    else { r[2] = value; out = Number.isSafeInteger(value) ? this.argsIntOut : this.argsRealOut; }
    r[3] = this.nextArg++;
    if (pathJson !== null) this.argShapeOut.row([argSetId, r[3], pathJson, null]);
    out.row(r);
  }

  /**
   * Writes a JSON-like value as args under `prefix`, flattening objects (a.b) and arrays (a[0]). A null, an empty
   * array or an empty object has no args row, as in Perfetto (trace_processor drops a JSON null): it goes to
   * arg_shape, so that convert writes it back. `path` is the prefix's path where its key does not read back as it.
   */
  argTree(argSetId: number, prefix: string, value: unknown, depth = 0, path: ArgPath | null = null): void {
    this.argTreeAt(argSetId, this.argKeyRoot(prefix, path), value, depth);
  }

  /** `argTree` under a made key (see `argKeyRoot`, `argKeyChild`). */
  argTreeAt(argSetId: number, node: ArgKey, value: unknown, depth: number): void {
    if (value === null) { this.emptyArg(argSetId, node, 'null'); return; }
    if (typeof value !== 'object' || value instanceof RealArg) {
      if (value === undefined) return;
      this.argAt(argSetId, node, value as ArgScalar);
      return;
    }
    if (depth > 32) { this.argAt(argSetId, node, JSON.stringify(value)); return; }
    if (Array.isArray(value)) {
      if (value.length === 0) { this.emptyArg(argSetId, node, '[]'); return; }
      // As trace_processor indexes: a null element takes no index (an empty array or object does).
      let index = 0;
      for (let i = 0; i < value.length; i++) {
        const element = value[i];
        this.argTreeAt(argSetId, this.argKeyElement(node, index, i), element, depth + 1);
        if (element !== null) index++;
      }
      return;
    }
    // for-in, not Object.keys: no array per object (a Kineto trace has one args object per event).
    let empty = true;
    for (const k in value) {
      empty = false;
      this.argTreeAt(argSetId, this.argKeyChild(node, k), (value as Record<string, unknown>)[k], depth + 1);
    }
    if (empty) this.emptyArg(argSetId, node, '{}');
  }

  /** A null, an empty array or object: no args row (as in Perfetto); arg_shape keeps it at its place. */
  private emptyArg(argSetId: number, node: ArgKey, empty: 'null' | '[]' | '{}'): void {
    if (this.captured) { this.captured.push({ key: node.key, value: empty, path: node.path, empty: true }); return; }
    this.argShapeOut.row([argSetId, this.nextArg++, this.pathJsonOf(node), empty]);
  }

  /** `arg` under a made key: its string, id and path were made once for every arg under it. */
  argAt(argSetId: number, node: ArgKey, value: ArgScalar): void {
    if (this.captured) { this.captured.push({ key: node.key, value, path: node.path }); return; }
    if (node.id < 0) node.id = this.intern(node.key)!;
    this.stageArg(argSetId, node.id, value, node.path === null ? null : this.pathJsonOf(node));
  }

  private pathJsonOf(node: ArgKey): string {
    node.pathJson ??= JSON.stringify(argKeyPath(node));
    return node.pathJson;
  }

  /** The arg key `prefix` (`args`, `debug`), made once; one with a `path` of its own is made each time. */
  argKeyRoot(prefix: string, path: ArgPath | null = null): ArgKey {
    if (path !== null) return newArgKey(prefix, path);
    let root = this.argKeys.get(prefix);
    if (root === undefined) {
      root = newArgKey(prefix, null);
      this.argKeys.set(prefix, root);
    }
    return root;
  }

  /** The key `parent.name` or `parent[index]`, made once: building and hashing each key string anew for every arg was a fifth of a Kineto import. */
  argKeyChild(parent: ArgKey, name: string | number): ArgKey {
    let children = parent.children;
    if (children === null) { children = new Map(); parent.children = children; }
    let k = children.get(name);
    if (k === undefined) {
      this.countArgKey();
      const key = typeof name === 'number' ? `${parent.key}[${name}]` : `${parent.key}.${name}`;
      const path = typeof name === 'number' ? parent.path && [...parent.path, name] : childArgPath(parent.key, parent.path, name);
      k = newArgKey(key, path);
      children.set(name, k);
    }
    return k;
  }

  /**
   * The child `name` of `parent` for a pftrace annotation named so: trace_processor keys the name with '.', '['
   * and ']' as '_'; where that differs from `name`, the path keeps `name`, so that convert writes it back.
   */
  argKeyAnnotation(parent: ArgKey, name: string): ArgKey {
    let annotated = parent.annotated;
    if (annotated === null) { annotated = new Map(); parent.annotated = annotated; }
    let k = annotated.get(name);
    if (k === undefined) {
      const shown = /[.[\]]/.test(name) ? name.replace(/[.[\]]/g, '_') : name;
      if (shown === name) k = this.argKeyChild(parent, name);
      else {
        this.countArgKey();
        k = newArgKey(`${parent.key}.${shown}`, [...argKeyPath(parent), name]);
      }
      annotated.set(name, k);
    }
    return k;
  }

  /**
   * Element `at` of an array as trace_processor keys it, `index` counting only the elements before it that are
   * not null (see argTreeAt): `parent[index]`, with the path of its place in the array where the two differ.
   */
  argKeyElement(parent: ArgKey, index: number, at: number): ArgKey {
    if (index === at) return this.argKeyChild(parent, at);
    // Rare (a null earlier in the array): not kept among the made keys.
    return newArgKey(`${parent.key}[${index}]`, [...argKeyPath(parent), at]);
  }

  /** Counts a made key kept in a tree, bounded as the interned strings are: a new tree starts once this one is large (parents in use stay valid). */
  private countArgKey(): void {
    if (++this.argKeyCount > 1 << 20) { this.argKeys.clear(); this.argKeyCount = 0; }
  }

  /**
   * Args written from here to `endArgCapture` are kept, not staged: the begin of a slice whose end may repeat
   * its keys (see `mergeArgs`).
   */
  beginArgCapture(): void { this.captured = []; }
  endArgCapture(): CapturedArg[] {
    const out = this.captured ?? [];
    this.captured = null;
    return out;
  }

  /** Stages captured args under `argSetId`, in their order. */
  writeCaptured(argSetId: number, args: CapturedArg[]): void {
    for (const a of args) {
      if (a.empty) this.argShapeOut.row([argSetId, this.nextArg++, JSON.stringify(a.path ?? pathOfArgKey(a.key)), a.value as string]);
      else this.arg(argSetId, a.key, a.value, a.path);
    }
  }

  flowEvent(flowKey: string, kind: number, ts: number, trackId: number, bind: number, sliceId: number | null): void {
    const seq = this.nextFlowSeq++;
    if (bind === BIND_DIRECT) { this.writeFlow(flowKey, seq, kind, ts, trackId, bind, sliceId, sliceId); return; }
    const st = this.nestState(trackId);
    // A flow event that comes before slices it could bind to breaks the streaming order of its track, and so
    // does a slice that comes after it but starts before it (or at its ts: which of the two a flow at one ts
    // binds to is decided in SQL).
    if (ts < st.lastTs || (bind === BIND_NEXT && ts === st.lastTs)) this.markUnordered(trackId, st);
    else { st.lastTs = ts; st.lastDur = -Infinity; }
    if (bind === BIND_NEXT) {
      this.dropKept(trackId, st);
      st.pendingNext.push({ key: flowKey, seq, kind, ts });
      return;
    }
    const found = this.enclosing(st, ts);
    if (st.kept !== null) {
      st.kept.flows.push({ key: flowKey, seq, kind, ts, streamed: found });
      this.keepMore(KEPT_FLOW_WEIGHT);
    } else this.writeFlow(flowKey, seq, kind, ts, trackId, bind, null, found);
  }

  /** The deepest slice open at `ts` on a stack, as for a zero-length slice starting there: one of zero length at ts takes it too. */
  private enclosing(st: NestState, ts: number): number | null {
    const { ids, starts, ends } = st;
    for (let top = ends.length - 1; top >= 0; top--) {
      const e = ends[top]!;
      if (e > ts || (e === ts && starts[top] === e)) break;
      ids.pop(); starts.pop(); ends.pop();
    }
    return ids.length > 0 ? ids[ids.length - 1]! : null;
  }

  private writeFlow(key: string, seq: number, kind: number, ts: number, trackId: number, bind: number,
    sliceId: number | null, streamed: number | null): void {
    const r = this.flowRow;
    r[0] = key; r[1] = seq; r[2] = kind; r[3] = ts; r[4] = trackId; r[5] = bind; r[6] = sliceId; r[7] = streamed;
    this.flowOut.row(r);
  }

  /** The category and name of the flow `flowKey`, or with a null key of every pftrace flow not named so. */
  flowName(flowKey: string | null, category: string, name: string): void {
    this.flowNames.set(flowKey, { category, name });
  }

  metadata(name: string, str: string | null, int: bigint | number | null = null): void {
    this.meta.set(name, { str, int: int === null ? null : BigInt(int) });
  }
  hasMetadata(name: string): boolean { return this.meta.has(name); }

  /** Counts something the importer dropped or repaired; lands in the `stats` table (import-stats.ts). */
  stat(name: StatName, delta = 1): void { this.stats.set(name, (this.stats.get(name) ?? 0) + delta); }

  private originHi = 0;
  private originLo = 0;

  /** Relative ns of an absolute uint64 ns time given as 32-bit halves, without BigInt on the hot path. */
  relParts(hi: number, lo: number): number {
    if (this.origin === null) {
      this.origin = (BigInt(hi) << 32n) | BigInt(lo);
      this.originHi = hi;
      this.originLo = lo;
    } else if (this.originHi === -1) {
      return Number(((BigInt(hi) << 32n) | BigInt(lo)) - this.origin);
    }
    return (hi - this.originHi) * 4294967296 + (lo - this.originLo);
  }

  /** Relative ns of an absolute ns time; the first call fixes the origin. */
  rel(absNs: bigint): number {
    if (this.origin === null) { this.origin = absNs; this.originHi = -1; }
    return Number(absNs - this.origin);
  }

  // ---- finish ----------------------------------------------------------------------------------------------

  async finalize(): Promise<void> {
    this.replayUnordered();
    for (const [trackId, st] of this.nests) {
      for (const f of st.pendingNext) this.writeFlow(f.key, f.seq, f.kind, f.ts, trackId, BIND_NEXT, null, null);
      st.pendingNext = [];
    }
    for (const out of [this.sliceOut, this.counterOut, this.argsIntOut, this.argsRealOut, this.argsStrOut, this.argsBoolOut, this.flowOut, this.stringOut, this.argShapeOut, this.nestOut]) out.close();
    if (!this.connection) return;
    await this.nestAndBind();
    await this.writeSmallTables();
    const renested = this.unordered.size > 0 || this.tracksReplayed > 0;
    await this.conn.run(publicViewsDdl((this.origin ?? 0n) + this.baseOffsetNs, renested, this.threadTimes.length > 0));
    // Views, not tables: FLOW_DDL reads each once, and copying the flow events twice cost more than the rest.
    await this.conn.run(`
      CREATE TEMP VIEW _flow_bound AS
        SELECT b.flow_key, b.seq, b.kind, b.ts, b.slice_id FROM _flow_bind b WHERE b.slice_id IS NOT NULL
        UNION ALL SELECT flow_key, seq, kind, ts, slice_id FROM _flow_event WHERE bind = ${BIND_DIRECT} AND slice_id IS NOT NULL;
      ${FLOW_DDL}
      ${LAUNCH_DDL}
      DROP VIEW _flow_bound; DROP ${this.unordered.size > 0 ? 'TABLE' : 'VIEW'} _flow_bind;
      DROP TABLE _slice_raw; DROP TABLE _counter_raw; DROP TABLE _string; DROP TABLE _nest;
      DROP TABLE _flow_event; DROP TABLE _flow_name; DROP TABLE _unordered;`);
    if (this.threadTimes.length > 0) await this.conn.run('DROP TABLE _thread_time');
  }

  private async writeSmallTables(): Promise<void> {
    const c = this.conn;
    let ap = await c.createAppender('process');
    for (const p of this.processes) {
      ap.appendInteger(p.upid); ap.appendBigInt(BigInt(p.pid));
      if (p.name === null) ap.appendNull(); else ap.appendVarchar(p.name);
      ap.endRow();
    }
    ap.closeSync();
    ap = await c.createAppender('thread');
    for (const t of this.threads) {
      ap.appendInteger(t.utid); ap.appendBigInt(BigInt(t.tid));
      if (t.name === null) ap.appendNull(); else ap.appendVarchar(t.name);
      if (t.upid === null) ap.appendNull(); else ap.appendInteger(t.upid);
      ap.endRow();
    }
    ap.closeSync();
    ap = await c.createAppender('track');
    for (const t of this.tracks) {
      ap.appendInteger(t.id);
      // As trace_processor, a thread's own track is not named after its thread or process (displays fall back to
      // them, see TRACK_NAME_SQL); a name its descriptor gives is kept, which trace_processor drops.
      const name = t.name ?? (t.type === 'thread' ? null : (t.utid !== null ? this.threads[t.utid]?.name : null)
        ?? (t.upid !== null ? this.processes[t.upid]?.name : null) ?? null);
      if (name === null) ap.appendNull(); else ap.appendVarchar(name);
      ap.appendVarchar(t.type);
      for (const v of [t.parentId, t.utid, t.upid]) { if (v === null) ap.appendNull(); else ap.appendInteger(v); }
      if (t.unit === null) ap.appendNull(); else ap.appendVarchar(t.unit);
      ap.endRow();
    }
    ap.closeSync();
    ap = await c.createAppender('zero_dur_slice');
    for (const id of this.zeroDurSlices) { ap.appendBigInt(BigInt(id)); ap.endRow(); }
    ap.closeSync();
    if (this.threadTimes.length > 0) {
      await c.run('CREATE TEMP TABLE _thread_time (id INTEGER, thread_ts BIGINT, thread_dur BIGINT)');
      ap = await c.createAppender('_thread_time', null, 'temp');
      const t = this.threadTimes;
      for (let i = 0; i < t.length; i += 3) {
        ap.appendInteger(t[i]!);
        for (const v of [t[i + 1]!, t[i + 2]!]) { if (Number.isNaN(v)) ap.appendNull(); else ap.appendBigInt(BigInt(v)); }
        ap.endRow();
      }
      ap.closeSync();
    }
    ap = await c.createAppender('_flow_name', null, 'temp');
    for (const [key, { category, name }] of this.flowNames) {
      if (key === null) ap.appendNull(); else ap.appendVarchar(key);
      ap.appendVarchar(category); ap.appendVarchar(name);
      ap.endRow();
    }
    ap.closeSync();
    ap = await c.createAppender('stats');
    for (const r of statRows(this.stats)) {
      ap.appendVarchar(r.name); ap.appendNull(); ap.appendVarchar(r.severity); ap.appendVarchar(r.source);
      ap.appendBigInt(BigInt(r.value)); ap.appendVarchar(r.description);
      ap.endRow();
    }
    ap.closeSync();
    ap = await c.createAppender('metadata');
    for (const [name, v] of this.meta) {
      ap.appendVarchar(name);
      if (v.str === null) ap.appendNull(); else ap.appendVarchar(v.str);
      if (v.int === null) ap.appendNull(); else ap.appendBigInt(v.int);
      ap.endRow();
    }
    ap.closeSync();
  }

  /**
   * SQL's nesting has no spill (see `place`): an unordered track where a slice overflows its parent is nested
   * again here, its slices read back in order (memory for that track only; such tracks are rare).
   */
  private async renestOverflowing(): Promise<void> {
    const c = this.conn;
    const broken = (await c.runAndReadAll(`SELECT DISTINCT s.track_id FROM _sl s JOIN _nest n ON n.id = s.id
      JOIN _sl p ON p.id = n.parent_id WHERE s.dur >= 0 AND p.dur >= 0 AND s.ts + s.dur > p.ts + p.dur
      ORDER BY 1`)).getRows();
    if (broken.length === 0) return;
    await c.run(`CREATE TEMP TABLE _renest (id INTEGER, depth INTEGER, parent_id INTEGER)`);
    const ap = await c.createAppender('_renest', null, 'temp');
    for (const [track] of broken) {
      const trackId = Number(track);
      const st = newNestState(false);
      const rows = (await c.runAndReadAll(`SELECT id, ts, dur FROM _sl WHERE track_id = ${trackId} ORDER BY ts, sk, id`)).getRows();
      for (const [id, ts, dur] of rows) {
        const start = Number(ts);
        const end = Number(dur) < 0 ? Infinity : start + Number(dur);
        if (this.place(st, Number(id), start, end, true)) this.spills.push({ trackId, renested: true });
        ap.appendInteger(Number(id)); ap.appendInteger(this.depth);
        if (this.parent === null) ap.appendNull(); else ap.appendInteger(this.parent);
        ap.endRow();
      }
    }
    ap.closeSync();
    await c.run(`UPDATE _nest SET depth = r.depth, parent_id = r.parent_id FROM _renest r WHERE _nest.id = r.id;
      DROP TABLE _renest;`);
  }

  /** Counts the spilled slices whose placement stands (see `place`). */
  private countSpills(): void {
    // What streaming found on an unordered track is void: SQL's nesting or `renestOverflowing` replaced it.
    const n = this.spills.filter((x) => !this.unordered.has(x.trackId) || x.renested).length;
    if (n > 0) this.stat('slice_spill_overlapping_complete_event', n);
  }

  /**
   * Nesting and flow binding for the tracks whose events were out of order and not kept for a replay (none,
   * for traces written in time order): in SQL, one sorted pass per track. Each slice contributes +1 at its
   * start and -1 at its end; the running sum before a start is its depth, and its parent is the latest earlier
   * start one level up (an ASOF join). Ends at a time come before starts at that time (touching slices are siblings); starts come longest
   * first (parents before children), or in file order where `sameTsInFileOrder` says so, and the slices
   * `startsInFileOrder` lists in file order after the others (as zero-length ones do). A zero-length slice
   * ends just before the next longer slice that starts at its ts, or after everything at its ts (as `nestStart`).
   * A flow event bound to its enclosing slice sits after the starts at its ts and takes the deepest open slice;
   * one bound to the next slice takes the first slice starting at or after its ts.
   * Other tracks keep what `nestStart` computed (the depth and parent staged with each slice row), or what
   * `replayUnordered` put in _nest.
   * Its tables are TEMP: they are dropped before the import ends, and the checkpoint would write a persistent
   * one out (a sixth of the checkpoint of a 200 MiB Kineto trace).
   */
  private async nestAndBind(): Promise<void> {
    const c = this.conn;
    const streamedFlows = `(SELECT flow_key, seq, kind, ts, streamed AS slice_id FROM _flow_event
        WHERE bind <> ${BIND_DIRECT} AND track_id NOT IN (SELECT track_id FROM _unordered))`;
    await c.run(`CREATE TEMP TABLE _unordered (track_id INTEGER)`);
    if (this.unordered.size === 0) {
      await c.run(`CREATE TEMP VIEW _flow_bind AS SELECT flow_key, seq, kind, ts, streamed AS slice_id FROM _flow_event WHERE bind <> ${BIND_DIRECT};`);
    } else {
      const fileOrder = !this.sameTsInFileOrder && this.fileOrderStarts.length > 0;
      let sk = this.sameTsInFileOrder ? '0' : '-dur';
      if (fileOrder) {
        await c.run('CREATE TEMP TABLE _file_order (id INTEGER)');
        const ap = await c.createAppender('_file_order', null, 'temp');
        for (const id of this.fileOrderStarts) { ap.appendInteger(id); ap.endRow(); }
        ap.closeSync();
        sk = 'CASE WHEN id IN (SELECT id FROM _file_order) THEN 0 ELSE -dur END';
      }
      await c.run(`INSERT INTO _unordered VALUES ${[...this.unordered].map((t) => `(${t})`).join(', ')};
      CREATE TEMP TABLE _sl AS SELECT *, ${sk} AS sk FROM _slice_raw
        WHERE track_id IN (SELECT track_id FROM _unordered);
      CREATE TEMP TABLE _zend AS SELECT id, track_id, ts, nk2, nk3 FROM (
        SELECT id, track_id, ts, dur,
               first_value(CASE WHEN dur <> 0 THEN sk END IGNORE NULLS) OVER z AS nk2,
               first_value(CASE WHEN dur <> 0 THEN id END IGNORE NULLS) OVER z AS nk3
        FROM _sl WINDOW z AS (PARTITION BY track_id, ts ORDER BY sk, id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING))
        WHERE dur = 0;
      CREATE TEMP TABLE _fe AS SELECT * FROM _flow_event WHERE bind <> ${BIND_DIRECT} AND track_id IN (SELECT track_id FROM _unordered);
      CREATE TEMP TABLE _ev AS
        WITH ev AS (
          SELECT track_id, ts AS t, 1 AS k1, sk AS k2, id AS k3, 0 AS k4, id, 1 AS delta, NULL::BIGINT AS fseq FROM _sl
          UNION ALL
          SELECT track_id, CASE WHEN dur < 0 THEN 'Infinity'::DOUBLE ELSE ts + dur END, 0, 0, 0, 1, id, -1, NULL
          FROM _sl WHERE dur <> 0
          UNION ALL
          SELECT track_id, ts, 1, coalesce(nk2, 'Infinity'::DOUBLE), coalesce(nk3, 9007199254740991),
                 CASE WHEN nk3 IS NULL THEN 1 ELSE -1 END, id, -1, NULL
          FROM _zend
          UNION ALL
          SELECT track_id, ts, 1, 'Infinity'::DOUBLE, seq, 0, NULL, 0, seq FROM _fe WHERE bind = ${BIND_ENCLOSING})
        SELECT track_id, id, delta, fseq,
               coalesce(sum(delta) OVER w, 0) AS open_before,
               row_number() OVER (PARTITION BY track_id ORDER BY t, k1, k2, k3, k4) AS pos
        FROM ev
        WINDOW w AS (PARTITION BY track_id ORDER BY t, k1, k2, k3, k4 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
      CREATE TEMP TABLE _starts AS SELECT track_id, id, open_before AS depth, pos FROM _ev WHERE delta = 1;
      INSERT INTO _nest
        SELECT s.id, CAST(s.depth AS INTEGER) AS depth, p.id AS parent_id
        FROM _starts s ASOF LEFT JOIN _starts p
          ON s.track_id = p.track_id AND s.depth - 1 = p.depth AND s.pos > p.pos;
      CREATE TEMP TABLE _flow_bind AS
        SELECT f.flow_key, f.seq, f.kind, f.ts, p.id AS slice_id
        FROM (SELECT e.track_id, e.open_before, e.pos, fe.flow_key, fe.seq, fe.kind, fe.ts
              FROM _ev e JOIN _fe fe ON fe.seq = e.fseq) f
        ASOF LEFT JOIN _starts p ON f.track_id = p.track_id AND f.open_before - 1 = p.depth AND f.pos > p.pos
        UNION ALL
        SELECT f.flow_key, f.seq, f.kind, f.ts, s.id
        FROM (SELECT * FROM _fe WHERE bind = ${BIND_NEXT}) f
        ASOF LEFT JOIN _sl s ON f.track_id = s.track_id AND f.ts <= s.ts
        UNION ALL ${streamedFlows.slice(1, -1)};
      DROP TABLE _ev; DROP TABLE _starts; DROP TABLE _zend; DROP TABLE _fe;`);
      await this.renestOverflowing();
      await c.run(`DROP TABLE _sl`);
      if (fileOrder) await c.run('DROP TABLE _file_order');
    }
    this.countSpills();
    const outOfOrder = this.unordered.size + this.tracksReplayed;
    if (outOfOrder > 0) this.stat('tracks_out_of_order', outOfOrder);
    const [r] = (await c.runAndReadAll(`SELECT count(*) FILTER (WHERE slice_id IS NULL) AS n FROM _flow_bind`)).getRowObjectsJS();
    const unbound = Number((r as { n: bigint }).n);
    if (unbound > 0) this.stat('flow_no_enclosing_slice', unbound);
    // A JSON v1 flow's second `s` of one id is ignored, as trace_processor ignores it (see FLOW_DDL).
    const [d] = (await c.runAndReadAll(`SELECT count(*) - count(DISTINCT flow_key) AS n FROM _flow_bind
      WHERE slice_id IS NOT NULL AND kind = ${FLOW_START} AND starts_with(flow_key, 'j' || chr(0))`)).getRowObjectsJS();
    const duplicates = Number((d as { n: bigint }).n);
    if (duplicates > 0) this.stat('flow_duplicate_id', duplicates);

  }
}
