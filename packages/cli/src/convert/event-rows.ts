/**
 * An imported trace as an EventStream (what the streaming exporters take): the header, then every slice,
 * instant, counter sample and timer sample in time order, read from DuckDB chunk by chunk. Each event is a run
 * of rows: its own row, then one row per arg and per end of a flow, all sorted on the event's time key. Two
 * queries give them, each sorted by DuckDB within its memory limit (spilling to disk past it): the events with
 * their flows, and the args; they are merged here on that key. Nothing gathers per-event lists, so memory on both
 * sides stays bounded whatever the trace size.
 */
import { DEFAULT_FLOW, flowNamesOfGroups, pathOfArgKey, setArgPath } from '@gsprof/profiler';
import type { ArgPath, Args, EventStream, SqlValue, StreamEvent, StreamFlow, TraceDb } from '@gsprof/profiler';
import { ARG_ROWS_SQL, ENV_TIMERS_EVENT, GPU_CATEGORIES, GPU_CATEGORY_SQL, METADATA_EVENT, argValue, decodeTimers, num, readTraceHeader } from './trace-header.js';

const SKIP = -1, SLICE = 0, INSTANT = 1, COUNTER = 2, TIMERS = 3;
/** The rows of one event, in this order: the event, its args, the flows it starts, the flows it ends. */
const EVENT_ROW = 0, ARG_ROW = 1, FLOW_OUT_ROW = 2, FLOW_IN_ROW = 3;

/**
 * What a slice row is written as: a slice (what has a duration, a slice of dur 0 read as one, and GPU ops), an
 * instant, a timer sample, or nothing (gsprof's metadata event, which the writers write from the header).
 */
const SLICE_KIND_SQL = `CASE WHEN name IS NOT DISTINCT FROM '${METADATA_EVENT}' THEN ${SKIP}
  WHEN name IS NOT DISTINCT FROM '${ENV_TIMERS_EVENT}' AND arg_set_id IS NOT NULL THEN ${TIMERS}
  WHEN dur > 0 OR category IN ${GPU_CATEGORY_SQL} OR id IN (SELECT slice_id FROM zero_dur_slice) THEN ${SLICE} ELSE ${INSTANT} END`;

/** Each slice's sort key (ts, kind, d = the duration, at least 0) and arg set. */
const SLICE_KEYS_SQL = `SELECT id, ts, ${SLICE_KIND_SQL} AS kind, greatest(dur, 0) AS d, arg_set_id FROM slice`;

/**
 * The flows between two slices or instants (a flow may start or end at an instant), numbered from 1 in the flow table's order, with the category and name they are
 * written with and the sort keys of both ends. No filter on one side alone: DuckDB would push it into the slice
 * scan, underestimate the slices and build its hash table on them instead of on the flows.
 */
const FLOWS_SQL = `
  SELECT row_number() OVER (ORDER BY f.id) AS fid, f.slice_out, f.slice_in,
    coalesce(f.category, CASE WHEN f.name IS NOT NULL THEN '' ELSE '${DEFAULT_FLOW}' END) AS cat, f.name,
    so.ts AS out_ts, so.d AS out_d, so.kind AS out_k, si.ts AS in_ts, si.d AS in_d, si.kind AS in_k
  FROM flow f JOIN (${SLICE_KEYS_SQL}) so ON so.id = f.slice_out JOIN (${SLICE_KEYS_SQL}) si ON si.id = f.slice_in
  WHERE least(so.kind, si.kind) >= ${SLICE} AND greatest(so.kind, si.kind) <= ${INSTANT}`;

/**
 * Columns of the event queries, in order. A slice's own row carries its thread_ts and thread_dur in intValue and
 * realValue; `pos` orders the rows of one kind within an event.
 */
const enum C { kind, rel, dur, id, sub, track, category, name, value, key, intValue, stringValue, realValue, valueType, path, pos }

/**
 * The rows of the events with their flows (`args` false), or of their args, sorted on the time key. Apart, not
 * one query over their union: DuckDB 1.5 ran out of memory sorting the union of a 200 MiB Kineto trace's 0.6M
 * events and 6.8M args at any memory limit (its `failed to pin block`), while each sorts alone.
 */
function eventsSql(baseSql: string, args: boolean): string {
  const noArg = 'NULL, NULL, NULL, NULL, NULL, NULL';
  const rows = args ? `
    SELECT e.ts, e.kind, e.d, e.id, ${ARG_ROW} AS sub, a.pos, NULL AS track_id, NULL AS category, NULL AS name, NULL AS value,
           a.key, a.int_value, a.string_value, a.real_value, a.value_type, a.path
    FROM (${ARG_ROWS_SQL}) a JOIN (${SLICE_KEYS_SQL}) e ON e.arg_set_id = a.arg_set_id` : `
    SELECT ts, ${SLICE_KIND_SQL} AS kind, greatest(dur, 0) AS d, id, ${EVENT_ROW} AS sub, 0 AS pos, track_id, category, name, CAST(NULL AS DOUBLE) AS value,
           CAST(NULL AS VARCHAR) AS key, thread_ts AS int_value, CAST(NULL AS VARCHAR) AS string_value, CAST(thread_dur AS DOUBLE) AS real_value,
           CAST(NULL AS VARCHAR) AS value_type, CAST(NULL AS VARCHAR) AS path
    FROM slice
    UNION ALL
    SELECT ts, ${COUNTER}, 0, id, ${EVENT_ROW}, 0, track_id, NULL, NULL, value, ${noArg} FROM counter
    UNION ALL
    SELECT out_ts, out_k, out_d, slice_out, ${FLOW_OUT_ROW}, fid, fid, cat, name, NULL, ${noArg} FROM fl
    UNION ALL
    SELECT in_ts, in_k, in_d, slice_in, ${FLOW_IN_ROW}, fid, fid, cat, name, NULL, ${noArg} FROM fl`;
  return `
  WITH ${args ? '' : `fl AS (${FLOWS_SQL}), `}r AS (${rows})
  SELECT kind, CAST(ts - ${baseSql} AS DOUBLE), d, id, sub, track_id, category, name, value, key, int_value, string_value, real_value, value_type, path, pos
  FROM r WHERE kind <> ${SKIP}
  ORDER BY ts, kind, d DESC, id, sub, pos`;
}

/** The time key order of two rows, as both queries' ORDER BY (rel is ts less one constant). */
function compareRows(a: SqlValue[], b: SqlValue[]): number {
  return num(a[C.rel]) - num(b[C.rel]) || num(a[C.kind]) - num(b[C.kind]) || num(b[C.dur]) - num(a[C.dur])
    || num(a[C.id]) - num(b[C.id]) || num(a[C.sub]) - num(b[C.sub]) || num(a[C.pos]) - num(b[C.pos]);
}

/** The rows of two sorted streams of row chunks, merged in `compareRows` order, a chunk at a time. */
async function* mergeRows(a: AsyncIterable<SqlValue[][]>, b: AsyncIterable<SqlValue[][]>): AsyncGenerator<SqlValue[][]> {
  const ia = a[Symbol.asyncIterator](), ib = b[Symbol.asyncIterator]();
  let ca: SqlValue[][] = [], cb: SqlValue[][] = [];
  let ka = 0, kb = 0;
  let doneA = false, doneB = false;
  try {
    for (;;) {
      if (ka === ca.length && !doneA) { const r = await ia.next(); if (r.done) doneA = true; else { ca = r.value; ka = 0; continue; } }
      if (kb === cb.length && !doneB) { const r = await ib.next(); if (r.done) doneB = true; else { cb = r.value; kb = 0; continue; } }
      const out: SqlValue[][] = [];
      while (ka < ca.length && kb < cb.length) out.push(compareRows(ca[ka]!, cb[kb]!) <= 0 ? ca[ka++]! : cb[kb++]!);
      if (kb === cb.length && doneB) while (ka < ca.length) out.push(ca[ka++]!);
      if (ka === ca.length && doneA) while (kb < cb.length) out.push(cb[kb++]!);
      if (out.length > 0) yield out;
      if (doneA && doneB && ka === ca.length && kb === cb.length) return;
    }
  } finally {
    // Either stream left unfinished (an error, a reader that stopped) closes its query's connection.
    await Promise.all([ia.return?.(), ib.return?.()]);
  }
}

/** The flows' categories and names for a pftrace (flowNamesOfGroups); only the ids of the rarer pairs are read. */
async function flowNames(db: TraceDb): Promise<string | undefined> {
  const groups = await db.rows<{ cat: string; nm: string; n: number; first: number }>(
    `WITH fl AS (${FLOWS_SQL}) SELECT cat, coalesce(name, cat) AS nm, count(*) AS n, min(fid) AS first FROM fl GROUP BY ALL ORDER BY n DESC, first`);
  const [common] = groups;
  if (!common) return undefined;
  const ids = new Map<string, number[]>();
  for (const r of await db.rows<{ cat: string; nm: string; ids: number[] }>(
    `WITH fl AS (${FLOWS_SQL}) SELECT cat, coalesce(name, cat) AS nm, list(fid ORDER BY fid) AS ids FROM fl
     WHERE NOT (cat = '${common.cat.replace(/'/g, "''")}' AND coalesce(name, cat) = '${common.nm.replace(/'/g, "''")}') GROUP BY ALL`)) {
    ids.set(`${r.cat}\u0000${r.nm}`, r.ids.map(num));
  }
  return flowNamesOfGroups(groups.map((g, i) => ({ category: g.cat, name: g.nm, ids: i === 0 ? [] : ids.get(`${g.cat}\u0000${g.nm}`) ?? [] })));
}

/** The ids of the commonest (category, name) of flows, which flowNames leaves out (for merge, where ranks disagree). */
export async function commonFlowIds(db: TraceDb): Promise<number[]> {
  const rows = await db.rows<{ ids: number[] }>(
    `WITH fl AS (${FLOWS_SQL}), g AS (SELECT cat, coalesce(name, cat) AS nm, count(*) AS n, min(fid) AS first FROM fl GROUP BY ALL ORDER BY n DESC, first LIMIT 1)
     SELECT list(fl.fid ORDER BY fl.fid) AS ids FROM fl JOIN g ON fl.cat = g.cat AND coalesce(fl.name, fl.cat) = g.nm`);
  return (rows[0]?.ids ?? []).map(num);
}

/** One event being read: its own row, and what its later rows add. */
interface Pending { row: SqlValue[]; args?: Args; flowsOut?: StreamFlow[]; flowsIn?: StreamFlow[] }

function eventOf({ row, args, flowsOut, flowsIn }: Pending): StreamEvent {
  const kind = row[C.kind] as number;
  const ts = num(row[C.rel]);
  const track = num(row[C.track]);
  if (kind === COUNTER) return { kind: 'counter', track, ts, value: num(row[C.value]) };
  const name = (row[C.name] as string | null) ?? '';
  const category = (row[C.category] as string | null) ?? '';
  if (kind === TIMERS) {
    const sample = args ? decodeTimers(args, ts) : null;
    if (sample) return { kind: 'timers', sample };
  }
  const dur = num(row[C.dur]);
  const tts = row[C.intValue], tdur = row[C.realValue];
  const thread = tts === null && tdur === null ? undefined : { ts: tts === null ? null : num(tts), dur: tdur === null ? null : num(tdur) };
  if (kind === SLICE || (kind === TIMERS && (dur > 0 || GPU_CATEGORIES.has(category)))) {
    return { kind: 'slice', track, name, category, ts, dur, ...(args ? { args } : {}), ...(flowsOut ? { flowsOut } : {}), ...(flowsIn ? { flowsIn } : {}),
      ...(thread ? { thread } : {}) };
  }
  return { kind: 'instant', track, name, category, ts, ...(args ? { args } : {}), ...(flowsOut ? { flowsOut } : {}), ...(flowsIn ? { flowsIn } : {}),
    ...(thread ? { thread } : {}) };
}

/** Adds an arg or flow row to the event it belongs to. */
function addRow(e: Pending, row: SqlValue[]): void {
  const sub = row[C.sub];
  if (sub === ARG_ROW) {
    const path = row[C.path] as string | null;
    const value = argValue({
      key: row[C.key] as string, int_value: row[C.intValue] as number | string | null, string_value: row[C.stringValue] as string | null,
      real_value: row[C.realValue] as number | null, value_type: row[C.valueType] as string, path,
    });
    e.args ??= {};
    setArgPath(e.args, path !== null ? JSON.parse(path) as ArgPath : pathOfArgKey(row[C.key] as string), value);
    return;
  }
  // A flow row carries its id in the track column, its category and name in theirs.
  const category = row[C.category] as string;
  const name = row[C.name] as string | null;
  const flow: StreamFlow = { id: num(row[C.track]), category, ...(name !== null && name !== category ? { name } : {}) };
  if (sub === FLOW_OUT_ROW) {
    e.flowsOut ??= [];
    e.flowsOut.push(flow);
  } else {
    e.flowsIn ??= [];
    e.flowsIn.push(flow);
  }
}

/** Events from the query's chunks: the rows of one event are consecutive, its own row first. */
async function* events(db: TraceDb, baseSql: string): AsyncGenerator<StreamEvent[]> {
  const own = await db.queryStream(eventsSql(baseSql, false), { timeoutMs: 0 });
  const args = await db.queryStream(eventsSql(baseSql, true), { timeoutMs: 0 });
  let pending: Pending | null = null;
  for await (const rows of mergeRows(own.batches, args.batches)) {
    const out: StreamEvent[] = [];
    for (const row of rows) {
      if (row[C.sub] === EVENT_ROW) {
        if (pending !== null) out.push(eventOf(pending));
        pending = { row };
      } else if (pending !== null && row[C.kind] === pending.row[C.kind] && row[C.id] === pending.row[C.id]) {
        addRow(pending, row);
      }
    }
    if (out.length > 0) yield out;
  }
  if (pending !== null) yield [eventOf(pending)];
}

export async function tableEvents(db: TraceDb, source: string): Promise<EventStream> {
  const { metadata, processes, tracks, baseSql } = await readTraceHeader(db, source);
  const names = await flowNames(db);
  return { metadata, processes, tracks, ...(names !== undefined ? { flowNames: names } : {}), events: events(db, baseSql) };
}
