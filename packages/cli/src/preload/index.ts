/// <reference types="@webgpu/types" />
/**
 * Loaded with `node --import` into a program gsprof did not write. Every WebGPU device the program creates
 * through the `webgpu` package is instrumented (timestamp-query requested when the adapter has it), and a program
 * that uses sim-core reports its stages (CPU or GPU backend); steps are the program's explicit
 * `globalThis.gsprof?.step()` marks if it makes any, else its sim-core scene steps, else its queue submits; the trace
 * is written when the program ends (also through process.exit), throws, or is interrupted (SIGINT, SIGTERM, SIGHUP).
 */
import { writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { hookDevices } from '../record/device-hook.js';
import { spansOnly } from '../record/spans-only.js';
import { handlersFor } from '../record/handlers.js';
import { recordHeldEvents } from '../record/held-events.js';
import { decodeConfig, PRELOAD_ENV } from './config.js';
import { InterruptWatch, ProgramExit, ProgramInterrupted } from './interrupt.js';
import type { ExternalRecorder } from '@gsprof/sim-core';
import { programUsesMarks, StepSource } from './step-source.js';

/** sim-core's EXTERNAL_RECORDER, by its registry key: importing the value would load the simulator into every
 * Node process the program starts. */
const EXTERNAL_RECORDER = Symbol.for('gsprof.sim-recorder');

const config = decodeConfig(process.env[PRELOAD_ENV]);

if (config) {
  // The program's `import 'webgpu'` gets create() with Dawn's timestamp quantization off.
  register(`./webgpu-hooks.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  const { profile, schedule, instrumentDevice } = await import('@gsprof/profiler');
  const prof = profile({
    activities: ['cpu', 'gpu'],
    schedule: schedule(config.schedule),
    onTraceReady: await handlersFor(config.format, config.outDir, config.workerName),
    syncEachStep: config.sync,
    profileMemory: config.profileMemory ?? false,
    traceName: `gsprof record -- ${process.argv.slice(1).join(' ')}`,
    // A WebGPU program's passes, held whole, grow with its length: past this many they go to a file.
    maxHeldEvents: recordHeldEvents(),
  });
  prof.setRunInfo({ program: process.argv.slice(1).join(' ') });
  const steps = new StepSource(() => { void prof.step(); }, config.stepsFrom, programUsesMarks(process.argv[1]));
  const interrupt = new InterruptWatch(config.interruptFile);
  // After a step is counted: once the trace is being written (a signal handler ran), nothing more to stop.
  const checkInterrupt = (): void => { if (!finished) interrupt.check(); };
  (globalThis as { gsprof?: unknown }).gsprof = { step: () => { steps.mark(); checkInterrupt(); }, profiler: prof };
  // Recording starts with the first device: a process that never touches WebGPU (npx, a shell, a build step
  // started through NODE_OPTIONS) records and writes nothing.
  let started: Promise<void> | null = null;
  const hook = await hookDevices((device) => {
    instrumentDevice(device, prof);
    started ??= prof.start();
  }, { onSubmit: () => { steps.submit(); checkInterrupt(); }, deferDestroy: true });
  // A program that uses sim-core (whichever copy it imports) reports its stages to this profiler and its
  // scene steps to the step source; its first scene step starts the recording, as a first device does.
  let sceneFacts = false;
  const recorder: ExternalRecorder = {
    tracer: config.physicsCounters === false ? spansOnly(prof.tracer) : prof.tracer,
    simCoreLoaded: () => steps.expectSceneSteps(),
    sceneStep: ({ nEnvs, backend }) => {
      if (!sceneFacts) {
        sceneFacts = true;
        prof.setRunInfo({ nEnvs, backend });
      }
      if (started) steps.scene();
      else started = prof.start();
      checkInterrupt();
    },
  };
  (globalThis as { [key: symbol]: unknown })[EXTERNAL_RECORDER] = recorder;

  let finished: Promise<void> | null = null;
  const finish = (): Promise<void> => {
    finished ??= (async () => {
      if (!started) { hook.restore(); return; }
      // A trace that could not be written (full disk, unwritable folder) is passed on to gsprof, which fails.
      let writeError: string | undefined;
      try {
        await started;
        // Steps are marked at their end (a scene step, a gsprof.step(), a submit): after the last mark comes
        // the program's teardown, not a step.
        await prof.stop({ openStep: 'discard' });
      } catch (err) {
        writeError = err instanceof Error ? err.message : String(err);
      } finally {
        hook.restore();
        writeFileSync(config.resultFile, JSON.stringify({ steps: steps.steps, stepMode: steps.mode, submitStepsBeforeMark: steps.submitStepsBeforeMark, devices: hook.devices.length, traces: prof.tracePaths, writeError }));
      }
    })();
    return finished;
  };
  process.once('beforeExit', () => { void finish(); });
  // process.exit() skips beforeExit and allows no async work: finish the trace first, then exit. It must never
  // return into the program: with nothing recorded it exits at once; otherwise it throws ProgramExit, which
  // unwinds the program to the uncaught-exception handler below while the trace is written.
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    if (!started) {
      hook.restore();
      return exit(code ?? process.exitCode);
    }
    void finish().finally(() => exit(code ?? process.exitCode));
    throw new ProgramExit(code);
  }) as typeof process.exit;
  // `on`, not `once`: Ctrl-C reaches the program twice (from the terminal and forwarded by gsprof), and a second
  // signal must not kill it with the default action while the trace is being written.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.on(signal, () => { void finish().finally(() => exit(code)); });
  }
  // A program that throws (or leaves a rejection unhandled, which Node raises as an uncaught exception) keeps
  // the steps recorded so far: report the error as Node would, write the trace, exit 1 as Node does.
  process.on('uncaughtException', (err) => {
    if (err instanceof ProgramInterrupted) {
      void finish().finally(() => exit(err.exitCode));
      return;
    }
    if (err instanceof ProgramExit) return; // process.exit() already writes the trace, then exits
    process.stderr.write(`${err instanceof Error ? (err.stack ?? String(err)) : String(err)}\n`);
    void finish().finally(() => exit(1));
  });
}
