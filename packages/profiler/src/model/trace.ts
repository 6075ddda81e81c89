/**
 * The in-memory trace the recorder produces and the exporters write (Perfetto protobuf, Chrome JSON).
 *
 * Times are integer nanoseconds relative to `metadata.baseTimeNs` (host wall clock, epoch ns), so they stay
 * exact in a double. GPU spans are already aligned to the host clock when they land here.
 * Importers do not build this model: they fill the SQL tables (Perfetto's names) directly.
 */

/**
 * A real arg whose value is an integer (JSON `1.0` or `1e3`, a protobuf double annotation of 1): a plain number
 * would be read and written as an int, where trace_processor types it 'real'. JSON.stringify refuses it (toJSON
 * throws a TypeError, as for a bigint) so that writers fall back to a serializer that keeps the decimal point.
 */
export class RealArg {
  constructor(readonly value: number) {}
  toJSON(): never { throw new TypeError('RealArg: write it with its decimal point (realText)'); }
}

/** A value read as a real, as an arg: a RealArg where a plain number would read back as an int. */
export function realArg(v: number): number | RealArg {
  return Number.isInteger(v) ? new RealArg(v) : v;
}

/** A real's JSON text with a decimal point or an exponent, so that a reader types it real. */
export function realText(v: number): string {
  if (!Number.isFinite(v)) return 'null';
  const s = Object.is(v, -0) ? '-0' : String(v);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/**
 * Scalars, and the arrays and objects of Kineto's args (`"Input Dims": [[2, 3], []]`). A bigint is an int64
 * beyond 2^53 (a pftrace's debug annotation), kept exact; a RealArg is a real with an integral value.
 */
export type ArgValue = string | number | bigint | boolean | null | RealArg | ArgValue[] | { [key: string]: ArgValue };
export type Args = Record<string, ArgValue>;

export type TrackKind = 'thread' | 'gpu_queue' | 'counter';

export interface TraceTrack {
  /** Unique within the trace; exporters derive Perfetto uuids and Chrome tids from it. */
  id: number;
  kind: TrackKind;
  name: string;
  /** Process the track belongs to (the recording process, or a GPU device pseudo-process). */
  pid: number;
  /** OS thread id for 'thread', queue index for 'gpu_queue'. */
  tid?: number;
  /** The pid and tid as a JSON source wrote them where they were strings (Chrome JSON allows it; `pid`/`tid`
   *  are then the numbers the importer gave them): the Chrome exporters write these instead. */
  pidText?: string;
  tidText?: string;
  /** Counter unit: 'ns' | 'count' | 'bytes' | a free-form unit name. */
  unit?: string;
  /** Set on a track of instants that belong to its process or to the whole trace rather than to a thread
   *  (Chrome's "s": "p" / "g"); exporters write them so. */
  scope?: 'process' | 'global';
}

export interface TraceProcess {
  pid: number;
  /** The pid as a JSON source wrote it where it was a string (see TraceTrack.pidText). */
  pidText?: string;
  name: string;
  /** Chrome/Kineto sort order and labelling hint ('cpu' for the host process, 'gpu' for a device). */
  kind: 'cpu' | 'gpu';
  /** Kineto's process_labels (Perfetto's ProcessDescriptor.process_labels), kept through convert. */
  labels?: string;
}

export interface SliceEvent {
  track: number;
  name: string;
  /** Kineto categories: 'user_annotation' (steps), 'cpu_op', 'kernel', 'gpu_user_annotation', 'cuda_runtime'
   * (used for submits, so HTA-style tools find launches), 'compile', ... */
  category: string;
  ts: number;
  dur: number;
  args?: Args;
}

export interface InstantEvent {
  track: number;
  name: string;
  category: string;
  ts: number;
  args?: Args;
}

export interface CounterSample {
  track: number;
  ts: number;
  value: number;
}

/** A causal arrow from a CPU slice (the submit) to a GPU slice (a pass it caused); Kineto's ac2g. */
export interface FlowEvent {
  id: number;
  /** Indices into TraceModel.slices. */
  fromSlice: number;
  toSlice: number;
  category: string;
  /** The flow's own name (Chrome's s/f "name"), where it is not its category. */
  name?: string;
}

/** Per-env solver timers of one recorded step: values[slot * nEnvs + env]. */
export interface EnvTimerSample {
  step: number;
  ts: number;
  nEnvs: number;
  values: Float64Array;
}

export interface DeviceProperties {
  id: number;
  name: string;
  vendor?: string;
  architecture?: string;
  description?: string;
  backend?: string;
  timestampQuery?: boolean;
  limits?: Record<string, number>;
}

/** A host time as a reading of the machine's CLOCK_MONOTONIC. */
export interface MonotonicAnchor {
  /** Linux's boot id: two readings compare only under the same one (null where the system has none). */
  bootId: string | null;
  /** CLOCK_MONOTONIC in ns, as a decimal string (a bigint does not survive JSON). */
  monotonicNs: string;
  /** Half-width of the interval the reading is known to lie in. */
  errorNs: number;
}

export interface TraceMetadata {
  /** Host wall clock at ts = 0, epoch ns. */
  baseTimeNs: bigint;
  traceName: string;
  producer: string;               // "gsprof <version>"
  hostname: string;
  pid: number;
  deviceProperties: DeviceProperties[];
  /** Kineto's distributedInfo (rank, world_size, backend; gsprof adds local_rank, launcher and job_id), kept
   *  through convert; absent for a process that no multi-process launcher started. */
  distributedInfo?: Record<string, unknown>;
  /**
   * A JSON source's top-level members besides traceEvents, baseTimeNanoseconds and gsprofMetadata, in file order,
   * each [key, its JSON text as written]: a JSON output writes them back as they were (convert invents none and
   * drops none of a Kineto trace's).
   */
  jsonTopLevel?: [string, string][];
  /**
   * The counter tracks a gsprof JSON file writes under their whole name with the arg key "value" (a name with no
   * space to split into Chrome's name and arg key, as `contacts`): gsprof reads each back under that name, where
   * a JSON reader that does not know this list (trace_processor) names it "<name> value". Set by the writer.
   */
  jsonCounterNames?: string[];
  /** The machine's monotonic clock at ts = 0: traces of processes on one machine line up on it (gsprof merge). */
  hostClock?: MonotonicAnchor;
  /** A trace `gsprof merge` made: the rank traces it holds, one process each. */
  merged?: Array<{ rank: number; source: string; hostname: string; pid: number }>;
  /** GPU->host alignment estimate; errorBoundNs is the half-width of the feasible offset interval. */
  clockAlignment?: { offsetNs: number; driftPpm: number; errorBoundNs: number; samples: number; method: string; driftAtBound?: boolean };
  syncEachStep: boolean;
  /** Free-form run facts: nEnvs, backend, example, schedule, options... */
  run: Args;
  /** Names of the timer slots, when envTimers is non-empty. */
  timerLabels?: string[];
}

export interface TraceModel {
  metadata: TraceMetadata;
  processes: TraceProcess[];
  tracks: TraceTrack[];
  slices: SliceEvent[];
  instants: InstantEvent[];
  counters: CounterSample[];
  flows: FlowEvent[];
  envTimers: EnvTimerSample[];
}

export function emptyTrace(metadata: TraceMetadata): TraceModel {
  return { metadata, processes: [], tracks: [], slices: [], instants: [], counters: [], flows: [], envTimers: [] };
}
