/// <reference types="@webgpu/types" />
import { type DeviceInstrumentation, instrumentDeviceFor } from './instrument-device.js';
import type { Profiler } from './profiler.js';

export { DeviceInstrumentation, type DeviceInstrumentationStats } from './instrument-device.js';

/**
 * Patches `device` in place so that, while a profiler prepares or records, every compute and render pass is
 * timed and submits, encodes, compiles and readback waits become host spans (see instrument-device.ts).
 * With `prof`, the device reports to that profiler only; without, to whichever profiler is running.
 * Idempotent; `restore()` on the result undoes it.
 */
export function instrumentDevice(device: GPUDevice, prof?: Profiler): DeviceInstrumentation {
  return instrumentDeviceFor(device, prof);
}
