/// <reference types="@webgpu/types" />
/**
 * Catches every WebGPU device created through the `webgpu` package (Dawn), whoever creates it: the adapter's
 * requestDevice is wrapped on the prototype, so sim-core's GPU backend and programs gsprof never saw are
 * treated alike. The wrapper asks for timestamp-query when the adapter has it (per-pass GPU times need it)
 * and hands the device over before the caller gets it. A program with its own copy of the package (in its own
 * node_modules, reachable neither from gsprof nor from the working directory) has that copy handed over by the
 * preload's shim as it loads (adoptWebgpu), and patched the same way.
 */
import { createRequire } from 'node:module';
import { ensureRuntimeDir, withTimestampQuery } from '@gsprof/dawn';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Proto = Record<string | symbol, unknown>;
type WebgpuModule = { globals: Record<string, { prototype: Proto } | undefined> };

const HOOKED = Symbol.for('gsprof.deviceHook');

/** The `webgpu` packages reachable from the working directory (the program's) and from gsprof itself. */
async function webgpuModules(): Promise<WebgpuModule[]> {
  const found: WebgpuModule[] = [];
  const seen = new Set<string>();
  for (const base of [join(process.cwd(), 'noop.js'), import.meta.filename]) {
    let resolved: string;
    try { resolved = createRequire(base).resolve('webgpu'); } catch { continue; }
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    ensureRuntimeDir();
    try { found.push((await import(pathToFileURL(resolved).href)) as WebgpuModule); } catch { /* no Dawn here */ }
  }
  return found;
}

export interface DeviceHook {
  /** Devices caught so far. */
  readonly devices: GPUDevice[];
  /** Undoes the patches and performs any destroy() that was held back. */
  restore(): void;
}

export interface HookOptions {
  /** Called after every queue submit. */
  onSubmit?: () => void;
  /** Hold device.destroy() calls until releaseDestroys(): destroying a device while its timestamp readbacks
   * are in flight aborts Dawn, so an external program's destroy waits until the trace is complete. */
  deferDestroy?: boolean;
}

/** One installer per hookDevices() still in force: each patches a `webgpu` copy loaded after it started. */
const installers = new Set<(mod: WebgpuModule) => void>();

/** Patches `mod` (a `webgpu` copy the program just loaded) for every hookDevices() in force; a copy already
 * patched is left as it is. */
export function adoptWebgpu(mod: { globals: Record<string, unknown> }): void {
  for (const install of installers) install(mod as WebgpuModule);
}

export async function hookDevices(onDevice: (device: GPUDevice) => void, options: HookOptions = {}): Promise<DeviceHook> {
  const { onSubmit, deferDestroy } = options;
  const held: GPUDevice[] = [];
  const devices: GPUDevice[] = [];
  const undo: Array<() => void> = [];
  const install = ({ globals }: WebgpuModule): void => {
    const adapterProto = globals.GPUAdapter?.prototype;
    const deviceProto = globals.GPUDevice?.prototype;
    if (!adapterProto || adapterProto[HOOKED]) return;
    adapterProto[HOOKED] = true;
    const requestDevice = adapterProto.requestDevice as (this: GPUAdapter, d?: GPUDeviceDescriptor) => Promise<GPUDevice>;
    adapterProto.requestDevice = async function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor): Promise<GPUDevice> {
      const device = await requestDevice.call(this, withTimestampQuery(this, descriptor));
      devices.push(device);
      onDevice(device);
      if (onSubmit) {
        // Wrapped on the instance, outside whatever onDevice installed (the profiler's instrumentation), so a
        // step taken on submit comes after the instrumentation has finished with that submit.
        const queue = device.queue;
        const submit = queue.submit.bind(queue);
        queue.submit = (buffers: Iterable<GPUCommandBuffer>): undefined => {
          submit(buffers);
          onSubmit();
        };
      }
      return device;
    };
    undo.push(() => { adapterProto.requestDevice = requestDevice; delete adapterProto[HOOKED]; });
    if (deferDestroy && deviceProto) {
      const destroy = deviceProto.destroy as (this: GPUDevice) => void;
      deviceProto.destroy = function (this: GPUDevice): void {
        if (devices.includes(this)) held.push(this);
        else destroy.call(this);
      };
      undo.push(() => {
        deviceProto.destroy = destroy;
        for (const d of held.splice(0)) destroy.call(d);
      });
    }
  };
  for (const mod of await webgpuModules()) install(mod);
  installers.add(install);
  return {
    devices,
    restore: () => {
      installers.delete(install);
      for (const u of undo.reverse()) u();
    },
  };
}
