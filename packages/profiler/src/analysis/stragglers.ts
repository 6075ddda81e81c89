/**
 * The straggler view of a multi-process run: per step, which rank took longest and how far apart the ranks were.
 * Steps line up by their number (ProfilerStep#k): the k-th step of every rank. In a synchronous job the slowest
 * rank sets every step's time; where the ranks run on their own, the spread still shows an unequal device or an
 * unequal share of the work.
 */
import { quantile } from './stats.js';

export interface RankStepTimes {
  rank: number;
  /** Completed step time (ns) by step number. */
  steps: ReadonlyMap<number, number>;
}

export interface StragglerStep {
  step: number;
  slowestRank: number;
  slowestNs: number;
  fastestRank: number;
  fastestNs: number;
  /** slowestNs - fastestNs. */
  spreadNs: number;
}

export interface StragglerReport {
  ranks: number[];
  /** Steps every rank recorded, by step number. */
  steps: StragglerStep[];
  /** Steps some rank recorded and another did not (they are left out of the view). */
  stepsNotOnEveryRank: number;
  /** How many of the steps each rank was the slowest in (ties go to the lower rank). */
  slowestCount: Record<number, number>;
  /** Spread across ranks over the steps: median, 90th percentile, largest (and its step), and the median as a share
   *  of the median step time; null with no step. */
  spread: { medianNs: number; p90Ns: number; maxNs: number; maxStep: number; medianPercentOfStep: number } | null;
}

export function stragglers(ranks: readonly RankStepTimes[]): StragglerReport {
  const order = [...ranks].sort((a, b) => a.rank - b.rank);
  const all = new Set<number>();
  for (const r of order) for (const k of r.steps.keys()) all.add(k);
  const common = [...all].filter((k) => order.every((r) => r.steps.has(k))).sort((a, b) => a - b);
  const slowestCount: Record<number, number> = {};
  for (const r of order) slowestCount[r.rank] = 0;
  const steps: StragglerStep[] = common.map((step) => {
    let slow = order[0]!;
    let fast = order[0]!;
    for (const r of order) {
      if (r.steps.get(step)! > slow.steps.get(step)!) slow = r;
      if (r.steps.get(step)! < fast.steps.get(step)!) fast = r;
    }
    const slowestNs = slow.steps.get(step)!;
    const fastestNs = fast.steps.get(step)!;
    slowestCount[slow.rank]! += 1;
    return { step, slowestRank: slow.rank, slowestNs, fastestRank: fast.rank, fastestNs, spreadNs: slowestNs - fastestNs };
  });
  let spread: StragglerReport['spread'] = null;
  if (steps.length > 0) {
    const spreads = steps.map((s) => s.spreadNs);
    const worst = steps.reduce((m, s) => (s.spreadNs > m.spreadNs ? s : m));
    const medianStep = quantile(order.flatMap((r) => common.map((k) => r.steps.get(k)!)), 0.5);
    const medianNs = quantile(spreads, 0.5);
    spread = { medianNs, p90Ns: quantile(spreads, 0.9), maxNs: worst.spreadNs, maxStep: worst.step, medianPercentOfStep: medianStep > 0 ? (100 * medianNs) / medianStep : 0 };
  }
  return { ranks: order.map((r) => r.rank), steps, stepsNotOnEveryRank: all.size - common.length, slowestCount, spread };
}

/** A rank's step times keyed by step number (steps whose span carries no number are keyed by their order). */
export function stepsByNumber(durations: readonly number[], numbers: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  durations.forEach((d, i) => {
    const k = numbers[i];
    out.set(k !== undefined && Number.isFinite(k) ? k : i, d);
  });
  return out;
}
