/**
 * The statistics against published reference values. Exact Mann-Whitney p-values are those of scipy's
 * `mannwhitneyu(x, y, method="exact")` (two-sided), which are 2 * P(U <= u) from the exact null distribution:
 * for sizes (m, n) the C(m+n, m) equally likely rank arrangements, counted by U.
 */
import { describe, expect, it } from 'vitest';
import { traceStats } from '../../src/index.js';

const { mannWhitneyExactP, mannWhitneyMinP, mannWhitneyU, incompleteBeta, medianConfidenceInterval, welchTTest, warmupFall } = traceStats;

describe('exact Mann-Whitney U', () => {
  it.each([
    // m, n, U, p (two-sided). Counts of U for (2,3): 1 1 2 2 2 1 1 over C(5,2) = 10 arrangements.
    [2, 3, 0, 0.2],
    [2, 3, 1, 0.4],
    [3, 3, 0, 0.1], // 2 / C(6,3)
    [4, 5, 3, 0.1111111111111111], // 2 * (1+1+2+3) / 126
    [5, 5, 0, 0.007936507936507936], // 2 / 252: scipy, x = 1..5, y = 6..10
    [5, 5, 10, 0.6904761904761905], // scipy, x = 1,3,5,7,9, y = 2,4,6,8,10
    [7, 7, 0, 0.0005827505827505828], // 2 / 3432
    [10, 10, 0, 1.0825088224084e-5], // 2 / 184756
  ])('m=%i n=%i U=%i: p=%f', (m, n, u, p) => {
    const got = mannWhitneyExactP(u, m, n);
    expect(Math.abs(got - p)).toBeLessThan(1e-15); // exact rational counts: only the last bit may differ
  });

  it('the test on samples: exact without ties, the same p as the table', () => {
    expect(mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])).toEqual({ u: 0, p: 0.007936507936507936, exact: true });
    expect(mannWhitneyU([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]).p).toBeCloseTo(0.6904761904761905, 15);
    // With ties the exact distribution does not apply: normal approximation with tie correction.
    expect(mannWhitneyU([1, 1, 2, 3], [1, 2, 2, 4]).exact).toBe(false);
  });

  it('the smallest p any outcome can reach is 2 / C(m+n, m)', () => {
    expect(mannWhitneyMinP(6, 6)).toBeCloseTo(2 / 924, 15);
    expect(mannWhitneyMinP(7, 7)).toBeCloseTo(2 / 3432, 15);
  });
});

describe('incomplete beta and Welch', () => {
  // Measured error against the closed forms: at most 6e-14; the bound 5e-13 leaves an 8x margin.
  it('regularized incomplete beta against closed forms', () => {
    // I_x(1, b) = 1 - (1-x)^b; I_x(a, 1) = x^a; I_0.5(a, a) = 0.5.
    expect(incompleteBeta(0.3, 1, 4)).toBeCloseTo(1 - 0.7 ** 4, 12);
    expect(incompleteBeta(0.3, 3, 1)).toBeCloseTo(0.3 ** 3, 12);
    expect(incompleteBeta(0.5, 7.5, 7.5)).toBeCloseTo(0.5, 12);
  });

  it("Welch's t-test: t, the Welch-Satterthwaite df, and p against the t distribution", () => {
    // a: mean 3, var 2.5 (n 5); b: mean 6, var 2.5 (n 5). t = (mean b - mean a) / sqrt(1) = 3, df = 8.
    const r = welchTTest([1, 2, 3, 4, 5], [4, 5, 6, 7, 8]);
    expect(r.t).toBeCloseTo(3, 12);
    expect(r.df).toBeCloseTo(8, 12);
    // Two-sided p for |t| = 3 with 8 df: 0.0170716812 (scipy: 2 * t.sf(3, 8)).
    expect(Math.abs(r.p - 0.0170716812)).toBeLessThan(1e-10);
  });
});

describe('warmupFall', () => {
  it('is the fall of the median from the first to the last third of the steps', () => {
    // Thirds of 9: [4,4,4] -> median 4; [3,3,3]; [1,1,1] -> median 1: fell by 75%.
    expect(warmupFall([4, 4, 4, 3, 3, 3, 1, 1, 1])).toBe(0.75);
    expect(warmupFall([1, 1, 1, 1, 1, 1, 1, 1, 2])).toBe(0);
    // Getting slower is a negative fall, not warm-up.
    expect(warmupFall([1, 1, 1, 1, 1, 1, 2, 2, 2])).toBe(-1);
    expect(warmupFall([5, 4, 3, 2, 1, 1, 1, 1])).toBeNull();
  });
});

describe('medianConfidenceInterval', () => {
  // The sign test's ranks for a 95% interval of the median, as the published tables give them (Conover,
  // Practical Nonparametric Statistics; Campbell & Gardner, BMJ 1988): n = 10: the 2nd and 9th values (coverage
  // 97.85%), n = 20: 6th and 15th (95.86%), n = 100: 40th and 61st (96.48%).
  it.each([
    [10, 2, 9, 0.978515625],
    [20, 6, 15, 0.9586105346679688],
    [100, 40, 61, 0.9647997997822952],
  ])('n=%i: values of ranks %i and %i, coverage %f', (n, lo, hi, coverage) => {
    // Shuffled 1..n: the interval is the values of those ranks, whatever the order.
    const xs = Array.from({ length: n }, (_, i) => ((i * 7) % n) + 1);
    const ci = medianConfidenceInterval(xs, 0.95)!;
    expect([ci.low, ci.high]).toEqual([lo, hi]);
    expect(Math.abs(ci.coverage - coverage)).toBeLessThan(1e-12);
  });

  it('too few values for a 95% interval: none', () => {
    expect(medianConfidenceInterval([1, 2, 3, 4, 5], 0.95)).toBeNull();
    expect(medianConfidenceInterval([1, 2, 3, 4, 5, 6], 0.95)).toEqual({ low: 1, high: 6, coverage: 0.96875 });
  });
});
