/**
 * A pool of env workers over one shared Data. `run` hands out a step with one Atomics.notify; the workers and
 * the main thread (through `claim`) then take chunks of envs until none is left; `wait` blocks until every
 * worker is done.
 *
 * Loading the worker from source and from dist: this file knows which it is by its own extension. Built
 * (`dist/**.js`) it starts `worker.js` plainly. From source (`.ts`, under tsx or vitest) it starts a two-line
 * CommonJS bootstrap that registers tsx's ESM hooks in the worker and then imports `worker.ts` (Node 20 does
 * not apply `--import` hooks to a worker's entry file, so execArgv alone cannot load a .ts entry).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Model } from '../../model/model.js';
import type { SharedDataLayout } from './shared-data.js';
import { logger } from '@gsprof/log';
import type { SimTracer, TracedThread } from '../../instrument.js';
import { Command, CONTROL_INTS, ERROR_TEXT_BYTES, SPAN_BYTES, Slot, type WorkerInit } from './protocol.js';
import { drainSpans } from './span-records.js';

const fromSource = import.meta.url.endsWith('.ts');
const ext = fromSource ? '.ts' : '.js';

/** The module and export every worker steps with (stepCpu(m, d, e0, e1)), for this build of sim-core. */
export const DEFAULT_STEP_MODULE = new URL(`../step${ext}`, import.meta.url).href;
export const DEFAULT_STEP_EXPORT = 'stepCpu';

function spawnWorker(workerData: WorkerInit, name: string): Worker {
  const entry = new URL(`./worker${ext}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData, name });
  const tsxApi = createRequire(import.meta.url).resolve('tsx/esm/api');
  const bootstrap = `require(${JSON.stringify(tsxApi)}).register();\nimport(${JSON.stringify(entry.href)});`;
  return new Worker(bootstrap, { eval: true, workerData, name, execArgv: [] });
}

export interface PoolOptions {
  readonly model: Model;
  readonly data: SharedDataLayout;
  readonly workers: number;
  readonly stepModule?: string;
  readonly stepExport?: string;
}

export class EnvWorkerPool {
  private readonly control: Int32Array;
  private readonly errorText: Uint8Array;
  private pending = false;
  private closed = false;
  private droppedSpans = 0;
  /** How each worker appears in a trace. */
  private readonly threads: TracedThread[];

  private constructor(
    private readonly workers: Worker[],
    controlBuffer: SharedArrayBuffer,
    errorBuffer: SharedArrayBuffer,
    private readonly spanRecords: Float64Array[],
  ) {
    this.threads = workers.map((w, k) => ({ name: `env worker ${k + 1}`, tid: w.threadId }));
    this.control = new Int32Array(controlBuffer);
    this.errorText = new Uint8Array(errorBuffer);
  }

  get size(): number {
    return this.workers.length;
  }

  static async start(options: PoolOptions): Promise<EnvWorkerPool> {
    const controlBuffer = new SharedArrayBuffer(CONTROL_INTS * 4);
    const errorBuffer = new SharedArrayBuffer(ERROR_TEXT_BYTES);
    const workers: Worker[] = [];
    const ready: Promise<void>[] = [];
    const spanBuffers: SharedArrayBuffer[] = [];
    for (let w = 0; w < options.workers; w++) {
      const spans = new SharedArrayBuffer(SPAN_BYTES);
      spanBuffers.push(spans);
      const init: WorkerInit = {
        model: options.model, data: options.data, control: controlBuffer, errorText: errorBuffer,
        stepModule: options.stepModule ?? DEFAULT_STEP_MODULE, stepExport: options.stepExport ?? DEFAULT_STEP_EXPORT,
        spans, mainTimeOrigin: performance.timeOrigin,
      };
      const worker = spawnWorker(init, `gsprof-env-worker-${w + 1}`);
      workers.push(worker);
      ready.push(new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', (err) => reject(new Error(`CPU env worker ${w + 1} failed to start: ${err.message}`)));
        worker.once('exit', (code) => reject(new Error(`CPU env worker ${w + 1} exited (code ${code}) before it was ready`)));
      }));
    }
    try {
      await Promise.all(ready);
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw err;
    }
    // Idle workers must not keep the process alive: a script that never calls destroy() still exits.
    for (const w of workers) { w.removeAllListeners(); w.unref(); }
    return new EnvWorkerPool(workers, controlBuffer, errorBuffer, spanBuffers.map((b) => new Float64Array(b)));
  }

  /**
   * Starts `count` timesteps of envs [firstChunk*chunkEnvs, nEnvs) in chunks and returns at once; the caller
   * then steps the chunks `claim` gives it (and anything below firstChunk, which it keeps for itself).
   */
  run(count: number, nEnvs: number, chunkEnvs: number, firstChunk = 0, traced = false): void {
    if (this.closed) throw new Error('CPU worker pool is closed');
    if (this.pending) this.wait();
    const c = this.control;
    Atomics.store(c, Slot.Done, 0);
    Atomics.store(c, Slot.Command, Command.Step);
    Atomics.store(c, Slot.Arg, count);
    Atomics.store(c, Slot.NEnvs, nEnvs);
    Atomics.store(c, Slot.ChunkEnvs, chunkEnvs);
    Atomics.store(c, Slot.NextChunk, firstChunk);
    Atomics.store(c, Slot.Trace, traced ? 1 : 0);
    Atomics.add(c, Slot.Generation, 1);
    Atomics.notify(c, Slot.Generation);
    this.pending = true;
  }

  /** The first env of the next unclaimed chunk of the current step, or -1 when none is left. */
  claim(): number {
    const c = this.control;
    const e0 = Atomics.add(c, Slot.NextChunk, 1) * Atomics.load(c, Slot.ChunkEnvs);
    return e0 < Atomics.load(c, Slot.NEnvs) ? e0 : -1;
  }

  /** Blocks until every worker finished the last command; rethrows a worker's failure. */
  wait(): void {
    if (!this.pending) return;
    const c = this.control;
    const n = this.workers.length;
    for (let done = Atomics.load(c, Slot.Done); done < n; done = Atomics.load(c, Slot.Done)) {
      Atomics.wait(c, Slot.Done, done, 10_000);
    }
    this.pending = false;
    if (Atomics.load(c, Slot.Failed) > 0) {
      const len = Atomics.load(c, Slot.ErrorLength);
      const message = new TextDecoder().decode(this.errorText.slice(0, len));
      Atomics.store(c, Slot.Failed, 0);
      throw new Error(`CPU worker step failed: ${message}`);
    }
  }

  /** After wait(): the workers' stage spans of the last command, on their own threads' tracks. */
  drainSpans(tracer: SimTracer): void {
    if (this.pending) throw new Error('CPU worker pool: drainSpans while workers are stepping');
    for (let w = 0; w < this.workers.length; w++) {
      const dropped = drainSpans(this.spanRecords[w]!, this.threads[w]!, tracer);
      if (dropped > 0 && this.droppedSpans === 0) {
        logger.warning(`CPU env worker ${w + 1}: ${dropped} stage span(s) of one step did not fit its span buffer and are missing from the trace`);
      }
      this.droppedSpans += dropped;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending) { try { this.wait(); } catch { /* closing anyway */ } }
    this.closed = true;
    const c = this.control;
    Atomics.store(c, Slot.Command, Command.Exit);
    Atomics.add(c, Slot.Generation, 1);
    Atomics.notify(c, Slot.Generation);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      w.ref(); // keep the process alive until the worker has exited
      w.once('exit', () => resolve());
      setTimeout(() => { void w.terminate().then(() => resolve()); }, 2000).unref();
    })));
  }
}
