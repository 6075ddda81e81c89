/**
 * onTraceReady handlers, as torch's tensorboard_trace_handler: each writes the handed-over trace to a new file
 * named {worker}.{time_ns}.<ext> ({worker}.rank{k}.{time_ns}.<ext> for a rank of a multi-process run) and
 * records the path on the profiler (prof.lastTracePaths).
 */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeChromeTrace, writePerfettoTrace } from '../export/index.js';
import type { Profiler } from './profiler.js';

export interface TensorboardHandlerOptions {
  workerName?: string;
  useGzip?: boolean;
}

let lastTimeNs = 0n;
/** Epoch ns, strictly increasing within the process so two traces never share a name. */
function timeNs(): bigint {
  let t = BigInt(Math.round(performance.timeOrigin * 1e6)) + BigInt(Math.round(performance.now() * 1e6));
  if (t <= lastTimeNs) t = lastTimeNs + 1n;
  lastTimeNs = t;
  return t;
}

export function defaultWorkerName(): string {
  return `${hostname()}_${process.pid}`;
}

/** The file name up to the time: the worker, then the rank when a launcher gave one. */
function stem(worker: string, prof: Profiler): string {
  return prof.distributed ? `${worker}.rank${prof.distributed.rank}` : worker;
}

/** Writes Kineto-style Chrome JSON: `{worker}.{time_ns}.pt.trace.json[.gz]`. */
export function tensorboardTraceHandler(dir: string, options: TensorboardHandlerOptions = {}): (prof: Profiler) => Promise<string> {
  const worker = options.workerName ?? defaultWorkerName();
  return async (prof) => {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${stem(worker, prof)}.${timeNs()}.pt.trace.json${options.useGzip ? '.gz' : ''}`);
    await writeChromeTrace(prof.trace, path);
    prof.noteTracePath(path);
    return path;
  };
}

/** Writes Perfetto protobuf: `{worker}.{time_ns}.pftrace`. */
export function perfettoTraceHandler(dir: string, options: { workerName?: string } = {}): (prof: Profiler) => Promise<string> {
  const worker = options.workerName ?? defaultWorkerName();
  return async (prof) => {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${stem(worker, prof)}.${timeNs()}.pftrace`);
    await writePerfettoTrace(prof.trace, path);
    prof.noteTracePath(path);
    return path;
  };
}
