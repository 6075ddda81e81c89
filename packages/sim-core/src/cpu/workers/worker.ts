/**
 * Env worker: each time the main thread bumps the generation counter, it claims chunks of envs of the shared
 * Data and steps them until none is left. It blocks in Atomics.wait between commands, so it uses no CPU
 * while the scene is not stepping.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Data } from '../../data/data.js';
import type { SimTracer } from '../../instrument.js';
import type { Model } from '../../model/model.js';
import { attachData } from './shared-data.js';
import { SpanRecorder } from './span-records.js';
import { Command, ERROR_TEXT_BYTES, Slot, type WorkerInit, type WorkerReady } from './protocol.js';

type StepFn = (m: Model, d: Data, e0: number, e1: number, tracer?: SimTracer | null) => void;

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const errorText = new Uint8Array(init.errorText);
const model = init.model;
const data = attachData(init.data);
const recorder = new SpanRecorder(new Float64Array(init.spans), performance.timeOrigin - init.mainTimeOrigin);

function reportFailure(err: unknown): void {
  const message = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err);
  if (Atomics.add(control, Slot.Failed, 1) === 0) {
    const bytes = new TextEncoder().encode(message).subarray(0, ERROR_TEXT_BYTES);
    errorText.set(bytes);
    Atomics.store(control, Slot.ErrorLength, bytes.length);
  }
}

const mod = (await import(init.stepModule)) as Record<string, unknown>;
const step = mod[init.stepExport] as StepFn | undefined;
if (typeof step !== 'function') throw new Error(`${init.stepModule} has no function '${init.stepExport}'`);

// Read the generation before saying ready: the main thread may hand out the first step the moment it hears.
let seen = Atomics.load(control, Slot.Generation);
parentPort!.postMessage({ ready: true } satisfies WorkerReady);
for (;;) {
  Atomics.wait(control, Slot.Generation, seen);
  const generation = Atomics.load(control, Slot.Generation);
  if (generation === seen) continue; // spurious wake-up
  seen = generation;
  const command = Atomics.load(control, Slot.Command);
  if (command === Command.Exit) break;
  if (command === Command.Step) {
    const count = Atomics.load(control, Slot.Arg);
    const chunk = Atomics.load(control, Slot.ChunkEnvs);
    const nEnvs = Atomics.load(control, Slot.NEnvs);
    const tracer = Atomics.load(control, Slot.Trace) === 1 ? recorder : null;
    try {
      for (;;) {
        const e0 = Atomics.add(control, Slot.NextChunk, 1) * chunk;
        if (e0 >= nEnvs) break;
        const e1 = Math.min(nEnvs, e0 + chunk);
        for (let i = 0; i < count; i++) step(model, data, e0, e1, tracer);
      }
    } catch (err) {
      reportFailure(err);
    }
  }
  Atomics.add(control, Slot.Done, 1);
  Atomics.notify(control, Slot.Done);
}
