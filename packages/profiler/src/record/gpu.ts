/// <reference types="@webgpu/types" />
/**
 * Getting a GPU whose timestamps are worth recording: Dawn quantizes timestamps to 65,536 ns unless the
 * timestamp_quantization toggle is disabled when the GPU object is created, and passes can only be timed on a
 * device created with the 'timestamp-query' feature.
 */
export const DISABLE_QUANTIZATION_TOGGLE = 'disable-dawn-features=timestamp_quantization';

interface DawnModule {
  create(options: string[]): GPU;
  globals: Record<string, unknown>;
}

/** dawn.node destroys its instance when the GPU object is garbage-collected, even with devices still working,
 * and then crashes in ProcessEvents. Instances made here live as long as the process. */
const liveInstances: GPU[] = [];

/** Dawn's GPU (the `webgpu` package, loaded on first use) with timestamp quantization off. Installs the WebGPU
 * globals (GPUBufferUsage, ...) when missing. The instance is kept alive for the life of the process. */
export async function createGpu(extraOptions: string[] = []): Promise<GPU> {
  // Mesa prints a warning when XDG_RUNTIME_DIR is unset; a private temp dir silences it.
  if (!process.env.XDG_RUNTIME_DIR) {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'gsprof-xdg-'));
  }
  const dawn = (await import('webgpu')) as unknown as DawnModule;
  if (!('GPUBufferUsage' in globalThis)) Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create([DISABLE_QUANTIZATION_TOGGLE, ...extraOptions]);
  liveInstances.push(gpu);
  return gpu;
}

/** Requests a device with 'timestamp-query' added to the required features when the adapter has it. */
export async function requestProfiledDevice(adapter: GPUAdapter, descriptor: GPUDeviceDescriptor = {}): Promise<GPUDevice> {
  const features = new Set<GPUFeatureName>(descriptor.requiredFeatures ?? []);
  if (adapter.features.has('timestamp-query')) features.add('timestamp-query');
  return adapter.requestDevice({ ...descriptor, requiredFeatures: [...features] });
}
