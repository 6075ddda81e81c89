/**
 * What instrumentation (devices, recordFunction, the structural tracer) needs from a profiler, and which
 * profiler is running. Only one profiler records at a time, as in torch.
 */
import type { Args } from '../model/trace.js';
import type { Cycle } from './cycle.js';
import type { HostClock } from './host-clock.js';

/** An open host span; `end` closes it (once). */
export interface SpanToken {
  end(): void;
}

export interface Recorder {
  readonly clock: HostClock;
  /** The cycle being prepared (warmup) or recorded; null while idle. */
  readonly cycle: Cycle | null;
  readonly cpuActivity: boolean;
  readonly gpuActivity: boolean;
  readonly profileMemory: boolean;
  readonly withStack: boolean;
  /** The current ProfilerStep number. */
  readonly stepNumber: number;
  /** Facts from setRunInfo (nEnvs, ...) copied into GPU span args. */
  readonly runInfo: Args;
  /** Opens a host span while recording CPU activity; null otherwise (nothing to close). */
  beginSpan(name: string, category: string, args?: Args): SpanToken | null;
  /** Adds an already finished host span (async work: readbacks, async compiles, encoders). */
  completeSpan(name: string, category: string, startHostNs: number, endHostNs: number, args?: Args): void;
}

let active: Recorder | null = null;

export function activeRecorder(): Recorder | null {
  return active;
}

export function setActiveRecorder(r: Recorder | null): void {
  active = r;
}
