/** `gsprof report --history FOLDER`: a metric over commits, asv-style, regressions marked as compare judges them. */
import type { History } from '@gsprof/profiler';
import { change, duration, thousands } from '../format.js';
import { type ChartSpec, COLORS, chartBox, esc, htmlPage, notice, sortableTable } from './page.js';

/** A point's label on the x axis: its short commit and its day. */
function label(p: History['points'][number]): string {
  return `${p.commit ? p.commit.slice(0, 8) : 'no commit'} ${p.date.slice(0, 10)}`;
}

export function historyPage(folder: string, h: History, factor: number): string {
  const charts: ChartSpec[] = [];
  const fmt = (v: number): string => (h.unit === 'ns' ? duration(v) : thousands(v, 2));
  const body: string[] = [];
  const p = h.points;
  const past = (i: number): boolean => {
    const c = p[i]!.change;
    return c !== null && (c.verdict === 'not significant' || c.verdict === 'too few runs') && c.ratio > factor;
  };
  body.push(`<p>${esc(`${p.length} baselines in date order; each point is the median over its runs of ${h.metric}, and each is compared with the one before it as gsprof compare PREVIOUS THIS does (factor ${factor}).`)}</p>`);
  body.push(`<p>Regressions (compare says worse): <b class="${h.regressions.length ? 'bad' : 'good'}">${h.regressions.length ? h.regressions.map((i) => esc(label(p[i]!))).join(', ') : 'none'}</b>.
    Slower by more than the factor but not significant (or too few runs to tell): ${esc(p.flatMap((_, i) => (past(i) ? [label(p[i]!)] : [])).join(', ') || 'none')}.</p>`);
  if (p.length === 0) body.push(notice('No baselines to chart.'));
  else {
    const x = p.map((_, i) => i);
    const maxRuns = p.reduce((m, q) => Math.max(m, q.sample.values.length), 0);
    const runSeries: ChartSpec['series'] = Array.from({ length: maxRuns }, (_, k) => ({
      label: k === 0 ? 'each run' : `run ${k + 1}`, values: p.map((q) => q.sample.values[k] ?? null), color: '#9bb7dd', kind: 'points' as const, size: 4, ...(k > 0 ? { legend: false } : {}),
    }));
    body.push(chartBox({
      id: 'chart-history', x, xCategories: p.map(label), xLabel: 'commit', yLabel: h.metric, xUnit: 'count', yUnit: h.unit === 'ns' ? 'ns' : 'count', yFromZero: true, height: 320,
      series: [
        { label: `median ${h.metric}`, values: p.map((q) => q.sample.median), color: COLORS.main, kind: 'line' },
        { label: 'regression (compare: worse)', values: p.map((q, i) => (h.regressions.includes(i) ? q.sample.median : null)), color: COLORS.outlier, kind: 'points', size: 12 },
        { label: 'past the factor, undecided', values: p.map((q, i) => (past(i) ? q.sample.median : null)), color: COLORS.warmup, kind: 'points', size: 10 },
        ...runSeries,
      ],
    }, `${h.metric} over commits`, charts));
  }
  body.push(sortableTable(['Date', 'Commit', 'Runs', `Median ${h.metric}`, 'Change', 'p', 'Verdict vs previous', 'File'].map((l, i) => ({ label: l, type: [2, 3, 4, 5].includes(i) ? 'number' : 'text' } as const)),
    p.map((q) => [{ text: q.date }, { text: q.commit ?? '-' }, { text: String(q.sample.n), v: q.sample.n }, { text: fmt(q.sample.median), v: q.sample.median },
      { text: q.change ? change(q.change.ratio) : '-', v: q.change?.ratio ?? 1 }, { text: q.change?.pValue != null ? q.change.pValue.toFixed(4) : '-', v: q.change?.pValue ?? 1 },
      { text: q.refused ? `not compared: ${q.refused}` : q.change?.verdict ?? '(first)' }, { text: q.source }]), 'history-table'));
  return htmlPage({ title: `gsprof history: ${h.metric}`, subtitle: `Baselines: ${folder}`, body: body.join('\n'), charts });
}
