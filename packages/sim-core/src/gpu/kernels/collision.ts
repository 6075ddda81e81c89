import type { KernelDef } from '../runtime.js';

/** Placeholder until the WGSL collision kernel lands: no contacts. */
export const collisionKernel: KernelDef = { name: 'collision', helpers: '', body: '  iset(D_NCON, 0, e, 0);' };
