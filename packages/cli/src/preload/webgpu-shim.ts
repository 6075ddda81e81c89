/** The `webgpu` package as the preload's resolve hook hands it to the program (see webgpu-hooks.ts). */
type Dawn = { create(flags: string[]): unknown; globals: Record<string, unknown>; isMac?: boolean };

const TOGGLE = 'disable-dawn-features=timestamp_quantization';
const real = new URL(import.meta.url).searchParams.get('real');
if (!real) throw new Error('gsprof webgpu shim: loaded without the real module URL');
const dawn = (await import(real)) as Dawn;

export const globals = dawn.globals;
export const isMac = dawn.isMac;
// Dawn's instance must outlive every adapter and device made from it, but a program written the way the
// package's README shows drops its reference after requestAdapter(); if the GC collects the instance while the
// device still runs, Dawn segfaults or aborts. Kept for the process, as the library's own createGpu() does.
const keptAlive: unknown[] = [];
export function create(flags: string[] = []): unknown {
  const wanted = flags.some((f) => f.includes('timestamp_quantization')) ? flags : [...flags, TOGGLE];
  const instance = dawn.create(wanted);
  keptAlive.push(instance);
  return instance;
}
