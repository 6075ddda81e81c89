/// <reference types="@webgpu/types" />
/**
 * Loaded with `node --import` into a program gsprof did not write. It wraps the `webgpu` package's adapters so
 * every device they create is instrumented (timestamp-query requested when the adapter has it), counts steps
 * (explicit `globalThis.gsprof?.step()` marks, else queue submits), and writes the trace when the program ends
 * or is interrupted.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { handlersFor } from '../record/run-example.js';
import { loadProfilerRecord } from '../record/profiler-port.js';
import { decodeConfig, PRELOAD_ENV } from './config.js';
import { StepSource } from './step-source.js';

const config = decodeConfig(process.env[PRELOAD_ENV]);

type Proto = Record<string | symbol, unknown>;
const PATCHED = Symbol.for('gsprof.preload.patched');

async function loadWebgpu(): Promise<Array<{ globals: Record<string, { prototype: Proto } | undefined> }>> {
  // The program's own copy of `webgpu` (resolved from its working directory) and ours, if they differ.
  const found: Array<{ globals: Record<string, { prototype: Proto } | undefined> }> = [];
  const seen = new Set<string>();
  for (const base of [join(process.cwd(), 'noop.js'), import.meta.filename]) {
    let resolved: string;
    try { resolved = createRequire(base).resolve('webgpu'); } catch { continue; }
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    found.push((await import(pathToFileURL(resolved).href)) as { globals: Record<string, { prototype: Proto } | undefined> });
  }
  return found;
}

if (config) {
  const api = await loadProfilerRecord();
  const prof = api.profile({
    activities: ['cpu', 'gpu'],
    schedule: api.schedule(config.schedule),
    onTraceReady: handlersFor(api, config.format, config.outDir, config.workerName),
    syncEachStep: config.sync,
    run: { program: process.argv.slice(1).join(' ') },
  });
  let devices = 0;
  const steps = new StepSource(() => prof.step());
  (globalThis as { gsprof?: unknown }).gsprof = { step: () => steps.mark(), profiler: prof };

  for (const { globals } of await loadWebgpu()) {
    const adapterProto = globals.GPUAdapter?.prototype;
    const queueProto = globals.GPUQueue?.prototype;
    if (!adapterProto || !queueProto || adapterProto[PATCHED]) continue;
    adapterProto[PATCHED] = true;
    const requestDevice = adapterProto.requestDevice as (this: GPUAdapter, d?: GPUDeviceDescriptor) => Promise<GPUDevice>;
    adapterProto.requestDevice = async function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor): Promise<GPUDevice> {
      const wanted = new Set<GPUFeatureName>(descriptor?.requiredFeatures ?? []);
      if (this.features.has('timestamp-query')) wanted.add('timestamp-query');
      const device = await requestDevice.call(this, { ...descriptor, requiredFeatures: [...wanted] });
      api.instrumentDevice(device, prof);
      devices++;
      return device;
    };
    const submit = queueProto.submit as (this: GPUQueue, buffers: Iterable<GPUCommandBuffer>) => void;
    queueProto.submit = function (this: GPUQueue, buffers: Iterable<GPUCommandBuffer>): void {
      submit.call(this, buffers);
      steps.submit();
    };
  }

  let finished: Promise<void> | null = null;
  const finish = (): Promise<void> => {
    finished ??= (async () => {
      try {
        await prof.stop();
      } finally {
        writeFileSync(config.resultFile, JSON.stringify({ steps: steps.steps, stepMode: steps.mode, devices }));
      }
    })();
    return finished;
  };
  prof.start();
  process.once('beforeExit', () => { void finish(); });
  // process.exit() skips beforeExit and allows no async work: finish the trace first, then exit.
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    void finish().finally(() => exit(code ?? process.exitCode));
    return undefined as never;
  }) as typeof process.exit;
  process.once('SIGINT', () => {
    void finish().finally(() => process.exit(130));
  });
  process.once('SIGTERM', () => {
    void finish().finally(() => process.exit(143));
  });
}
