/**
 * Opens a WebGPU device through Dawn (the `webgpu` npm package).
 *
 * GSPROF_ADAPTER picks the adapter on multi-GPU machines, like CUDA_VISIBLE_DEVICES does for Genesis: a
 * number is an index into the list Dawn reports, anything else is matched against adapter names.
 * Dawn's timestamp quantization (65,536 ns steps) is switched off so per-kernel times are exact.
 */
export interface GpuDeviceInfo {
  vendor: string;
  architecture: string;
  description: string;
  adapterName: string;
  timestampQuery: boolean;
  limits: Record<string, number>;
}

export interface OpenedGpu {
  device: GPUDevice;
  adapter: GPUAdapter;
  info: GpuDeviceInfo;
  /** Destroys the device. */
  close(): void;
}

/** Mesa's lavapipe (llvmpipe) and SwiftShader run shaders on the CPU. */
export function isSoftwareAdapter(info: GpuDeviceInfo): boolean {
  return /llvmpipe|lavapipe|swiftshader/i.test(`${info.description} ${info.adapterName} ${info.architecture}`);
}

export class GpuUnavailableError extends Error {
  override name = 'GpuUnavailableError';
}

const FIX =
  'install a Vulkan driver (on a CPU-only Debian 12 machine: bash scripts/install-webgpu-cpu.sh for Mesa lavapipe) or use backend "cpu"';

type DawnModule = { create(flags: string[]): GPU; globals: Record<string, unknown> };

let dawn: DawnModule | null = null;

async function loadDawnAsync(): Promise<DawnModule> {
  if (dawn) return dawn;
  if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = (await import('node:os')).tmpdir();
  try {
    const mod = (await import('webgpu')) as unknown as DawnModule;
    dawn = mod;
  } catch (err) {
    throw new GpuUnavailableError(`the 'webgpu' package could not be loaded (${(err as Error).message}); ${FIX}`);
  }
  Object.assign(globalThis, dawn.globals);
  return dawn;
}

const liveInstances: GPU[] = [];

/** Adapter names Dawn can see (it lists them when asked for one that does not exist). */
export async function listAdapters(): Promise<string[]> {
  const d = await loadDawnAsync();
  try {
    const gpu = d.create(['adapter=\u0000gsprof-list']);
    liveInstances.push(gpu);
    await gpu.requestAdapter();
  } catch (err) {
    return [...String((err as Error).message).matchAll(/name: '([^']*)'/g)].map((m) => m[1]!);
  }
  return [];
}

function limitsOf(adapter: GPUAdapter): Record<string, number> {
  const out: Record<string, number> = {};
  const src = adapter.limits as unknown as Record<string, number>;
  for (const key in src) {
    const v = src[key];
    if (typeof v === 'number') out[key] = v;
  }
  return out;
}

export async function openGpu(selector: string | undefined = process.env.GSPROF_ADAPTER): Promise<OpenedGpu> {
  const d = await loadDawnAsync();
  const flags = ['disable-dawn-features=timestamp_quantization'];
  if (selector !== undefined && selector !== '') {
    let name = selector;
    if (/^\d+$/.test(selector)) {
      const names = await listAdapters();
      const idx = Number(selector);
      if (idx >= names.length) {
        throw new GpuUnavailableError(
          `GSPROF_ADAPTER=${selector} but only ${names.length} adapter(s) exist: ${names.map((n, i) => `${i}: ${n}`).join('; ') || 'none'}`,
        );
      }
      name = names[idx]!;
    }
    flags.push(`adapter=${name}`);
  }
  const gpu: GPU = d.create(flags);
  // dawn.node aborts the process if a GPU instance is garbage-collected while any of its work is still
  // pending (seen as crashes at process exit), so instances live as long as the process.
  liveInstances.push(gpu);
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (err) {
    const first = String((err as Error).message).split('\n').slice(0, 3).join(' ');
    throw new GpuUnavailableError(`no WebGPU adapter (${first}); ${FIX}`);
  }
  if (!adapter) throw new GpuUnavailableError(`no WebGPU adapter found; ${FIX}`);
  const timestampQuery = adapter.features.has('timestamp-query');
  const wanted: GPUFeatureName[] = timestampQuery ? ['timestamp-query'] : [];
  const limits = limitsOf(adapter);
  const requiredLimits: Record<string, number> = {};
  for (const key of ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxStorageBuffersPerShaderStage',
    'maxComputeWorkgroupsPerDimension', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX']) {
    if (limits[key] !== undefined) requiredLimits[key] = limits[key]!;
  }
  const device = await adapter.requestDevice({ requiredFeatures: wanted, requiredLimits });
  const ai = adapter.info;
  const info: GpuDeviceInfo = {
    vendor: ai.vendor,
    architecture: ai.architecture,
    description: ai.description,
    adapterName: ai.description || ai.device || ai.vendor,
    timestampQuery,
    limits,
  };
  return {
    device,
    adapter,
    info,
    close() {
      device.destroy();
    },
  };
}

