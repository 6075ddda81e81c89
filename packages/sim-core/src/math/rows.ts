/**
 * Row helpers shared by the stages for SoA blocks (rows of n envs): the loop order follows the width of the
 * env range, because an env-inner loop of one or two iterations costs more than its work, and an env-outer
 * loop over a wide range strides through memory.
 */
import type { Real } from '../data/data.js';

type Rows = Real | Float64Array;

/** a[dst + k*n + e] += a[src + k*n + e] for k < count, e in [e0, e1). */
export function addRows(a: Rows, dst: number, src: number, count: number, n: number, e0: number, e1: number): void {
  if (e1 - e0 <= 2) {
    for (let e = e0; e < e1; e++) {
      for (let k = 0; k < count * n; k += n) a[dst + k + e] = a[dst + k + e]! + a[src + k + e]!;
    }
    return;
  }
  for (let k = 0; k < count * n; k += n) {
    const d = dst + k, s = src + k;
    for (let e = e0; e < e1; e++) a[d + e] = a[d + e]! + a[s + e]!;
  }
}
