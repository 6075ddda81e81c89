/**
 * A metric over commits, asv-style: baselines (`gsprof record --baseline-out`, each with its commit and date) in
 * date order, each compared with the one before it by `compare` (the same rule, factor and test as the regression
 * check), so a point is marked a regression exactly when `gsprof compare PREVIOUS THIS` would fail.
 */
import type { Baseline } from './baseline.js';
import { CompareInputError, compare, type CompareOptions, type MetricComparison, type SampleSummary } from './compare.js';

export interface HistoryPoint {
  /** Where the baseline was read from. */
  source: string;
  commit: string | null;
  /** The baseline's createdAt (ISO 8601). */
  date: string;
  /** The metric's per-run values and their median (compare's run statistic: min step time by default). */
  sample: SampleSummary;
  /** Against the previous point: compare's verdict, change and p; null for the first point. */
  change: Pick<MetricComparison, 'verdict' | 'ratio' | 'pValue' | 'test'> | null;
  /** Set when compare refused the pair (a different workload, no steps): why. */
  refused: string | null;
}

export interface History {
  metric: string;
  unit: string;
  points: HistoryPoint[];
  /** Indices of the points compare judged worse than the one before. */
  regressions: number[];
}

/** The step-time history of `entries` (any order; sorted by date, then source). */
export async function baselineHistory(entries: ReadonlyArray<{ source: string; baseline: Baseline }>, options: CompareOptions = {}): Promise<History> {
  const sorted = [...entries].sort((a, b) => a.baseline.createdAt.localeCompare(b.baseline.createdAt) || a.source.localeCompare(b.source));
  const points: HistoryPoint[] = [];
  const regressions: number[] = [];
  let metric = 'step time';
  let unit = 'ns';
  for (let i = 0; i < sorted.length; i++) {
    const { source, baseline } = sorted[i]!;
    const commit = typeof baseline.config.gitCommit === 'string' ? baseline.config.gitCommit : null;
    // The first point is compared with itself: that gives its own sample summary by compare's statistic.
    const previous = i === 0 ? baseline : sorted[i - 1]!.baseline;
    try {
      const r = await compare(previous, baseline, options);
      metric = r.decision.metric;
      unit = r.decision.unit;
      const d = r.decision;
      if (i > 0 && d.verdict === 'worse') regressions.push(i);
      points.push({ source, commit, date: baseline.createdAt, sample: d.current, change: i === 0 ? null : { verdict: d.verdict, ratio: d.ratio, pValue: d.pValue, test: d.test }, refused: null });
    } catch (e) {
      if (!(e instanceof CompareInputError)) throw e;
      const alone = await compare(baseline, baseline, options).catch(() => null);
      points.push({ source, commit, date: baseline.createdAt, sample: alone?.decision.current ?? { n: 0, values: [], median: NaN, min: NaN, max: NaN, spreadPercent: NaN }, change: null, refused: e.message });
    }
  }
  return { metric, unit, points, regressions };
}
