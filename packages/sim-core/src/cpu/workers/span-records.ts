/**
 * Stage spans of the CPU env workers. A worker cannot call the profiler (it lives on the main thread), so it
 * writes each finished stage as a record into its own shared buffer; after the step, the main thread hands the
 * records to its tracer as spans on that worker's thread and clears the buffer. The layout is in protocol.ts.
 */
import type { SimTracer, SpanArgs, TracedThread } from '../../instrument.js';
import { CPU_STAGES } from '../step.js';
import { SPAN_CAPACITY, SPAN_FIELDS, SPAN_HEADER } from './protocol.js';

const STAGE_INDEX = new Map(CPU_STAGES.map((s, i) => [s.name, i]));

/** The tracer a worker passes to stepCpu. Times are written on the main thread's performance.now() clock. */
export class SpanRecorder implements SimTracer {
  /** Open spans, three numbers each: stage index, start ms, env count. */
  private readonly open: number[] = [];

  constructor(
    private readonly records: Float64Array,
    /** This thread's performance.timeOrigin minus the main thread's, ms. */
    private readonly offsetMs: number,
  ) {}

  begin(name: string, _category: string, args?: SpanArgs): void {
    this.open.push(STAGE_INDEX.get(name) ?? -1, this.offsetMs + performance.now(), Number(args?.nEnvs ?? 0));
  }

  end(): void {
    const endMs = this.offsetMs + performance.now();
    const nEnvs = this.open.pop()!;
    const startMs = this.open.pop()!;
    const stage = this.open.pop()!;
    const r = this.records;
    const count = r[0]!;
    if (count >= SPAN_CAPACITY) {
      r[1] = r[1]! + 1;
      return;
    }
    const o = SPAN_HEADER + count * SPAN_FIELDS;
    r[o] = stage;
    r[o + 1] = startMs;
    r[o + 2] = endMs;
    r[o + 3] = nEnvs;
    r[0] = count + 1;
  }
}

/** Gives a worker's records to `tracer` as 'cpu_op' spans on `thread`, clears them, and returns how many were
 *  dropped because the buffer was full. Call only while the worker is idle (after the pool's wait). */
export function drainSpans(records: Float64Array, thread: TracedThread, tracer: SimTracer): number {
  const count = records[0]!;
  for (let k = 0; k < count; k++) {
    const o = SPAN_HEADER + k * SPAN_FIELDS;
    const stage = records[o]!;
    const name = stage >= 0 ? CPU_STAGES[stage]!.name : 'other stage';
    tracer.threadSpan?.(thread, name, 'cpu_op', records[o + 1]!, records[o + 2]!, { nEnvs: records[o + 3]! });
  }
  const dropped = records[1]!;
  records[0] = 0;
  records[1] = 0;
  return dropped;
}
