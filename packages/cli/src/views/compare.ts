/** `gsprof compare` (and the baseline `gsprof record --baseline-out` writes). */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism, cpus, hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Baseline, CompareResult, MetricComparison, RunConfig, RunStatistic, Verdict } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { duration, thousands } from '../render/format.js';
import { paint } from '../render/color.js';
import { renderMarkdownTable, renderTable } from '../render/table.js';
import { toJson } from '../render/json.js';
import { resolveTrace, withTrace } from './open-trace.js';

export type CompareMethod = 'mannwhitney' | 'ttest' | 'percent';
export type CompareFormat = 'table' | 'markdown' | 'json' | 'junit';

export interface CompareView { text: string; markdown: string; data: CompareResult & { baselineFiles: string[]; currentFiles: string[] }; regressed: boolean }

/** The configuration facts of this process that make runs comparable, added to every baseline written here. */
function machineConfig(): RunConfig {
  let gitCommit: string | undefined;
  try {
    gitCommit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch { /* not in a git checkout */ }
  const cpu = cpus()[0];
  return { machine: hostname(), cpuModel: cpu?.model.trim(), cpuCores: availableParallelism(), node: process.version, ...(gitCommit ? { gitCommit } : {}) };
}

/** The baseline of one recorded trace, with the machine it ran on. */
export async function baselineFor(trace: string): Promise<Baseline> {
  const { baselineFromTrace } = await import('@gsprof/profiler');
  return await withTrace(trace, (db) => baselineFromTrace(db, machineConfig()));
}

export async function writeBaselineFor(trace: string, path: string): Promise<Baseline> {
  const { writeBaseline } = await import('@gsprof/profiler');
  const baseline = await baselineFor(trace);
  await writeBaseline(path, baseline);
  return baseline;
}

/**
 * The runs one compare argument stands for: a baseline file, a trace, or a folder. A folder's baselines are all
 * its runs; without baselines, its traces are, one per recording process (a process writes the same run as
 * .pftrace and .pt.trace.json: the .pftrace is taken).
 */
export async function runInputs(path: string): Promise<string[]> {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new CliError(path, 'no such file');
  if (!st.isDirectory()) return [resolveTrace(path)];
  const { looksLikeBaseline } = await import('@gsprof/profiler');
  // `record --runs N --out DIR` puts run K's traces in DIR/run-K: one level of sub-folders counts.
  const entries = readdirSync(path).map((f) => join(path, f));
  const files = entries.flatMap((f) => {
    const s = statSync(f, { throwIfNoEntry: false });
    if (s?.isFile()) return [f];
    if (s?.isDirectory()) return readdirSync(f).map((g) => join(f, g)).filter((g) => statSync(g, { throwIfNoEntry: false })?.isFile());
    return [];
  });
  const baselines: string[] = [];
  for (const f of files) if (f.endsWith('.json') && (await looksLikeBaseline(f))) baselines.push(f);
  if (baselines.length > 0) return baselines.sort();
  const byWorker = new Map<string, string>();
  for (const f of files.filter((x) => /\.(pftrace|json|json\.gz)$/.test(x)).sort()) {
    const worker = `${dirname(f)}/${basename(f).split('.')[0]!}`;
    const kept = byWorker.get(worker);
    if (!kept || (f.endsWith('.pftrace') && !kept.endsWith('.pftrace'))) byWorker.set(worker, f);
  }
  if (byWorker.size === 0) throw new CliError(path, 'folder has no baseline or trace');
  return [...byWorker.values()];
}

/** asv's marks: + worse, - improved, ~ past the factor but not significant; ? cannot decide; ! workload changed. */
const MARK: Record<Verdict, string> = { worse: '+', improved: '-', 'not significant': '~', unchanged: ' ', 'too few runs': '?', 'workload changed': '!' };
const ORDER: Record<Verdict, number> = { worse: 0, 'workload changed': 1, 'too few runs': 2, 'not significant': 3, improved: 4, unchanged: 5 };

function value(m: MetricComparison, v: number): string {
  if (m.unit === 'ns') return duration(v);
  return Number.isInteger(v) ? thousands(v) : v.toFixed(3);
}

function changeText(m: MetricComparison): string {
  if (!Number.isFinite(m.ratio)) return '-';
  const pct = (m.ratio - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

function pText(m: MetricComparison): string {
  if (m.pValue === null) return '-';
  return m.pValue < 1e-4 ? m.pValue.toExponential(1) : m.pValue.toFixed(4);
}

/** A number as people write it: 10, 1.5, 0.002 (no float noise such as 10.000000000000009). */
export function plain(x: number): string {
  return String(Number(x.toPrecision(6)));
}

export function sortedMetrics(r: CompareResult): MetricComparison[] {
  return [...r.metrics].sort((a, b) => Number(b.decisive) - Number(a.decisive) || ORDER[a.verdict] - ORDER[b.verdict] || b.worsePercent - a.worsePercent || a.metric.localeCompare(b.metric));
}

/** What each run contributes, in words: "p10" -> "per-run p10". */
const perRun = (r: CompareResult): string => (r.options.statistic === 'median' ? 'per-run medians' : `per-run ${r.options.statistic}s`);

const head = (r: CompareResult): string[] => ['', `Metric (${perRun(r)})`, 'Baseline (median)', 'Current (median)', 'Change', 'Runs', 'IQR', 'p', 'Verdict'];

function rows(r: CompareResult, color: boolean): string[][] {
  return sortedMetrics(r).map((m) => {
    const verdict = m.verdict === 'worse' ? paint(m.verdict, 'red', color) : m.verdict === 'improved' ? paint(m.verdict, 'green', color) : m.verdict;
    const name = m.decisive ? `${m.metric} (decides)` : m.metric;
    const spread = `${m.baseline.spreadPercent.toFixed(1)}%/${m.current.spreadPercent.toFixed(1)}%`;
    return [MARK[m.verdict], name, value(m, m.baseline.median), value(m, m.current.median), changeText(m), `${m.baseline.n}/${m.current.n}`, spread, pText(m), verdict];
  });
}

export function ruleText(r: CompareResult, method: string): string {
  const o = r.options;
  const rule = r.mode === 'asv' ? `factor ${plain(o.factor)} and Mann-Whitney U p < ${plain(o.alpha)} over ${perRun(r)}`
    : r.mode === 'ttest' ? `factor ${plain(o.factor)} and Welch t-test p < ${plain(o.alpha)} over ${perRun(r)}` : `threshold ${plain((o.factor - 1) * 100)}%`;
  return `${method}: ${rule}${o.failOnKernels ? '; kernels decide too' : ''}`;
}

/** The lines around the table: the decision, the spread, what explains the change, and every warning. */
export function notes(r: CompareResult, method: string): string[] {
  const d = r.decision;
  const lines = [
    `${r.regression ? 'REGRESSION' : 'No regression'}: ${r.explanation} (step time ${value(d, d.baseline.median)} -> ${value(d, d.current.median)}, ${d.verdict}; ${ruleText(r, method)})`,
    `Run-to-run spread of step time (IQR / median of the ${perRun(r)}): baseline ${d.baseline.spreadPercent.toFixed(1)}% over ${d.baseline.n} run(s), current ${d.current.spreadPercent.toFixed(1)}% over ${d.current.n} run(s)`,
  ];
  if (r.minRunsNeeded !== null) lines.push(`warning: too few runs to ever reach significance: need >= ${r.minRunsNeeded} runs per side (record with --runs ${r.minRunsNeeded})`);
  if (r.noise) lines.push(`warning: ${r.noise}`);
  if (r.warmingUp) lines.push(`warning: ${r.warmingUp}`);
  const changed = r.metrics.filter((m) => m.verdict === 'workload changed').map((m) => m.metric);
  if (changed.length) lines.push(`warning: the workload changed (deterministic counters differ): ${changed.join(', ')}`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  const only = r.onlyInBaseline.length + r.onlyInCurrent.length;
  if (only > 0) lines.push(`note: ${r.onlyInBaseline.length} metric(s) only in the baseline, ${r.onlyInCurrent.length} only in the current run`);
  return lines;
}

export function renderMarkdown(r: CompareResult, method: string): string {
  return [`### gsprof compare: ${r.regression ? 'regression' : 'no regression'}`, '',
    renderMarkdownTable(head(r).slice(1), rows(r, false).map((row) => row.slice(1)), ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left']),
    '', ...notes(r, method).map((l) => `- ${l}`)].join('\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JUnit XML: one test case per decisive metric (a failure for a regression), the rest as passed explanations. */
export function renderJunit(r: CompareResult, method: string): string {
  const cases = sortedMetrics(r).map((m) => {
    const detail = `${m.metric}: ${value(m, m.baseline.median)} -> ${value(m, m.current.median)} (${changeText(m)}, ${m.verdict}, p ${pText(m)})`;
    const failed = m.decisive && m.verdict === 'worse';
    const body = failed ? `<failure message="${xml(detail)}" type="regression">${xml(detail)}</failure>` : `<system-out>${xml(detail)}</system-out>`;
    return `    <testcase classname="gsprof.compare" name="${xml(m.metric)}">${body}</testcase>`;
  });
  const failures = r.metrics.filter((m) => m.decisive && m.verdict === 'worse').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gsprof compare" tests="${r.metrics.length}" failures="${failures}">`,
    `  <testsuite name="gsprof compare (${xml(method)})" tests="${r.metrics.length}" failures="${failures}" errors="0" skipped="0">`,
    `    <properties>${notes(r, method).map((l) => `<property name="note" value="${xml(l)}"/>`).join('')}</properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}

export interface CompareViewOptions {
  factor: number; method: CompareMethod; format: CompareFormat; color: boolean; failOnKernels: boolean; allowConfigChange: boolean; statistic: RunStatistic;
}

export async function compareReport(baselineArg: string, currentArg: string, options: CompareViewOptions): Promise<CompareView> {
  const baseline = await runInputs(baselineArg);
  const current = await runInputs(currentArg);
  const { compare } = await import('@gsprof/profiler');
  const mode = options.method === 'mannwhitney' ? 'asv' : options.method;
  const result = await compare(baseline, current, {
    mode, factor: options.factor, failOnKernels: options.failOnKernels, allowConfigChange: options.allowConfigChange, statistic: options.statistic,
  });
  const markdown = renderMarkdown(result, options.method);
  const files = { baselineFiles: baseline, currentFiles: current };
  let text: string;
  switch (options.format) {
    case 'markdown': text = markdown; break;
    case 'json': text = toJson({ ...files, ...result }); break;
    case 'junit': text = renderJunit(result, options.method); break;
    default:
      text = [`Baseline: ${baselineArg} (${baseline.length} file(s))`, `Current: ${currentArg} (${current.length} file(s))`,
        renderTable(head(result), rows(result, options.color), { color: options.color, align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], maxColWidth: 48 }),
        ...notes(result, options.method)].join('\n');
  }
  return { text, markdown, data: { ...files, ...result }, regressed: result.regression };
}
