/**
 * Opens the WebGPU device for GPU tests. Under CI=true a missing adapter fails the run; elsewhere the GPU
 * tests skip with a printed reason (a machine without a GPU or Mesa lavapipe).
 */
import { openGpu, type OpenedGpu } from '../../src/gpu/adapter.js';

let opened: Promise<OpenedGpu | null> | null = null;

export function gpuOrSkip(): Promise<OpenedGpu | null> {
  opened ??= openGpu().catch((err: Error) => {
    if (process.env.CI === 'true') throw err;
    console.warn(`skipping WebGPU tests: ${err.message}`);
    return null;
  });
  return opened;
}

export const hasGpu: boolean = await gpuOrSkip().then((g) => g !== null);
