/** sim-core, loaded lazily so `gsprof --help` and the trace-reading commands never pay for the simulator. */
export type Gs = typeof import('@gsprof/sim-core');
export type Backend = 'auto' | 'cpu' | 'gpu';

export async function loadSimCore(): Promise<Gs> {
  return await import('@gsprof/sim-core');
}

/** gs.init with the options every scenario shares. */
export async function initSim(options: { backend: Backend; performanceMode: boolean; seed?: number; quiet?: boolean }): Promise<Gs> {
  const gs = await loadSimCore();
  await gs.init({ backend: options.backend, performanceMode: options.performanceMode, loggingLevel: options.quiet ? 'warning' : 'info', ...(options.seed !== undefined ? { seed: options.seed } : {}) });
  return gs;
}
