/**
 * `gsprof summary` and `gsprof gaps` on a folder of rank traces: each rank's own numbers (exactly what the command
 * prints for that rank's trace alone), the kernels side by side across ranks, and the straggler view (per step:
 * the slowest rank and the spread across ranks), as Holistic Trace Analysis' multi-rank breakdowns do.
 */
import type { GapsResult, KernelSummary, StepTimes, StragglerReport, TraceDb } from '@gsprof/profiler';
import { duration, percent, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';
import { withKeptResults } from './open-trace.js';
import { rankRunLine, type RankRun, type RankTrace } from './rank-traces.js';
import type { View } from './view.js';

export interface RankFacts { rank: number; trace: string; host: string | null; times: StepTimes; stepTimes: Map<number, number> }

/** Facts of one rank read with its analysis. */
interface RankBasics { host: string | null; times: StepTimes }

async function rankBasics(db: TraceDb): Promise<RankBasics> {
  const { completedStepTimes } = await import('@gsprof/profiler');
  const host = await db.metadata('gsprof.hostname');
  return { host: typeof host === 'string' ? host : null, times: await completedStepTimes(db) };
}

/**
 * One rank's facts and analysis. A trace's come from its results kept in the import cache when there are any
 * (`analysis` names the analysis and its parameters there); a rank of a Parquet export is opened over its tables
 * (the same tables, so the same analyses).
 */
async function analyseRank<T>(r: RankTrace, analysis: { name: string; params: unknown }, analyse: (db: TraceDb, times: StepTimes) => Promise<T>): Promise<RankBasics & { result: T }> {
  if (!r.exportDir) {
    return withKeptResults(r.path, async (memo) => {
      const basics = await memo.value('rank basics', null, rankBasics);
      return { ...basics, result: await memo.value(analysis.name, analysis.params, (db) => analyse(db, basics.times)) };
    });
  }
  const { openRanks } = await import('@gsprof/profiler');
  const db = await openRanks(`${r.exportDir} rank ${r.rank}`, { exports: [{ dir: r.exportDir, ranks: [r.rank] }] }, { rankColumn: false });
  try {
    const basics = await rankBasics(db);
    return { ...basics, result: await analyse(db, basics.times) };
  } finally {
    await db.close();
  }
}

/** Each rank's facts and `analyse`'s result, the step times read once and handed to it. */
export async function rankFacts<T>(run: RankRun, analysis: { name: string; params: unknown }, analyse: (db: TraceDb, times: StepTimes) => Promise<T>): Promise<Array<RankFacts & { result: T }>> {
  const { stepsByNumber } = await import('@gsprof/profiler');
  const out: Array<RankFacts & { result: T }> = [];
  for (const r of run.ranks) {
    const { host, times, result } = await analyseRank(r, analysis, analyse);
    out.push({ rank: r.rank, trace: r.path, host, times, stepTimes: stepsByNumber(times.durations, times.numbers), result });
  }
  return out;
}

/** The straggler section: who was slowest how often, how far apart the ranks were, and the worst steps. */
export function renderStragglers(s: StragglerReport, options: { color: boolean; top?: number }): string {
  const out: string[] = [];
  if (s.ranks.length < 2) {
    out.push('Straggler view: needs the traces of two or more ranks.');
    return out.join('\n');
  }
  if (!s.spread) {
    out.push('Straggler view: no step was recorded by every rank.');
    return out.join('\n');
  }
  const counts = s.ranks.map((r) => `rank ${r} in ${thousands(s.slowestCount[r] ?? 0)}`).join(', ');
  out.push(`Straggler view over the ${thousands(s.steps.length)} steps every rank recorded (by step number${s.stepsNotOnEveryRank > 0 ? `; ${s.stepsNotOnEveryRank} step(s) recorded by some ranks only are left out` : ''}):`);
  out.push(`  slowest rank per step: ${counts}`);
  out.push(`  spread across ranks (slowest - fastest step time): median ${duration(s.spread.medianNs)} (${s.spread.medianPercentOfStep.toFixed(1)}% of the median step), p90 ${duration(s.spread.p90Ns)}, max ${duration(s.spread.maxNs)} at step ${s.spread.maxStep}`);
  const worst = [...s.steps].sort((a, b) => b.spreadNs - a.spreadNs || a.step - b.step).slice(0, options.top ?? 5);
  out.push(renderTable(['Step', 'Slowest rank', 'Slowest', 'Fastest rank', 'Fastest', 'Spread'],
    worst.map((w) => [String(w.step), String(w.slowestRank), duration(w.slowestNs), String(w.fastestRank), duration(w.fastestNs), duration(w.spreadNs)]),
    { color: options.color, align: ['right', 'right', 'right', 'right', 'right', 'right'] }));
  return out.join('\n');
}

/** Each kernel's (or CPU stage's) total time per rank, summed over the rank's queues or threads. */
function kernelsByRank(ranks: Array<{ rank: number; result: KernelSummary }>, limit: number): { names: string[]; totals: Array<Record<number, number>> } {
  const per = new Map<string, Record<number, number>>();
  for (const r of ranks) {
    for (const t of r.result.tracks) {
      for (const k of t.kernels) {
        const row = per.get(k.name) ?? {};
        row[r.rank] = (row[r.rank] ?? 0) + k.totalTimeNs;
        per.set(k.name, row);
      }
    }
  }
  const sum = (row: Record<number, number>): number => Object.values(row).reduce((a, b) => a + b, 0);
  const names = [...per.keys()].sort((a, b) => sum(per.get(b)!) - sum(per.get(a)!) || a.localeCompare(b)).slice(0, limit);
  return { names, totals: names.map((n) => per.get(n)!) };
}

/** Side by side up to this many ranks; past it, each name's spread across ranks (a column per rank is unreadable). */
const RANK_COLUMNS_MAX = 8;

export function kernelsByRankTable(rankIds: number[], names: string[], totals: Array<Record<number, number>>, cpu: boolean, color: boolean): string {
  const what = cpu ? 'CPU stages' : 'Kernels';
  const over = `total time over the rank's ${cpu ? 'threads' : 'queues'}; top ${names.length} by the sum over ranks; max/min: the slowest rank's total over the fastest's`;
  const spread = (v: number[]): string => {
    const lo = v.reduce((a, x) => Math.min(a, x), Number.POSITIVE_INFINITY);
    const hi = v.reduce((a, x) => Math.max(a, x), 0);
    return lo > 0 ? (hi / lo).toFixed(2) : '-';
  };
  if (rankIds.length <= RANK_COLUMNS_MAX) {
    return [`${what} by rank (${over}):`, renderTable(['Name', ...rankIds.map((r) => `rank ${r}`), 'max/min'],
      names.map((n, i) => {
        const values = rankIds.map((r) => totals[i]![r] ?? 0);
        return [n, ...values.map((v) => duration(v)), spread(values)];
      }),
      { color, align: ['left', ...rankIds.map(() => 'right' as const), 'right'] })].join('\n');
  }
  return [`${what} across the ${thousands(rankIds.length)} ranks (${over}; a rank without the name counts 0; --json has every rank's):`,
    renderTable(['Name', 'All ranks', 'Fastest rank', 'Median rank', 'Slowest rank', 'max/min'],
      names.map((n, i) => {
        const byTime = rankIds.map((r) => ({ r, v: totals[i]![r] ?? 0 })).sort((a, b) => a.v - b.v || a.r - b.r);
        const at = (x: { r: number; v: number }): string => `${duration(x.v)} (rank ${x.r})`;
        return [n, duration(byTime.reduce((a, x) => a + x.v, 0)), at(byTime[0]!), at(byTime[Math.floor((byTime.length - 1) / 2)]!), at(byTime.at(-1)!),
          spread(byTime.map((x) => x.v))];
      }),
      { color, align: ['left', 'right', 'right', 'right', 'right', 'right'] })].join('\n');
}

export async function rankSummary(run: RankRun, options: { color: boolean; limit?: number }): Promise<View> {
  const { kernelSummary, stragglers } = await import('@gsprof/profiler');
  const ranks = await rankFacts(run, { name: 'kernelSummary', params: null }, (db, times) => kernelSummary(db, times));
  const straggler = stragglers(ranks.map((r) => ({ rank: r.rank, steps: r.stepTimes })));
  const cpu = ranks.every((r) => r.result.kind === 'cpu stages');
  const out = [rankRunLine(run), `Per rank (each rank's numbers are its own trace's \`gsprof summary\`; ${cpu ? 'CPU stages: no GPU work in these traces' : 'GPU kernels'}):`];
  out.push(renderTable(
    ['Rank', 'Host', cpu ? 'Stage time' : 'Kernel time', 'Steps', 'Median step', 'Mean step', 'FPS', 'env-steps/s', 'Trace'],
    ranks.map((r) => {
      const st = r.result.steps;
      const busy = r.result.tracks.reduce((a, t) => a + t.totalTimeNs, 0);
      return [String(r.rank), r.host ?? '-', duration(busy), st ? thousands(st.count) : '0', st ? duration(st.medianNs) : '-', st ? duration(st.meanNs) : '-',
        st ? thousands(st.fps, 2) : '-', st?.envStepsPerSec != null ? thousands(st.envStepsPerSec, 0) : '-', r.trace];
    }),
    { color: options.color, align: ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'] }));
  const { names, totals } = kernelsByRank(ranks, options.limit ?? 10);
  if (names.length > 0) {
    out.push('');
    out.push(kernelsByRankTable(ranks.map((r) => r.rank), names, totals, cpu, options.color));
  }
  return rankView(run, out, ranks, 'summary', straggler, options.color);
}

/** The text and --json data both rank reports end with: the straggler section, each rank's own result. */
function rankView<T extends object>(run: RankRun, out: string[], ranks: Array<RankFacts & { result: T }>, key: 'summary' | 'gaps', straggler: StragglerReport, color: boolean): View {
  out.push('');
  out.push(renderStragglers(straggler, { color }));
  return {
    text: out.join('\n'),
    data: {
      run: { id: run.id, worldSize: run.worldSize, missingRanks: run.missing },
      ranks: ranks.map((r) => ({ rank: r.rank, host: r.host, trace: r.trace, [key]: { trace: r.trace, ...r.result } })),
      stragglers: straggler,
    },
  };
}

export async function rankGaps(run: RankRun, options: { color: boolean; top: number }): Promise<View> {
  const { gaps, stragglers } = await import('@gsprof/profiler');
  const ranks = await rankFacts(run, { name: 'gaps', params: { topIntervals: options.top } }, (db) => gaps(db, { topIntervals: options.top }));
  const straggler = stragglers(ranks.map((r) => ({ rank: r.rank, steps: r.stepTimes })));
  const out = [rankRunLine(run), 'Per rank (each rank\'s numbers are its own trace\'s `gsprof gaps`; run it on one rank\'s trace for its queues and longest gaps):'];
  const row = (r: { rank: number; result: GapsResult; trace: string }): string[] => {
    const g = r.result;
    const o = g.overall;
    const u = g.hostUtilisation;
    if (o.spanNs === 0) {
      return [String(r.rank), g.verdict, '-', '-', '-', '-', '-', u ? percent(u.coveredNs / u.wallNs) : '-', r.trace];
    }
    return [String(r.rank), g.verdict, duration(o.busyNs), percent(o.idleFraction), duration(o.hostWaitNs), duration(o.kernelWaitNs), duration(o.otherNs), '-', r.trace];
  };
  out.push(renderTable(['Rank', 'Verdict', 'GPU busy', 'GPU idle', 'Host wait', 'Kernel wait', 'Other', 'Host utilisation', 'Trace'], ranks.map(row),
    { color: options.color, align: ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'] }));
  return rankView(run, out, ranks, 'gaps', straggler, options.color);
}
