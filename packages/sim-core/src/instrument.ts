/**
 * The one seam through which sim-core reports work to a profiler, without depending on one.
 * The CLI (or a user) installs a tracer; with none installed every call site is a single null check.
 */

export type SpanArgs = Record<string, string | number | boolean>;

export interface SimTracer {
  /** Opens a CPU span on the calling thread. Categories: 'cpu_op' (CPU-backend stages), 'wait' (a thread waiting for others), 'step', 'compile', 'encode', 'submit', 'readback'. */
  begin(name: string, category: string, args?: SpanArgs): void;
  /** Closes the innermost open span. */
  end(): void;
  /**
   * A span that another thread (a CPU env worker) ran, reported after it finished. `startMs` and `endMs` are on
   * the calling thread's `performance.now()` clock. Optional: a tracer without it sees only the calling thread.
   */
  threadSpan?(thread: TracedThread, name: string, category: string, startMs: number, endMs: number, args?: SpanArgs): void;
  /**
   * A sample of the counter track `name` (made on first use), at `atMs` on the calling thread's
   * `performance.now()` clock, else now. Optional: without it sim-core reports no per-step physics counters.
   */
  counter?(name: string, unit: string, value: number, atMs?: number): void;
  /** An instant event on the calling thread, at `atMs` (performance.now() ms) or now. Optional, as counter. */
  instant?(name: string, category: string, args?: SpanArgs, atMs?: number): void;
}

/** A thread other than the caller's, as a trace names it. */
export interface TracedThread {
  readonly name: string;
  /** Node's worker threadId: unique in the process. */
  readonly tid: number;
}

let current: SimTracer | null = null;

export function setTracer(tracer: SimTracer | null): void {
  current = tracer;
}

/**
 * A recorder that did not load this copy of sim-core (gsprof's `record -- <program>` preload) registers itself
 * on globalThis under this symbol, so it reaches whichever copy the program imports. It gets the spans when no
 * tracer was installed with setTracer, and is told about every finished scene.step().
 */
export const EXTERNAL_RECORDER = Symbol.for('gsprof.sim-recorder');

export interface ExternalRecorder {
  readonly tracer: SimTracer;
  /** When this copy of sim-core loads: from here on a step is a scene step (its GPU submits are not steps). */
  simCoreLoaded(): void;
  /** After every scene.step(), with the facts a trace records about the run. */
  sceneStep(scene: { nEnvs: number; backend: string }): void;
}

export function externalRecorder(): ExternalRecorder | undefined {
  return (globalThis as { [EXTERNAL_RECORDER]?: ExternalRecorder })[EXTERNAL_RECORDER];
}

export function getTracer(): SimTracer | null {
  return current ?? externalRecorder()?.tracer ?? null;
}

externalRecorder()?.simCoreLoaded();
