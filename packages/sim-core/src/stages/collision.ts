import type { Data } from '../data/data.js';
import type { Model } from '../model/model.js';

/** Placeholder until the collision stage lands: no contacts. */
export function collision(m: Model, d: Data, e0: number, e1: number): void {
  void m;
  for (let e = e0; e < e1; e++) d.ncon[e] = 0;
}
