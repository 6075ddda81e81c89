// TraceModel -> Chrome trace JSON in PyTorch/Kineto's object form, streamed. Events are encoded into
// ~256 KiB byte batches (json-batch.ts) and written through a FileSink with backpressure; a .gz path is gzipped on
// the fly. The JSON is always closed, and only a complete file is renamed into place.
import type { Args, TraceModel, TraceTrack } from '../model/trace.js';
import { ENV_TIMERS_CATEGORY, ENV_TIMERS_EVENT, envTimerArgs, hostThreadTrack, laneName, metadataJson } from './common.js';
import { FileSink } from './file-sink.js';
import { formatMicros, JsonBatch, quote } from './json-batch.js';
import { layoutSlices, releaseLayout, sortedByTs, tracksById } from './layout.js';

export { formatMicros };

const BATCH_BYTES = 256 * 1024;
/** Chrome's instant scope ("s") of the instants on a track. */
const SCOPE = { thread: 't', process: 'p', global: 'g' } as const;
/** Chrome tids given to overflow lanes and clashing tracks start here, far from real tids and queue indices. */
const SYNTHETIC_TID_BASE = 1_000_000;

const PIECE = {
  x: Buffer.from(',\n{"ph":"X","cat":'),
  xFirst: Buffer.from('{"ph":"X","cat":'),
  name: Buffer.from(',"name":'),
  ts: Buffer.from(',"ts":'),
  dur: Buffer.from(',"dur":'),
  args: Buffer.from(',"args":{'),
  end: Buffer.from('}'),
  argsEnd: Buffer.from('}}'),
  colon: Buffer.from(':'),
  comma: Buffer.from(','),
  true: Buffer.from('true'),
  false: Buffer.from('false'),
};

/** The members of an args object; arrays, objects and null as JSON (other values are skipped). */
function writeArgMembers(out: JsonBatch, args: Args): void {
  let first = true;
  for (const key in args) {
    const v = args[key];
    if (typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean' && typeof v !== 'object') continue;
    if (!first) out.bytes(PIECE.comma);
    first = false;
    out.string(key);
    out.bytes(PIECE.colon);
    if (typeof v === 'number') out.number(v);
    else if (typeof v === 'string') out.string(v);
    else if (typeof v === 'boolean') out.bytes(v ? PIECE.true : PIECE.false);
    else out.text(JSON.stringify(v));
  }
}

function argsJson(args: Args): string {
  const out = new JsonBatch(256);
  out.text('{');
  writeArgMembers(out, args);
  out.text('}');
  return out.take().toString();
}

/** Chrome (pid, tid) for every lane, unique per process, so no two tracks share a row. */
function assignThreadIds(lanes: ReadonlyArray<{ track: TraceTrack; index: number }>): Array<{ pid: number; tid: number }> {
  const used = new Set<string>();
  let next = SYNTHETIC_TID_BASE;
  const fresh = (pid: number): number => {
    while (used.has(`${pid}:${next}`)) next++;
    return next++;
  };
  return lanes.map(({ track, index }) => {
    // Counter tracks have no thread row (ph 'C' events name the counter), so they reserve no tid.
    if (track.kind === 'counter') return { pid: track.pid, tid: 0 };
    let tid = index === 0 ? (track.tid ?? track.id) : fresh(track.pid);
    if (used.has(`${track.pid}:${tid}`)) tid = fresh(track.pid);
    used.add(`${track.pid}:${tid}`);
    return { pid: track.pid, tid };
  });
}

export async function writeChromeTraceFile(trace: TraceModel, path: string): Promise<void> {
  const byId = tracksById(trace);
  const host = hostThreadTrack(trace);
  const layout = layoutSlices(trace, byId);
  const lanes = host.synthetic ? [...layout.lanes, { track: host.track, index: 0 }] : layout.lanes;
  const hostLane = host.synthetic ? lanes.length - 1 : layout.laneOfTrack.get(host.track.id)!;
  const ids = assignThreadIds(lanes);
  const where = ids.map(({ pid, tid }) => `"pid":${pid},"tid":${tid}`);
  const md = trace.metadata;
  const slices = trace.slices;

  const sink = await FileSink.open(path, { gzip: path.endsWith('.gz') });
  try {
    // Events are encoded straight into a reused byte batch (no long string ropes to flatten and collect).
    const out = new JsonBatch(BATCH_BYTES + 64 * 1024);
    let sep = '\n';
    const flush = async (): Promise<void> => {
      const chunk = out.takeShared();
      sink.write(chunk, () => out.recycle(chunk));
      if (sink.needsDrain) await sink.drain();
    };
    out.text(
      `{"schemaVersion":1,"deviceProperties":${JSON.stringify(md.deviceProperties)},` +
        `"distributedInfo":${JSON.stringify(md.distributedInfo ?? { backend: 'none', rank: 0, world_size: 1 })},"displayTimeUnit":"ms",` +
        `"baseTimeNanoseconds":${md.baseTimeNs.toString()},"traceName":${JSON.stringify(md.traceName)},` +
        `"gsprofMetadata":${metadataJson(md)},"traceEvents":[`,
    );
    // Appends one event; returns true when the batch is full and must be flushed (awaited only then).
    const add = (event: string): boolean => {
      out.text(sep + event);
      sep = ',\n';
      return out.pos >= BATCH_BYTES;
    };
    const emit = async (event: string): Promise<void> => {
      if (add(event)) await flush();
    };

    // Names and order of processes and threads. Processes that tracks use but the trace does not list still get named.
    const processes = [...trace.processes];
    for (const track of trace.tracks.concat(host.track)) {
      if (track.scope === 'global') continue;
      if (!processes.some((p) => p.pid === track.pid)) processes.push({ pid: track.pid, name: `process ${track.pid}`, kind: 'cpu' });
    }
    const sorted = [...processes].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'cpu' ? -1 : 1));
    for (const p of processes) {
      await emit(`{"ph":"M","name":"process_name","pid":${p.pid},"tid":0,"args":{"name":${quote(p.name)}}}`);
      await emit(`{"ph":"M","name":"process_sort_index","pid":${p.pid},"tid":0,"args":{"sort_index":${sorted.indexOf(p)}}}`);
      if (p.labels !== undefined) await emit(`{"ph":"M","name":"process_labels","pid":${p.pid},"tid":0,"args":{"labels":${quote(p.labels)}}}`);
    }
    for (let l = 0; l < lanes.length; l++) {
      const { track, index } = lanes[l]!;
      if (track.kind === 'counter' || (track.scope && index === 0)) continue;
      await emit(`{"ph":"M","name":"thread_name",${where[l]},"args":{"name":${quote(laneName(track, index))}}}`);
      await emit(`{"ph":"M","name":"thread_sort_index",${where[l]},"args":{"sort_index":${l}}}`);
    }

    // The hot loop: one X event per slice, written as bytes ({"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{..}}).
    const whereBytes = where.map((w) => Buffer.from(`,${w}`));
    if (layout.order.length > 0 && sep === '\n') { out.text('\n'); sep = ''; }
    for (let k = 0; k < layout.order.length; k++) {
      const i = layout.order[k]!;
      const s = slices[i]!;
      out.bytes(sep === '' ? PIECE.xFirst : PIECE.x);
      sep = ',\n';
      out.string(s.category);
      out.bytes(PIECE.name);
      out.string(s.name);
      out.bytes(whereBytes[layout.laneOf[i]!]!);
      out.bytes(PIECE.ts);
      out.micros(s.ts);
      out.bytes(PIECE.dur);
      out.micros(s.dur);
      if (s.args) {
        out.bytes(PIECE.args);
        writeArgMembers(out, s.args);
        out.bytes(PIECE.argsEnd);
      } else {
        out.bytes(PIECE.end);
      }
      if (out.pos >= BATCH_BYTES) await flush();
    }

    const instantOrder = sortedByTs(trace.instants, 'instant');
    for (let k = 0; k < instantOrder.length; k++) {
      const e = trace.instants[instantOrder[k]!]!;
      const lane = layout.laneOfTrack.get(e.track);
      if (lane === undefined) throw new Error(`trace: instant ${instantOrder[k]} ('${e.name}') is on unknown track ${e.track}`);
      if (lanes[lane]!.track.kind === 'counter') throw new Error(`trace: instant ${instantOrder[k]} ('${e.name}') is on counter track ${e.track}`);
      const args = e.args ? `,"args":${argsJson(e.args)}` : '';
      const scope = SCOPE[lanes[lane]!.track.scope ?? 'thread'];
      if (add(`{"ph":"i","s":"${scope}","cat":${quote(e.category)},"name":${quote(e.name)},${where[lane]},"ts":${formatMicros(e.ts)}${args}}`)) await flush();
    }

    // A JSON reader (Perfetto's, ours) names a counter track "<name> <arg key>": a track named "mem bytes" is
    // written as name "mem", key "bytes", so that reading the file back gives the same name, pass after pass
    // (before, each pass appended " value"). A name without a space keeps the key "value".
    const counterParts = new Map<number, string>();
    const counterOrder = sortedByTs(trace.counters, 'counter sample');
    for (let k = 0; k < counterOrder.length; k++) {
      const c = trace.counters[counterOrder[k]!]!;
      const track = byId.get(c.track);
      if (track?.kind !== 'counter') throw new Error(`trace: counter sample ${counterOrder[k]} is on ${track ? 'non-counter' : 'unknown'} track ${c.track}`);
      let head = counterParts.get(c.track);
      if (head === undefined) {
        const cut = track.name.lastIndexOf(' ');
        head = cut > 0 && cut < track.name.length - 1
          ? `"name":${quote(track.name.slice(0, cut))},"pid":${track.pid},"args":{${quote(track.name.slice(cut + 1))}:`
          : `"name":${quote(track.name)},"pid":${track.pid},"args":{"value":`;
        counterParts.set(c.track, head);
      }
      const value = Number.isFinite(c.value) ? String(c.value) : 'null';
      if (add(`{"ph":"C","ts":${formatMicros(c.ts)},${head}${value}}}`)) await flush();
    }

    for (let k = 0; k < trace.flows.length; k++) {
      const f = trace.flows[k]!;
      const from = slices[f.fromSlice], to = slices[f.toSlice];
      if (!from || !to) throw new Error(`trace: flow ${k} (id ${f.id}) refers to missing slice ${from ? f.toSlice : f.fromSlice}`);
      const named = `"cat":${quote(f.category)},"name":${quote(f.name ?? f.category)}`;
      await emit(`{"ph":"s","id":${f.id},${where[layout.laneOf[f.fromSlice]!]},"ts":${formatMicros(from.ts)},${named}}`);
      await emit(`{"ph":"f","bp":"e","id":${f.id},${where[layout.laneOf[f.toSlice]!]},"ts":${formatMicros(to.ts)},${named}}`);
    }

    const timerOrder = sortedByTs(trace.envTimers, 'env timer sample');
    for (let k = 0; k < timerOrder.length; k++) {
      const t = trace.envTimers[timerOrder[k]!]!;
      await emit(
        `{"ph":"i","s":"t","cat":"${ENV_TIMERS_CATEGORY}","name":"${ENV_TIMERS_EVENT}",${where[hostLane]},` +
          `"ts":${formatMicros(t.ts)},"args":${argsJson(envTimerArgs(t, md.timerLabels))}}`,
      );
    }

    out.text('\n]}\n');
    await flush();
    await sink.close();
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    releaseLayout(layout);
  }
}
