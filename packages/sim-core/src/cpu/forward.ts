/**
 * mj_forward on the CPU: every stage but integrate, so Data holds the derived quantities (poses, M and
 * its factor, forces, qacc) of the current state without advancing it.
 */
import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';
import type { SimTracer } from '../instrument.js';
import { CPU_FORWARD_STAGES } from './step.js';

export function forwardCpu(m: Model, d: Data, e0: number, e1: number, tracer?: SimTracer | null): void {
  for (const s of CPU_FORWARD_STAGES) {
    if (s.name === 'sensor' && !m.nsensor) continue;
    if (tracer) tracer.begin(s.name, 'cpu_op', { nEnvs: e1 - e0 });
    try { s.run(m, d, e0, e1); } finally { if (tracer) tracer.end(); }
  }
}
