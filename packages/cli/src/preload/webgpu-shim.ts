/** The `webgpu` package as the preload's resolve hook hands it to the program (see webgpu-hooks.ts). */
type Dawn = { create(flags: string[]): unknown; globals: Record<string, unknown>; isMac?: boolean };

const TOGGLE = 'disable-dawn-features=timestamp_quantization';
const real = new URL(import.meta.url).searchParams.get('real');
if (!real) throw new Error('gsprof webgpu shim: loaded without the real module URL');
const dawn = (await import(real)) as Dawn;

/** dawn.node destroys an instance when its GPU object is garbage-collected, even with devices still working, and
 * then crashes in ProcessEvents. A program run under gsprof must never crash where it would not alone (and
 * recording keeps more work in flight), so every instance handed out lives as long as the process. */
const liveInstances: unknown[] = [];

export const globals = dawn.globals;
export const isMac = dawn.isMac;
export function create(flags: string[] = []): unknown {
  const wanted = flags.some((f) => f.includes('timestamp_quantization')) ? flags : [...flags, TOGGLE];
  const gpu = dawn.create(wanted);
  liveInstances.push(gpu);
  return gpu;
}
