/// <reference types="@webgpu/types" />
/**
 * Getting a GPU whose timestamps are worth recording: Dawn quantizes timestamps to 65,536 ns unless the
 * timestamp_quantization toggle is disabled when the GPU object is created, and passes can only be timed on a
 * device created with the 'timestamp-query' feature. Dawn itself is started by @gsprof/dawn, an optional
 * dependency: the profiler records and reads traces without it, and only these helpers load it.
 */

/** Dawn's instance flag that keeps timestamps exact (@gsprof/dawn's QUANTIZATION_OFF, which may be absent). */
export const DISABLE_QUANTIZATION_TOGGLE = 'disable-dawn-features=timestamp_quantization';

async function dawnPackage(): Promise<typeof import('@gsprof/dawn')> {
  try {
    return await import('@gsprof/dawn');
  } catch (err) {
    throw new Error(`createGpu() needs the optional dependency @gsprof/dawn (and with it 'webgpu'): ${(err as Error).message}`);
  }
}

/** Dawn's GPU with timestamp quantization off and the WebGPU globals (GPUBufferUsage, ...) installed. The
 * instance is kept alive for the life of the process: dawn.node crashes when one is collected mid-work. */
export async function createGpu(extraOptions: string[] = []): Promise<GPU> {
  const dawn = await dawnPackage();
  return dawn.createInstance(await dawn.loadDawn(), extraOptions);
}

/** Requests a device with 'timestamp-query' added to the required features when the adapter has it. */
export async function requestProfiledDevice(adapter: GPUAdapter, descriptor: GPUDeviceDescriptor = {}): Promise<GPUDevice> {
  const { withTimestampQuery } = await dawnPackage();
  return adapter.requestDevice(withTimestampQuery(adapter, descriptor));
}
