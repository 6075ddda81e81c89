/**
 * gs.init / gs.destroy and the process-wide state they set: the backend, the device description, the
 * precision and the seed. `gs.backend` and `gs.device` are live bindings of this module.
 */
import { backendFactory, type Backend, type BackendKind, type DeviceDescription } from '../backend/backend.js';
import { CpuBackend } from '../backend/cpu.js';
import type { Precision } from '../data/data.js';
import { rejectUnknownKeys } from './keys.js';
import { isLogLevel, logger, type LogLevel } from './logger.js';
import { setDefaultFloat } from './tensor.js';

export interface InitOptions {
  /** 'cpu', 'gpu' (WebGPU), or 'auto' (the GPU when one is available, else the CPU). Default 'auto'. */
  backend?: BackendKind | 'auto';
  /** Float precision of the simulation state: '32' (default, as Genesis) or '64'. */
  precision?: Precision;
  /** Bake shapes into GPU kernels (faster steps, recompiles per scene). */
  performanceMode?: boolean;
  seed?: number | null;
  loggingLevel?: LogLevel;
  /** CPU backend threads: a count or 'auto' (all cores for large batches). Env var GSPROF_CPU_THREADS overrides 'auto'. */
  cpuThreads?: number | 'auto';
}

const INIT_KEYS = ['backend', 'precision', 'performanceMode', 'seed', 'loggingLevel', 'cpuThreads'] as const;

/** Genesis' backend constants: `gs.init({ backend: gs.gpu })`. */
export const cpu = 'cpu' as const;
export const gpu = 'gpu' as const;

export const GPU_NOT_BUILT =
  "WebGPU backend not built yet: gs.init({ backend: 'gpu' }) needs the WebGPU backend; use backend: 'cpu'.";

/** The backend selected by gs.init ('cpu' | 'gpu'), or null before init. */
export let backend: BackendKind | null = null;
/** The device the backend runs on, or null before init. */
export let device: DeviceDescription | null = null;
export let precision: Precision = '32';
export let performanceMode = false;
export let seed: number | null = null;

let active: Backend | null = null;

export function isInitialized(): boolean {
  return active !== null;
}

/** The active backend; throws the Genesis-style message before init. */
export function activeBackend(): Backend {
  if (!active) throw new Error("gsprof hasn't been initialized. Did you call `await gs.init()`?");
  return active;
}

function cpuThreadsFrom(opt: number | 'auto' | undefined): number | 'auto' {
  const env = process.env.GSPROF_CPU_THREADS;
  const v = opt ?? (env !== undefined && env !== '' ? (env === 'auto' ? 'auto' : Number(env)) : 'auto');
  if (v !== 'auto' && (!Number.isInteger(v) || v < 1)) {
    throw new Error(`cpuThreads must be a positive integer or 'auto', got ${String(v)}`);
  }
  return v;
}

export async function init(options: InitOptions = {}): Promise<void> {
  if (active) throw new Error('gsprof already initialized. Call `await gs.destroy()` before initializing again.');
  rejectUnknownKeys(options, INIT_KEYS, 'gs.init');
  const kind = options.backend ?? 'auto';
  if (kind !== 'cpu' && kind !== 'gpu' && kind !== 'auto') {
    throw new Error(`backend must be 'cpu', 'gpu' or 'auto', got ${JSON.stringify(kind)}`);
  }
  const prec = options.precision ?? '32';
  if (prec !== '32' && prec !== '64') throw new Error(`precision must be '32' or '64', got ${JSON.stringify(prec)}`);
  if (options.loggingLevel !== undefined && !isLogLevel(options.loggingLevel)) {
    throw new Error(`loggingLevel must be 'debug', 'info', 'warning' or 'error', got ${JSON.stringify(options.loggingLevel)}`);
  }
  if (options.seed !== undefined && options.seed !== null && !Number.isInteger(options.seed)) {
    throw new Error(`seed must be an integer, got ${String(options.seed)}`);
  }
  const initOptions = {
    precision: prec,
    performanceMode: options.performanceMode ?? false,
    cpuThreads: cpuThreadsFrom(options.cpuThreads),
  };
  if (options.loggingLevel) logger.level = options.loggingLevel;

  let chosen: Backend;
  if (kind === 'cpu') {
    chosen = new CpuBackend(initOptions);
  } else {
    const gpuFactory = backendFactory('gpu');
    if (!gpuFactory) {
      if (kind === 'gpu') throw new Error(GPU_NOT_BUILT);
      chosen = new CpuBackend(initOptions);
    } else {
      try {
        chosen = await gpuFactory(initOptions);
        if (kind === 'auto' && chosen.device.software) {
          logger.info(`backend 'auto': the only WebGPU adapter is a software one (${chosen.device.name}); using the CPU.`);
          await chosen.destroy();
          chosen = new CpuBackend(initOptions);
        }
      } catch (err) {
        if (kind === 'gpu') throw err;
        logger.info(`backend 'auto': no usable GPU (${(err as Error).message}); using the CPU.`);
        chosen = new CpuBackend(initOptions);
      }
    }
  }
  active = chosen;
  backend = chosen.kind;
  device = chosen.device;
  precision = prec;
  performanceMode = initOptions.performanceMode;
  seed = options.seed ?? null;
  setDefaultFloat(prec === '64' ? 'float64' : 'float32');
  logger.info(`gsprof initialized: backend ${chosen.kind} (${chosen.device.name}), precision ${prec}` +
    (initOptions.performanceMode ? ', performance mode' : '') + '.');
}

/** Releases the backend so gs.init can be called again (scenes built before stay unusable). */
export async function destroy(): Promise<void> {
  const b = active;
  active = null;
  backend = null;
  device = null;
  seed = null;
  setDefaultFloat('float32');
  await b?.destroy();
}
