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
import { refuseOwnInput } from './own-input.js';

export type CompareMethod = 'mannwhitney' | 'ttest' | 'percent';
export type CompareFormat = 'table' | 'markdown' | 'json' | 'junit';

export interface CompareView {
  text: string; markdown: string; data: unknown; regressed: boolean;
  /** Each comparison made: one, or one per rank of a multi-process run (what --html draws). */
  results: Array<{ name: string; result: CompareResult }>;
}

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
    // The ranks of one `record --nproc` run share the worker name: `<worker>.rank<k>.<time>`.
    const [name, rank] = basename(f).split('.');
    const worker = `${dirname(f)}/${name!}${rank && /^rank\d+$/.test(rank) ? `.${rank}` : ''}`;
    const kept = byWorker.get(worker);
    if (!kept || (f.endsWith('.pftrace') && !kept.endsWith('.pftrace'))) byWorker.set(worker, f);
  }
  if (byWorker.size === 0) throw new CliError(path, 'folder has no baseline or trace');
  return [...byWorker.values()];
}

/** asv's marks: + worse, - improved, ~ past the factor but not significant; ? cannot decide; ! workload changed. */
const MARK: Record<Verdict, string> = { worse: '+', improved: '-', 'not significant': '~', unchanged: ' ', 'too few runs': '?', 'workload changed': '!' };
const ORDER: Record<Verdict, number> = { worse: 0, 'workload changed': 1, 'too few runs': 2, 'not significant': 3, improved: 4, unchanged: 5 };

export function value(m: MetricComparison, v: number): string {
  if (m.unit === 'ns') return duration(v);
  return Number.isInteger(v) ? thousands(v) : v.toFixed(3);
}

function changeText(m: MetricComparison): string {
  if (!Number.isFinite(m.ratio)) return '-';
  const pct = (m.ratio - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

export function pText(m: MetricComparison): string {
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

/** One JUnit test suite: a test case per metric (a failure for a decisive regression). */
function junitSuite(r: CompareResult, method: string, name: string): { xml: string; tests: number; failures: number } {
  const cases = sortedMetrics(r).map((m) => {
    const detail = `${m.metric}: ${value(m, m.baseline.median)} -> ${value(m, m.current.median)} (${changeText(m)}, ${m.verdict}, p ${pText(m)})`;
    const failed = m.decisive && m.verdict === 'worse';
    const body = failed ? `<failure message="${xml(detail)}" type="regression">${xml(detail)}</failure>` : `<system-out>${xml(detail)}</system-out>`;
    return `    <testcase classname="gsprof.compare" name="${xml(m.metric)}">${body}</testcase>`;
  });
  const failures = r.metrics.filter((m) => m.decisive && m.verdict === 'worse').length;
  return {
    tests: r.metrics.length, failures,
    xml: [
      `  <testsuite name="${xml(name)}" tests="${r.metrics.length}" failures="${failures}" errors="0" skipped="0">`,
      `    <properties>${notes(r, method).map((l) => `<property name="note" value="${xml(l)}"/>`).join('')}</properties>`,
      ...cases,
      '  </testsuite>',
    ].join('\n'),
  };
}

/** JUnit XML with one suite per named result (the ranks of a multi-process run). */
export function renderJunitSuites(results: Array<{ name: string; result: CompareResult }>, method: string): string {
  const suites = results.map((x) => junitSuite(x.result, method, `gsprof compare ${x.name} (${method})`));
  const tests = suites.reduce((a, x) => a + x.tests, 0);
  const failures = suites.reduce((a, x) => a + x.failures, 0);
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="gsprof compare" tests="${tests}" failures="${failures}">`, ...suites.map((x) => x.xml), '</testsuites>'].join('\n');
}

/** JUnit XML: one test case per decisive metric (a failure for a regression), the rest as passed explanations. */
export function renderJunit(r: CompareResult, method: string): string {
  const suite = junitSuite(r, method, `gsprof compare (${method})`);
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="gsprof compare" tests="${suite.tests}" failures="${suite.failures}">`, suite.xml, '</testsuites>'].join('\n');
}

export interface CompareViewOptions {
  factor: number; method: CompareMethod; format: CompareFormat; color: boolean; failOnKernels: boolean; allowConfigChange: boolean; statistic: RunStatistic;
  /** A file the command will write (GITHUB_STEP_SUMMARY): refused when it is one of the runs read. */
  output?: string;
  /** The --html page's path (never one of the inputs). */
  html?: string;
}

/** A compare input file as the samples of one run: a baseline as written, a trace through the import cache. */
async function loadRun(path: string): Promise<Baseline> {
  const { baselineFromTrace, looksLikeBaseline, readBaseline } = await import('@gsprof/profiler');
  if (await looksLikeBaseline(path)) return readBaseline(path);
  return await withTrace(path, (db) => baselineFromTrace(db));
}

/** Each side's runs by rank (-1: runs of a process on its own). */
function byRank(files: string[], runs: Baseline[]): Map<number, { files: string[]; runs: Baseline[] }> {
  const out = new Map<number, { files: string[]; runs: Baseline[] }>();
  runs.forEach((b, i) => {
    const rank = typeof b.config.rank === 'number' ? b.config.rank : -1;
    const entry = out.get(rank) ?? { files: [], runs: [] };
    entry.files.push(files[i]!);
    entry.runs.push(b);
    out.set(rank, entry);
  });
  return out;
}

export async function compareReport(baselineArg: string, currentArg: string, options: CompareViewOptions): Promise<CompareView> {
  const baseline = await runInputs(baselineArg);
  const current = await runInputs(currentArg);
  if (options.output !== undefined) refuseOwnInput('compare', options.output, [...baseline, ...current]);
  if (options.html !== undefined) refuseOwnInput('compare', options.html, [...baseline, ...current]);
  const baseRuns: Baseline[] = [];
  for (const f of baseline) baseRuns.push(await loadRun(f));
  const curRuns: Baseline[] = [];
  for (const f of current) curRuns.push(await loadRun(f));
  const baseByRank = byRank(baseline, baseRuns);
  const curByRank = byRank(current, curRuns);
  const { compare } = await import('@gsprof/profiler');
  const mode = options.method === 'mannwhitney' ? 'asv' : options.method;
  const compareOptions = { mode, factor: options.factor, failOnKernels: options.failOnKernels, allowConfigChange: options.allowConfigChange, statistic: options.statistic } as const;
  if (![...baseByRank.keys(), ...curByRank.keys()].some((r) => r >= 0)) {
    const result = await compare(baseRuns, curRuns, compareOptions);
    return singleReport(result, { baselineFiles: baseline, currentFiles: current }, baselineArg, currentArg, options);
  }
  return await rankReport(baseByRank, curByRank, baselineArg, currentArg, options, (b, c) => compare(b, c, compareOptions));
}

function singleReport(result: CompareResult, files: { baselineFiles: string[]; currentFiles: string[] }, baselineArg: string, currentArg: string, options: CompareViewOptions): CompareView {
  const markdown = renderMarkdown(result, options.method);
  let text: string;
  switch (options.format) {
    case 'markdown': text = markdown; break;
    case 'json': text = toJson({ ...files, ...result }); break;
    case 'junit': text = renderJunit(result, options.method); break;
    default:
      text = [`Baseline: ${baselineArg} (${files.baselineFiles.length} file(s))`, `Current: ${currentArg} (${files.currentFiles.length} file(s))`,
        renderTable(head(result), rows(result, options.color), { color: options.color, align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], maxColWidth: 48 }),
        ...notes(result, options.method)].join('\n');
  }
  return { text, markdown, data: { ...files, ...result }, regressed: result.regression, results: [{ name: 'all runs', result }] };
}

/**
 * Runs of a multi-process job: rank k's runs against rank k's (one rank's speed says nothing about another's),
 * each with the full table, then one line per rank and the slowest rank of each side. The check fails when any
 * rank regressed.
 */
async function rankReport(
  base: Map<number, { files: string[]; runs: Baseline[] }>, cur: Map<number, { files: string[]; runs: Baseline[] }>, baselineArg: string, currentArg: string,
  options: CompareViewOptions, compareRuns: (b: Baseline[], c: Baseline[]) => Promise<CompareResult>,
): Promise<CompareView> {
  const ranks = [...new Set([...base.keys(), ...cur.keys()])].sort((a, b) => a - b);
  const label = (r: number): string => (r < 0 ? 'no rank' : `rank ${r}`);
  const unmatched = ranks.filter((r) => !base.has(r) || !cur.has(r)).map((r) => `${label(r)} only in the ${base.has(r) ? 'baseline' : 'current runs'}`);
  const results: Array<{ rank: number; baselineFiles: string[]; currentFiles: string[]; result: CompareResult }> = [];
  for (const r of ranks) {
    const b = base.get(r);
    const c = cur.get(r);
    if (b && c) results.push({ rank: r, baselineFiles: b.files, currentFiles: c.files, result: await compareRuns(b.runs, c.runs) });
  }
  if (results.length === 0) throw new CliError(currentArg, `no rank has runs on both sides (${unmatched.join('; ')})`);
  const regressed = results.filter((x) => x.result.regression).map((x) => label(x.rank));
  const verdict = regressed.length > 0 ? `REGRESSION on ${regressed.join(', ')}` : `No regression on any of the ${results.length} rank(s) compared`;
  const slowest = (side: 'baseline' | 'current'): string => {
    const worst = results.reduce((m, x) => (x.result.decision[side].median > m.result.decision[side].median ? x : m));
    return `${label(worst.rank)} (${duration(worst.result.decision[side].median)})`;
  };
  const perRank = renderTable(['Rank', 'Baseline step', 'Current step', 'Change', 'Runs', 'Verdict'],
    results.map((x) => {
      const d = x.result.decision;
      return [label(x.rank), duration(d.baseline.median), duration(d.current.median), changeText(d), `${d.baseline.n}/${d.current.n}`, x.result.regression ? paint('REGRESSION', 'red', options.color) : d.verdict];
    }), { color: options.color, align: ['left', 'right', 'right', 'right', 'right', 'left'] });
  const summary = [verdict, `Slowest rank by ${perRun(results[0]!.result)} step time: baseline ${slowest('baseline')}, current ${slowest('current')}`, ...unmatched.map((u) => `warning: ${u}: not compared`)];
  const markdown = [`### gsprof compare: ${regressed.length > 0 ? 'regression' : 'no regression'} (${results.length} ranks)`, '',
    ...summary.map((l) => `- ${l}`), '',
    ...results.flatMap((x) => [`#### ${label(x.rank)}`, '', renderMarkdownTable(head(x.result).slice(1), rows(x.result, false).map((row) => row.slice(1)), ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left']), '', ...notes(x.result, options.method).map((l) => `- ${l}`), ''])].join('\n');
  const data = { ranks: results.map((x) => ({ rank: x.rank, baselineFiles: x.baselineFiles, currentFiles: x.currentFiles, ...x.result })), regression: regressed.length > 0, unmatched };
  let text: string;
  switch (options.format) {
    case 'markdown': text = markdown; break;
    case 'json': text = toJson(data); break;
    case 'junit': text = renderJunitSuites(results.map((x) => ({ name: label(x.rank), result: x.result })), options.method); break;
    default:
      text = [`Baseline: ${baselineArg}`, `Current: ${currentArg}`,
        ...results.flatMap((x) => [`${label(x.rank)}: ${x.baselineFiles.length} baseline / ${x.currentFiles.length} current file(s)`,
          renderTable(head(x.result), rows(x.result, options.color), { color: options.color, align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], maxColWidth: 48 }),
          ...notes(x.result, options.method), '']),
        'Per rank:', perRank, ...summary].join('\n');
  }
  return { text, markdown, data, regressed: regressed.length > 0, results: results.map((x) => ({ name: label(x.rank), result: x.result })) };
}
