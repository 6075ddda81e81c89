/** summary's "others" row over very many distinct kernels: no argument spreading (it overflowed past ~125k). */
import type { KernelRow } from '@gsprof/profiler';
import { describe, expect, it } from 'vitest';
import { foldRows } from '../src/views/summary.js';

describe('foldRows', () => {
  it('folds 500,000 kernels into one row with the true min and max', () => {
    const n = 500_000;
    const rows: KernelRow[] = Array.from({ length: n }, (_, i) => ({
      name: `k${i}`, timePercent: 100 / n, totalTimeNs: 1000 + i, instances: 1, avgNs: 1000 + i, medNs: 1000 + i, minNs: 1000 + i, maxNs: 1000 + i, stdDevNs: 0,
    }));
    const folded = foldRows(rows, 10);
    expect(folded).toHaveLength(11);
    const others = folded[10]!;
    expect(others.name).toBe(`(${n - 10} others)`);
    expect(others.instances).toBe(n - 10);
    expect(others.minNs).toBe(1010);
    expect(others.maxNs).toBe(1000 + n - 1);
  });
});
