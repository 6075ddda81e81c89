/** `gsprof compare` (and the baseline `gsprof record --baseline-out` writes). */
import { hostname } from 'node:os';
import type { Baseline, CompareResult, MetricComparison, Verdict } from '@gsprof/profiler';
import { duration, thousands } from '../render/format.js';
import { paint } from '../render/color.js';
import { renderMarkdownTable, renderTable } from '../render/table.js';
import { toJson } from '../render/json.js';
import { resolveTrace, withTrace } from './open-trace.js';

export type CompareMethod = 'mannwhitney' | 'ttest' | 'percent';
export type CompareFormat = 'table' | 'markdown' | 'json' | 'junit';

export interface CompareView { text: string; markdown: string; data: CompareResult & { baselineFile: string; currentFile: string }; regressed: boolean }

/** The baseline of one recorded trace, with the machine it ran on. */
export async function baselineFor(trace: string): Promise<Baseline> {
  const { baselineFromTrace } = await import('@gsprof/profiler');
  return await withTrace(trace, (db) => baselineFromTrace(db, { machine: hostname(), versions: { node: process.version } }));
}

export async function writeBaselineFor(trace: string, path: string): Promise<Baseline> {
  const { writeBaseline } = await import('@gsprof/profiler');
  const baseline = await baselineFor(trace);
  await writeBaseline(path, baseline);
  return baseline;
}

/** asv's marks: + worse, - improved, ~ past the factor but not significant. */
const MARK: Record<Verdict, string> = { worse: '+', improved: '-', 'not significant': '~', unchanged: ' ' };
const ORDER: Record<Verdict, number> = { worse: 0, 'not significant': 1, improved: 2, unchanged: 3 };

function value(m: MetricComparison, v: number): string {
  if (m.unit === 'ns') return duration(v);
  if (m.unit === 'steps/s') return thousands(v, 1);
  return Number.isInteger(v) ? thousands(v) : v.toFixed(3);
}

function changeText(m: MetricComparison): string {
  if (!Number.isFinite(m.ratio)) return '-';
  const pct = (m.ratio - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

function pText(m: MetricComparison): string {
  if (m.pValue === null) return m.test === 'ci99' ? (m.significant ? 'CI99 apart' : 'CI99 overlap') : '-';
  return m.pValue < 1e-4 ? m.pValue.toExponential(1) : m.pValue.toFixed(4);
}

export function sortedMetrics(r: CompareResult): MetricComparison[] {
  return [...r.metrics].sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || b.worsePercent - a.worsePercent || a.metric.localeCompare(b.metric));
}

const HEAD = ['', 'Metric', 'Baseline (median)', 'Current (median)', 'Change', 'n', 'p', 'Verdict'];

function rows(r: CompareResult, color: boolean): string[][] {
  return sortedMetrics(r).map((m) => {
    const verdict = m.verdict === 'worse' ? paint(m.verdict, 'red', color) : m.verdict === 'improved' ? paint(m.verdict, 'green', color) : m.verdict;
    return [MARK[m.verdict], m.metric, value(m, m.baseline.median), value(m, m.current.median), changeText(m), `${m.baseline.n}/${m.current.n}`, pText(m), verdict];
  });
}

export function footer(r: CompareResult, method: string): string {
  const c = r.counts;
  const rule = r.mode === 'asv' ? `factor ${r.options.factor} and Mann-Whitney U p < ${r.options.alpha}` : r.mode === 'ttest' ? `Welch t-test p < ${r.options.alpha}` : `threshold ${r.options.thresholdPercent}%`;
  const only = r.onlyInBaseline.length + r.onlyInCurrent.length > 0 ? `; ${r.onlyInBaseline.length} metric(s) only in the baseline, ${r.onlyInCurrent.length} only in the current run` : '';
  return `${r.regression ? 'REGRESSION' : 'No regression'}: ${c.worse} worse, ${c.improved} improved, ${c['not significant']} not significant, ${c.unchanged} unchanged (${method}: ${rule})${only}`;
}

export function renderMarkdown(r: CompareResult, method: string): string {
  return [`### gsprof compare: ${r.regression ? 'regression' : 'no regression'}`, '',
    renderMarkdownTable(HEAD.slice(1), rows(r, false).map((row) => row.slice(1)), ['left', 'right', 'right', 'right', 'right', 'right', 'left']),
    '', footer(r, method)].join('\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JUnit XML: one test case per metric, a failure for each regression. */
export function renderJunit(r: CompareResult, method: string): string {
  const cases = sortedMetrics(r).map((m) => {
    const detail = `${m.metric}: ${value(m, m.baseline.median)} -> ${value(m, m.current.median)} (${changeText(m)}, ${m.verdict}, p ${pText(m)})`;
    const body = m.verdict === 'worse' ? `<failure message="${xml(detail)}" type="regression">${xml(detail)}</failure>` : `<system-out>${xml(detail)}</system-out>`;
    return `    <testcase classname="gsprof.compare" name="${xml(m.metric)}">${body}</testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gsprof compare" tests="${r.metrics.length}" failures="${r.counts.worse}">`,
    `  <testsuite name="gsprof compare (${xml(method)})" tests="${r.metrics.length}" failures="${r.counts.worse}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}

export async function compareReport(baseline: string, current: string, options: { factor: number; method: CompareMethod; format: CompareFormat; color: boolean }): Promise<CompareView> {
  baseline = resolveTrace(baseline);
  current = resolveTrace(current);
  const { compare } = await import('@gsprof/profiler');
  const mode = options.method === 'mannwhitney' ? 'asv' : options.method;
  const result = await compare(baseline, current, { mode, factor: options.factor, thresholdPercent: (options.factor - 1) * 100 });
  const markdown = renderMarkdown(result, options.method);
  let text: string;
  switch (options.format) {
    case 'markdown': text = markdown; break;
    case 'json': text = toJson({ baselineFile: baseline, currentFile: current, ...result }); break;
    case 'junit': text = renderJunit(result, options.method); break;
    default:
      text = `Baseline: ${baseline}\nCurrent: ${current}\n${renderTable(HEAD, rows(result, options.color), { color: options.color, align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'], maxColWidth: 48 })}\n${footer(result, options.method)}`;
  }
  return { text, markdown, data: { baselineFile: baseline, currentFile: current, ...result }, regressed: result.regression };
}
