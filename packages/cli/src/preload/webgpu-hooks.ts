/**
 * Module resolution hooks (registered by the preload with module.register): the program's `import 'webgpu'`
 * resolves to a shim that re-exports the real package with `create()` adding Dawn's
 * 'disable-dawn-features=timestamp_quantization', so its GPU timestamps are exact rather than 65,536 ns steps.
 */
interface ResolveContext { parentURL?: string; conditions: string[] }
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<{ url: string; format?: string | null }>;

// Same extension as this file: .ts under the dev runner (tsx), .js when built.
const SHIM = new URL(`./webgpu-shim.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<{ url: string; format?: string | null; shortCircuit?: boolean }> {
  if (specifier !== 'webgpu' || context.parentURL?.startsWith(SHIM)) return next(specifier, context);
  const real = await next(specifier, context);
  return { url: `${SHIM}?real=${encodeURIComponent(real.url)}`, format: 'module', shortCircuit: true };
}
