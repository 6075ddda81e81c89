/**
 * What an exporter needs before the first event of an imported trace: the time base, the metadata (gsprof's
 * own, restored from its conventional events, or a Kineto trace's distributedInfo and deviceProperties), the
 * processes and the tracks, each read from the Perfetto-named tables. Also the conventions both readers of the
 * events (tables-to-model.ts, event-rows.ts) share: how an args row reads back, how per-env timers decode.
 */
import { basename } from 'node:path';
import { realArg, type ArgValue, type Args, type EnvTimerSample, type TraceDb, type TraceMetadata, type TraceProcess, type TraceTrack } from '@gsprof/profiler';

export const GPU_CATEGORIES = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation']);
export const GPU_CATEGORY_SQL = `(${[...GPU_CATEGORIES].map((c) => `'${c}'`).join(',')})`;
export const METADATA_EVENT = 'gsprof.metadata';
export const ENV_TIMERS_EVENT = 'env_timers';

export const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);

export interface ArgRow { key: string; int_value: number | string | bigint | null; string_value: string | null; real_value: number | null; value_type: string; path: string | null }

/** The args rows with their paths, and the empty arrays and objects arg_shape keeps, in read order (`pos`). */
export const ARG_ROWS_SQL = `
  SELECT a.arg_set_id, a.key, a.int_value, a.string_value, a.real_value, a.value_type, p.path, a.id AS pos
  FROM args a LEFT JOIN arg_shape p ON p.arg_id = a.id AND p.json IS NULL WHERE a.arg_set_id IS NOT NULL
  UNION ALL
  SELECT arg_set_id, '', NULL, json, NULL, 'json', path, arg_id FROM arg_shape WHERE json IS NOT NULL`;

/**
 * A row's value as its type says: a bool is not 1; an empty array or object (from arg_shape) is JSON; an int
 * beyond 2^53 (which the database hands over as its decimal string) is a bigint, so it stays exact; a real with
 * an integral value stays a real (RealArg), so that writers do not make it an int.
 */
export function argValue(r: ArgRow): ArgValue {
  if (r.value_type === 'bool') return num(r.int_value) !== 0;
  if (r.value_type === 'null') return null;
  if (r.value_type === 'json' && r.string_value !== null) return JSON.parse(r.string_value) as ArgValue;
  if (r.string_value !== null) return r.string_value;
  if (r.int_value === null) return r.value_type === 'real' && r.real_value !== null ? realArg(r.real_value) : r.real_value;
  return typeof r.int_value === 'number' ? r.int_value : BigInt(r.int_value);
}

/** The per-env timers an 'env_timers' event carries, or null when its args are not such a sample. */
export function decodeTimers(args: Args, ts: number): EnvTimerSample | null {
  const nEnvs = num(args.n_envs);
  if (!(nEnvs > 0) || typeof args.values_b64 !== 'string') return null;
  const bytes = Buffer.from(args.values_b64, 'base64');
  const values = new Float64Array(bytes.length >> 3);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readDoubleLE(i * 8);
  return { step: num(args.step) || 0, ts, nEnvs, values };
}

export interface TraceHeader {
  metadata: TraceMetadata;
  processes: TraceProcess[];
  tracks: TraceTrack[];
  /** metadata.baseTimeNs as SQL: event times are `CAST(ts - base AS DOUBLE)`, exact in a double. */
  baseSql: string;
}

export async function readTraceHeader(db: TraceDb, source: string): Promise<TraceHeader> {
  const gsprofJson = await db.metadata('gsprof.json');
  let meta: Partial<TraceMetadata> & { baseTimeNs?: unknown } = {};
  if (typeof gsprofJson === 'string') {
    try { meta = JSON.parse(gsprofJson) as typeof meta; } catch { meta = {}; }
  }
  // Times are absolute ns in the tables; relative to a base they stay exact in a double.
  const [bounds] = await db.rows<{ lo: string | null }>(
    'SELECT CAST(least(coalesce((SELECT min(ts) FROM slice), 9223372036854775807), coalesce((SELECT min(ts) FROM counter), 9223372036854775807)) AS VARCHAR) AS lo');
  let base = typeof meta.baseTimeNs === 'string' && /^\d+$/.test(meta.baseTimeNs) ? BigInt(meta.baseTimeNs) : BigInt(bounds?.lo ?? '0');
  if (base === 9223372036854775807n) base = 0n;

  const processes = await db.rows<{ upid: number; pid: number | string; name: string | null }>('SELECT upid, pid, name FROM process ORDER BY upid');
  const threads = await db.rows<{ utid: number; tid: number | string; name: string | null; upid: number | null }>('SELECT utid, tid, name, upid FROM thread ORDER BY utid');
  const trackRows = await db.rows<{ id: number; name: string | null; type: string; utid: number | null; upid: number | null; unit: string | null }>(
    'SELECT id, name, type, utid, upid, unit FROM track ORDER BY id');
  const contents = new Map((await db.rows<{ track_id: number; gpu: boolean; spans: boolean }>(
    `SELECT track_id, bool_or(category IN ${GPU_CATEGORY_SQL}) AS gpu, bool_or(dur > 0) AS spans
     FROM slice GROUP BY track_id`)).map((r) => [num(r.track_id), r]));

  // The pids and tids a JSON source gave as strings, by the number the importer gave each.
  const idText = new Map((await db.rows<{ name: string; str_value: string | null }>(
    "SELECT name, str_value FROM metadata WHERE starts_with(name, 'json_string_id.') AND str_value IS NOT NULL"))
    .map((r) => [Number(r.name.slice('json_string_id.'.length)), r.str_value!]));
  const pidOf = new Map(processes.map((p) => [num(p.upid), Number.isFinite(num(p.pid)) ? num(p.pid) : num(p.upid)]));
  const threadOf = new Map(threads.map((t) => [num(t.utid), t]));
  const tracks: TraceTrack[] = [];
  const gpuPids = new Set<number>();
  for (const t of trackRows) {
    const id = num(t.id);
    const thread = t.utid !== null ? threadOf.get(num(t.utid)) : undefined;
    const upid = t.upid ?? thread?.upid ?? null;
    const pid = upid !== null ? (pidOf.get(num(upid)) ?? 0) : 0;
    const content = contents.get(id);
    const kind: TraceTrack['kind'] = t.type === 'counter' ? 'counter' : content?.gpu ? 'gpu_queue' : 'thread';
    if (kind === 'gpu_queue') gpuPids.add(pid);
    const tid = thread ? num(thread.tid) : undefined;
    // The importers put process- and global-scoped instants on the process's track and on a global one.
    const scope = content?.spans || (t.type !== 'process' && t.type !== 'global') ? undefined : t.type;
    tracks.push({
      id, kind, pid,
      // A thread's track is written under its thread's name; an unnamed thread stays unnamed (''), where the
      // JSON importer names its track after the process: the writers then write no name, as trace_processor
      // reads none.
      name: t.type === 'thread' && thread ? (thread.name ?? '') : t.name ?? thread?.name ?? (tid !== undefined ? '' : `track ${id}`),
      ...(tid !== undefined && Number.isFinite(tid) ? { tid } : kind !== 'counter' ? { tid: id } : {}),
      ...(idText.has(pid) ? { pidText: idText.get(pid)! } : {}),
      ...(tid !== undefined && idText.has(tid) ? { tidText: idText.get(tid)! } : {}),
      ...(t.unit ? { unit: t.unit } : {}),
      ...(scope ? { scope } : {}),
    });
  }
  // Both importers keep a process's labels (Kineto's process_labels, Perfetto's ProcessDescriptor) as metadata.
  const labels = new Map((await db.rows<{ name: string; str_value: string | null }>(
    "SELECT name, str_value FROM metadata WHERE starts_with(name, 'process_labels.') AND str_value IS NOT NULL"))
    .map((r) => [r.name.slice('process_labels.'.length), r.str_value!]));
  const procs: TraceProcess[] = processes.map((p) => {
    const pid = pidOf.get(num(p.upid))!;
    const label = labels.get(String(p.pid));
    return { pid, name: p.name ?? '', kind: gpuPids.has(pid) ? 'gpu' : 'cpu', ...(idText.has(pid) ? { pidText: idText.get(pid)! } : {}), ...(label !== undefined ? { labels: label } : {}) };
  });

  // The timer slots' names: gsprof's metadata, else the first timer sample's labels.
  const [firstTimer] = meta.timerLabels ? [] : await db.rows<{ labels: string }>(
    `SELECT a.string_value AS labels FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id
     WHERE s.name = '${ENV_TIMERS_EVENT}' AND a.key IN ('args.labels', 'debug.labels') AND a.string_value IS NOT NULL ORDER BY s.ts, s.id LIMIT 1`);
  const timerLabels = meta.timerLabels ?? firstTimer?.labels.split(',').filter(Boolean);

  // A Kineto trace's own distributedInfo and deviceProperties (the importer keeps them as JSON metadata),
  // unless a trace gsprof wrote already carries them in its own metadata.
  const kinetoJson = async (name: string): Promise<unknown> => {
    const v = await db.metadata(name);
    if (typeof v !== 'string') return undefined;
    try { return JSON.parse(v) as unknown; } catch { return undefined; }
  };
  const kinetoDevices = await kinetoJson('deviceProperties');
  const kinetoDistributed = await kinetoJson('distributedInfo');
  const distributedInfo = meta.distributedInfo
    ?? (kinetoDistributed && typeof kinetoDistributed === 'object' && !Array.isArray(kinetoDistributed) ? kinetoDistributed as Record<string, unknown> : undefined);
  // A JSON source's top-level members, kept as written (the file's own, else those a pftrace's gsprof metadata carries).
  const topRow = await kinetoJson('json_top_level');
  const jsonTopLevel = isMembers(topRow) ? topRow : isMembers(meta.jsonTopLevel) ? meta.jsonTopLevel : undefined;
  const topName = jsonTopLevel?.find(([k]) => k === 'traceName')?.[1];
  let sourceName: unknown;
  try { sourceName = topName === undefined ? undefined : JSON.parse(topName); } catch { sourceName = undefined; }
  const metadata: TraceMetadata = {
    baseTimeNs: base,
    traceName: meta.traceName ?? (typeof sourceName === 'string' ? sourceName : basename(source)),
    producer: meta.producer ?? 'gsprof convert',
    hostname: meta.hostname ?? '',
    pid: meta.pid ?? procs[0]?.pid ?? 0,
    deviceProperties: meta.deviceProperties ?? (Array.isArray(kinetoDevices) ? kinetoDevices as TraceMetadata['deviceProperties'] : []),
    ...(distributedInfo ? { distributedInfo } : {}),
    ...(jsonTopLevel ? { jsonTopLevel } : {}),
    syncEachStep: meta.syncEachStep ?? false,
    run: { ...(meta.run ?? {}), convertedFrom: basename(source) },
    ...(meta.clockAlignment ? { clockAlignment: meta.clockAlignment } : {}),
    ...(meta.hostClock ? { hostClock: meta.hostClock } : {}),
    ...(timerLabels ? { timerLabels } : {}),
  };
  return { metadata, processes: procs, tracks, baseSql: base.toString() };
}

/** A list of [key, JSON text] pairs (TraceMetadata.jsonTopLevel). */
function isMembers(v: unknown): v is [string, string][] {
  return Array.isArray(v) && v.every((m) => Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string');
}
