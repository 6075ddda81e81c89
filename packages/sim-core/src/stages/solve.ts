import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';

/** Placeholder until the solve stage lands: qacc = qacc_smooth, no constraint force. */
export function solve(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs;
  for (let i = 0; i < m.nv; i++) {
    for (let e = e0; e < e1; e++) {
      d.qacc[i * n + e] = d.qaccSmooth[i * n + e]!;
      d.qfrcConstraint[i * n + e] = 0;
    }
  }
}
