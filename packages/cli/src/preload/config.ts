/** What `gsprof record -- <command>` tells the preload inside the child, through one environment variable. */
import type { ScheduleArgs } from '../record/schedule-flags.js';
import type { TraceFormat } from '../record/handlers.js';

export const PRELOAD_ENV = 'GSPROF_PRELOAD';

export interface PreloadConfig {
  outDir: string;
  format: TraceFormat;
  schedule: ScheduleArgs;
  sync: boolean;
  profileMemory?: boolean;
  /** false: sim-core's per-step physics counters and per-env events are left out (--no-physics-counters). */
  physicsCounters?: boolean;
  /** Where steps come from: explicit gsprof.step() marks, queue submits, or auto (submits until a mark). */
  stepsFrom: 'auto' | 'marks' | 'submits';
  workerName: string;
  /** JSON file the preload writes on exit: steps seen, step mode, devices instrumented. */
  resultFile: string;
  /** File gsprof writes the signal's name to when it is interrupted: a program whose loop never yields to the
   *  event loop cannot run a signal handler, so the preload looks for it at each step. */
  interruptFile?: string;
}

export function encodeConfig(config: PreloadConfig): string {
  return JSON.stringify(config);
}

export function decodeConfig(text: string | undefined): PreloadConfig | null {
  if (!text) return null;
  return JSON.parse(text) as PreloadConfig;
}
