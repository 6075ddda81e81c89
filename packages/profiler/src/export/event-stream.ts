// A trace handed to the streaming exporters (perfetto-stream.ts, chrome-stream.ts) as it is read: the few
// things a writer needs up front (metadata, processes, tracks), then its events in batches, in time order. The
// exporters hold one batch and the slices still open, never the trace, so memory does not grow with it.
import type { Args, EnvTimerSample, TraceMetadata, TraceModel, TraceProcess, TraceTrack } from '../model/trace.js';

/** One end of a flow at the slice it leaves or enters. */
export interface StreamFlow {
  id: number;
  category: string;
  /** The flow's name where it is not its category. */
  name?: string;
}

/** A slice's thread time in ns (Perfetto's slice.thread_ts and thread_dur; Chrome JSON's tts and tdur), null where unknown. */
export interface ThreadTime { ts: number | null; dur: number | null }

export type StreamEvent =
  | { kind: 'slice'; track: number; name: string; category: string; ts: number; dur: number; args?: Args; flowsOut?: StreamFlow[]; flowsIn?: StreamFlow[]; thread?: ThreadTime }
  | { kind: 'instant'; track: number; name: string; category: string; ts: number; args?: Args; flowsOut?: StreamFlow[]; flowsIn?: StreamFlow[]; thread?: ThreadTime }
  | { kind: 'counter'; track: number; ts: number; value: number }
  | { kind: 'timers'; sample: EnvTimerSample };

export interface EventStream {
  metadata: TraceMetadata;
  processes: TraceProcess[];
  tracks: TraceTrack[];
  /**
   * The flows' categories and names as flowNamesJson gives them (pftrace only: its flows cannot carry them);
   * undefined without flows.
   */
  flowNames?: string;
  /**
   * Events by time (ts, ns relative to metadata.baseTimeNs); at one time slices come first, longest first (a
   * parent before its children), then instants, counters and timer samples.
   */
  events: AsyncIterable<readonly StreamEvent[]>;
}

/** The time of an event. */
export function eventTime(e: StreamEvent): number {
  return e.kind === 'timers' ? e.sample.ts : e.ts;
}

/** Checks that events come in time order (the exporters place slices as they come); returns the event's time. */
export class TimeOrder {
  private last = -Infinity;
  private count = 0;

  check(e: StreamEvent): number {
    const ts = eventTime(e);
    if (!Number.isFinite(ts)) throw new Error(`trace: event ${this.count} ('${e.kind}') has a non-finite time (${ts})`);
    if (ts < this.last) throw new Error(`trace: event ${this.count} ('${e.kind}') at ${ts} ns comes after one at ${this.last} ns: events must come in time order`);
    if (e.kind === 'slice' && !(Number.isFinite(e.dur) && e.dur >= 0)) throw new Error(`trace: slice ${this.count} ('${e.name}') has an invalid duration (${e.dur})`);
    this.last = ts;
    this.count++;
    return ts;
  }
}

/**
 * Traces whose events are not in the TraceModel but on disk (a recording cycle that spilled them, see
 * record/spill.ts): the model holds the metadata, processes and tracks, and this gives its events as a stream,
 * each call a new one. writePerfettoTrace and writeChromeTrace write such a trace through the stream writers.
 */
const spilled = new WeakMap<TraceModel, () => EventStream>();

export function markSpilled(trace: TraceModel, stream: () => EventStream): void {
  spilled.set(trace, stream);
}

/** The stream of a spilled trace's events, or undefined when its events are in the model. */
export function spilledStream(trace: TraceModel): (() => EventStream) | undefined {
  return spilled.get(trace);
}
