/**
 * `gsprof report`: the page of one trace (the stage table, step time and its distribution, busy and idle time, the
 * per-env solver timers) and of a multi-process run (per-rank rows, step time per rank, the straggler per step).
 * Every number comes from the analyses' results handed in (runReport, kernelSummary, stragglers); this file only
 * lays them out.
 */
import type { GapsResult, Report, RunReport, StepStats, StragglerReport, TimersResult } from '@gsprof/profiler';
import { duration, percent, thousands } from '../format.js';
import { type Cell, type ChartSpec, COLORS, PALETTE, chartBox, esc, factTable, htmlPage, notice, sortableTable } from './page.js';

const n = (v: number, decimals = 0): Cell => ({ text: thousands(v, decimals), v });
const ns = (v: number): Cell => ({ text: thousands(v, 0), v });

/** The stage table with `summary --format json`'s numbers: ns columns as integers, every row, full names. */
export function stageTable(report: Report, id: string): string {
  const columns = [{ label: 'Time (%)', type: 'number' }, { label: 'Total Time (ns)', type: 'number' }, { label: 'Instances', type: 'number' },
    { label: 'Avg (ns)', type: 'number' }, { label: 'Med (ns)', type: 'number' }, { label: 'Min (ns)', type: 'number' },
    { label: 'Max (ns)', type: 'number' }, { label: 'StdDev (ns)', type: 'number' }, { label: 'Name', type: 'text' }] as const;
  const rows = report.rows.map((r) => [{ text: r.timePercent.toFixed(1), v: r.timePercent }, ns(r.totalTimeNs), n(r.instances), ns(r.avgNs),
    ns(r.medNs), ns(r.minNs), ns(r.maxNs), ns(r.stdDevNs), { text: r.name, v: r.name }]);
  return sortableTable([...columns], rows, id);
}

/** Histogram bins over the steps: up to `bins` equal bins from the fastest step to a cap; steps past the cap go in
 * the last bin (the cap keeps one 2 s compile step from squeezing every other step into one bar). */
function histogram(durations: number[], classOf: (i: number) => 0 | 1 | 2, fence: number | null, bins = 40): { x: number[]; slot: number; counts: number[][]; cap: number; capped: boolean } {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const d of durations) { min = Math.min(min, d); max = Math.max(max, d); }
  const capped = fence !== null && max > 2 * fence;
  const cap = capped ? 1.25 * fence : max;
  const slot = cap > min ? (cap - min) / bins : 1;
  const count = cap > min ? bins : 1;
  const counts = [0, 1, 2].map(() => new Array<number>(count).fill(0));
  durations.forEach((d, i) => {
    const b = Math.min(count - 1, Math.max(0, Math.floor((d - min) / slot)));
    counts[classOf(i)]![b]! += 1;
  });
  return { x: Array.from({ length: count }, (_, b) => min + (b + 0.5) * slot), slot, counts, cap, capped };
}

function stepSection(r: RunReport, charts: ChartSpec[]): string {
  const s = r.series;
  if (s.durations.length === 0) return `<h2>Step time</h2>${notice('No steps in this trace (no ProfilerStep#k spans): nothing to chart. Record with gsprof record, or wrap each step in torch.profiler\'s step().')}`;
  const x = s.numbers.map((k, i) => (Number.isFinite(k) ? k : i));
  const outlier = new Set(s.outliers);
  const classOf = (i: number): 0 | 1 | 2 => (i < s.warmupSteps ? 1 : outlier.has(i) ? 2 : 0);
  // Warm-up and outliers as (index, value) pairs: a 150k-step run would otherwise carry two arrays of nulls.
  const only = (c: number): Array<[number, number]> => s.durations.flatMap((d, i) => (classOf(i) === c ? [[i, d] as [number, number]] : []));
  const series: ChartSpec['series'] = [
    { label: 'step time', values: s.durations, color: COLORS.main, kind: 'line' },
    { label: `warm-up (${s.warmupSteps})`, points: only(1), color: COLORS.warmup, kind: 'points', size: 7 },
    { label: `outliers (${s.outliers.length})`, points: only(2), color: COLORS.outlier, kind: 'points', size: 7 },
  ];
  if (s.fenceNs !== null) series.push({ label: 'outlier fence', constant: s.fenceNs, color: COLORS.grey, kind: 'line', dash: true });
  const out = ['<h2>Step time</h2>', stepFacts(r.stepStats, s)];
  out.push(chartBox({ id: 'chart-steps', x, xLabel: 'step', yLabel: 'step time', xUnit: 'count', yUnit: 'ns', series, yFromZero: true }, 'Step time over the run (completed work: host span, or to the end of its GPU work when that is later)', charts));
  const h = histogram(s.durations, classOf, s.fenceNs);
  const capNote = h.capped ? `; steps slower than ${duration(h.cap)} are counted in the last bar` : '';
  out.push(chartBox({
    id: 'chart-step-hist', x: h.x, xLabel: 'step time', yLabel: 'steps', xUnit: 'ns', yUnit: 'count', barSlot: h.slot, yFromZero: true,
    series: [
      { label: 'steady', values: h.counts[0]!, color: COLORS.main, kind: 'bars' },
      { label: 'warm-up', values: h.counts[1]!, color: COLORS.warmup, kind: 'bars' },
      { label: 'outliers', values: h.counts[2]!, color: COLORS.outlier, kind: 'bars' },
    ],
  }, `Distribution of the ${thousands(s.durations.length)} step times (${h.x.length} bins of ${duration(h.slot)}${capNote})`, charts));
  return out.join('\n');
}

function stepFacts(st: StepStats | null, s: RunReport['series']): string {
  const facts: Array<[string, string]> = [];
  if (st) {
    facts.push(['Steps', `${thousands(st.count)}: mean ${duration(st.meanNs)}, median ${duration(st.medianNs)}, p95 ${duration(st.p95Ns)}, min ${duration(st.minNs)}, max ${duration(st.maxNs)}`]);
    facts.push(['FPS', st.nEnvs ? `${thousands(st.fps * st.nEnvs, 2)} env-steps/s (${thousands(st.fps, 2)} steps/s, ${st.nEnvs} envs)` : `${thousands(st.fps, 2)} steps/s`]);
    if (st.warmupFall !== null) facts.push(['Last third vs first third', `median step ${st.warmupFall >= 0 ? `${(st.warmupFall * 100).toFixed(0)}% faster` : `${(-st.warmupFall * 100).toFixed(0)}% slower`}`]);
  }
  facts.push(['Warm-up and outliers', s.fenceNs === null
    ? 'not marked: under 8 steps'
    : `fence ${duration(s.fenceNs)} (Q3 + 3 IQR of the second half of the steps): ${s.warmupSteps} leading step(s) above it are warm-up, ${s.outliers.length} later step(s) above it are outliers`]);
  if (s.gpuBound) facts.push(['GPU-bound steps', 'GPU work ran past some host spans: those steps end when their GPU work did']);
  return factTable(facts);
}

function busySection(g: GapsResult, charts: ChartSpec[], stagesEmpty: boolean): string {
  const out = ['<h2>Busy and idle time (gsprof gaps)</h2>', `<p>Verdict: <b>${esc(g.verdict)}</b> (${esc(g.reason)})</p>`];
  const u = g.hostUtilisation;
  if (u) {
    out.push(factTable([['CPU stage coverage', `${percent(u.coveredNs / u.wallNs)} of ${thousands(u.steps)} steps' wall time (${duration(u.coveredNs)} of ${duration(u.wallNs)})`],
      ['Per step', `mean ${percent(u.meanShare)}, median ${percent(u.medianShare)}, lowest ${percent(u.minShare)}`]]));
    out.push(chartBox({
      id: 'chart-cpu-busy', x: u.threads.map((_, i) => i), xCategories: u.threads.map((t) => t.trackName), xLabel: 'thread', yLabel: 'share of step time',
      xUnit: 'count', yUnit: '%', yFromZero: true, barSlot: 1,
      series: [{ label: 'CPU stages busy', values: u.threads.map((t) => 100 * t.share), color: COLORS.main, kind: 'bars' },
        { label: 'idle', values: u.threads.map((t) => 100 * (1 - t.share)), color: COLORS.grey, kind: 'bars' }],
    }, 'CPU: share of the steps\' wall time each thread spent in CPU stages', charts));
    out.push(sortableTable([{ label: 'Thread', type: 'text' }, { label: 'Covered', type: 'number' }, { label: 'Share of step time', type: 'number' }],
      u.threads.map((t) => [{ text: t.trackName }, { text: duration(t.coveredNs), v: t.coveredNs }, { text: percent(t.share), v: t.share }])));
  }
  const o = g.overall;
  if (o.spanNs > 0) {
    out.push(factTable([['GPU span', duration(o.spanNs)], ['Busy', `${duration(o.busyNs)} (${percent(1 - o.idleFraction)})`], ['Idle', `${duration(o.idleNs)} (${percent(o.idleFraction)})`],
      ['Idle: host wait / kernel wait / other', `${duration(o.hostWaitNs)} / ${duration(o.kernelWaitNs)} / ${duration(o.otherNs)}`]]));
    out.push(chartBox({
      id: 'chart-gpu-busy', x: g.queues.map((_, i) => i), xCategories: g.queues.map((q) => q.trackName), xLabel: 'queue', yLabel: 'time', xUnit: 'count', yUnit: 'ns',
      yFromZero: true, barSlot: 1,
      series: [
        { label: 'busy', values: g.queues.map((q) => q.busyNs), color: COLORS.main, kind: 'bars' },
        { label: 'host wait', values: g.queues.map((q) => q.hostWaitNs), color: COLORS.outlier, kind: 'bars' },
        { label: 'kernel wait', values: g.queues.map((q) => q.kernelWaitNs), color: COLORS.warmup, kind: 'bars' },
        { label: 'other idle', values: g.queues.map((q) => q.otherNs), color: COLORS.grey, kind: 'bars' },
      ],
    }, 'GPU: busy time and the three kinds of idle time per queue', charts));
    out.push(sortableTable(['Queue', 'Ops', 'Span', 'Busy', 'Idle', 'Idle %', 'Gaps', 'Host wait', 'Kernel wait', 'Other'].map((label, i) => ({ label, type: i === 0 ? 'text' : 'number' })),
      g.queues.map((q) => [{ text: q.trackName }, n(q.ops), { text: duration(q.spanNs), v: q.spanNs }, { text: duration(q.busyNs), v: q.busyNs }, { text: duration(q.idleNs), v: q.idleNs },
        { text: percent(q.idleFraction), v: q.idleFraction }, n(q.gaps), { text: duration(q.hostWaitNs), v: q.hostWaitNs }, { text: duration(q.kernelWaitNs), v: q.kernelWaitNs }, { text: duration(q.otherNs), v: q.otherNs }])));
  } else if (!u) {
    out.push(notice(stagesEmpty ? 'No GPU ops and no CPU stages in this trace: no busy or idle time to break down.' : 'No GPU ops in this trace, and no steps to measure CPU stage coverage against.'));
  }
  return out.join('\n');
}

/** The timer slot `gsprof timers` plots by default. */
type PickSlot = (t: TimersResult) => TimersResult['slots'][number];

function timersSection(t: TimersResult | null, pick: PickSlot, charts: ChartSpec[]): string {
  if (!t) return `<h2>Per-env solver timers (gsprof timers)</h2>${notice('No per-env solver timers in this trace (env_timers instants); gsprof record --example ... records them.')}`;
  const slot = pick(t);
  const unit = /(^|_)ns$/.test(slot.label) ? 'ns' : 'count';
  const out = ['<h2>Per-env solver timers (gsprof timers)</h2>',
    `<p>${thousands(t.steps)} steps (${t.stepRange[0]}..${t.stepRange[1]}) x ${thousands(t.nEnvs)} envs${t.skippedSteps > 0 ? `; ${t.skippedSteps} step(s) with another batch size left out` : ''}. Charts of <b>${esc(slot.label)}</b>; every slot below.</p>`];
  const panel = (id: string, title: string, values: number[], xLabel: string): void => {
    out.push(chartBox({ id, x: values.map((_, i) => i), xLabel, yLabel: slot.label, xUnit: 'count', yUnit: unit, yFromZero: true,
      series: [{ label: slot.label, values, color: COLORS.main, kind: 'line' }] }, title, charts));
  };
  panel('chart-timer-last', `[1] ${slot.label} at the last step, per env`, slot.panels.lastStep, 'env');
  panel('chart-timer-mean', `[2] mean ${slot.label} over ${thousands(t.steps)} steps, per env`, slot.panels.runningMeanPerEnv, 'env');
  panel('chart-timer-sorted', `[3] each step's envs sorted ascending, averaged over the steps`, slot.panels.sortedRunningMean, 'rank among envs (fastest first)');
  out.push(sortableTable([{ label: 'Slot', type: 'text' }, { label: 'Mean', type: 'number' }, { label: 'p50', type: 'number' }, { label: 'p95', type: 'number' }, { label: 'Max', type: 'number' }, { label: 'Slowest envs', type: 'text' }],
    t.slots.map((s) => {
      const f = /(^|_)ns$/.test(s.label) ? duration : (v: number): string => thousands(v, Number.isInteger(v) ? 0 : 2);
      return [{ text: s.label }, { text: f(s.mean), v: s.mean }, { text: f(s.p50), v: s.p50 }, { text: f(s.p95), v: s.p95 }, { text: f(s.max), v: s.max },
        { text: s.slowestEnvs.map((e) => `#${e.env} ${f(e.mean)}`).join(', ') }];
    })));
  return out.join('\n');
}

export function runReportPage(trace: string, r: RunReport, pick: PickSlot): string {
  const charts: ChartSpec[] = [];
  const body: string[] = [];
  if (r.missing.length > 0) body.push(`<div class="missing"><b>This trace has</b><ul>${r.missing.map((m) => `<li>${esc(m)}</li>`).join('')}</ul></div>`);
  const cpu = r.stages.title.startsWith('CPU');
  body.push(`<h2>${cpu ? 'CPU stages' : 'GPU kernels'} (gsprof summary --report kernels)</h2>`);
  if (r.stages.rows.length === 0) body.push(notice('No GPU kernels and no CPU stages (cpu_op spans) in this trace: no stage table.'));
  else body.push(`<p class="note">${esc(r.stages.title)}. Time (%) is each name's share of the total; click a column to sort.</p>`, stageTable(r.stages, 'stage-table'));
  body.push(stepSection(r, charts));
  body.push(busySection(r.gaps, charts, r.stages.rows.length === 0));
  body.push(timersSection(r.timers, pick, charts));
  return htmlPage({ title: `gsprof report: ${basename(trace)}`, subtitle: `Trace: ${trace}`, body: body.join('\n'), charts });
}

function basename(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

export interface RankRow {
  rank: number;
  host: string | null;
  trace: string;
  busyNs: number;
  steps: StepStats | null;
  durations: number[];
  numbers: number[];
}

/** The page of a multi-process run: per-rank rows, each rank's step time, and the straggler per step. */
export function rankReportPage(runLine: string, cpu: boolean, ranks: RankRow[], s: StragglerReport): string {
  const charts: ChartSpec[] = [];
  const body: string[] = [`<p>${esc(runLine)}</p>`, '<h2>Per rank (each rank\'s numbers are its own trace\'s gsprof summary)</h2>'];
  body.push(sortableTable(
    ['Rank', 'Host', cpu ? 'Stage time' : 'Kernel time', 'Steps', 'Median step', 'Mean step', 'FPS', 'env-steps/s', 'Slowest in (steps)', 'Trace']
      .map((label) => ({ label, type: ['Host', 'Trace'].includes(label) ? 'text' : 'number' } as const)),
    ranks.map((r) => {
      const st = r.steps;
      return [n(r.rank), { text: r.host ?? '-' }, { text: duration(r.busyNs), v: r.busyNs }, n(st?.count ?? 0), { text: st ? duration(st.medianNs) : '-', v: st?.medianNs ?? 0 },
        { text: st ? duration(st.meanNs) : '-', v: st?.meanNs ?? 0 }, { text: st ? thousands(st.fps, 2) : '-', v: st?.fps ?? 0 },
        { text: st?.envStepsPerSec != null ? thousands(st.envStepsPerSec, 0) : '-', v: st?.envStepsPerSec ?? 0 }, n(s.slowestCount[r.rank] ?? 0), { text: r.trace }];
    }), 'rank-table'));
  // Step time per rank on one chart, lined up by step number.
  const steps = [...new Set(ranks.flatMap((r) => r.numbers.filter(Number.isFinite)))].sort((a, b) => a - b);
  if (steps.length > 0) {
    body.push(chartBox({
      id: 'chart-rank-steps', x: steps, xLabel: 'step', yLabel: 'step time', xUnit: 'count', yUnit: 'ns', yFromZero: true,
      series: ranks.map((r, i) => {
        const by = new Map(r.numbers.map((k, j) => [k, r.durations[j]!]));
        return { label: `rank ${r.rank}`, values: steps.map((k) => by.get(k) ?? null), color: PALETTE[i % PALETTE.length]!, kind: 'line' };
      }),
    }, 'Step time per rank', charts));
  }
  body.push('<h2>Straggler per step</h2>');
  if (ranks.length < 2) body.push(notice('The straggler view needs the traces of two or more ranks.'));
  else if (!s.spread) body.push(notice('No step was recorded by every rank: no straggler view.'));
  else {
    body.push(factTable([
      ['Steps every rank recorded', `${thousands(s.steps.length)}${s.stepsNotOnEveryRank > 0 ? ` (${s.stepsNotOnEveryRank} recorded by some ranks only are left out)` : ''}`],
      ['Slowest rank per step', s.ranks.map((r) => `rank ${r} in ${thousands(s.slowestCount[r] ?? 0)}`).join(', ')],
      ['Spread (slowest - fastest)', `median ${duration(s.spread.medianNs)} (${s.spread.medianPercentOfStep.toFixed(1)}% of the median step), p90 ${duration(s.spread.p90Ns)}, max ${duration(s.spread.maxNs)} at step ${s.spread.maxStep}`],
    ]));
    const x = s.steps.map((st) => st.step);
    body.push(chartBox({
      id: 'chart-straggler', x, xLabel: 'step', yLabel: 'spread', xUnit: 'count', yUnit: 'ns', yFromZero: true,
      series: [{ label: 'spread across ranks', values: s.steps.map((st) => st.spreadNs), color: COLORS.outlier, kind: 'line' }],
    }, 'Spread across ranks per step (slowest rank\'s step time - fastest\'s)', charts));
    body.push(chartBox({
      id: 'chart-straggler-rank', x, xLabel: 'step', yLabel: 'rank', xUnit: 'count', yUnit: 'count', yFromZero: true,
      series: [{ label: 'slowest rank', values: s.steps.map((st) => st.slowestRank), color: COLORS.purple, kind: 'points', size: 5 }],
    }, 'The slowest rank of each step', charts));
  }
  return htmlPage({ title: 'gsprof report: multi-process run', subtitle: runLine, body: body.join('\n'), charts });
}
