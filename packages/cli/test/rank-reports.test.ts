import { describe, expect, it } from 'vitest';
import { kernelsByRankTable } from '../src/views/rank-reports.js';

describe('the kernels by rank table', () => {
  it('up to 8 ranks: a column per rank; past 8: the fastest, median and slowest rank with their totals', () => {
    const few = kernelsByRankTable([0, 1], ['gemm'], [{ 0: 2_000_000, 1: 3_000_000 }], false, false);
    expect(few).toMatch(/rank 0.*rank 1.*max\/min/s);
    expect(few).toMatch(/gemm.*2\.000ms.*3\.000ms.*1\.50/);
    // Ten ranks, rank k's total (k + 1) ms, rank 7 without the kernel (0).
    const ranks = Array.from({ length: 10 }, (_, k) => k);
    const totals: Record<number, number> = {};
    for (const k of ranks) if (k !== 7) totals[k] = (k + 1) * 1_000_000;
    const many = kernelsByRankTable(ranks, ['gemm'], [totals], false, false);
    expect(many).toMatch(/^Kernels across the 10 ranks/);
    expect(many).not.toMatch(/rank 9 │/);
    const row = many.split('\n').find((l) => l.includes('gemm'))!;
    const cells = row.split('│').map((c) => c.trim()).filter((c) => c !== '');
    // Sorted: 0 (rank 7), 1, 2, ..., 7 (rank 6), 9, 10 ms: the median of ten is the fifth, 4 ms (rank 3).
    expect(cells).toEqual(['gemm', '47.000ms', '0ns (rank 7)', '4.000ms (rank 3)', '10.000ms (rank 9)', '-']);
  });
});
