/**
 * `gsprof compare --html FILE`: the comparison as a page. Per metric, both sides' per-run values (each side sorted,
 * so the two curves are the two distributions), with the decision, its p-value and each side's run-to-run spread;
 * the notes are the ones compare prints. A multi-process comparison has a section per rank.
 */
import type { CompareResult, MetricComparison } from '@gsprof/profiler';
import { notes, pText, sortedMetrics, value as valueText } from '../../views/compare.js';
import { change as changeText } from '../format.js';
import { type ChartSpec, COLORS, chartBox, esc, htmlPage, sortableTable } from './page.js';


function verdictHtml(m: MetricComparison): string {
  const cls = m.verdict === 'worse' ? 'bad' : m.verdict === 'improved' ? 'good' : '';
  return cls ? `<span class="${cls}">${esc(m.verdict)}</span>` : esc(m.verdict);
}

/** One metric: its numbers as a line and both sides' runs as a chart. */
function metricBox(m: MetricComparison, id: string, charts: ChartSpec[]): string {
  const b = [...m.baseline.values].sort((x, y) => x - y);
  const c = [...m.current.values].sort((x, y) => x - y);
  const n = Math.max(b.length, c.length);
  const line = `${m.metric}${m.decisive ? ' (decides)' : ''}: ${valueText(m, m.baseline.median)} -> ${valueText(m, m.current.median)} (${changeText(m.ratio)}), p ${pText(m)} (${m.test}), spread ${m.baseline.spreadPercent.toFixed(1)}% / ${m.current.spreadPercent.toFixed(1)}%, ${m.baseline.n} / ${m.current.n} runs`;
  const unit = m.unit === 'ns' ? 'ns' : 'count';
  const chart = chartBox({
    id, x: Array.from({ length: n }, (_, i) => i + 1), xLabel: 'run (each side sorted)', yLabel: m.metric, xUnit: 'count', yUnit: unit, height: 170, barSlot: 1,
    series: [
      { label: `baseline (${m.baseline.n})`, values: Array.from({ length: n }, (_, i) => b[i] ?? null), color: COLORS.main, kind: 'points', size: 8 },
      { label: `current (${m.current.n})`, values: Array.from({ length: n }, (_, i) => c[i] ?? null), color: COLORS.warmup, kind: 'points', size: 8 },
    ],
  }, line, charts);
  return `<div class="metric">${chart}<p>Verdict: ${verdictHtml(m)}</p></div>`;
}

function resultSection(name: string, r: CompareResult, method: string, index: number, charts: ChartSpec[]): string {
  const sorted = sortedMetrics(r);
  const out = [`<h2>${esc(name)}: ${r.regression ? '<span class="bad">REGRESSION</span>' : '<span class="good">no regression</span>'}</h2>`];
  out.push(`<ul>${notes(r, method).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`);
  out.push(sortableTable(['Metric', 'Baseline (median)', 'Current (median)', 'Change', 'Runs', 'Spread (IQR/median)', 'p', 'Verdict'].map((label, i) => ({ label, type: i === 0 || i === 7 ? 'text' : 'number' } as const)),
    sorted.map((m) => [{ text: `${m.metric}${m.decisive ? ' (decides)' : ''}`, v: m.metric }, { text: valueText(m, m.baseline.median), v: m.baseline.median },
      { text: valueText(m, m.current.median), v: m.current.median }, { text: changeText(m.ratio), v: m.ratio }, { text: `${m.baseline.n}/${m.current.n}`, v: m.current.n },
      { text: `${m.baseline.spreadPercent.toFixed(1)}% / ${m.current.spreadPercent.toFixed(1)}%`, v: Math.max(m.baseline.spreadPercent, m.current.spreadPercent) },
      { text: pText(m), v: m.pValue ?? 1 }, { text: m.verdict }]), `compare-table-${index}`));
  out.push(`<div class="grid">${sorted.map((m, i) => metricBox(m, `chart-compare-${index}-${i}`, charts)).join('\n')}</div>`);
  return out.join('\n');
}

export function comparePage(baseline: string, current: string, results: Array<{ name: string; result: CompareResult }>, method: string): string {
  const charts: ChartSpec[] = [];
  const body = results.map((x, i) => resultSection(x.name, x.result, method, i, charts)).join('\n');
  const regressed = results.some((x) => x.result.regression);
  return htmlPage({ title: `gsprof compare: ${regressed ? 'regression' : 'no regression'}`, subtitle: `Baseline: ${baseline} | Current: ${current}`, body, charts });
}
