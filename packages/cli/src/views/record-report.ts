/** What `gsprof record` prints at the end: the kernel summary of the trace it wrote, the timers panels for the
 * timers example, the baseline when asked, and the paths written. */
export interface RecordReportOptions {
  color: boolean;
  json: boolean;
  baselineOut?: string;
  timersPanels?: boolean;
}

export interface RecordReport {
  text: string;
  /** summary, timers and baseline (path), as far as they were produced. */
  data: Record<string, unknown>;
}

/** The trace the analyses read: the Perfetto file when there is one (smaller, faster to import). */
export function primaryTrace(traces: string[]): string | undefined {
  return traces.find((t) => t.endsWith('.pftrace')) ?? traces[0];
}

export async function reportRecording(traces: string[], options: RecordReportOptions): Promise<RecordReport> {
  const lines: string[] = [];
  const data: Record<string, unknown> = {};
  const trace = primaryTrace(traces);
  if (trace) {
    const { summarize } = await import('./summary.js');
    const summary = await summarize([trace], { color: options.color });
    lines.push(summary.text);
    data.summary = summary.data;
    if (options.timersPanels) {
      const { timersReport } = await import('./timers.js');
      const timers = await timersReport(trace, { color: options.color });
      lines.push(timers.text);
      data.timers = timers.data;
    }
    if (options.baselineOut) {
      const { writeBaselineFor } = await import('./compare.js');
      await writeBaselineFor(trace, options.baselineOut);
      data.baseline = options.baselineOut;
    }
  }
  for (const t of traces) lines.push(`wrote ${t}`);
  if (options.baselineOut && trace) lines.push(`wrote ${options.baselineOut} (baseline)`);
  return { text: lines.join('\n'), data };
}
