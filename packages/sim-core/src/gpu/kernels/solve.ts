import type { KernelDef } from '../runtime.js';

/** Placeholder until the WGSL solve kernel lands: qacc = qacc_smooth. */
export const solveKernel: KernelDef = {
  name: 'solve',
  helpers: '',
  body: `  for (var d = 0; d < NV; d++) { dset(D_QACC, d, e, dget(D_QACC_SMOOTH, d, e)); dset(D_QFRC_CONSTRAINT, d, e, 0.0); }`,
};
