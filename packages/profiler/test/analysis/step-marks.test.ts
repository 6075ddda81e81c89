import { describe, expect, it } from 'vitest';
import { traceStats } from '../../src/index.js';

describe('stepMarks: warm-up and outliers against one fence from the second half of the run', () => {
  it('marks the slow leading steps as warm-up and a later spike as an outlier, nothing else', () => {
    // Two compile-slow steps, then steady 100-104 with one 300 spike at index 9.
    const steps = [2000, 900, 100, 102, 101, 103, 100, 104, 102, 300, 101, 103, 100, 102, 101, 103];
    const m = traceStats.stepMarks(steps);
    // Second half: 102, 300, 101, 103, 100, 102, 101, 103 -> Q1 101, Q3 103, IQR 2 -> fence 109.
    expect(m.fenceNs).toBe(109);
    expect(m.warmupSteps).toBe(2);
    expect(m.outliers).toEqual([9]);
  });

  it('a run of identical steps has no outlier (the IQR is floored at 1% of the median)', () => {
    const m = traceStats.stepMarks([1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1001, 1000]);
    expect(m.fenceNs).toBe(1030);
    expect(m).toMatchObject({ warmupSteps: 0, outliers: [] });
  });

  it('marks nothing under 8 steps', () => {
    expect(traceStats.stepMarks([5000, 1, 1, 1, 1, 1, 1])).toEqual({ fenceNs: null, warmupSteps: 0, outliers: [] });
  });
});
