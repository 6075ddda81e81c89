// The Chrome JSON file itself, event by event, for both Chrome exporters (chrome.ts writes a TraceModel,
// chrome-stream.ts a stream of events in time order): the header, the metadata events that name processes and
// threads, and one method per event kind. Events are encoded into ~256 KiB byte batches (json-batch.ts) written
// through a FileSink with backpressure; a .gz path is gzipped on the fly, and only a complete file is renamed
// into place.
import { RealArg, realText, type ArgValue, type Args, type EnvTimerSample, type TraceMetadata, type TraceProcess, type TraceTrack } from '../model/trace.js';
import { ENV_TIMERS_CATEGORY, ENV_TIMERS_EVENT, envTimerArgs, laneName, metadataJson } from './common.js';
import type { ThreadTime } from './event-stream.js';
import { FileSink } from './file-sink.js';
import { formatMicros, JsonBatch, quote } from './json-batch.js';

const BATCH_BYTES = 256 * 1024;
/** Chrome's instant scope ("s") of the instants on a track. */
const SCOPE = { thread: 't', process: 'p', global: 'g' } as const;
/** Chrome tids given to overflow lanes and clashing tracks start here, far from real tids and queue indices. */
const SYNTHETIC_TID_BASE = 1_000_000;

const PIECE = {
  x: Buffer.from(',\n{"ph":"X"'),
  xFirst: Buffer.from('{"ph":"X"'),
  cat: Buffer.from(',"cat":'),
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

/** JSON text of a nested arg value; a bigint (an int64 beyond 2^53) as its exact integer literal, a RealArg with its point. */
function argJson(v: ArgValue): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof RealArg) return realText(v.value);
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(argJson).join(',')}]`;
  return `{${Object.keys(v).map((k) => `${quote(k)}:${argJson(v[k]!)}`).join(',')}}`;
}

/** JSON.stringify unless the value holds a bigint or a RealArg somewhere (rare), which JSON.stringify refuses. */
function nestedJson(v: ArgValue): string {
  try {
    return JSON.stringify(v);
  } catch (err) {
    if (err instanceof TypeError) return argJson(v);
    throw err;
  }
}

/** The members of an args object; arrays, objects and null as JSON (other values are skipped). */
function writeArgMembers(out: JsonBatch, args: Args): void {
  let first = true;
  for (const key in args) {
    const v = args[key];
    if (typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean' && typeof v !== 'object' && typeof v !== 'bigint') continue;
    if (!first) out.bytes(PIECE.comma);
    first = false;
    out.string(key);
    out.bytes(PIECE.colon);
    if (typeof v === 'number') out.number(v);
    else if (typeof v === 'string') out.string(v);
    else if (typeof v === 'boolean') out.bytes(v ? PIECE.true : PIECE.false);
    else if (typeof v === 'bigint') out.text(v.toString());
    else if (v instanceof RealArg) out.text(realText(v.value));
    else out.text(nestedJson(v));
  }
}

function argsJson(args: Args): string {
  const out = new JsonBatch(256);
  out.text('{');
  writeArgMembers(out, args);
  out.text('}');
  return out.take().toString();
}

/** A pid as JSON: the string a JSON source gave where it gave one (`text`), else the number. */
function idJson(id: number, text: string | undefined): string {
  return text === undefined ? String(id) : quote(text);
}

/**
 * The top-level members before the time base: a JSON source's own, as it wrote them (see
 * TraceMetadata.jsonTopLevel); else Kineto's, from the metadata. distributedInfo only where there is one: a
 * process no launcher started has no rank to state (HTA reads a trace without it as a single process's).
 */
function headerMembers(md: TraceMetadata): string {
  if (md.jsonTopLevel) return md.jsonTopLevel.map(([key, raw]) => `${quote(key)}:${raw}`).join(',');
  return `"schemaVersion":1,"deviceProperties":${JSON.stringify(md.deviceProperties)},` +
    `${md.distributedInfo ? `"distributedInfo":${JSON.stringify(md.distributedInfo)},` : ''}"displayTimeUnit":"ms",` +
    `"traceName":${JSON.stringify(md.traceName)}`;
}

/** Whether a track's overflow lanes are written on its own tid (see ThreadIds.assign). */
function sharesTid(track: TraceTrack): boolean {
  return track.tid !== undefined && !track.scope;
}

/** Where a counter track's name splits into a C event's name and arg key (its last inner space), or -1. */
function counterSplit(name: string): number {
  const cut = name.lastIndexOf(' ');
  return cut > 0 && cut < name.length - 1 ? cut : -1;
}

/** Chrome (pid, tid) of each lane, unique per process, so no two tracks share a row. Lanes are given in lane order. */
export class ThreadIds {
  private readonly used = new Set<string>();
  private next = SYNTHETIC_TID_BASE;

  /**
   * `sameThread` (convert): a thread's overflow lanes (slices that partly overlap one another) keep its tid, as
   * the JSON a converted trace came from had them: a JSON reader keeps such slices on the thread
   * (trace_processor on a track of its own, counted slice_spill_overlapping_complete_event), and a Kineto
   * Stream Sync that overlaps a kernel stays on its stream's tid. Else (a recording, for the DevTools trace
   * engine, which draws no partial overlap on one tid) each lane gets a tid of its own, named "(overlap 1)".
   */
  constructor(readonly sameThread = false) {}


  private fresh(pid: number): number {
    while (this.used.has(`${pid}:${this.next}`)) this.next++;
    return this.next++;
  }

  /** The `"pid":..,"tid":..` members of the next lane. */
  assign(track: TraceTrack, index: number): string {
    // Counter tracks have no thread row (ph 'C' events name the counter), so they reserve no tid.
    const pid = idJson(track.pid, track.pidText);
    if (track.kind === 'counter') return `"pid":${pid},"tid":0`;
    if (index > 0 && this.sameThread && sharesTid(track)) return `"pid":${pid},"tid":${idJson(track.tid!, track.tidText)}`;
    let tid = index === 0 ? (track.tid ?? track.id) : this.fresh(track.pid);
    if (this.used.has(`${track.pid}:${tid}`)) tid = this.fresh(track.pid);
    this.used.add(`${track.pid}:${tid}`);
    return `"pid":${pid},"tid":${index === 0 && tid === track.tid ? idJson(tid, track.tidText) : tid}`;
  }
}

export class ChromeEventWriter {
  // Events are encoded straight into a reused byte batch (no long string ropes to flatten and collect).
  private readonly out = new JsonBatch(BATCH_BYTES + 64 * 1024);
  /** Whether an event has been written (every later one is preceded by a comma). */
  private started = false;
  private readonly counterHeads = new Map<number, string>();

  private constructor(private readonly sink: FileSink, private readonly md: TraceMetadata, tracks: readonly TraceTrack[]) {
    const whole = tracks.filter((t) => t.kind === 'counter' && counterSplit(t.name) < 0).map((t) => t.name);
    const { jsonCounterNames: _, ...rest } = md;
    const own: TraceMetadata = whole.length > 0 ? { ...rest, jsonCounterNames: [...new Set(whole)] } : rest;
    this.out.text(`{${headerMembers(md)},"baseTimeNanoseconds":${md.baseTimeNs.toString()},"gsprofMetadata":${metadataJson(own)},"traceEvents":[`);
  }

  /** `tracks`: every track the file will have (the counter tracks' names decide jsonCounterNames). */
  static async open(path: string, md: TraceMetadata, tracks: readonly TraceTrack[]): Promise<ChromeEventWriter> {
    return new ChromeEventWriter(await FileSink.open(path, { gzip: path.endsWith('.gz') }), md, tracks);
  }

  /** True when the batch is full: await flush() (only then, so the hot loops await rarely). */
  get full(): boolean {
    return this.out.pos >= BATCH_BYTES;
  }

  async flush(): Promise<void> {
    const chunk = this.out.takeShared();
    this.sink.write(chunk, () => this.out.recycle(chunk));
    if (this.sink.needsDrain) await this.sink.drain();
  }

  /** Closes the JSON, then the file (renamed into place). */
  async close(): Promise<void> {
    this.out.text('\n]}\n');
    await this.flush();
    await this.sink.close();
  }

  /** Stops and deletes the temporary file. */
  async abort(): Promise<void> {
    await this.sink.abort();
  }

  private add(event: string): void {
    this.out.text((this.started ? ',\n' : '\n') + event);
    this.started = true;
  }

  /** Names and order of the processes; processes that tracks use but the list lacks are still named. */
  processes(listed: readonly TraceProcess[], tracks: readonly TraceTrack[]): void {
    const processes = [...listed];
    for (const track of tracks) {
      if (track.scope === 'global') continue;
      if (!processes.some((p) => p.pid === track.pid)) processes.push({ pid: track.pid, name: '', kind: 'cpu' });
    }
    const sorted = [...processes].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'cpu' ? -1 : 1));
    for (const p of processes) {
      const pid = idJson(p.pid, p.pidText);
      // An unnamed process ('') gets no name event: reading the file back leaves it unnamed, not 'process N'.
      if (p.name !== '') this.add(`{"ph":"M","name":"process_name","pid":${pid},"tid":0,"args":{"name":${quote(p.name)}}}`);
      this.add(`{"ph":"M","name":"process_sort_index","pid":${pid},"tid":0,"args":{"sort_index":${sorted.indexOf(p)}}}`);
      if (p.labels !== undefined) this.add(`{"ph":"M","name":"process_labels","pid":${pid},"tid":0,"args":{"labels":${quote(p.labels)}}}`);
    }
  }

  /** The name and order of lane `index` of `track`; `sameThread` as ThreadIds' (such a lane is not named). */
  thread(where: string, track: TraceTrack, index: number, sortIndex: number, sameThread = false): void {
    if (track.kind === 'counter' || (track.scope && index === 0)) return;
    if (index > 0 && sameThread && sharesTid(track)) return;
    const name = laneName(track, index);
    if (name !== '') this.add(`{"ph":"M","name":"thread_name",${where},"args":{"name":${quote(name)}}}`);
    this.add(`{"ph":"M","name":"thread_sort_index",${where},"args":{"sort_index":${sortIndex}}}`);
  }

  /** One X event, written as bytes; `where` is `,"pid":..,"tid":..` pre-encoded; `thread` as tts and tdur. */
  slice(category: string, name: string, where: Buffer, ts: number, dur: number, args: Args | undefined, thread?: ThreadTime): void {
    const out = this.out;
    if (this.started) out.bytes(PIECE.x);
    else { out.text('\n'); out.bytes(PIECE.xFirst); this.started = true; }
    if (category !== '') { out.bytes(PIECE.cat); out.string(category); }
    out.bytes(PIECE.name);
    out.string(name);
    out.bytes(where);
    out.bytes(PIECE.ts);
    out.micros(ts);
    out.bytes(PIECE.dur);
    out.micros(dur);
    if (thread?.ts != null) { out.text(',"tts":'); out.micros(thread.ts); }
    if (thread?.dur != null) { out.text(',"tdur":'); out.micros(thread.dur); }
    if (args) {
      out.bytes(PIECE.args);
      writeArgMembers(out, args);
      out.bytes(PIECE.argsEnd);
    } else {
      out.bytes(PIECE.end);
    }
  }

  instant(track: TraceTrack, where: string, name: string, category: string, ts: number, args: Args | undefined, thread?: ThreadTime): void {
    // A JSON instant has no thread duration (trace_processor reads none).
    const json = `${thread?.ts != null ? `,"tts":${formatMicros(thread.ts)}` : ''}${args ? `,"args":${argsJson(args)}` : ''}`;
    const scope = SCOPE[track.scope ?? 'thread'];
    const cat = category === '' ? '' : `"cat":${quote(category)},`;
    this.add(`{"ph":"i","s":"${scope}",${cat}"name":${quote(name)},${where},"ts":${formatMicros(ts)}${json}}`);
  }

  // A JSON reader (Perfetto's, ours) names a counter track "<name> <arg key>": a track named "mem bytes" is
  // written as name "mem", key "bytes", so that reading the file back gives the same name, pass after pass
  // (before, each pass appended " value"). A name without a space keeps the key "value", and is listed in the
  // gsprof metadata (jsonCounterNames) so that gsprof reads it back as it was.
  counter(track: TraceTrack, ts: number, value: number): void {
    let head = this.counterHeads.get(track.id);
    if (head === undefined) {
      const cut = counterSplit(track.name);
      head = cut >= 0
        ? `"name":${quote(track.name.slice(0, cut))},"pid":${idJson(track.pid, track.pidText)},"args":{${quote(track.name.slice(cut + 1))}:`
        : `"name":${quote(track.name)},"pid":${idJson(track.pid, track.pidText)},"args":{"value":`;
      this.counterHeads.set(track.id, head);
    }
    this.add(`{"ph":"C","ts":${formatMicros(ts)},${head}${Number.isFinite(value) ? String(value) : 'null'}}}`);
  }

  /** One end of a flow: 's' at the slice it leaves, 'f' (bound to the enclosing slice) at the one it enters. */
  flow(ph: 's' | 'f', id: number, where: string, ts: number, category: string, name: string): void {
    const bind = ph === 'f' ? '"bp":"e",' : '';
    // As for slices: a flow without a category is written without one (trace_processor reads "" as none too).
    const cat = category === '' ? '' : `"cat":${quote(category)},`;
    this.add(`{"ph":"${ph}",${bind}"id":${id},${where},"ts":${formatMicros(ts)},${cat}"name":${quote(name)}}`);
  }

  envTimers(where: string, sample: EnvTimerSample): void {
    this.add(
      `{"ph":"i","s":"t","cat":"${ENV_TIMERS_CATEGORY}","name":"${ENV_TIMERS_EVENT}",${where},` +
        `"ts":${formatMicros(sample.ts)},"args":${argsJson(envTimerArgs(sample, this.md.timerLabels))}}`,
    );
  }
}
