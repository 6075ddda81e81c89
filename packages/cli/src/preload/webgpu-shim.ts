/** The `webgpu` package as the preload's resolve hook hands it to the program (see webgpu-hooks.ts). */
import { createInstance, ensureRuntimeDir } from '@gsprof/dawn';
import { adoptWebgpu } from '../record/device-hook.js';

type Dawn = { create(flags: string[]): unknown; globals: Record<string, unknown>; isMac?: boolean };

const real = new URL(import.meta.url).searchParams.get('real');
if (!real) throw new Error('gsprof webgpu shim: loaded without the real module URL');
ensureRuntimeDir();
const dawn = (await import(real)) as Dawn;
// The copy may be the program's own, which the device hook could not find by itself.
adoptWebgpu(dawn);

export const globals = dawn.globals;
export const isMac = dawn.isMac;
// A program written the way the package's README shows drops its instance after requestAdapter(); gsprof's
// createInstance keeps it for the process (Dawn aborts when one is collected mid-work) and turns timestamp
// quantization off.
export function create(flags: string[] = []): unknown {
  return createInstance(dawn, flags);
}
