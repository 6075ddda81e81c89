/**
 * Rebuilds a TraceModel (what the exporters write) from an imported trace's Perfetto-named tables, so that
 * `gsprof convert` is import-then-export for every format gsprof reads. gsprof's own metadata and per-env
 * timers are restored from their conventional events; everything else maps table to field.
 */
import { basename } from 'node:path';
import { DEFAULT_FLOW, pathOfArgKey, setArgPath } from '@gsprof/profiler';
import type {
  ArgPath, ArgValue, Args, CounterSample, EnvTimerSample, FlowEvent, InstantEvent, SliceEvent, TraceDb, TraceMetadata, TraceModel, TraceProcess, TraceTrack,
} from '@gsprof/profiler';

const GPU_CATEGORIES = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation']);
const METADATA_EVENT = 'gsprof.metadata';
const ENV_TIMERS_EVENT = 'env_timers';

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);

interface ArgRow { arg_set_id: number; key: string; int_value: number | string | null; string_value: string | null; real_value: number | null; value_type: string; path: string | null }

/** A row's value as its type says: a bool is not 1; an empty array or object (from arg_shape) is JSON. */
function argValue(r: ArgRow): ArgValue {
  if (r.value_type === 'bool') return num(r.int_value) !== 0;
  if (r.value_type === 'null') return null;
  if (r.value_type === 'json' && r.string_value !== null) return JSON.parse(r.string_value) as ArgValue;
  return r.string_value ?? (r.int_value !== null ? num(r.int_value) : r.real_value);
}

/**
 * Each arg set as the structured value it was flattened from (see the importers' argTree): the args rows with
 * their paths, and the empty arrays and objects arg_shape keeps, in read order (args.id and arg_shape.arg_id).
 */
async function readArgs(db: TraceDb): Promise<Map<number, Args>> {
  const rows = await db.rows<ArgRow>(
    `SELECT a.arg_set_id, a.key, a.int_value, a.string_value, a.real_value, a.value_type, p.path, a.id AS pos
     FROM args a LEFT JOIN arg_shape p ON p.arg_id = a.id AND p.json IS NULL WHERE a.arg_set_id IS NOT NULL
     UNION ALL
     SELECT arg_set_id, '', NULL, json, NULL, 'json', path, arg_id FROM arg_shape WHERE json IS NOT NULL
     ORDER BY arg_set_id, pos`);
  const out = new Map<number, Args>();
  for (const r of rows) {
    const id = num(r.arg_set_id);
    let args = out.get(id);
    if (!args) { args = {}; out.set(id, args); }
    setArgPath(args, r.path !== null ? JSON.parse(r.path) as ArgPath : pathOfArgKey(r.key), argValue(r));
  }
  return out;
}

function decodeTimers(args: Args): EnvTimerSample | null {
  const nEnvs = num(args.n_envs);
  if (!(nEnvs > 0) || typeof args.values_b64 !== 'string') return null;
  const bytes = Buffer.from(args.values_b64, 'base64');
  const values = new Float64Array(bytes.length >> 3);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readDoubleLE(i * 8);
  return { step: num(args.step) || 0, ts: 0, nEnvs, values };
}

/** Moves slices that partially overlap an earlier one on their track to an overflow track (exporters expect
 * strictly nested slices per track, as Perfetto's JSON importer arranges). */
function nestStrictly(slices: SliceEvent[], tracks: TraceTrack[]): void {
  let nextId = Math.max(0, ...tracks.map((t) => t.id)) + 1;
  let pending = slices;
  const overflow = new Map<number, number>();
  for (let round = 0; round < 32 && pending.length > 0; round++) {
    const order = [...pending].sort((a, b) => a.track - b.track || a.ts - b.ts || b.dur - a.dur);
    const moved: SliceEvent[] = [];
    const stack: SliceEvent[] = [];
    let track = NaN;
    for (const s of order) {
      if (s.track !== track) { stack.length = 0; track = s.track; }
      while (stack.length > 0 && stack[stack.length - 1]!.ts + stack[stack.length - 1]!.dur <= s.ts) stack.pop();
      const top = stack[stack.length - 1];
      if (top && s.ts + s.dur > top.ts + top.dur) { moved.push(s); continue; }
      stack.push(s);
    }
    for (const s of moved) {
      let target = overflow.get(s.track);
      if (target === undefined) {
        const base = tracks.find((t) => t.id === s.track)!;
        target = nextId++;
        tracks.push({ ...base, id: target, name: `${base.name} (overlapping)`, ...(base.tid !== undefined ? { tid: base.tid + 1_000_000 } : {}) });
        overflow.set(s.track, target);
      }
      s.track = target;
    }
    pending = moved;
  }
}

export async function tablesToModel(db: TraceDb, source: string): Promise<TraceModel> {
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
  const baseSql = base.toString();

  const processes = await db.rows<{ upid: number; pid: number | string; name: string | null }>('SELECT upid, pid, name FROM process ORDER BY upid');
  const threads = await db.rows<{ utid: number; tid: number | string; name: string | null; upid: number | null }>('SELECT utid, tid, name, upid FROM thread ORDER BY utid');
  const trackRows = await db.rows<{ id: number; name: string | null; type: string; utid: number | null; upid: number | null; unit: string | null }>(
    'SELECT id, name, type, utid, upid, unit FROM track ORDER BY id');
  const contents = new Map((await db.rows<{ track_id: number; gpu: boolean; spans: boolean }>(
    `SELECT track_id, bool_or(category IN (${[...GPU_CATEGORIES].map((c) => `'${c}'`).join(',')})) AS gpu, bool_or(dur > 0) AS spans
     FROM slice GROUP BY track_id`)).map((r) => [num(r.track_id), r]));

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
      name: t.name ?? thread?.name ?? (tid !== undefined ? `thread ${tid}` : `track ${id}`),
      ...(tid !== undefined && Number.isFinite(tid) ? { tid } : kind !== 'counter' ? { tid: id } : {}),
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
    return { pid, name: p.name ?? `process ${pid}`, kind: gpuPids.has(pid) ? 'gpu' : 'cpu', ...(label !== undefined ? { labels: label } : {}) };
  });

  const args = await readArgs(db);
  const sliceRows = await db.rows<{ id: number; rel: number; dur: number; track_id: number; category: string | null; name: string | null; arg_set_id: number | null }>(
    `SELECT id, CAST(ts - ${baseSql} AS DOUBLE) AS rel, dur, track_id, category, name, arg_set_id FROM slice ORDER BY ts, id`);
  const slices: SliceEvent[] = [];
  const instants: InstantEvent[] = [];
  const envTimers: EnvTimerSample[] = [];
  const sliceIndex = new Map<number, number>();
  let timerLabels: string[] | undefined = meta.timerLabels;
  for (const r of sliceRows) {
    const name = r.name ?? '';
    const a = r.arg_set_id !== null ? args.get(num(r.arg_set_id)) : undefined;
    const ts = num(r.rel);
    if (name === METADATA_EVENT) continue;
    if (name === ENV_TIMERS_EVENT && a) {
      const sample = decodeTimers(a);
      if (sample) {
        envTimers.push({ ...sample, ts });
        if (!timerLabels && typeof a.labels === 'string') timerLabels = a.labels.split(',').filter(Boolean);
        continue;
      }
    }
    const category = r.category ?? '';
    const dur = num(r.dur);
    if (dur <= 0 && !GPU_CATEGORIES.has(category)) {
      instants.push({ track: num(r.track_id), name, category, ts, ...(a ? { args: { ...a } } : {}) });
      continue;
    }
    sliceIndex.set(num(r.id), slices.length);
    slices.push({ track: num(r.track_id), name, category, ts, dur: Math.max(0, dur), ...(a ? { args: { ...a } } : {}) });
  }
  const counters: CounterSample[] = (await db.rows<{ rel: number; track_id: number; value: number }>(
    `SELECT CAST(ts - ${baseSql} AS DOUBLE) AS rel, track_id, value FROM counter ORDER BY ts, id`))
    .map((c) => ({ track: num(c.track_id), ts: num(c.rel), value: num(c.value) }));
  const flows: FlowEvent[] = [];
  for (const f of await db.rows<{ slice_out: number; slice_in: number; category: string | null; name: string | null }>(
    'SELECT slice_out, slice_in, category, name FROM flow ORDER BY id')) {
    const from = sliceIndex.get(num(f.slice_out));
    const to = sliceIndex.get(num(f.slice_in));
    if (from === undefined || to === undefined) continue;
    // A JSON flow with a name but no cat keeps both as written; one with neither is taken for Kineto's ac2g.
    const category = f.category ?? (f.name !== null ? '' : DEFAULT_FLOW);
    flows.push({ id: flows.length + 1, fromSlice: from, toSlice: to, category, ...(f.name !== null && f.name !== category ? { name: f.name } : {}) });
  }
  nestStrictly(slices, tracks);

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
  const metadata: TraceMetadata = {
    baseTimeNs: base,
    traceName: meta.traceName ?? basename(source),
    producer: meta.producer ?? 'gsprof convert',
    hostname: meta.hostname ?? '',
    pid: meta.pid ?? procs[0]?.pid ?? 0,
    deviceProperties: meta.deviceProperties ?? (Array.isArray(kinetoDevices) ? kinetoDevices as TraceMetadata['deviceProperties'] : []),
    ...(distributedInfo ? { distributedInfo } : {}),
    syncEachStep: meta.syncEachStep ?? false,
    run: { ...(meta.run ?? {}), convertedFrom: basename(source) },
    ...(meta.clockAlignment ? { clockAlignment: meta.clockAlignment } : {}),
    ...(meta.hostClock ? { hostClock: meta.hostClock } : {}),
    ...(timerLabels ? { timerLabels } : {}),
  };
  return { metadata, processes: procs, tracks, slices, instants, counters, flows, envTimers };
}
