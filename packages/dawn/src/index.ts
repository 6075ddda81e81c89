/// <reference types="@webgpu/types" />
/**
 * The one way gsprof starts Dawn (the `webgpu` package), shared by the simulator, the profiler and the CLI:
 * - Mesa's Vulkan loader warns when XDG_RUNTIME_DIR is unset; gsprof then points it at a folder of its own,
 *   made for this process (mode 0700, temp-dirs.ts) and removed at exit, never at the shared temp folder.
 * - dawn.node aborts the process when a GPU instance is garbage-collected while work made from it is still
 *   pending (a program that drops its instance after requestAdapter() crashes at exit), so every instance made
 *   here lives as long as the process.
 * - Dawn rounds timestamps to 65,536 ns unless its timestamp_quantization feature is disabled when the
 *   instance is created; every instance made here has it disabled.
 * - GSPROF_ADAPTER picks the adapter, like CUDA_VISIBLE_DEVICES: a number is an index into the list Dawn
 *   reports, anything else an adapter name; a choice that matches nothing names the choice and what exists.
 */
import { makeTempDir } from './temp-dirs.js';

export { makeTempDir, removeStaleTempDirs, removeTempDir } from './temp-dirs.js';

/** Dawn's instance flag that keeps timestamps exact. */
export const QUANTIZATION_OFF = 'disable-dawn-features=timestamp_quantization';

/** The `webgpu` package's module: whichever copy a program loads has this shape. */
export interface DawnModule {
  create(flags: string[]): GPU;
  globals: Record<string, unknown>;
}

export class DawnUnavailableError extends Error {
  override name = 'DawnUnavailableError';
}

/** Sets XDG_RUNTIME_DIR to a private folder when it is unset. Must run before Dawn (and so Mesa) loads. */
export function ensureRuntimeDir(): void {
  if (process.env.XDG_RUNTIME_DIR) return;
  // Removed at exit or on a signal; a killed process's is removed by the next gsprof start.
  process.env.XDG_RUNTIME_DIR = makeTempDir('xdg');
}

let loading: Promise<DawnModule> | null = null;

/** gsprof's own copy of Dawn, loaded once, with the WebGPU globals (GPUBufferUsage, ...) installed. */
export function loadDawn(): Promise<DawnModule> {
  loading ??= importDawn().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

async function importDawn(): Promise<DawnModule> {
  ensureRuntimeDir();
  let dawn: DawnModule;
  try {
    dawn = (await import('webgpu')) as unknown as DawnModule;
  } catch (err) {
    throw new DawnUnavailableError(`the 'webgpu' package could not be loaded (${(err as Error).message})`);
  }
  if (!('GPUBufferUsage' in globalThis)) Object.assign(globalThis, dawn.globals);
  return dawn;
}

const liveInstances: unknown[] = [];

/** A Dawn instance from `dawn` (gsprof's copy or a program's), kept for the process, timestamps exact. */
export function createInstance<G>(dawn: { create(flags: string[]): G }, flags: readonly string[] = []): G {
  const wanted = flags.some((f) => f.includes('timestamp_quantization')) ? [...flags] : [QUANTIZATION_OFF, ...flags];
  const instance = dawn.create(wanted);
  liveInstances.push(instance);
  return instance;
}

/** Adapter names Dawn can see, in its order (Dawn lists them when asked for one that does not exist). */
export async function listAdapters(): Promise<string[]> {
  const gpu = createInstance(await loadDawn(), ['adapter=\u0000gsprof-list']);
  try {
    await gpu.requestAdapter();
  } catch (err) {
    return [...String((err as Error).message).matchAll(/name: '([^']*)'/g)].map((m) => m[1]!);
  }
  return [];
}

function numbered(names: string[]): string {
  return names.map((n, i) => `${i}: ${n}`).join('; ') || 'none';
}

/**
 * An adapter from gsprof's Dawn. `selector` (GSPROF_ADAPTER by default) is an index or a name; empty or unset
 * takes Dawn's high-performance choice. Throws a one-line DawnUnavailableError that names the selector.
 */
export async function requestAdapter(
  selector: string | undefined = process.env.GSPROF_ADAPTER,
): Promise<{ gpu: GPU; adapter: GPUAdapter }> {
  const dawn = await loadDawn();
  const flags: string[] = [];
  const chosen = selector !== undefined && selector !== '';
  if (chosen) {
    let name = selector;
    if (/^\d+$/.test(selector)) {
      const names = await listAdapters();
      const idx = Number(selector);
      if (idx >= names.length) {
        throw new DawnUnavailableError(`GSPROF_ADAPTER=${selector} but only ${names.length} adapter(s) exist: ${numbered(names)}`);
      }
      name = names[idx]!;
    }
    flags.push(`adapter=${name}`);
  }
  const gpu = createInstance(dawn, flags);
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (err) {
    if (chosen) {
      throw new DawnUnavailableError(`GSPROF_ADAPTER=${selector} matches no adapter; there are: ${numbered(await listAdapters())}`);
    }
    throw new DawnUnavailableError(`no WebGPU adapter (${String((err as Error).message).split('\n').slice(0, 3).join(' ')})`);
  }
  if (!adapter) throw new DawnUnavailableError('no WebGPU adapter found');
  return { gpu, adapter };
}

/** `descriptor` with 'timestamp-query' added to its required features when the adapter has it (per-pass GPU
 * times need it). */
export function withTimestampQuery(adapter: GPUAdapter, descriptor: GPUDeviceDescriptor = {}): GPUDeviceDescriptor {
  const features = new Set<GPUFeatureName>(descriptor.requiredFeatures ?? []);
  if (adapter.features.has('timestamp-query')) features.add('timestamp-query');
  return { ...descriptor, requiredFeatures: [...features] };
}
