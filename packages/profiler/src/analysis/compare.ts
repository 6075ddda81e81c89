/**
 * Regression check between two runs (traces or baselines), one verdict per metric: step time, FPS, each
 * kernel's time per step, and counters such as solver iterations.
 * Default rule (asv): worse when the median is worse by more than `factor` (1.1) AND the change is significant
 * by a two-sided Mann-Whitney U test (p < 0.002); when the samples are too few for that test to ever reach
 * p < 0.002, significance falls back to non-overlapping 99% confidence intervals. Past the factor but not
 * significant: 'not significant'. Other modes: 'percent' (threshold only) and 'ttest' (Welch, p < alpha).
 */
import { openTrace, type TraceDb } from '../sql/traceDb.js';
import { baselineFromTrace, looksLikeBaseline, readBaseline, type Baseline } from './baseline.js';
import { mannWhitneyU, meanConfidenceInterval, median, normalCdf, welchTTest, mean } from './stats.js';

export type CompareMode = 'asv' | 'percent' | 'ttest';
export type Verdict = 'improved' | 'worse' | 'not significant' | 'unchanged';

export interface CompareOptions {
  mode?: CompareMode;
  /** asv: ratio past which a change counts (default 1.1). */
  factor?: number;
  /** asv: Mann-Whitney U threshold (default 0.002); ttest: Welch threshold (default 0.01). */
  alpha?: number;
  /** percent: threshold in percent (default 10). */
  thresholdPercent?: number;
}

export interface SampleSummary { n: number; median: number; mean: number; min: number; max: number }

export interface MetricComparison {
  metric: string;
  kind: 'step' | 'fps' | 'kernel' | 'count';
  unit: string;
  higherIsBetter: boolean;
  baseline: SampleSummary;
  current: SampleSummary;
  /** current / baseline of the medians. */
  ratio: number;
  /** Change in the "worse" direction, percent (positive = worse). */
  worsePercent: number;
  test: 'mann-whitney' | 'ci99' | 'welch' | 'none';
  pValue: number | null;
  significant: boolean;
  verdict: Verdict;
}

export interface CompareResult {
  mode: CompareMode;
  options: Required<Omit<CompareOptions, 'mode'>>;
  regression: boolean;
  metrics: MetricComparison[];
  /** Metrics present on one side only (not judged). */
  onlyInBaseline: string[];
  onlyInCurrent: string[];
  counts: Record<Verdict, number>;
}

export type CompareInput = TraceDb | Baseline | string;

async function toBaseline(input: CompareInput): Promise<Baseline> {
  if (typeof input === 'string') {
    if (await looksLikeBaseline(input)) return readBaseline(input);
    const db = await openTrace(input);
    try { return await baselineFromTrace(db); } finally { await db.close(); }
  }
  if ('format' in input && (input as Baseline).format === 'gsprof-baseline') return input as Baseline;
  return baselineFromTrace(input as TraceDb);
}

function summary(xs: readonly number[]): SampleSummary {
  return { n: xs.length, median: median(xs), mean: mean(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

/** Smallest two-sided p the normal-approximation U test can give for these sample sizes. */
function minMannWhitneyP(n1: number, n2: number): number {
  const sigma = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const z = (n1 * n2 / 2 - 0.5) / sigma;
  return 2 * (1 - normalCdf(z));
}

interface MetricSamples { metric: string; kind: MetricComparison['kind']; unit: string; higherIsBetter: boolean; base: number[]; cur: number[] }

function judge(m: MetricSamples, mode: CompareMode, o: Required<Omit<CompareOptions, 'mode'>>): MetricComparison {
  const b = summary(m.base);
  const c = summary(m.cur);
  const ratio = b.median !== 0 ? c.median / b.median : c.median === 0 ? 1 : Infinity;
  // "Worse ratio": > 1 means worse whichever direction is better.
  const worseRatio = m.higherIsBetter ? (c.median !== 0 ? b.median / c.median : Infinity) : ratio;
  const worsePercent = (worseRatio - 1) * 100;
  let test: MetricComparison['test'] = 'none';
  let pValue: number | null = null;
  let significant = false;
  let verdict: Verdict;
  const identical = m.base.length === m.cur.length && m.base.every((v, i) => v === m.cur[i]);
  if (identical || (b.min === b.max && c.min === c.max && b.min === c.min)) {
    verdict = 'unchanged';
  } else if (mode === 'percent') {
    verdict = worsePercent > o.thresholdPercent ? 'worse' : worsePercent < -o.thresholdPercent ? 'improved' : 'unchanged';
    significant = verdict !== 'unchanged';
  } else if (mode === 'ttest') {
    test = 'welch';
    const r = welchTTest(m.base, m.cur);
    pValue = r.p;
    significant = m.base.length >= 2 && m.cur.length >= 2 && r.p < o.alpha;
    const worse = m.higherIsBetter ? c.mean < b.mean : c.mean > b.mean;
    verdict = significant ? (worse ? 'worse' : 'improved') : 'unchanged';
  } else {
    const past = worseRatio > o.factor || worseRatio < 1 / o.factor;
    if (m.base.length >= 2 && m.cur.length >= 2 && minMannWhitneyP(m.base.length, m.cur.length) < o.alpha) {
      test = 'mann-whitney';
      pValue = mannWhitneyU(m.base, m.cur).p;
      significant = pValue < o.alpha;
    } else if (m.base.length >= 2 && m.cur.length >= 2) {
      test = 'ci99';
      const [bl, bh] = meanConfidenceInterval(m.base, 0.99);
      const [cl, ch] = meanConfidenceInterval(m.cur, 0.99);
      significant = ch < bl || cl > bh;
    } else {
      significant = true; // one sample per side: the factor alone decides, as asv does without statistics
    }
    verdict = !past ? 'unchanged' : !significant ? 'not significant' : worseRatio > 1 ? 'worse' : 'improved';
  }
  return { metric: m.metric, kind: m.kind, unit: m.unit, higherIsBetter: m.higherIsBetter, baseline: b, current: c,
    ratio, worsePercent, test, pValue, significant, verdict };
}

function metricsOf(b: Baseline): Map<string, Omit<MetricSamples, 'base' | 'cur'> & { samples: number[] }> {
  const out = new Map<string, Omit<MetricSamples, 'base' | 'cur'> & { samples: number[] }>();
  if (b.steps.length > 0) {
    out.set('step time', { metric: 'step time', kind: 'step', unit: 'ns', higherIsBetter: false, samples: b.steps });
    out.set('fps', { metric: 'fps', kind: 'fps', unit: 'steps/s', higherIsBetter: true,
      samples: b.steps.filter((d) => d > 0).map((d) => 1e9 / d) });
  }
  for (const [name, s] of Object.entries(b.kernels)) {
    if (s.length > 0) out.set(`kernel ${name}`, { metric: `kernel ${name}`, kind: 'kernel', unit: 'ns', higherIsBetter: false, samples: s });
  }
  for (const [name, s] of Object.entries(b.counts)) {
    if (s.length === 0) continue;
    const higher = /fps|per[ _]?s(ec)?\b|throughput|steps\/s/i.test(name);
    out.set(`count ${name}`, { metric: `count ${name}`, kind: 'count', unit: 'value', higherIsBetter: higher, samples: s });
  }
  return out;
}

export async function compare(baseline: CompareInput, current: CompareInput, opts: CompareOptions = {}): Promise<CompareResult> {
  const mode = opts.mode ?? 'asv';
  const o = { factor: opts.factor ?? 1.1, alpha: opts.alpha ?? (mode === 'ttest' ? 0.01 : 0.002),
    thresholdPercent: opts.thresholdPercent ?? 10 };
  const bm = metricsOf(await toBaseline(baseline));
  const cm = metricsOf(await toBaseline(current));
  const metrics: MetricComparison[] = [];
  for (const [name, b] of bm) {
    const c = cm.get(name);
    if (!c) continue;
    metrics.push(judge({ ...b, base: b.samples, cur: c.samples }, mode, o));
  }
  const counts: Record<Verdict, number> = { improved: 0, worse: 0, 'not significant': 0, unchanged: 0 };
  for (const m of metrics) counts[m.verdict]++;
  return { mode, options: o, regression: counts.worse > 0, metrics,
    onlyInBaseline: [...bm.keys()].filter((k) => !cm.has(k)), onlyInCurrent: [...cm.keys()].filter((k) => !bm.has(k)), counts };
}

/** Compare plain sample arrays with the same rules (for callers that measured without a trace). */
export function compareSamples(metric: string, base: number[], cur: number[], opts: CompareOptions & { higherIsBetter?: boolean } = {}): MetricComparison {
  const mode = opts.mode ?? 'asv';
  const o = { factor: opts.factor ?? 1.1, alpha: opts.alpha ?? (mode === 'ttest' ? 0.01 : 0.002), thresholdPercent: opts.thresholdPercent ?? 10 };
  return judge({ metric, kind: 'step', unit: 'ns', higherIsBetter: opts.higherIsBetter ?? false, base, cur }, mode, o);
}
