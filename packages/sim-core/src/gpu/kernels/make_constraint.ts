import type { KernelDef } from '../runtime.js';

/** Placeholder until the WGSL make_constraint kernel lands: no constraint rows. */
export const makeConstraintKernel: KernelDef = { name: 'make_constraint', helpers: '', body: '  iset(D_NEFC, 0, e, 0);' };
