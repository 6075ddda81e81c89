/**
 * Where importers put what they read: rows go straight into DuckDB appenders (so memory does not grow with the
 * file), while the few processes, threads and tracks are kept in maps and written at the end.
 * `finalize` computes nesting (depth, parent_id) and binds flows in one sorted streaming pass per table.
 */
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import {
  BIND_DIRECT, BIND_ENCLOSING, FLOW_DDL, LAUNCH_DDL, STAGING_DDL, publicViewsDdl,
} from '../sql/schema.js';

export type ArgScalar = string | number | boolean | bigint | null;

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

/** The part of DuckDB's appender the sink uses; a null one lets importers run without a database. */
type RowAppender = Pick<DuckDBAppender, 'appendBigInt' | 'appendDouble' | 'appendInteger' | 'appendTinyInt'
  | 'appendVarchar' | 'appendNull' | 'endRow' | 'closeSync'>;

const nullAppender: RowAppender = {
  appendBigInt() {}, appendDouble() {}, appendInteger() {}, appendTinyInt() {}, appendVarchar() {}, appendNull() {},
  endRow() {}, closeSync() {},
};

interface ProcessInfo { upid: number; pid: number; name: string | null }
interface ThreadInfo { utid: number; tid: number; name: string | null; upid: number | null }

export class TraceSink {
  /** Absolute ns of relative time 0 (set from the first timestamp an importer sees). */
  origin: bigint | null = null;
  /** Added to every timestamp at the end (Kineto baseTimeNanoseconds, known only after the events). */
  baseOffsetNs = 0n;

  private readonly processes: ProcessInfo[] = [];
  private readonly threads: ThreadInfo[] = [];
  private readonly tracks: TrackInfo[] = [];
  private readonly meta = new Map<string, { str: string | null; int: bigint | null }>();
  private readonly stats = new Map<string, number>();
  private nextSlice = 0;
  private nextCounter = 0;
  private nextArgSet = 0;
  private nextFlowSeq = 0;

  private constructor(
    private readonly connection: DuckDBConnection | null,
    private readonly sliceAp: RowAppender,
    private readonly counterAp: RowAppender,
    private readonly argsAp: RowAppender,
    private readonly flowAp: RowAppender,
  ) {}

  /** A sink that discards rows: runs an importer's parsing and checks only (see validateTrace). */
  static detached(): TraceSink {
    return new TraceSink(null, nullAppender, nullAppender, nullAppender, nullAppender);
  }

  private get conn(): DuckDBConnection {
    if (!this.connection) throw new Error('detached trace sink has no database');
    return this.connection;
  }

  static async create(conn: DuckDBConnection): Promise<TraceSink> {
    await conn.run(STAGING_DDL);
    return new TraceSink(conn, await conn.createAppender('_slice_raw'), await conn.createAppender('_counter_raw'),
      await conn.createAppender('args'), await conn.createAppender('_flow_event'));
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

  slice(id: number, ts: number, dur: number, trackId: number, category: string | null, name: string | null,
    argSetId: number | null): void {
    const a = this.sliceAp;
    a.appendBigInt(BigInt(id));
    a.appendDouble(ts);
    a.appendDouble(dur);
    a.appendInteger(trackId);
    if (category === null) a.appendNull(); else a.appendVarchar(category);
    if (name === null) a.appendNull(); else a.appendVarchar(name);
    if (argSetId === null) a.appendNull(); else a.appendBigInt(BigInt(argSetId));
    a.endRow();
  }

  counter(ts: number, trackId: number, value: number): void {
    const a = this.counterAp;
    a.appendBigInt(BigInt(this.nextCounter++));
    a.appendDouble(ts);
    a.appendInteger(trackId);
    a.appendDouble(value);
    a.endRow();
  }

  newArgSet(): number { return this.nextArgSet++; }

  /** One arg row; `key` keeps array indices (`a[1]`), `flatKey` drops them (`a`), as in Perfetto. */
  arg(argSetId: number, key: string, value: ArgScalar): void {
    const a = this.argsAp;
    a.appendBigInt(BigInt(argSetId));
    a.appendVarchar(key.replace(/\[\d+\]/g, ''));
    a.appendVarchar(key);
    let type: string;
    if (value === null) {
      a.appendNull(); a.appendNull(); a.appendNull(); type = 'null';
    } else if (typeof value === 'string') {
      a.appendNull(); a.appendVarchar(value); a.appendNull(); type = 'string';
    } else if (typeof value === 'boolean') {
      a.appendBigInt(value ? 1n : 0n); a.appendNull(); a.appendNull(); type = 'bool';
    } else if (typeof value === 'bigint') {
      const fits = value >= -(2n ** 63n) && value < 2n ** 63n;
      if (fits) { a.appendBigInt(value); a.appendNull(); a.appendNull(); type = 'int'; } else {
        a.appendNull(); a.appendVarchar(value.toString()); a.appendNull(); type = 'string';
      }
    } else if (Number.isSafeInteger(value)) {
      a.appendBigInt(BigInt(value)); a.appendNull(); a.appendNull(); type = 'int';
    } else {
      a.appendNull(); a.appendNull(); a.appendDouble(value); type = 'real';
    }
    a.appendVarchar(type);
    a.endRow();
  }

  /** Writes a JSON-like value as args under `prefix`, flattening objects (a.b) and arrays (a[0]). */
  argTree(argSetId: number, prefix: string, value: unknown, depth = 0): void {
    if (value === null || typeof value !== 'object') {
      if (value === undefined) return;
      this.arg(argSetId, prefix, value as ArgScalar);
      return;
    }
    if (depth > 32) { this.arg(argSetId, prefix, JSON.stringify(value)); return; }
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.argTree(argSetId, `${prefix}[${i}]`, v, depth + 1));
      return;
    }
    for (const k of Object.keys(value)) this.argTree(argSetId, `${prefix}.${k}`, (value as Record<string, unknown>)[k], depth + 1);
  }

  flowEvent(flowKey: string, kind: number, ts: number, trackId: number, bind: number, sliceId: number | null): void {
    const a = this.flowAp;
    a.appendVarchar(flowKey);
    a.appendBigInt(BigInt(this.nextFlowSeq++));
    a.appendTinyInt(kind);
    a.appendDouble(ts);
    a.appendInteger(trackId);
    a.appendTinyInt(bind);
    if (sliceId === null) a.appendNull(); else a.appendBigInt(BigInt(sliceId));
    a.endRow();
  }

  metadata(name: string, str: string | null, int: bigint | number | null = null): void {
    this.meta.set(name, { str, int: int === null ? null : BigInt(int) });
  }
  hasMetadata(name: string): boolean { return this.meta.has(name); }

  /** Counts something the importer dropped or repaired; lands in metadata as `stats.<name>`. */
  stat(name: string, delta = 1): void { this.stats.set(name, (this.stats.get(name) ?? 0) + delta); }

  /** Relative ns of an absolute ns time; the first call fixes the origin. */
  rel(absNs: bigint): number {
    if (this.origin === null) this.origin = absNs;
    return Number(absNs - this.origin);
  }

  // ---- finish ----------------------------------------------------------------------------------------------

  async finalize(): Promise<void> {
    for (const ap of [this.sliceAp, this.counterAp, this.argsAp, this.flowAp]) ap.closeSync();
    if (!this.connection) return;
    await this.nestAndBind();
    await this.writeSmallTables();
    await this.conn.run(publicViewsDdl((this.origin ?? 0n) + this.baseOffsetNs));
    await this.conn.run(`
      CREATE TABLE _flow_bound AS
        SELECT b.flow_key, b.seq, b.kind, b.ts, b.slice_id FROM _flow_bind b
        UNION ALL SELECT flow_key, seq, kind, ts, slice_id FROM _flow_event WHERE bind = ${BIND_DIRECT} AND slice_id IS NOT NULL;
      ${FLOW_DDL}
      ${LAUNCH_DDL}
      DROP TABLE _slice_raw; DROP TABLE _counter_raw; DROP TABLE _nest; DROP TABLE _flow_bind; DROP TABLE _flow_bound;
      DROP TABLE _flow_event;`);
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
      const name = t.name ?? (t.utid !== null ? this.threads[t.utid]?.name : null)
        ?? (t.upid !== null ? this.processes[t.upid]?.name : null) ?? null;
      if (name === null) ap.appendNull(); else ap.appendVarchar(name);
      ap.appendVarchar(t.type);
      for (const v of [t.parentId, t.utid, t.upid]) { if (v === null) ap.appendNull(); else ap.appendInteger(v); }
      if (t.unit === null) ap.appendNull(); else ap.appendVarchar(t.unit);
      ap.endRow();
    }
    ap.closeSync();
    for (const [k, v] of this.stats) this.meta.set(`stats.${k}`, { str: null, int: BigInt(v) });
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
   * One pass over slices and to-be-bound flow events sorted by (track, ts): a stack of open slices gives each
   * slice its depth and parent, and each flow event its enclosing slice (or the next slice to start).
   */
  private async nestAndBind(): Promise<void> {
    const c = this.conn;
    await c.run(`CREATE TABLE _nest (id BIGINT, depth INTEGER, parent_id BIGINT);
                 CREATE TABLE _flow_bind (flow_key VARCHAR, seq BIGINT, kind TINYINT, ts DOUBLE, slice_id BIGINT);`);
    const nestAp = await c.createAppender('_nest');
    const bindAp = await c.createAppender('_flow_bind');
    // order: 1 = next-binding flow events (before slices starting at the same ts), 2 = slices, 3 = enclosing.
    const result = await c.stream(`
      SELECT track_id, ts, dur, 2 AS ord, id, NULL::VARCHAR AS flow_key, NULL::BIGINT AS seq, NULL::TINYINT AS kind
        FROM _slice_raw
      UNION ALL
      SELECT track_id, ts, 0, CASE WHEN bind = ${BIND_ENCLOSING} THEN 3 ELSE 1 END, NULL, flow_key, seq, kind
        FROM _flow_event WHERE bind <> ${BIND_DIRECT}
      ORDER BY track_id, ts, ord, dur DESC, id, seq`);
    let curTrack = -1;
    const stackId: number[] = [];
    const stackStart: number[] = [];
    const stackEnd: number[] = [];
    let pendingNext: { key: string; seq: bigint; kind: number; ts: number }[] = [];
    const bind = (key: string, seq: bigint, kind: number, ts: number, sliceId: number | null) => {
      if (sliceId === null) { this.stat('flow_unbound'); return; }
      bindAp.appendVarchar(key); bindAp.appendBigInt(seq); bindAp.appendTinyInt(kind); bindAp.appendDouble(ts);
      bindAp.appendBigInt(BigInt(sliceId)); bindAp.endRow();
    };
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const cols = chunk.getColumns();
      const [tracks, tss, durs, ords, ids, keys, seqs, kinds] = cols as [number[], number[], number[], number[],
        (bigint | null)[], (string | null)[], (bigint | null)[], (number | null)[]];
      for (let i = 0; i < chunk.rowCount; i++) {
        const track = tracks[i]!;
        const ts = tss[i]!;
        if (track !== curTrack) {
          for (const p of pendingNext) bind(p.key, p.seq, p.kind, p.ts, null);
          pendingNext = [];
          curTrack = track;
          stackId.length = stackStart.length = stackEnd.length = 0;
        }
        const ord = ords[i]!;
        if (ord === 2) {
          const dur = durs[i]!;
          const id = Number(ids[i]!);
          while (stackEnd.length > 0 && stackEnd[stackEnd.length - 1]! <= ts) {
            stackId.pop(); stackStart.pop(); stackEnd.pop();
          }
          const depth = stackId.length;
          nestAp.appendBigInt(BigInt(id)); nestAp.appendInteger(depth);
          if (depth === 0) nestAp.appendNull(); else nestAp.appendBigInt(BigInt(stackId[depth - 1]!));
          nestAp.endRow();
          stackId.push(id); stackStart.push(ts); stackEnd.push(dur < 0 ? Infinity : ts + dur);
          for (const p of pendingNext) bind(p.key, p.seq, p.kind, p.ts, id);
          pendingNext = [];
        } else if (ord === 1) {
          pendingNext.push({ key: keys[i]!, seq: seqs[i]!, kind: kinds[i]!, ts });
        } else {
          // The deepest slice containing ts; a zero-length slice counts when it starts exactly at ts.
          let found: number | null = null;
          for (let d = stackId.length - 1; d >= 0; d--) {
            if (stackStart[d]! <= ts && (ts < stackEnd[d]! || stackStart[d] === ts)) { found = stackId[d]!; break; }
          }
          bind(keys[i]!, seqs[i]!, kinds[i]!, ts, found);
        }
      }
    }
    for (const p of pendingNext) bind(p.key, p.seq, p.kind, p.ts, null);
    nestAp.closeSync();
    bindAp.closeSync();
  }
}
