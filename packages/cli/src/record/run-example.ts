/**
 * `gsprof record --example ...`: builds a built-in scenario, wires the profiler into it (sim-core's tracer
 * seam, every WebGPU device the backend opens, per-env timers), steps it under the schedule, and writes the
 * traces.
 */
import { mkdirSync } from 'node:fs';
import { constants as osConstants, hostname } from 'node:os';
import type { EnvEventCounts } from '@gsprof/sim-core';
import { buildScenario, type Scenario, type ScenarioOptions } from '../scenarios/index.js';
import { buildSceneFile, type ControlChoice } from '../scenarios/scene-file.js';
import { hookDevices } from './device-hook.js';
import { useFreshCache } from './fresh-cache.js';
import { recordHeldEvents } from './held-events.js';
import { handlersFor, type TraceFormat } from './handlers.js';
import { createProgress } from './progress.js';
import { spansOnly } from './spans-only.js';
import { CliError } from '../errors.js';
import type { ScheduleArgs } from './schedule-flags.js';

/** Steps the record loop lets the GPU backend queue before it waits (Franka, 64 envs: ~23 KB of host memory each). */
const MAX_STEPS_IN_FLIGHT = 256;

export type { TraceFormat };

export interface RecordExampleOptions extends ScenarioOptions {
  /** A built-in example's name, or the model file's name with `scene`. */
  example: string;
  /** record --scene: the model file and its control, instead of the built-in example. */
  scene?: { file: string; control: ControlChoice };
  steps?: number;
  schedule: (steps: number) => ScheduleArgs;
  sync: boolean;
  /** A counter track of live GPU buffer bytes per device (torch's profile_memory). */
  profileMemory?: boolean;
  freshCache: boolean;
  outDir: string;
  format: TraceFormat;
  liveProgress: boolean;
  /** Plain progress lines when not live (off under --json). */
  progress?: boolean;
  /** Record per-env solver timers into the trace every recorded step. */
  envTimers: boolean;
  /** false: leave sim-core's per-step physics counters and per-env events out of the trace (default true). */
  physicsCounters?: boolean;
  workerName?: string;
}

export interface RecordExampleResult {
  example: string;
  backend: string;
  device: unknown;
  nEnvs: number;
  /** Steps taken: the steps asked for, or fewer when a signal stopped the run. */
  steps: number;
  stepsRequested: number;
  /** The signal that stopped the run early (its trace holds the steps recorded until then), or null. */
  interrupted: NodeJS.Signals | null;
  /** Stepping every step with the profiler on, up to the last step's completion (a final sync). */
  stepSeconds: number;
  /** Handing the last traces over and writing them, after stepping. */
  writeSeconds: number;
  /** gs.init + scene construction + build (kernel compiles on the GPU backend). */
  buildSeconds: number;
  /** The first step, taken before recording (kernel compiles on the GPU backend). */
  firstStepSeconds: number;
  /** The first step the schedule records (the ones before it are skipped, waited or warmed up). */
  recordedFrom: number;
  /** Completed env-steps per second from that step on (completedThroughput over recordedSeconds): the steps
   *  `summary` times, divided the same way. */
  envStepsPerSecond: number;
  /** From the first recorded step's start to the last step's completion, host clock. */
  recordedSeconds: number;
  /** The same over every step, the slow first ones included. */
  allStepsEnvStepsPerSecond: number;
  schedule: ScheduleArgs;
  traces: string[];
  gpuDevices: number;
  /** The scene's env resets (by reason, and how many envs were reset), NaN findings and unconverged solves. */
  envEvents: EnvEventSummary;
  freshCacheDir?: string;
  scenario: Scenario;
}

export interface EnvEventSummary {
  /** Env resets, every reason. */
  resets: number;
  /** Envs reset at least once. */
  envsReset: number;
  byReason: { nan: number; limit: number; user: number };
  /** The most times one env was reset. */
  maxResetsOfOneEnv: number;
  nanFound: number;
  /** Env-steps whose solve stopped at the iteration limit unconverged (CPU backend only). */
  notConverged: number;
}

function envEventSummary(counts: EnvEventCounts): EnvEventSummary {
  let envsReset = 0, most = 0;
  for (const r of counts.resetsPerEnv) { if (r > 0) envsReset++; if (r > most) most = r; }
  const { nan, limit, user } = counts.resets;
  return { resets: nan + limit + user, envsReset, byReason: { nan, limit, user }, maxResetsOfOneEnv: most, nanFound: counts.nan, notConverged: counts.notConverged };
}

/** A scene's SimulationError as the one line record prints: what failed, what was written, how to go on. */
function simulationFailed(err: Error, written: readonly string[]): CliError {
  const what = err.message.replace(/ Set rigidOptions\.resetOnError: true to reset such envs instead\.$/, '').replace(/\.$/, '');
  const traces = written.length > 0 ? `; wrote ${written.join(', ')} (the steps until then)` : '';
  return new CliError('record', `${what}${traces}; rerun with --reset-on-error to reset such envs and go on`);
}

export async function recordExample(options: RecordExampleOptions): Promise<RecordExampleResult> {
  const cache = options.freshCache ? useFreshCache() : null;
  const { profile, schedule, SpanCollector, ProfilerAction, completedThroughput } = await import('@gsprof/profiler');
  const sim = await import('@gsprof/sim-core');
  mkdirSync(options.outDir, { recursive: true });
  const workerName = options.workerName ?? `${hostname()}_${process.pid}`;
  // The schedule needs the step count, which the scenario decides, so the profiler is made after the scene:
  // the devices the backend opens are caught by the hook below, and its compile spans by a collector.
  let scheduleArgs: ScheduleArgs | null = null;
  const hooks = await hookDevices((device) => { pending.push(device); });
  const pending: GPUDevice[] = [];
  let scenario: Scenario | null = null;
  // The build and first step happen before the profiler records; their compile spans are collected on the
  // profiler's clock and put into the first recorded trace at their true times.
  const compiles = new SpanCollector({ categories: ['compile'] });
  sim.setTracer(compiles);
  try {
    const buildStart = performance.now();
    scenario = options.scene
      ? await buildSceneFile(options.scene.file, options.scene.control, options)
      : await buildScenario(options.example, options);
    const buildSeconds = (performance.now() - buildStart) / 1e3;
    // As Genesis' scene.build() does, take the first (compiling) step before anything is measured: on the GPU
    // backend a cold shader cache compiles there for up to a minute, and steps queued behind it would time out
    // the profiler's timestamp readbacks.
    const firstStart = performance.now();
    scenario.beforeStep?.(-1);
    try {
      scenario.scene.step();
      await scenario.scene.sync();
    } catch (err) {
      throw (err as Error)?.name === 'SimulationError' ? simulationFailed(err as Error, []) : err;
    }
    const firstStepSeconds = (performance.now() - firstStart) / 1e3;
    sim.setTracer(null);
    const steps = options.steps ?? scenario.defaultSteps;
    scheduleArgs = options.schedule(steps);
    const { instrumentDevice } = await import('@gsprof/profiler');
    const prof = profile({
      activities: ['cpu', 'gpu'],
      schedule: schedule(scheduleArgs),
      onTraceReady: await handlersFor(options.format, options.outDir, workerName),
      syncEachStep: options.sync,
      profileMemory: options.profileMemory ?? false,
      traceName: options.scene ? `gsprof record --scene ${options.scene.file}` : `gsprof record --example ${options.example}`,
      // On the GPU a step is a dozen passes and their submit: held whole, a long run grew by 2.5 KB a step.
      ...(String(scenario.gs.backend) === 'gpu' ? { maxHeldEvents: recordHeldEvents() } : {}),
    });
    prof.setRunInfo({
      ...scenario.facts, backend: String(scenario.gs.backend), precision: String(scenario.gs.precision), steps, workerName, buildSeconds, firstStepSeconds,
    });
    for (const device of pending) instrumentDevice(device, prof);
    prof.addPreRecordedSpans(compiles.take());
    sim.setTracer(options.physicsCounters === false ? spansOnly(prof.tracer) : prof.tracer);
    const progress = options.progress === false
      ? { tick: () => undefined, stop: () => undefined }
      : createProgress({ total: steps, nEnvs: scenario.nEnvs, live: options.liveProgress, label: options.example });
    const labels = sim.TIMER_LABELS as readonly string[];
    // On the CPU the timers are current after every step. On the GPU they are read back at a sync, so per-step
    // timers cost a sync per step: taken for the timers example (its point) and with --sync (already paid).
    const onGpu = String(scenario.gs.backend) === 'gpu';
    const timersEachStep = options.envTimers && (!onGpu || options.sync || options.example === 'timers');
    const started = performance.now();
    // A CPU step (and a GPU step's queueing) runs without returning to the event loop, so a signal handler
    // (the profiler's Ctrl-C: write what was recorded, exit 130) would wait for the whole loop: yield every
    // 50 ms, and stop stepping once a signal has been taken.
    let lastYield = started;
    let stepped = started;
    const recordedFrom = Math.min(steps - 1, scheduleArgs.skipFirst + scheduleArgs.wait + scheduleArgs.warmup);
    /** When the first recorded step began (its ProfilerStep span opened) and when the last step completed (on
     *  the GPU: the host saw the device finish it, before the trace's hand-over starts). */
    let recordingFrom = started;
    let completedAt = Number.NaN;
    let completed = 0;
    /** Steps issued; fewer than `steps` after Ctrl-C. */
    let taken = 0;
    // The loop's own work between scene steps gets spans too, so that a recorded step's time is accounted for:
    // category 'gsprof' for gsprof's (progress output, yielding to the event loop, copying the timers, waiting
    // when too many steps are queued), and the example's control update as a user range.
    const tracer = prof.tracer;
    const span = <T>(name: string, category: string, fn: () => T): T => {
      tracer.begin(name, category);
      try { return fn(); } finally { tracer.end(); }
    };
    // A signal stops the stepping; the recorded steps are then written and reported as on a full run. A second
    // signal a second or more later (the write is stuck, the user insists) exits at once, as a shell's second
    // Ctrl-C would. One Ctrl-C often arrives twice within milliseconds (from the terminal and again from a
    // wrapper that forwards it: npm, npx, timeout): that must not lose the recording.
    let interrupted: NodeJS.Signals | null = null;
    let interruptedAt = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (interrupted) {
        if (performance.now() - interruptedAt > 1000) process.exit(128 + (osConstants.signals[signal] ?? 0));
        return;
      }
      interrupted = signal;
      interruptedAt = performance.now();
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, onSignal);
    try {
      // The first recorded step starts where its ProfilerStep span does, the start summary reads from the trace
      // (performance.now() is the profiler's clock in ms).
      const stepStart = (): number => (prof.isRecording ? prof.stepStartNs / 1e6 : performance.now());
      await prof.start();
      recordingFrom = stepStart();
      for (let step = 0; step < steps && !interrupted; step++) {
        if (performance.now() - lastYield > 50) {
          tracer.begin('event loop', 'gsprof');
          try { await new Promise((resolve) => setImmediate(resolve)); } finally { tracer.end(); }
          lastYield = performance.now();
          if (interrupted) break;
        }
        const current = scenario;
        if (current.beforeStep) span('set controls', 'user_annotation', () => current.beforeStep!(step));
        current.scene.step();
        if (timersEachStep && prof.isRecording) {
          if (onGpu) await current.scene.sync();
          span('env timers', 'gsprof', () => {
            const timers = current.scene.rigidSolver.constraintSolver.timers;
            const nEnvs = timers.shape[1] ?? 1;
            prof.recordEnvTimers(labels.slice(0, timers.shape[0]), nEnvs, timers.data);
          });
        }
        // Backpressure: scene.step() on the GPU only queues, and each queued step holds host memory until the
        // device has run it; past MAX_STEPS_IN_FLIGHT the loop waits until half have finished (the device
        // keeps working), so memory stays flat however long the run.
        if (onGpu && current.scene.stepsInFlight > MAX_STEPS_IN_FLIGHT) {
          tracer.begin('queue full: wait for the GPU', 'gsprof');
          try { await current.scene.sync({ maxInFlight: MAX_STEPS_IN_FLIGHT / 2 }); } finally { tracer.end(); }
        }
        // The last step, and the last of a recording cycle, wait inside their step for the GPU to finish them: the
        // step then ends at its completion, as the run line's period does, and the trace's hand-over (timestamp
        // readbacks, writing) starts after it instead of delaying the host's view of that completion.
        const last = step === steps - 1;
        if (onGpu && (last || prof.currentAction === ProfilerAction.RECORD_AND_SAVE)) {
          tracer.begin('wait for GPU completion', 'cuda_sync');
          try { await current.scene.sync(); } finally { tracer.end(); }
        }
        if (last) completedAt = performance.now();
        const ready = prof.step();
        if (step + 1 === recordedFrom) recordingFrom = stepStart();
        // With --sync the step waits for the GPU; a hand-over (file write) is awaited too, so a trace is
        // never left half-written behind the next steps.
        if (options.sync) await ready;
        // Without --sync the hand-over runs behind the next steps; a failed write is reported by stop() below.
        else ready.catch(() => undefined);
        // Completed steps, never queued ones: on the GPU a step counts when the device has finished it.
        const done = step + 1;
        taken = done;
        const queue = onGpu ? hooks.devices[0]?.queue : undefined;
        if (queue) void queue.onSubmittedWorkDone().then(() => { completed = Math.max(completed, done); progress.tick(completed); }, () => undefined);
        else span('progress', 'gsprof', () => progress.tick(done));
      }
      await scenario.scene.sync();
      // Stopped early by a signal: the steps taken completed at this sync.
      if (Number.isNaN(completedAt)) completedAt = performance.now();
      // After the final sync every step issued is complete (an interrupted run issued fewer than asked).
      progress.tick(taken);
      stepped = performance.now();
      await prof.stop();
    } catch (err) {
      if ((err as Error)?.name !== 'SimulationError') throw err;
      // Envs failed and the scene does not reset them: write what was recorded, then say how to go on.
      await prof.stop().catch(() => undefined);
      throw simulationFailed(err as Error, prof.tracePaths);
    } finally {
      for (const signal of signals) process.off(signal, onSignal);
      progress.stop();
      sim.setTracer(null);
    }
    const stepSeconds = (stepped - started) / 1e3;
    const writeSeconds = (performance.now() - stepped) / 1e3;
    const envs = Math.max(1, scenario.nEnvs);
    return {
      example: options.example,
      backend: String(scenario.gs.backend),
      device: scenario.gs.device,
      nEnvs: scenario.nEnvs,
      steps: taken,
      stepsRequested: steps,
      interrupted,
      stepSeconds,
      writeSeconds,
      buildSeconds,
      firstStepSeconds,
      // Completed steps over the time they took (the trace writing after them is not stepping), from the first
      // recorded step on as summary counts them, and over all steps.
      recordedFrom,
      envStepsPerSecond: completedThroughput(Math.max(0, taken - recordedFrom), (completedAt - recordingFrom) * 1e6, envs).envStepsPerSecond ?? 0,
      recordedSeconds: taken > recordedFrom ? (completedAt - recordingFrom) / 1e3 : 0,
      allStepsEnvStepsPerSecond: completedThroughput(taken, (stepped - started) * 1e6, envs).envStepsPerSecond ?? 0,
      schedule: scheduleArgs,
      traces: [...prof.tracePaths],
      gpuDevices: hooks.devices.length,
      envEvents: envEventSummary(scenario.scene.envEventCounts),
      ...(cache ? { freshCacheDir: cache.dir } : {}),
      scenario,
    };
  } finally {
    if (sim.getTracer() === compiles) sim.setTracer(null);
    hooks.restore();
    await scenario?.dispose?.();
    cache?.dispose();
  }
}
