/** `gsprof gaps`: GPU idle time per queue (HTA's host wait / kernel wait / other), launch delay, the longest
 * gaps with the CPU work that overlapped them, and the verdict; for a CPU-only trace, host utilisation. */
import type { GapsResult } from '@gsprof/profiler';
import { duration, percent, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';
import { resolveTrace, withTrace } from './open-trace.js';
import { clockAlignmentLine } from './summary.js';
import type { View } from './view.js';

export function renderGaps(g: GapsResult, options: { color: boolean }): string {
  const out: string[] = [];
  const o = g.overall;
  out.push(`Verdict: ${g.verdict} (${g.reason})`);
  const u = g.hostUtilisation;
  if (u) {
    out.push(`Host utilisation: CPU stage spans cover ${percent(u.coveredNs / u.wallNs)} of ${thousands(u.steps)} steps' wall time (${duration(u.coveredNs)} of ${duration(u.wallNs)}); per step mean ${percent(u.meanShare)}, median ${percent(u.medianShare)}, lowest ${percent(u.minShare)}`);
    out.push('');
    out.push(renderTable(['Thread', 'Covered', 'Share of step time'],
      u.threads.map((t) => [t.trackName, duration(t.coveredNs), percent(t.share)]),
      { color: options.color, align: ['left', 'right', 'right'] }));
  }
  if (o.spanNs === 0) return out.join('\n');
  out.push(`GPU span ${duration(o.spanNs)}: busy ${duration(o.busyNs)}, idle ${duration(o.idleNs)} (${percent(o.idleFraction)}); of the idle time host wait ${duration(o.hostWaitNs)}, kernel wait ${duration(o.kernelWaitNs)}, other ${duration(o.otherNs)}`);
  const alignment = clockAlignmentLine(g.clockAlignment);
  if (alignment) out.push(alignment);
  if (g.hostWaitSplit.reliable === false) out.push(`Host-wait split unreliable: ${g.hostWaitSplit.note}.`);
  out.push('');
  out.push(renderTable(
    ['Queue', 'Ops', 'Span', 'Busy', 'Idle', 'Idle %', 'Gaps', 'Host wait', 'Kernel wait', 'Other'],
    g.queues.map((q) => [q.trackName, thousands(q.ops), duration(q.spanNs), duration(q.busyNs), duration(q.idleNs), percent(q.idleFraction), thousands(q.gaps), duration(q.hostWaitNs), duration(q.kernelWaitNs), duration(q.otherNs)]),
    { color: options.color, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'] },
  ));
  if (g.launchDelay.length > 0) {
    out.push('');
    out.push('Launch delay (GPU start - end of the submit/launch call):');
    out.push(renderTable(
      ['Queue', 'Launches', 'Mean', 'p50', 'p95', 'Max', 'Delay > 100us', 'Launch call > 50us'],
      g.launchDelay.map((l) => [l.trackName, thousands(l.launches), duration(l.meanNs), duration(l.p50Ns), duration(l.p95Ns), duration(l.maxNs), thousands(l.outliers), thousands(l.longLaunchCalls)]),
      { color: options.color, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'] },
    ));
  }
  if (g.topIdle.length > 0) {
    out.push('');
    out.push(`Longest idle intervals:`);
    out.push(renderTable(
      ['#', 'Queue', 'Start', 'Idle', 'Kind', 'Next op', 'CPU work meanwhile'],
      g.topIdle.map((t, i) => [String(i + 1), t.trackName, duration(t.startNs), duration(t.durNs), t.kind, t.nextOp ?? '-',
        t.cpu.slice(0, 3).map((c) => `${c.name} (${duration(c.overlapNs)})`).join(', ') || '-']),
      { color: options.color, align: ['right', 'left', 'right', 'right', 'left', 'left', 'left'], maxColWidth: 60 },
    ));
  }
  return out.join('\n');
}

export async function gapsReport(inputs: string[], options: { color: boolean; top: number }): Promise<View> {
  const set = await (await import('./trace-set.js')).rankSetOf(inputs, { tables: false });
  if (set) return { ...await (await import('./rank-reports.js')).rankGaps(set.run, options), skipped: set.skipped };
  const given = inputs[0]!;
  const { gaps } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  const result = await withTrace(trace, (db) => gaps(db, { topIntervals: options.top }));
  return { text: `Trace: ${trace}\n${renderGaps(result, options)}`, data: { trace, ...result } };
}
