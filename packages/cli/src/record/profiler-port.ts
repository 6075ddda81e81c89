/**
 * The slice of @gsprof/profiler's recording API the CLI drives (torch.profiler's shape), loaded lazily.
 */
/** sim-core's SimTracer seam (begin/end of CPU spans). */
export interface SimTracer {
  begin(name: string, category: string, args?: Record<string, string | number | boolean>): void;
  end(): void;
}

export interface RecordingProfiler {
  start(): void;
  stop(): Promise<void> | void;
  step(): void;
  readonly tracer: SimTracer;
  recordEnvTimers?(timers: { shape: readonly number[]; data: ArrayLike<number> }, labels?: readonly string[]): void;
  keyAverages?(): { table(options?: { sortBy?: string; rowLimit?: number }): string };
}

export type TraceReadyHandler = (prof: unknown) => Promise<unknown> | unknown;

export interface ProfilerRecordApi {
  profile(options: {
    activities?: Array<'cpu' | 'gpu'>;
    schedule?: unknown;
    onTraceReady?: TraceReadyHandler;
    syncEachStep?: boolean;
    profileMemory?: boolean;
    withStack?: boolean;
    recordShapes?: boolean;
    device?: unknown;
    run?: Record<string, string | number | boolean>;
  }): RecordingProfiler;
  schedule(options: { wait: number; warmup: number; active: number; repeat?: number; skipFirst?: number }): unknown;
  instrumentDevice(device: unknown, prof?: unknown): unknown;
  tensorboardTraceHandler(dir: string, options?: { workerName?: string; useGzip?: boolean }): TraceReadyHandler;
  perfettoTraceHandler(dir: string, options?: { workerName?: string }): TraceReadyHandler;
}

export async function loadProfilerRecord(): Promise<ProfilerRecordApi> {
  return (await import('@gsprof/profiler')) as unknown as ProfilerRecordApi;
}
