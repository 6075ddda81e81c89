/**
 * record --no-physics-counters: the profiler's tracer without its counter() and instant(), so that sim-core,
 * which reports its per-step physics counters and per-env events only to a tracer that takes them, sends its
 * stage spans alone.
 */
import type { StructuralTracer } from '@gsprof/profiler';

export function spansOnly(tracer: StructuralTracer): Pick<StructuralTracer, 'begin' | 'end' | 'threadSpan'> {
  return { begin: tracer.begin, end: tracer.end, threadSpan: tracer.threadSpan };
}
