/**
 * Rebuilds a whole TraceModel (what the exporters and `gsprof merge` take) from an imported trace's
 * Perfetto-named tables. `gsprof convert` does not: it streams the tables to the exporters (event-rows.ts).
 */
import { DEFAULT_FLOW, pathOfArgKey, setArgPath } from '@gsprof/profiler';
import type { ArgPath, Args, CounterSample, EnvTimerSample, FlowEvent, InstantEvent, SliceEvent, TraceDb, TraceModel, TraceTrack } from '@gsprof/profiler';
import { ARG_ROWS_SQL, type ArgRow, ENV_TIMERS_EVENT, GPU_CATEGORIES, METADATA_EVENT, argValue, decodeTimers, num, readTraceHeader } from './trace-header.js';

/** Each arg set as the structured value it was flattened from (see the importers' argTree). */
async function readArgs(db: TraceDb): Promise<Map<number, Args>> {
  const rows = await db.rows<ArgRow & { arg_set_id: number }>(`${ARG_ROWS_SQL} ORDER BY arg_set_id, pos`);
  const out = new Map<number, Args>();
  for (const r of rows) {
    const id = num(r.arg_set_id);
    let args = out.get(id);
    if (!args) { args = {}; out.set(id, args); }
    setArgPath(args, r.path !== null ? JSON.parse(r.path) as ArgPath : pathOfArgKey(r.key), argValue(r));
  }
  return out;
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
  const { metadata, processes, tracks, baseSql } = await readTraceHeader(db, source);
  const args = await readArgs(db);
  const sliceRows = await db.rows<{ id: number; rel: number; dur: number; track_id: number; category: string | null; name: string | null; arg_set_id: number | null }>(
    `SELECT id, CAST(ts - ${baseSql} AS DOUBLE) AS rel, dur, track_id, category, name, arg_set_id FROM slice ORDER BY ts, id`);
  const slices: SliceEvent[] = [];
  const instants: InstantEvent[] = [];
  const envTimers: EnvTimerSample[] = [];
  const sliceIndex = new Map<number, number>();
  const zeroDur = new Set((await db.rows<{ slice_id: number }>('SELECT slice_id FROM zero_dur_slice')).map((r) => num(r.slice_id)));
  for (const r of sliceRows) {
    const name = r.name ?? '';
    const a = r.arg_set_id !== null ? args.get(num(r.arg_set_id)) : undefined;
    const ts = num(r.rel);
    if (name === METADATA_EVENT) continue;
    if (name === ENV_TIMERS_EVENT && a) {
      const sample = decodeTimers(a, ts);
      if (sample) { envTimers.push(sample); continue; }
    }
    const category = r.category ?? '';
    const dur = num(r.dur);
    if (dur <= 0 && !GPU_CATEGORIES.has(category) && !zeroDur.has(num(r.id))) {
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
  return { metadata, processes, tracks, slices, instants, counters, flows, envTimers };
}
