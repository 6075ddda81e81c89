import type { Profiler } from '@gsprof/profiler';

export type TraceFormat = 'perfetto' | 'json' | 'both';

/** One onTraceReady that writes the requested format(s) with the profiler's handlers. */
export async function handlersFor(format: TraceFormat, dir: string, workerName: string): Promise<(prof: Profiler) => Promise<void>> {
  const { perfettoTraceHandler, tensorboardTraceHandler } = await import('@gsprof/profiler');
  const handlers: Array<(prof: Profiler) => Promise<string>> = [];
  if (format === 'perfetto' || format === 'both') handlers.push(perfettoTraceHandler(dir, { workerName }));
  if (format === 'json' || format === 'both') handlers.push(tensorboardTraceHandler(dir, { workerName }));
  return async (prof) => {
    for (const handler of handlers) await handler(prof);
  };
}
