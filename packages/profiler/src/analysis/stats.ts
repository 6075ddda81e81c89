/** Small statistics used by the analyses and the regression check (no dependencies). */

/**
 * mulberry32: a small seeded generator, uniform in [0, 1). Sampling with it makes sampled statistics (and
 * scenario noise) the same on every run of the same input.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Linear-interpolated quantile (numpy's default, DuckDB's quantile_cont), q in [0, 1]. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/** A fall of more than this from the first to the last third of a run's steps is warm-up, not run-to-run noise
 *  (steady-state Franka runs on a busy 2-core machine stay within about 15%). */
export const WARMUP_FALL = 0.3;

/**
 * How much faster the last third of a run's steps is than its first third (0.6: the median fell by 60%); null
 * under 9 steps. A run whose steps still speed up this much is warming up (JIT tiers, caches), and its median
 * measures the warm-up, not the steady state.
 */
export function warmupFall(steps: readonly number[]): number | null {
  if (steps.length < 9) return null;
  const third = Math.floor(steps.length / 3);
  const first = median(steps.slice(0, third));
  const last = median(steps.slice(steps.length - third));
  return first > 0 ? 1 - last / first : null;
}

/** Sample standard deviation (n - 1). */
export function stddev(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 via erfc, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    * Math.exp(-x * x);
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * Two-sided Mann-Whitney U test, normal approximation with tie and continuity corrections.
 * Returns p = 1 when either sample is empty or all values tie.
 */
/**
 * Exact two-sided p of the Mann-Whitney U statistic without ties: the null distribution of U by counting, for
 * sizes m and n, the arrangements with each U (the recurrence f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)), as
 * scipy's `mannwhitneyu(method="exact")` and asv do for small samples. p = min(1, 2 P(U <= min(u, mn-u))).
 */
export function mannWhitneyExactP(u: number, m: number, n: number): number {
  const max = m * n;
  // counts[i][j][u] built up over j for a fixed row i, two rows at a time.
  let prev: Float64Array[] = Array.from({ length: n + 1 }, () => { const a = new Float64Array(max + 1); a[0] = 1; return a; });
  for (let i = 1; i <= m; i++) {
    const cur: Float64Array[] = [];
    const first = new Float64Array(max + 1);
    first[0] = 1;
    cur.push(first);
    for (let j = 1; j <= n; j++) {
      const row = new Float64Array(max + 1);
      const up = prev[j]!;
      const left = cur[j - 1]!;
      for (let k = 0; k <= i * j; k++) row[k] = (k >= j ? up[k - j]! : 0) + left[k]!;
      cur.push(row);
    }
    prev = cur;
  }
  const dist = prev[n]!;
  let total = 0;
  for (let k = 0; k <= max; k++) total += dist[k]!;
  const low = Math.min(u, max - u);
  let tail = 0;
  for (let k = 0; k <= Math.floor(low); k++) tail += dist[k]!;
  return Math.min(1, (2 * tail) / total);
}

/** Smallest two-sided p any outcome can give for sizes m and n: 2 / C(m + n, m) exactly. */
export function mannWhitneyMinP(m: number, n: number): number {
  let c = 1;
  for (let k = 1; k <= m; k++) c = (c * (n + k)) / k;
  return Math.min(1, 2 / c);
}

/**
 * Two-sided Mann-Whitney U test. Exact when both samples have at most 20 values and no value repeats across
 * them (the normal approximation is wrong there); otherwise the normal approximation with tie and continuity
 * corrections.
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): { u: number; p: number; exact: boolean } {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return { u: 0, p: 1, exact: false };
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) if (all[k]!.g === 0) rankSumA += rank;
    i = j + 1;
  }
  const u1 = rankSumA - (n1 * (n1 + 1)) / 2;
  if (tieTerm === 0 && n1 <= 20 && n2 <= 20) return { u: u1, p: mannWhitneyExactP(u1, n1, n2), exact: true };
  const mu = (n1 * n2) / 2;
  const sigma2 = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (sigma2 <= 0) return { u: u1, p: 1, exact: false };
  const z = (Math.abs(u1 - mu) - 0.5) / Math.sqrt(sigma2);
  return { u: u1, p: Math.min(1, 2 * (1 - normalCdf(Math.max(0, z)))), exact: false };
}

/**
 * log Gamma: Stirling's series (terms to 1/(1188 x^9)) for x >= 10, reached through ln Gamma(x) = ln Gamma(x + 1)
 * - ln x. The error is below 1e-15 there; a Lanczos fit with 9 terms was off by up to 1e-7, which fed every
 * t-test p-value.
 */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  let shift = 0;
  while (x < 10) {
    shift += Math.log(x);
    x += 1;
  }
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** Regularized incomplete beta I_x(a, b) by Lentz's continued fraction. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front = Math.exp(Math.log(x) * a + Math.log(1 - x) * b - (logGamma(a) + logGamma(b) - logGamma(a + b))) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 400; i++) {
    const m = Math.floor(i / 2);
    let num: number;
    if (i === 0) num = 1;
    else if (i % 2 === 0) num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-12) break;
  }
  return front * (f - 1);
}

/** Two-sided p-value of Student's t with `df` degrees of freedom. */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** Inverse of the two-sided p: the t with P(|T| > t) = p, by bisection. */
export function studentCritical(p: number, df: number): number {
  let lo = 0;
  let hi = 1e4;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (studentTwoSidedP(mid, df) > p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Welch's unequal-variance t-test, two-sided. */
export function welchTTest(a: readonly number[], b: readonly number[]): { t: number; df: number; p: number } {
  if (a.length < 2 || b.length < 2) return { t: 0, df: 0, p: 1 };
  const va = stddev(a) ** 2 / a.length;
  const vb = stddev(b) ** 2 / b.length;
  const diff = mean(b) - mean(a);
  if (va + vb === 0) return { t: diff === 0 ? 0 : Infinity, df: a.length + b.length - 2, p: diff === 0 ? 1 : 0 };
  const t = diff / Math.sqrt(va + vb);
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return { t, df, p: studentTwoSidedP(t, df) };
}

/** Confidence interval of the mean (Student t), level e.g. 0.99. */
export function meanConfidenceInterval(xs: readonly number[], level: number): [number, number] {
  const m = mean(xs);
  if (xs.length < 2) return [m, m];
  const half = studentCritical(1 - level, xs.length - 1) * stddev(xs) / Math.sqrt(xs.length);
  return [m - half, m + half];
}

/**
 * Distribution-free confidence interval of the median (the sign test's): the k-th smallest and k-th largest of
 * the n values, k the largest rank with P(Binomial(n, 1/2) < k) <= (1 - level) / 2, so the interval covers the
 * true median with probability >= level whatever the distribution, for independent values. `coverage` is that
 * probability exactly; null when n is too small for any interval at this level (n < 6 at 0.95).
 */
export function medianConfidenceInterval(xs: readonly number[], level: number): { low: number; high: number; coverage: number } | null {
  const n = xs.length;
  const tail = (1 - level) / 2;
  let logChoose = 0; // log C(n, i), starting at i = 0
  let below = 0; // P(Binomial(n, 1/2) < k)
  let k = 0;
  for (let i = 0; i <= n; i++) {
    const p = Math.exp(logChoose - n * Math.LN2);
    if (below + p > tail) break;
    below += p;
    k = i + 1;
    logChoose += Math.log((n - i) / (i + 1));
  }
  if (k < 1) return null;
  const s = [...xs].sort((a, b) => a - b);
  return { low: s[k - 1]!, high: s[n - k]!, coverage: 1 - 2 * below };
}

/** Where a run's step times leave the steady state: the warm-up at its start, and the outliers after it. */
export interface StepMarks {
  /** The steady state's outlier fence, ns: Q3 + 3 IQR of the second half of the steps (Tukey's "far out"); null
   *  under 8 steps, where no fence can be told from noise. */
  fenceNs: number | null;
  /** How many leading steps are above the fence (compilation, JIT tiers, cold caches). */
  warmupSteps: number;
  /** Indices (into the step list) of later steps above the fence. */
  outliers: number[];
}

/**
 * Marks the warm-up and the outliers of a run's step times against one fence taken from the second half of the run
 * (which warm-up does not reach): the leading steps above it are warm-up, any later one above it is an outlier.
 * The IQR is floored at 1% of the median so that a run of near-identical steps does not call every tick an outlier.
 */
export function stepMarks(durations: readonly number[]): StepMarks {
  if (durations.length < 8) return { fenceNs: null, warmupSteps: 0, outliers: [] };
  const steady = durations.slice(Math.floor(durations.length / 2));
  const q1 = quantile(steady, 0.25);
  const q3 = quantile(steady, 0.75);
  const fenceNs = q3 + 3 * Math.max(q3 - q1, 0.01 * quantile(steady, 0.5));
  let warmupSteps = 0;
  while (warmupSteps < durations.length && durations[warmupSteps]! > fenceNs) warmupSteps++;
  const outliers: number[] = [];
  for (let i = warmupSteps; i < durations.length; i++) if (durations[i]! > fenceNs) outliers.push(i);
  return { fenceNs, warmupSteps, outliers };
}
