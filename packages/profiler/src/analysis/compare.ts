/**
 * Regression check between two sets of runs. A run (one process) is the unit of sampling: the steps of one run
 * share its process, caches, CPU frequency and neighbours, so they are not independent samples, and a test over
 * them finds "significant" differences between any two runs of the same code. As asv, pyperf and Bencher do,
 * each side's samples are per-run statistics: by default the fastest of each run's steps (RunStatistic).
 *
 * One metric decides by default: step time (env-steps/s is its inverse). Kernels and counters explain the
 * change; `failOnKernels` makes kernels decisive too. Counters that are the same in every run of a side
 * (solver iterations, constraint counts) and differ between the sides mean the workload changed.
 *
 * Rule (asv): worse when the median of the run values is worse by more than `factor` (1.1) AND a two-sided
 * Mann-Whitney U test gives p < alpha (0.002), exact for small samples. When the run counts are too small for
 * any outcome to reach p < alpha, the verdict says so instead of deciding on nothing.
 */
import { openTrace, type TraceDb } from '../sql/trace-db.js';
import {
  COMPARABLE_KEYS, baselineFromTrace, looksLikeBaseline, mergeBaselines, readBaseline, type Baseline, type RunConfig, type RunSamples,
} from './baseline.js';
import { WARMUP_FALL, mannWhitneyMinP, mannWhitneyU, mean, median, quantile, warmupFall, welchTTest } from './stats.js';

export type CompareMode = 'asv' | 'percent' | 'ttest';
/**
 * What one run contributes as its sample: the minimum of its step times (default), their 10th percentile, or their
 * median. Interference from a shared machine (other processes, steal time) only ever adds time, to some steps more
 * than others; the fastest step is the one least disturbed, so runs agree far better (on a busy 2-core VM: 1-2%
 * run-to-run spread against 20-50% for the median; docs/ci.md), as BenchmarkTools.jl argues for its minimum
 * estimator. The median still catches a change that slows only some of the steps.
 */
export type RunStatistic = 'min' | 'p10' | 'median';
export type Verdict = 'improved' | 'worse' | 'not significant' | 'unchanged' | 'too few runs' | 'workload changed';

export interface CompareOptions {
  mode?: CompareMode;
  /** Ratio past which a change counts (default 1.1). */
  factor?: number;
  /** asv: Mann-Whitney U threshold (default 0.002); ttest: Welch threshold (default 0.01). */
  alpha?: number;
  /** Kernels decide too (default: only step time decides; kernels explain). */
  failOnKernels?: boolean;
  /** Compare runs of different scenes, backends, nEnvs, precisions or adapters anyway. */
  allowConfigChange?: boolean;
  /** Each run's sample from its step (and kernel) times (default 'min'). */
  statistic?: RunStatistic;
}

export interface SampleSummary {
  /** Number of runs. */
  n: number;
  /** The per-run values (run medians for times, run means for counters). */
  values: number[];
  median: number;
  min: number;
  max: number;
  /** Run-to-run spread: interquartile range / median, percent (robust to one odd run). */
  spreadPercent: number;
}

export interface MetricComparison {
  metric: string;
  kind: 'step' | 'kernel' | 'count';
  unit: string;
  /** Whether this metric can fail the comparison. */
  decisive: boolean;
  baseline: SampleSummary;
  current: SampleSummary;
  /** current / baseline of the medians. */
  ratio: number;
  /** Change in the "worse" direction, percent (positive = worse). */
  worsePercent: number;
  test: 'mann-whitney-exact' | 'mann-whitney' | 'welch' | 'none';
  pValue: number | null;
  significant: boolean;
  verdict: Verdict;
}

export interface ConfigDifference { key: string; baseline: unknown; current: unknown }

export interface CompareResult {
  mode: CompareMode;
  options: { factor: number; alpha: number; failOnKernels: boolean; statistic: RunStatistic };
  regression: boolean;
  /** The step-time comparison that decides by default. */
  decision: MetricComparison;
  metrics: MetricComparison[];
  /** "step time +22.0%: solve +35.0%, collision +4.0%". */
  explanation: string;
  /** Set when a side's run-to-run spread is larger than the factor: the check cannot resolve such changes. */
  noise: string | null;
  /** Set when the run counts can never reach p < alpha: how many runs per side are needed. */
  minRunsNeeded: number | null;
  /** Set when most runs of a side still sped up over their recorded steps: the medians measure warm-up. */
  warmingUp: string | null;
  /** Configuration differences that do not stop the comparison (machine, versions, ...), as warnings. */
  warnings: string[];
  configDifferences: ConfigDifference[];
  onlyInBaseline: string[];
  onlyInCurrent: string[];
  counts: Record<Verdict, number>;
}

/** Bad input for compare: no steps on a side, or runs that measure different workloads. */
export class CompareInputError extends Error {
  override readonly name = 'CompareInputError';
}

export type CompareInput = TraceDb | Baseline | string | Array<Baseline | string>;

async function oneBaseline(input: TraceDb | Baseline | string): Promise<Baseline> {
  if (typeof input === 'string') {
    if (await looksLikeBaseline(input)) return readBaseline(input);
    const db = await openTrace(input);
    try { return await baselineFromTrace(db); } finally { await db.close(); }
  }
  if ('format' in input && (input as Baseline).format === 'gsprof-baseline') return input as Baseline;
  return baselineFromTrace(input as TraceDb);
}

/** All the runs of one side: a baseline, a trace, or several of them (each trace one run). */
export async function runsOf(input: CompareInput): Promise<Baseline> {
  const list = Array.isArray(input) ? input : [input];
  const baselines: Baseline[] = [];
  for (const item of list) baselines.push(await oneBaseline(item));
  return mergeBaselines(baselines);
}

function summarize(values: number[]): SampleSummary {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) { min = Math.min(min, v); max = Math.max(max, v); }
  const med = median(values);
  const iqr = values.length >= 2 ? quantile(values, 0.75) - quantile(values, 0.25) : 0;
  return { n: values.length, values, median: med, min, max, spreadPercent: med > 0 ? (iqr / med) * 100 : 0 };
}

/** The smallest number of runs per side for which the exact test can reach p < alpha. */
export function runsNeeded(alpha: number): number {
  let k = 1;
  while (mannWhitneyMinP(k, k) >= alpha && k < 100) k++;
  return k;
}

interface Judged { test: MetricComparison['test']; pValue: number | null; significant: boolean; verdict: Verdict }

function judge(base: number[], cur: number[], worseRatio: number, mode: CompareMode, factor: number, alpha: number, higherIsBetter: boolean): Judged {
  const b = summarize(base);
  const c = summarize(cur);
  if (b.min === b.max && c.min === c.max && b.min === c.min) return { test: 'none', pValue: null, significant: false, verdict: 'unchanged' };
  const past = worseRatio > factor || worseRatio < 1 / factor;
  if (mode === 'percent') return { test: 'none', pValue: null, significant: past, verdict: !past ? 'unchanged' : worseRatio > 1 ? 'worse' : 'improved' };
  if (mode === 'ttest') {
    if (base.length < 2 || cur.length < 2) return { test: 'welch', pValue: null, significant: false, verdict: past ? 'too few runs' : 'unchanged' };
    const r = welchTTest(base, cur);
    const significant = r.p < alpha;
    const worse = higherIsBetter ? mean(cur) < mean(base) : mean(cur) > mean(base);
    return { test: 'welch', pValue: r.p, significant, verdict: !past ? 'unchanged' : !significant ? 'not significant' : worse ? 'worse' : 'improved' };
  }
  if (mannWhitneyMinP(base.length, cur.length) >= alpha) {
    return { test: 'none', pValue: null, significant: false, verdict: past ? 'too few runs' : 'unchanged' };
  }
  const r = mannWhitneyU(base, cur);
  const significant = r.p < alpha;
  return { test: r.exact ? 'mann-whitney-exact' : 'mann-whitney', pValue: r.p, significant,
    verdict: !past ? 'unchanged' : !significant ? 'not significant' : worseRatio > 1 ? 'worse' : 'improved' };
}

function compareMetric(metric: string, kind: MetricComparison['kind'], unit: string, decisive: boolean, base: number[], cur: number[],
  mode: CompareMode, factor: number, alpha: number): MetricComparison {
  const b = summarize(base);
  const c = summarize(cur);
  const ratio = b.median !== 0 ? c.median / b.median : c.median === 0 ? 1 : Number.POSITIVE_INFINITY;
  const worsePercent = (ratio - 1) * 100;
  const j = judge(base, cur, ratio, mode, factor, alpha, false);
  return { metric, kind, unit, decisive, baseline: b, current: c, ratio, worsePercent, ...j };
}

const STATISTIC: Record<RunStatistic, (xs: readonly number[]) => number> = {
  p10: (xs) => quantile(xs, 0.1),
  median,
  min: (xs) => xs.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY),
};

/** Per run: the statistic of its step times and of each kernel's per-step times, each counter's mean. */
function runStats(run: RunSamples, statistic: RunStatistic): { step: number; kernels: Map<string, number>; counts: Map<string, number> } {
  const of = STATISTIC[statistic];
  const kernels = new Map<string, number>();
  for (const [name, xs] of Object.entries(run.kernels)) if (xs.length) kernels.set(name, of(xs));
  const counts = new Map<string, number>();
  for (const [name, xs] of Object.entries(run.counts)) if (xs.length) counts.set(name, mean(xs));
  return { step: of(run.steps), kernels, counts };
}

/**
 * A side compare cannot judge: no runs, a run with no steps, or step times that are not durations (zero, negative,
 * NaN or infinite), which would make any ratio, and so any verdict, meaningless.
 */
function checkSamples(side: 'baseline' | 'current', b: Baseline): void {
  if (b.runs.length === 0) throw new CompareInputError(`the ${side} side has no runs: nothing to compare`);
  const empty = b.runs.filter((r) => r.steps.length === 0).length;
  if (empty > 0) throw new CompareInputError(`the ${side} has ${empty} run(s) with no recorded steps (no ProfilerStep spans): nothing to compare`);
  for (const [i, r] of b.runs.entries()) {
    const bad = r.steps.find((t) => !(Number.isFinite(t) && t > 0));
    if (bad !== undefined) throw new CompareInputError(`run ${i + 1} of the ${side} side has a step time of ${String(bad)} ns: step times must be positive and finite`);
  }
}

interface Unchecked { key: string; side: 'baseline' | 'current' }

/** "only the current side records nEnvs, backend" for the workload keys one side lacks. */
function uncheckedText(unchecked: Unchecked[]): string {
  return (['baseline', 'current'] as const).filter((side) => unchecked.some((u) => u.side === side))
    .map((side) => `only the ${side} side records ${unchecked.filter((u) => u.side === side).map((u) => u.key).join(', ')}`).join('; ');
}

function configDifferences(a: RunConfig, b: RunConfig): { refused: ConfigDifference[]; warned: ConfigDifference[]; unchecked: Unchecked[] } {
  const refused: ConfigDifference[] = [];
  const warned: ConfigDifference[] = [];
  const unchecked: Unchecked[] = [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const absent = (v: unknown): boolean => v === undefined || v === null;
  for (const key of keys) {
    // A different commit is what a comparison is for.
    if (key === 'gitCommit') continue;
    const x = a[key];
    const y = b[key];
    if (absent(x) !== absent(y) && (COMPARABLE_KEYS as readonly string[]).includes(key)) unchecked.push({ key, side: absent(x) ? 'current' : 'baseline' });
    if (absent(x) || absent(y) || JSON.stringify(x) === JSON.stringify(y)) continue;
    ((COMPARABLE_KEYS as readonly string[]).includes(key) ? refused : warned).push({ key, baseline: x, current: y });
  }
  return { refused, warned, unchecked };
}

function warmupNote(sides: ReadonlyArray<readonly [string, Baseline]>): string | null {
  const parts: string[] = [];
  for (const [side, b] of sides) {
    const falls = b.runs.map((r) => warmupFall(r.steps)).filter((f): f is number => f !== null);
    const warming = falls.filter((f) => f > WARMUP_FALL);
    if (falls.length > 0 && warming.length * 2 >= falls.length) {
      parts.push(`${side}: ${warming.length} of ${falls.length} runs, median ${(median(warming) * 100).toFixed(0)}%`);
    }
  }
  return parts.length === 0 ? null
    : `the runs are still warming up (step time fell by more than ${WARMUP_FALL * 100}% from the first to the last third of the recorded steps; ${parts.join('; ')}): the check measures warm-up (JIT compilation, caches), not the steady state; record with a longer --warmup (docs/ci.md)`;
}

/** Whether every run of `b` recorded CPU stages; a baseline from before stageKind existed says so by its backend. */
function cpuStages(b: Baseline): boolean {
  return b.runs.every((r) => (r.stageKind ?? (b.config.backend === 'cpu' ? 'cpu stages' : 'gpu kernels')) === 'cpu stages');
}

function percent(ratio: number): string {
  const p = (ratio - 1) * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

export async function compare(baseline: CompareInput, current: CompareInput, opts: CompareOptions = {}): Promise<CompareResult> {
  const mode = opts.mode ?? 'asv';
  const factor = opts.factor ?? 1.1;
  const alpha = opts.alpha ?? (mode === 'ttest' ? 0.01 : 0.002);
  const failOnKernels = opts.failOnKernels ?? false;
  const statistic = opts.statistic ?? 'min';
  if (!(statistic in STATISTIC)) throw new CompareInputError(`unknown statistic '${String(statistic)}': expected min, p10 or median`);
  const base = await runsOf(baseline);
  const cur = await runsOf(current);
  for (const [side, b] of [['baseline', base], ['current', cur]] as const) checkSamples(side, b);
  const { refused, warned, unchecked } = configDifferences(base.config, cur.config);
  if (refused.length > 0 && !opts.allowConfigChange) {
    throw new CompareInputError(`the runs measure different workloads: ${refused.map((d) => `${d.key} ${String(d.baseline)} vs ${String(d.current)}`).join('; ')} (--allow-config-change to compare anyway)`);
  }
  // A side that does not record what the workload was cannot show it is the same workload: the gate would pass
  // a run of another scene or backend without a word.
  if (unchecked.length > 0 && !opts.allowConfigChange) {
    throw new CompareInputError(`cannot check that both sides ran the same workload: ${uncheckedText(unchecked)} (--allow-config-change to compare anyway)`);
  }
  const warnings = [...(opts.allowConfigChange ? refused : []), ...warned].map((d) => `${d.key} differs: ${String(d.baseline)} (baseline) vs ${String(d.current)} (current)`);
  if (opts.allowConfigChange && unchecked.length > 0) warnings.push(`the workload was not checked: ${uncheckedText(unchecked)}`);

  // A CPU-backend run's "kernels" are stages run on the host: the table says so rather than calling them kernels.
  const stage = cpuStages(base) && cpuStages(cur) ? 'stage' : 'kernel';
  const bs = base.runs.map((r) => runStats(r, statistic));
  const cs = cur.runs.map((r) => runStats(r, statistic));
  const decision = compareMetric('step time', 'step', 'ns', true, bs.map((r) => r.step), cs.map((r) => r.step), mode, factor, alpha);
  const metrics: MetricComparison[] = [decision];

  const names = (rs: typeof bs, key: 'kernels' | 'counts'): Set<string> => new Set(rs.flatMap((r) => [...r[key].keys()]));
  const bk = names(bs, 'kernels');
  const ck = names(cs, 'kernels');
  for (const name of bk) {
    if (!ck.has(name)) continue;
    // A run in which the kernel never ran counts as 0 for it.
    metrics.push(compareMetric(`${stage} ${name}`, 'kernel', 'ns', failOnKernels, bs.map((r) => r.kernels.get(name) ?? 0), cs.map((r) => r.kernels.get(name) ?? 0), mode, factor, alpha));
  }
  const bc = names(bs, 'counts');
  const cc = names(cs, 'counts');
  for (const name of bc) {
    if (!cc.has(name)) continue;
    const m = compareMetric(`count ${name}`, 'count', 'value', false, bs.map((r) => r.counts.get(name) ?? 0), cs.map((r) => r.counts.get(name) ?? 0), mode, factor, alpha);
    // Deterministic: the same in every run of each side. Then any difference is a different workload. One run
    // a side shows no such thing: a measured counter differs between any two runs.
    const deterministic = m.baseline.n >= 2 && m.current.n >= 2 && m.baseline.min === m.baseline.max && m.current.min === m.current.max;
    if (deterministic && m.baseline.min !== m.current.min) m.verdict = 'workload changed';
    metrics.push(m);
  }

  const counts: Record<Verdict, number> = { improved: 0, worse: 0, 'not significant': 0, unchanged: 0, 'too few runs': 0, 'workload changed': 0 };
  for (const m of metrics) counts[m.verdict]++;
  const regression = metrics.some((m) => m.decisive && m.verdict === 'worse');

  const movers = metrics.filter((m) => m.kind === 'kernel' && Number.isFinite(m.ratio) && Math.abs(m.ratio - 1) >= 0.01)
    .sort((a, b) => Math.abs(b.current.median - b.baseline.median) - Math.abs(a.current.median - a.baseline.median)).slice(0, 3);
  const explanation = `step time ${percent(decision.ratio)}${movers.length ? `: ${movers.map((m) => `${m.metric.replace(/^(kernel|stage) /, '')} ${percent(m.ratio)}`).join(', ')}` : ''}`;

  const limit = (factor - 1) * 100;
  const noisy = [['baseline', decision.baseline], ['current', decision.current]] as const;
  const loud = noisy.filter(([, s]) => s.n >= 2 && s.spreadPercent > limit);
  const noise = loud.length === 0 ? null
    : `this machine is too noisy for factor ${factor}: the run-to-run spread (IQR) of step time (${loud.map(([side, s]) => `${side} ${s.spreadPercent.toFixed(1)}%`).join(', ')}) is larger than ${limit.toFixed(0)}%; record more runs (--runs) or use a larger --factor`;
  const warmingUp = warmupNote([['baseline', base], ['current', cur]]);
  const minRunsNeeded = mode === 'asv' && mannWhitneyMinP(decision.baseline.n, decision.current.n) >= alpha ? runsNeeded(alpha) : null;

  const bm = new Set([...bk].map((k) => `${stage} ${k}`).concat([...bc].map((k) => `count ${k}`)));
  const cm = new Set([...ck].map((k) => `${stage} ${k}`).concat([...cc].map((k) => `count ${k}`)));
  return {
    mode, options: { factor, alpha, failOnKernels, statistic }, regression, decision, metrics, explanation, noise, minRunsNeeded, warmingUp,
    warnings, configDifferences: [...refused, ...warned],
    onlyInBaseline: [...bm].filter((k) => !cm.has(k)), onlyInCurrent: [...cm].filter((k) => !bm.has(k)), counts,
  };
}
