/**
 * `gsprof record --example ...`: builds a built-in scenario, wires the profiler into it (sim-core's tracer
 * seam, the WebGPU device, per-env timers), steps it under the schedule, and writes the traces.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { buildScenario, type Scenario, type ScenarioOptions } from '../scenarios/index.js';
import { loadProfilerRecord, type TraceReadyHandler } from './profiler-port.js';
import { createProgress } from './progress.js';
import type { ScheduleArgs } from './schedule-flags.js';
import { snapshotDir, writtenSince } from './written-files.js';
import { useFreshCache } from './fresh-cache.js';

export type TraceFormat = 'perfetto' | 'json' | 'both';

export interface RecordExampleOptions extends ScenarioOptions {
  example: string;
  steps?: number;
  schedule: (steps: number) => ScheduleArgs;
  sync: boolean;
  freshCache: boolean;
  outDir: string;
  format: TraceFormat;
  liveProgress: boolean;
  /** Record per-env solver timers into the trace every recorded step. */
  envTimers: boolean;
  workerName?: string;
}

export interface RecordExampleResult {
  example: string;
  backend: string;
  device: unknown;
  nEnvs: number;
  steps: number;
  wallSeconds: number;
  envStepsPerSecond: number;
  schedule: ScheduleArgs;
  traces: string[];
  freshCacheDir?: string;
  scenario: Scenario;
}

export function handlersFor(api: { tensorboardTraceHandler: (dir: string, o?: { workerName?: string; useGzip?: boolean }) => TraceReadyHandler; perfettoTraceHandler: (dir: string, o?: { workerName?: string }) => TraceReadyHandler }, format: TraceFormat, dir: string, workerName: string): TraceReadyHandler {
  const handlers: TraceReadyHandler[] = [];
  if (format === 'perfetto' || format === 'both') handlers.push(api.perfettoTraceHandler(dir, { workerName }));
  if (format === 'json' || format === 'both') handlers.push(api.tensorboardTraceHandler(dir, { workerName }));
  return async (prof: unknown) => {
    for (const handler of handlers) await handler(prof);
  };
}

export async function recordExample(options: RecordExampleOptions): Promise<RecordExampleResult> {
  const cache = options.freshCache ? useFreshCache() : null;
  try {
    mkdirSync(options.outDir, { recursive: true });
    const before = snapshotDir(options.outDir);
    const scenario = await buildScenario(options.example, options);
    const steps = options.steps ?? scenario.defaultSteps;
    const scheduleArgs = options.schedule(steps);
    const api = await loadProfilerRecord();
    const sim = (await import('@gsprof/sim-core')) as unknown as { setTracer(t: unknown): void; getGpuDevice?: () => unknown };
    const workerName = options.workerName ?? `${hostname()}_${process.pid}`;
    const prof = api.profile({
      activities: ['cpu', 'gpu'],
      schedule: api.schedule(scheduleArgs),
      onTraceReady: handlersFor(api, options.format, options.outDir, workerName),
      syncEachStep: options.sync,
      run: { ...scenario.facts, backend: scenario.gs.backend, steps },
    });
    const device = sim.getGpuDevice?.();
    if (device) api.instrumentDevice(device, prof);
    sim.setTracer(prof.tracer);
    const progress = createProgress({ total: steps, nEnvs: scenario.nEnvs, live: options.liveProgress, label: options.example });
    const timers = scenario.scene.rigidSolver.constraintSolver;
    const started = performance.now();
    try {
      prof.start();
      for (let step = 0; step < steps; step++) {
        scenario.beforeStep?.(step);
        scenario.scene.step();
        if (options.sync) await scenario.scene.sync();
        if (options.envTimers && prof.recordEnvTimers) prof.recordEnvTimers(timers.timers, scenario.gs.TIMER_LABELS);
        prof.step();
        progress.tick(step + 1);
      }
      await scenario.scene.sync();
      await prof.stop();
    } finally {
      progress.stop();
      sim.setTracer(null);
    }
    const wallSeconds = (performance.now() - started) / 1e3;
    return {
      example: options.example,
      backend: scenario.gs.backend,
      device: scenario.gs.device,
      nEnvs: scenario.nEnvs,
      steps,
      wallSeconds,
      envStepsPerSecond: (steps * Math.max(1, scenario.nEnvs)) / wallSeconds,
      schedule: scheduleArgs,
      traces: writtenSince(options.outDir, before),
      ...(cache ? { freshCacheDir: cache.dir } : {}),
      scenario,
    };
  } finally {
    cache?.dispose();
  }
}
