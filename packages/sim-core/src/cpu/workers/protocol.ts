/**
 * The handshake between the main thread and the env workers: a small Int32Array on a SharedArrayBuffer.
 * The main thread bumps GENERATION (Atomics.notify) to hand out a command; then every thread (main included)
 * claims chunks of envs from NEXT_CHUNK with Atomics.add until none is left, so a thread the OS deschedules
 * does not hold the others back. Each worker then bumps DONE (Atomics.notify). No message is posted per step.
 */
import type { Model } from '../../model/model.js';
import type { SharedDataLayout } from './shared-data.js';

export const enum Slot {
  /** Incremented by the main thread for every command. Workers wait on it. */
  Generation = 0,
  /** The command of the current generation. */
  Command = 1,
  /** The command's argument (steps to run). */
  Arg = 2,
  /** Workers that finished the current command. The main thread waits on it. */
  Done = 3,
  /** Workers that failed; the first failure's message is in the error text buffer. */
  Failed = 4,
  /** Length of the message in the error text buffer. */
  ErrorLength = 5,
  /** Next chunk to claim (chunk c covers envs [c*ChunkEnvs, min(nEnvs, (c+1)*ChunkEnvs))). */
  NextChunk = 6,
  ChunkEnvs = 7,
  NEnvs = 8,
  /** 1 when the main thread wants this command's stage spans (it has a tracer), else 0. */
  Trace = 9,
}

export const CONTROL_INTS = 16;
export const ERROR_TEXT_BYTES = 2048;

export const enum Command { Step = 1, Exit = 2 }

/** workerData of an env worker (structured-cloned once at start: the Model is copied, the Data shared). */
export interface WorkerInit {
  readonly model: Model;
  readonly data: SharedDataLayout;
  readonly control: SharedArrayBuffer;
  readonly errorText: SharedArrayBuffer;
  /** File URL of the module that exports the step function. */
  readonly stepModule: string;
  readonly stepExport: string;
  /** This worker's span records (see SpanRecords), written by the worker, read and cleared by the main thread. */
  readonly spans: SharedArrayBuffer;
  /** The main thread's performance.timeOrigin: span times are written on the main thread's clock. */
  readonly mainTimeOrigin: number;
}

/**
 * A worker's stage spans since the main thread last read them: a Float64Array whose [0] is the record count and
 * [1] the records dropped for lack of room, then records of SPAN_FIELDS numbers: stage index (into CPU_STAGES,
 * -1 for a name outside it), start ms, end ms (main thread's performance.now()), env count.
 */
export const SPAN_HEADER = 2;
export const SPAN_FIELDS = 4;
export const SPAN_CAPACITY = 8192;
export const SPAN_BYTES = (SPAN_HEADER + SPAN_FIELDS * SPAN_CAPACITY) * 8;

/** The one message a worker posts: after it has loaded everything and waits for commands. */
export interface WorkerReady { readonly ready: true }
