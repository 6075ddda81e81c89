/**
 * Small seeded generators for tests that need reproducible "random" inputs (same seed, same sequence on every
 * machine), so a failing case can be rerun exactly.
 */

/** mulberry32: uniform in [0, 1), 32-bit state (the profiler's, which its sampling uses). */
export { mulberry32 } from '../../packages/profiler/src/analysis/stats.js';

/** A 32-bit linear congruential generator (Numerical Recipes constants): uniform in [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
