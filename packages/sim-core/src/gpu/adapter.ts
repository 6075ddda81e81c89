/**
 * Opens the simulator's WebGPU device through @gsprof/dawn (which starts Dawn, keeps its instances alive, turns
 * timestamp quantization off and applies GSPROF_ADAPTER), asking for the adapter's largest buffer and
 * workgroup limits.
 */
import { DawnUnavailableError, requestAdapter, withTimestampQuery } from '@gsprof/dawn';

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

/** Adapter names Dawn can see (see @gsprof/dawn). */
export { listAdapters } from '@gsprof/dawn';

function limitsOf(adapter: GPUAdapter): Record<string, number> {
  const out: Record<string, number> = {};
  const src = adapter.limits as unknown as Record<string, number>;
  for (const key in src) {
    const v = src[key];
    if (typeof v === 'number') out[key] = v;
  }
  return out;
}

/** A device on the adapter GSPROF_ADAPTER (or `selector`) picks, with timestamp-query when it has it. */
export async function openGpu(selector: string | undefined = process.env.GSPROF_ADAPTER): Promise<OpenedGpu> {
  let adapter: GPUAdapter;
  try {
    ({ adapter } = await requestAdapter(selector));
  } catch (err) {
    if (err instanceof DawnUnavailableError) throw new GpuUnavailableError(`${err.message}; ${FIX}`);
    throw err;
  }
  const timestampQuery = adapter.features.has('timestamp-query');
  const limits = limitsOf(adapter);
  const requiredLimits: Record<string, number> = {};
  for (const key of ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxStorageBuffersPerShaderStage',
    'maxComputeWorkgroupsPerDimension', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX']) {
    if (limits[key] !== undefined) requiredLimits[key] = limits[key]!;
  }
  const device = await adapter.requestDevice(withTimestampQuery(adapter, { requiredLimits }));
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

