/// <reference types="@webgpu/types" />
/**
 * profile(): torch.profiler.profile over WebGPU. The state machine (which schedule transition prepares, starts,
 * stops and hands over a trace) follows torch/profiler/profiler.py action for action; see REFERENCE §2.
 *
 * JavaScript cannot read GPU timestamps synchronously, so the step() that leaves a RECORD_AND_SAVE step switches
 * cycles at once (later work lands in the right cycle whether or not the caller awaits) and returns a promise
 * that resolves after onTraceReady has run on the finished trace. `await prof.step()` gives torch's ordering.
 */
import type { Args, TraceModel } from '../model/trace.js';
import { Cycle } from './cycle.js';
import { spilledStream } from '../export/event-stream.js';
import { systemClock, type HostClock } from './host-clock.js';
import { GcSpans } from './gc-spans.js';
import { devicesFor, instrumentDeviceFor, memoryCounterName } from './instrument-device.js';
import { keyAverages, type KeyAverages } from './key-averages.js';
import { distributedFromEnv, type DistributedInfo } from './launcher.js';
import { activeRecorder, setActiveRecorder, type Recorder, type SpanToken } from './recorder.js';
import { alwaysRecord, ProfilerAction, type ScheduleFn } from './schedule.js';
import type { PreRecordedSpan } from './span-collector.js';
import { percentile } from './stats.js';
import { warn } from './warn.js';

export type ProfilerActivity = 'cpu' | 'gpu';
export const ProfilerActivity = { CPU: 'cpu', GPU: 'gpu' } as const;

// biome-ignore lint/suspicious/noConfusingVoidType: a handler returns nothing or a promise the profiler awaits, as torch's on_trace_ready
export type TraceReadyHandler = (prof: Profiler) => void | Promise<unknown>;

export interface ProfileOptions {
  activities?: ProfilerActivity[];
  /** Without one every step records and no ProfilerStep spans are made (torch's default). */
  schedule?: ScheduleFn;
  onTraceReady?: TraceReadyHandler;
  /** Counter track of live GPUBuffer bytes on instrumented devices. */
  profileMemory?: boolean;
  /** Adds the JS stack (args.stack) to recordFunction and tracer spans. */
  withStack?: boolean;
  /** Accepted for torch compatibility; WebGPU passes have no tensor shapes (workgroup counts are always recorded). */
  recordShapes?: boolean;
  /** Wait for the GPU queue at the start of every step (the seed's qd.sync()); await step() for it to serialise. */
  syncEachStep?: boolean;
  /** A device to instrument for this profiler (same as instrumentDevice(device, prof)). */
  device?: GPUDevice;
  /** While started, Ctrl-C stops the profiler, hands over what was recorded, then exits with code 130. */
  handleSigint?: boolean;
  traceName?: string;
  /** This process's rank in a multi-process run (Kineto's distributedInfo). Default: read from the launcher's
   *  variables (torchrun, mpirun, srun, `gsprof record --nproc`); null: a process on its own. */
  distributed?: DistributedInfo | null;
  /** Host clock; tests pass a fake one. */
  clock?: HostClock;
  /**
   * Finished events a recording cycle holds in memory at most; past it they go to a temporary file in sorted
   * runs, and the handed-over trace holds its metadata, processes and tracks but not its events, which
   * writePerfettoTrace and writeChromeTrace stream from that file (keyAverages then refuses). For long runs:
   * memory stays bounded whatever their length. Default: every event stays in the trace.
   */
  maxHeldEvents?: number;
}

/** The structural tracer sim-core's SimTracer seam takes. */
export interface StructuralTracer {
  begin(name: string, category: string, args?: Args): void;
  end(): void;
  /** A span another thread of this process ran (a CPU env worker), times in performance.now() ms. */
  threadSpan(thread: { name: string; tid: number }, name: string, category: string, startMs: number, endMs: number, args?: Args): void;
  /** A counter sample at `atMs` (performance.now() ms) or now: Profiler.counter. */
  counter(name: string, unit: string, value: number, atMs?: number): void;
  /** An instant event on the host thread at `atMs` (performance.now() ms) or now: Profiler.instant. */
  instant(name: string, category: string, args?: Args, atMs?: number): void;
}

class OpenSpan implements SpanToken {
  closed = false;
  constructor(
    private readonly prof: Profiler,
    readonly cycle: Cycle,
    readonly slice: ReturnType<Cycle['openSlice']>,
    /** Registered in prof.openSpans (scopes); tracer spans are found on the tracer stack instead. */
    private readonly registered: boolean,
  ) {}
  end(atNs?: number): void {
    if (this.closed) return;
    this.closed = true;
    if (this.registered) this.prof.openSpans.delete(this);
    if (this.cycle.recording) this.cycle.closeSlice(this.slice, atNs ?? this.prof.clock.nowNs());
  }
}

export class Profiler implements Recorder, AsyncDisposable {
  readonly clock: HostClock;
  readonly cpuActivity: boolean;
  readonly gpuActivity: boolean;
  readonly profileMemory: boolean;
  readonly withStack: boolean;
  readonly syncEachStep: boolean;
  /** The rank this process records as, if a launcher started it (handlers put it in the file name). */
  readonly distributed: DistributedInfo | undefined;
  stepNumber = 0;
  currentAction: ProfilerAction = ProfilerAction.NONE;
  /** The cycle being prepared (warmup) or recorded. */
  cycle: Cycle | null = null;
  runInfo: Args = {};
  /** Files written by the handlers for the last trace handed over (a CLI prints them). */
  lastTracePaths: string[] = [];
  /** Every file the handlers wrote since this profiler was made. */
  readonly tracePaths: string[] = [];
  readonly openSpans = new Set<OpenSpan>();
  readonly tracer: StructuralTracer;

  private readonly scheduleFn: ScheduleFn;
  private readonly recordSteps: boolean;
  private readonly options: ProfileOptions;
  private started = false;
  private stepSpan: OpenSpan | null = null;
  private lastStepHostNs = 0;
  private stepsTimed = 0;
  private stepsTimeNs = 0;
  private lastTrace: TraceModel | null = null;
  private delivering: TraceModel | null = null;
  private delivery: Promise<void> = Promise.resolve();
  /** The first hand-over that failed since start(); stop() rejects with it, so a lost trace is never silent. */
  private deliveryError: unknown = undefined;
  private readonly tracerStack: (OpenSpan | null)[] = [];
  /** Spans from before recording (addPreRecordedSpans), waiting for the first recorded cycle. */
  private preRecorded: PreRecordedSpan[] = [];
  private timerLabels: string[] | undefined;
  private sigintHandler: (() => void) | null = null;
  private gcSpans: GcSpans | null = null;

  constructor(options: ProfileOptions = {}) {
    this.options = options;
    const activities = options.activities ?? ['cpu', 'gpu'];
    for (const a of activities) if (a !== 'cpu' && a !== 'gpu') throw new Error(`profile: unknown activity '${String(a)}' (use 'cpu' and/or 'gpu')`);
    this.cpuActivity = activities.includes('cpu');
    this.gpuActivity = activities.includes('gpu');
    this.profileMemory = !!options.profileMemory;
    this.withStack = !!options.withStack;
    this.syncEachStep = !!options.syncEachStep;
    this.clock = options.clock ?? systemClock;
    this.distributed = options.distributed === undefined ? launcherRank() : (options.distributed ?? undefined);
    this.scheduleFn = options.schedule ?? alwaysRecord;
    this.recordSteps = options.schedule !== undefined;
    this.currentAction = this.scheduleFn(this.stepNumber);
    if (options.device) instrumentDeviceFor(options.device, this);
    const stack = this.tracerStack;
    this.tracer = {
      begin: (name, category, args) => {
        const c = this.cycle;
        stack.push(c && c.mode === 'record' && this.cpuActivity ? this.openSpan(c, name, category, args, false) : null);
      },
      end: () => { stack.pop()?.end(); },
      // performance.now() ms are the system clock's ns / 1e6 (host-clock.ts).
      threadSpan: (thread, name, category, startMs, endMs, args) => this.completeSpan(name, category, startMs * 1e6, endMs * 1e6, args, thread),
      counter: (name, unit, value, atMs) => this.counter(name, value, { unit, ...(atMs === undefined ? {} : { hostNs: atMs * 1e6 }) }),
      instant: (name, category, args, atMs) => this.instant(name, { category, ...(args ? { args } : {}), ...(atMs === undefined ? {} : { hostNs: atMs * 1e6 }) }),
    };
  }

  /** The trace being handed to onTraceReady; else the one recording; else the last one recorded. */
  get trace(): TraceModel {
    const t = this.delivering ?? (this.cycle?.recording ? this.cycle.trace : this.lastTrace);
    if (!t) throw new Error('profiler: no trace yet (nothing has been recorded)');
    return t;
  }

  get isRecording(): boolean {
    return !!this.cycle?.recording;
  }

  /** While recording, when the current step began on this profiler's clock (ns): its ProfilerStep span's start,
   *  which a caller timing the recorded steps itself (record's run line) starts from; NaN otherwise. */
  get stepStartNs(): number {
    return this.cycle?.recording ? this.lastStepHostNs : Number.NaN;
  }

  keyAverages(): KeyAverages {
    if (spilledStream(this.trace)) throw new Error('profiler: keyAverages needs the events in memory, and this trace was recorded with maxHeldEvents (they went to its file): summarise the written trace instead');
    return keyAverages(this.trace);
  }

  /** Facts about the run (nEnvs, backend, ...): trace metadata.run, and nEnvs on every GPU span and in FPS. */
  setRunInfo(info: Args): void {
    Object.assign(this.runInfo, info);
    if (this.cycle) Object.assign(this.cycle.trace.metadata.run, info);
  }

  start(): Promise<void> {
    if (this.started) return Promise.resolve();
    const other = activeRecorder();
    if (other && other !== this) throw new Error('profile: another profiler is already running; stop it first');
    this.started = true;
    setActiveRecorder(this);
    if (this.options.handleSigint) this.installSigint();
    // Collections are timed on performance.now(), so only the system clock can place them.
    if (this.cpuActivity && this.clock === systemClock) {
      // A collection reported after its cycle moved on (delivery is deferred) is dropped, not misplaced.
      this.gcSpans = new GcSpans((name, start, end) => { if (end > (this.cycle?.baseHostNs ?? Infinity)) this.completeSpan(name, 'gc', start, end); });
    }
    const ready = this.transit(ProfilerAction.NONE, this.currentAction);
    this.openStepSpan();
    return this.afterTransition(ready);
  }

  /** Call at the end of every iteration. */
  step(): Promise<void> {
    if (!this.started) return Promise.resolve();
    // One reading of the clock ends a step and begins the next in the same cycle, so the steps tile the
    // recorded period with no gap of the profiler's own between them.
    const now = this.clock.nowNs();
    const cycle = this.cycle;
    this.closeStepSpan(now);
    const prev = this.currentAction;
    this.stepNumber += 1;
    this.currentAction = this.scheduleFn(this.stepNumber);
    const ready = this.transit(prev, this.currentAction);
    this.openStepSpan(this.cycle === cycle ? now : undefined);
    return this.afterTransition(ready);
  }

  /**
   * Stops recording, hands over the last trace and waits for every hand-over. Rejects with the first hand-over
   * of the run that failed (e.g. a trace file that could not be written), even if its step() was awaited.
   * `openStep: 'discard'` drops the step opened by the last step() instead of recording it cut short: for a
   * caller whose step() marks the END of each unit of work, what follows the last mark is no step.
   */
  async stop(options: { openStep?: 'record' | 'discard' } = {}): Promise<void> {
    if (this.started) {
      this.gcSpans?.stop();
      this.gcSpans = null;
      if (options.openStep === 'discard') this.discardStepSpan();
      else this.closeStepSpan();
      const ready = this.transit(this.currentAction, null);
      this.started = false;
      if (activeRecorder() === this) setActiveRecorder(null);
      this.removeSigint();
      if (ready) await ready.catch(() => undefined);
    }
    await this.delivery;
    // A hand-over that failed (a trace file that could not be written) is reported here even when nobody
    // awaited the step() that started it: stop() is the one call every user makes.
    const failure = this.deliveryError;
    this.deliveryError = undefined;
    if (failure !== undefined) throw failure;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Waits for every instrumented queue, and records the sync as instants on the CPU and GPU tracks. */
  async sync(label = 'sync'): Promise<void> {
    const t0 = this.clock.nowNs();
    let drained = t0;
    for (const d of devicesFor(this)) drained = Math.max(drained, await d.syncMarker(label, this));
    const c = this.cycle;
    if (c?.recording) {
      if (this.cpuActivity) c.completeSlice('sync', 'cuda_sync', t0, drained, { label });
      c.instant(label, 'sync', drained);
      c.bumpRun('syncMarkers');
    }
  }

  /**
   * A sample of the counter track `name` (made on first use, with `unit`, default 'count'), at `hostNs` on this
   * profiler's clock or now. Dropped while nothing records, and when `hostNs` is before the recording began:
   * a sample that arrives late (a device's readback) belongs to a step this recording does not hold.
   */
  counter(name: string, value: number, options: { unit?: string; hostNs?: number } = {}): void {
    const c = this.cycle;
    const at = options.hostNs ?? this.clock.nowNs();
    if (!c?.recording || at < c.recordingFromNs) return;
    c.counter(name, options.unit ?? 'count', at, value);
  }

  /** An instant event on the host thread, at `hostNs` or now. Dropped while nothing records, without CPU
   *  activity, or when `hostNs` is before the recording began (as counter()). */
  instant(name: string, options: { category?: string; args?: Args; hostNs?: number } = {}): void {
    const c = this.cycle;
    const at = options.hostNs ?? this.clock.nowNs();
    if (!c?.recording || !this.cpuActivity || at < c.recordingFromNs) return;
    c.instant(name, options.category ?? 'user_annotation', at, options.args);
  }

  /** Per-env solver timers of the current step: values[slot * nEnvs + env], one slot per label. */
  recordEnvTimers(labels: readonly string[], nEnvs: number, values: ArrayLike<number>): void {
    if (!Number.isInteger(nEnvs) || nEnvs <= 0) throw new Error(`recordEnvTimers: nEnvs must be a positive integer, got ${nEnvs}`);
    if (values.length !== labels.length * nEnvs) {
      throw new Error(`recordEnvTimers: values has ${values.length} entries, expected labels.length * nEnvs = ${labels.length} * ${nEnvs}`);
    }
    const c = this.cycle;
    if (!c?.recording) return;
    const now = this.clock.nowNs();
    c.envTimers({ step: this.stepNumber, ts: c.ts(now), nEnvs, values: Float64Array.from(values) });
    c.trace.metadata.timerLabels = [...labels];
    this.timerLabels = [...labels];
    const slot = (k: number): Float64Array | null => {
      if (labels.length <= k) return null;
      const xs = Float64Array.from({ length: nEnvs }, (_, e) => values[k * nEnvs + e]!).filter((x) => Number.isFinite(x));
      return xs.length ? xs.sort() : null;
    };
    const solve = slot(0);
    if (solve) {
      c.counter('solve_ns_p50', 'ns', now, percentile(solve, 50));
      c.counter('solve_ns_p95', 'ns', now, percentile(solve, 95));
    }
    const iters = slot(1);
    if (iters) {
      let sum = 0;
      for (const x of iters) sum += x;
      c.counter('solver_iterations_mean', 'count', now, sum / iters.length);
      c.counter('solver_iterations_p95', 'count', now, percentile(iters, 95));
    }
  }

  /**
   * Host spans that happened before recording (a scene build, a first compiling step), e.g. from a
   * SpanCollector on this profiler's clock. They go into the first recorded trace at their true times, before
   * its first step; that trace's ts 0 moves back to the earliest of them. While a cycle records they go into it
   * now; else they wait for the next cycle that records. Spans without CPU activity are dropped.
   */
  addPreRecordedSpans(spans: readonly PreRecordedSpan[]): void {
    for (const s of spans) {
      if (!Number.isFinite(s.startHostNs) || !Number.isFinite(s.endHostNs) || s.endHostNs < s.startHostNs) {
        throw new Error(`addPreRecordedSpans: span '${s.name}' has invalid times ${s.startHostNs}..${s.endHostNs}`);
      }
    }
    for (const span of spans) this.preRecorded.push(span);
    if (this.cycle?.recording) this.placePreRecorded(this.cycle);
  }

  private placePreRecorded(c: Cycle): void {
    const spans = this.preRecorded;
    this.preRecorded = [];
    if (!spans.length || !this.cpuActivity) return;
    c.moveBaseEarlier(spans.reduce((min, s) => Math.min(min, s.startHostNs), Infinity));
    for (const s of spans) c.completeSlice(s.name, s.category, s.startHostNs, s.endHostNs, s.args ? { ...s.args } : undefined);
  }

  // ---- Recorder (used by instrumentation, recordFunction and the tracer) ----

  beginSpan(name: string, category: string, args?: Args): SpanToken | null {
    const c = this.cycle;
    if (c?.mode !== 'record' || !this.cpuActivity) return null;
    return this.openSpan(c, name, category, args, true);
  }

  /** On the host thread, or on `thread`'s own track (another thread of this process). */
  completeSpan(name: string, category: string, startHostNs: number, endHostNs: number, args?: Args, thread?: { name: string; tid: number }): void {
    const c = this.cycle;
    if (c?.mode !== 'record' || !this.cpuActivity) return;
    const track = thread ? c.threadTrack(thread.name, thread.tid) : c.hostTrack;
    c.completeSlice(name, category, Math.max(startHostNs, c.baseHostNs), endHostNs, args, track);
  }

  private openSpan(c: Cycle, name: string, category: string, args: Args | undefined, register: boolean, atNs?: number): OpenSpan {
    if (this.withStack) args = { ...args, stack: callerStack() };
    const span = new OpenSpan(this, c, c.openSlice(name, category, atNs ?? this.clock.nowNs(), args), register);
    if (register) this.openSpans.add(span);
    return span;
  }

  // ---- the state machine ----

  /** Runs torch's action list for prev -> next (next null: exit). Returns the hand-over promise, if any. */
  private transit(prev: ProfilerAction, next: ProfilerAction | null): Promise<void> | null {
    const A = ProfilerAction;
    const recording = (a: ProfilerAction | null): boolean => a === A.RECORD || a === A.RECORD_AND_SAVE;
    if (prev === A.NONE) {
      if (next === A.WARMUP) this.prepareTrace();
      else if (recording(next)) { this.prepareTrace(); this.startTrace(); }
      return null;
    }
    if (prev === A.WARMUP) {
      if (next === A.NONE) { warn('Incorrect schedule: WARMUP followed by NONE'); this.discardTrace(); }
      else if (next === null) this.discardTrace();
      else if (recording(next)) this.startTrace();
      return null;
    }
    if (prev === A.RECORD) {
      if (next === A.NONE || next === A.WARMUP) {
        warn(`Incorrect schedule: RECORD followed by ${next}`);
        this.stopTrace(false);
        return null;
      }
      if (next === null) return this.stopTrace(true);
      return null;
    }
    // RECORD_AND_SAVE -> anything: stop, hand over, then begin the next cycle if there is one.
    const ready = this.stopTrace(true);
    if (next === A.WARMUP) this.prepareTrace();
    else if (recording(next)) { this.prepareTrace(); this.startTrace(); }
    return ready;
  }

  private prepareTrace(): void {
    const schedule = (this.scheduleFn as ScheduleFn & { options?: Record<string, number> }).options;
    const run: Args = {
      ...this.runInfo,
      activities: [this.cpuActivity ? 'cpu' : '', this.gpuActivity ? 'gpu' : ''].filter(Boolean).join(','),
      profileMemory: this.profileMemory,
    };
    if (schedule) run.schedule = Object.entries(schedule).map(([k, v]) => `${k}=${v}`).join(' ');
    this.cycle = new Cycle({
      clock: this.clock,
      traceName: this.options.traceName ?? 'gsprof',
      syncEachStep: this.syncEachStep,
      run,
      devices: devicesFor(this).map((d) => d.info),
      ...(this.distributed ? { distributed: this.distributed } : {}),
      ...(this.options.maxHeldEvents !== undefined ? { maxHeldEvents: this.options.maxHeldEvents } : {}),
    });
  }

  private startTrace(): void {
    if (!this.cycle) this.prepareTrace();
    const c = this.cycle!;
    const now = this.clock.nowNs();
    c.start(now);
    c.trace.metadata.run.firstStep = this.stepNumber;
    if (this.timerLabels) c.trace.metadata.timerLabels = [...this.timerLabels];
    this.lastStepHostNs = now;
    this.stepsTimed = 0;
    this.stepsTimeNs = 0;
    if (this.profileMemory) for (const d of devicesFor(this)) d.memorySnapshot(this);
    this.placePreRecorded(c);
  }

  private discardTrace(): void {
    this.cycle = null;
    this.tracerStack.length = 0;
  }

  /** Stops the cycle; with `handOver`, onTraceReady runs once it is finalised. Returns the delivery promise. */
  private stopTrace(handOver: boolean): Promise<void> {
    const c = this.cycle!;
    const now = this.clock.nowNs();
    const open = [...this.openSpans, ...this.tracerStack.filter((t): t is OpenSpan => t instanceof OpenSpan && !t.closed)];
    for (const span of open) {
      if (span.cycle !== c) continue;
      span.slice.args = { ...span.slice.args, unfinished: true };
      span.end();
    }
    const run = c.trace.metadata.run;
    run.recordedSteps = this.stepsTimed;
    if (this.stepsTimed > 0) run.fps = (this.stepsTimed * nEnvsOf(this.runInfo) * 1e9) / this.stepsTimeNs;
    if (this.profileMemory) for (const d of devicesFor(this)) c.counter(memoryCounterName(d.info.index), 'bytes', now, d.liveBufferBytes);
    c.stop(now);
    this.cycle = null;
    this.lastTrace = c.trace;
    const finalized = c.finalize();
    const run2 = this.delivery.then(async () => {
      try {
        const trace = await finalized;
        if (!handOver || !this.options.onTraceReady) return;
        this.delivering = trace;
        this.lastTracePaths = [];
        const t0 = this.clock.nowNs();
        try {
          await this.options.onTraceReady(this);
        } finally {
          this.delivering = null;
          // Writing one trace while the next cycle records (a repeating schedule) is gsprof's work in that one.
          this.completeSpan('hand over trace (onTraceReady)', 'gsprof', t0, this.clock.nowNs());
        }
      } finally {
        // Spilled events are read by the hand-over only.
        c.disposeSpill();
      }
    });
    // A failing handler rejects the promise returned to the caller, but not the deliveries after it; stop()
    // rejects with the first such failure.
    this.delivery = run2.catch((e: unknown) => { if (this.deliveryError === undefined) this.deliveryError = e; });
    return run2;
  }

  private afterTransition(ready: Promise<void> | null): Promise<void> {
    const syncing = this.syncEachStep && this.cycle ? this.sync('step') : null;
    if (ready && syncing) return Promise.all([ready, syncing]).then(() => undefined);
    return ready ?? syncing ?? Promise.resolve();
  }

  private openStepSpan(atNs?: number): void {
    const c = this.cycle;
    if (!c?.recording) { this.stepSpan = null; return; }
    this.lastStepHostNs = atNs ?? this.clock.nowNs();
    if (this.recordSteps) {
      // ProfilerStep spans are recorded whatever the activities, as torch's step record_function is.
      this.stepSpan = this.openSpan(c, `ProfilerStep#${this.stepNumber}`, 'user_annotation', undefined, true, this.lastStepHostNs);
    }
  }

  private discardStepSpan(): void {
    const span = this.stepSpan;
    this.stepSpan = null;
    if (!(span instanceof OpenSpan) || span.closed) return;
    span.closed = true;
    this.openSpans.delete(span);
    span.cycle.discardSlice(span.slice);
  }

  private closeStepSpan(atNs?: number): void {
    const c = this.cycle;
    const now = atNs ?? this.clock.nowNs();
    this.stepSpan?.end(now);
    this.stepSpan = null;
    if (!c?.recording) return;
    // FPS of the step that just ended, as a counter sample at its start (env-steps/s when nEnvs is known).
    const dur = now - this.lastStepHostNs;
    if (dur > 0) {
      const nEnvs = nEnvsOf(this.runInfo);
      c.counter('FPS', nEnvs > 1 ? 'env-steps/s' : 'steps/s', this.lastStepHostNs, (nEnvs * 1e9) / dur);
      this.stepsTimed++;
      this.stepsTimeNs += dur;
    }
    this.lastStepHostNs = now;
  }

  /** Called by handlers: remembers a file written for the trace being handed over. */
  noteTracePath(path: string): void {
    this.lastTracePaths.push(path);
    this.tracePaths.push(path);
  }

  private installSigint(): void {
    let interrupted = false;
    this.sigintHandler = () => {
      if (interrupted) process.exit(130);
      interrupted = true;
      this.stop().then(
        () => process.exit(130),
        (err: unknown) => {
          process.stderr.write(`gsprof: writing the trace after Ctrl-C failed: ${(err as Error)?.message ?? String(err)}\n`);
          process.exit(130);
        },
      );
    };
    process.on('SIGINT', this.sigintHandler);
  }

  private removeSigint(): void {
    if (this.sigintHandler) process.off('SIGINT', this.sigintHandler);
    this.sigintHandler = null;
  }
}

/** The launcher's rank, or none with a warning when its variables contradict each other: a recording must not
 * fail, nor be labelled with a rank that may be wrong. */
function launcherRank(): DistributedInfo | undefined {
  try {
    return distributedFromEnv();
  } catch (err) {
    warn(`profiler: recording as a single process: ${(err as Error).message}`);
    return undefined;
  }
}

function nEnvsOf(run: Args): number {
  const n = run.nEnvs;
  return typeof n === 'number' && n > 0 ? n : 1;
}

function callerStack(): string {
  const lines = (new Error().stack ?? '').split('\n').slice(1);
  // Drop the profiler's own frames.
  return lines.filter((l) => !/[/\\](src|dist)[/\\]record[/\\]/.test(l)).map((l) => l.trim()).slice(0, 16).join('\n');
}

export function profile(options: ProfileOptions = {}): Profiler {
  return new Profiler(options);
}
