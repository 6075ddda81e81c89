import { describe, expect, it } from 'vitest';
import { stepsByNumber, stragglers } from '../../src/analysis/stragglers.js';

describe('stragglers: per step, the slowest rank and the spread across ranks', () => {
  it('lines steps up by number, counts who was slowest, and measures the spread', () => {
    const r = stragglers([
      { rank: 1, steps: new Map([[1, 30], [2, 10], [3, 50], [4, 5]]) },
      { rank: 0, steps: new Map([[1, 10], [2, 20], [3, 10]]) },
    ]);
    expect(r.ranks).toEqual([0, 1]);
    // Step 4 only rank 1 recorded: left out, and counted as such.
    expect(r.stepsNotOnEveryRank).toBe(1);
    expect(r.steps.map((s) => [s.step, s.slowestRank, s.spreadNs])).toEqual([[1, 1, 20], [2, 0, 10], [3, 1, 40]]);
    expect(r.slowestCount).toEqual({ 0: 1, 1: 2 });
    expect(r.spread!.medianNs).toBe(20);
    expect(r.spread!.maxNs).toBe(40);
    expect(r.spread!.maxStep).toBe(3);
    // The median step over both ranks' six steps is 15: a median spread of 20 is 133% of it.
    expect(r.spread!.medianPercentOfStep).toBeCloseTo(133.33, 2);
  });

  it('no common step: no spread, said as null', () => {
    const r = stragglers([{ rank: 0, steps: new Map([[1, 5]]) }, { rank: 1, steps: new Map([[2, 5]]) }]);
    expect(r.steps).toEqual([]);
    expect(r.spread).toBeNull();
  });

  it('stepsByNumber keys steps by their ProfilerStep number, and by position when a span has none', () => {
    expect([...stepsByNumber([5, 6, 7], [10, Number.NaN, 12])]).toEqual([[10, 5], [1, 6], [12, 7]]);
  });
});
