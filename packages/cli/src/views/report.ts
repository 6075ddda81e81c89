/** `gsprof report`: one self-contained HTML page of a trace, or of every rank of a multi-process run. */
import type { TraceDb } from '@gsprof/profiler';
import { resolveTrace, withTrace } from './open-trace.js';
import { refuseOwnInput } from './own-input.js';

export interface ReportView {
  /** The page, ready to write. */
  html: string;
  /** What the page was made from, for --json and the one-line message. */
  data: { trace?: string; ranks?: number; baselines?: number; regressions?: string[]; missing: string[] };
}

/** `output`: the file the page will be written to, refused when it is one of the traces read. */
export async function reportPage(given: string, output?: string): Promise<ReportView> {
  const { newestRankRun, rankRunLine } = await import('./rank-traces.js');
  const run = await newestRankRun(given);
  if (output !== undefined) refuseOwnInput('report', output, run ? run.ranks.map((r) => r.path) : [resolveTrace(given)]);
  if (run) {
    const { kernelSummary, stragglers } = await import('@gsprof/profiler');
    const { rankFacts } = await import('./rank-reports.js');
    const ranks = await rankFacts(run, { name: 'kernelSummary', params: null }, (db: TraceDb, times) => kernelSummary(db, times));
    const straggler = stragglers(ranks.map((r) => ({ rank: r.rank, steps: r.stepTimes })));
    const { rankReportPage } = await import('../render/html/report-page.js');
    const cpu = ranks.every((r) => r.result.kind === 'cpu stages');
    const html = rankReportPage(rankRunLine(run), cpu, ranks.map((r) => ({
      rank: r.rank, host: r.host, trace: r.trace, busyNs: r.result.tracks.reduce((a, t) => a + t.totalTimeNs, 0),
      steps: r.result.steps, durations: r.times.durations, numbers: r.times.numbers,
    })), straggler);
    const missing = straggler.spread ? [] : ['no step recorded by every rank'];
    return { html, data: { ranks: ranks.length, missing } };
  }
  const { runReport } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  const report = await withTrace(trace, (db) => runReport(db));
  const { runReportPage } = await import('../render/html/report-page.js');
  const { pickSlot } = await import('./timers.js');
  return { html: runReportPage(trace, report, (t) => pickSlot(t, undefined, trace)), data: { trace, missing: report.missing } };
}

/** `report --history FOLDER`: the baselines in the folder (and its sub-folders one level down) over time. */
export async function historyReport(folder: string, options: { factor: number; output: string }): Promise<ReportView> {
  const { readdirSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { CliError } = await import('../errors.js');
  const st = statSync(folder, { throwIfNoEntry: false });
  if (!st) throw new CliError(folder, 'no such folder');
  if (!st.isDirectory()) throw new CliError(folder, 'not a folder (--history takes a folder of baselines written by record --baseline-out)');
  const { baselineHistory, looksLikeBaseline, readBaseline } = await import('@gsprof/profiler');
  const files = readdirSync(folder).flatMap((f) => {
    const p = join(folder, f);
    const s = statSync(p, { throwIfNoEntry: false });
    if (s?.isDirectory()) return readdirSync(p).map((g) => join(p, g));
    return [p];
  }).filter((f) => f.endsWith('.json') && statSync(f, { throwIfNoEntry: false })?.isFile());
  const entries = [];
  for (const f of files) if (await looksLikeBaseline(f)) entries.push({ source: f, baseline: await readBaseline(f) });
  if (entries.length === 0) throw new CliError(folder, 'no baselines here (record --baseline-out writes them)');
  refuseOwnInput('report', options.output, entries.map((e) => e.source));
  const history = await baselineHistory(entries, { factor: options.factor });
  const { historyPage } = await import('../render/html/history-page.js');
  const missing = history.points.filter((p) => p.refused).map((p) => `${p.source} not compared: ${p.refused}`);
  return { html: historyPage(folder, history, options.factor), data: { missing, baselines: history.points.length, regressions: history.regressions.map((i) => history.points[i]!.source) } };
}
