/** `gsprof timers`: Genesis' three timers.py panels for one timer slot, a histogram of the per-env means,
 * and the slowest envs. */
import type { TimerSlot, TimersResult } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { renderChart } from '../render/chart.js';
import { terminalWidth } from '../render/color.js';
import { thousands } from '../render/format.js';
import { renderHistogram } from '../render/histogram.js';
import { wrap } from '../render/wrap.js';
import { resolveTrace, withTrace } from './open-trace.js';
import type { View } from './view.js';

export interface TimersViewOptions { color: boolean; envs?: number[]; slot?: string; height?: number; width?: number }

/** The slot to plot: as asked (label or index), else solve_ns when it was measured (CPU), else iterations. */
export function pickSlot(result: TimersResult, wanted: string | undefined, trace: string): TimerSlot {
  const { slots } = result;
  if (wanted !== undefined) {
    const byIndex = /^\d+$/.test(wanted) ? slots[Number(wanted)] : undefined;
    const found = byIndex ?? slots.find((s) => s.label === wanted) ?? slots.find((s) => s.label.startsWith(wanted));
    if (!found) throw new CliError('--slot', `'${wanted}' is not a timer slot of ${trace} (slots: ${slots.map((s) => s.label).join(', ')})`);
    return found;
  }
  const measured = (s: TimerSlot | undefined): boolean => !!s && s.max > 0 && Number.isFinite(s.max);
  const solve = slots.find((s) => /solve/.test(s.label)) ?? slots[0];
  if (measured(solve)) return solve!;
  const iterations = slots.find((s) => /iter/.test(s.label));
  return measured(iterations) ? iterations! : slots[0]!;
}

function unitOf(label: string): (v: number) => string {
  // solve_ns is a time; iterations, constraints and contacts are counts (mind "iteratio-ns").
  if (/(^|_)ns$/.test(label)) return (v) => (Math.abs(v) >= 1e6 ? `${(v / 1e6).toFixed(2)}ms` : Math.abs(v) >= 1e3 ? `${(v / 1e3).toFixed(1)}us` : `${v.toFixed(0)}ns`);
  return (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
}

export function renderTimers(result: TimersResult, slot: TimerSlot, options: TimersViewOptions): string {
  const width = options.width ?? Math.min(terminalWidth(), 120);
  const height = options.height ?? 10;
  const fmt = unitOf(slot.label);
  const envs = (options.envs ?? []).filter((e) => e < result.nEnvs);
  if (options.envs && envs.length === 0) throw new CliError('--envs', `no selected env exists (the trace has envs 0-${result.nEnvs - 1})`);
  const dropped = (options.envs ?? []).length - envs.length;
  const pick = (values: number[]): number[] => (envs.length > 0 ? envs.map((e) => values[e] ?? NaN) : values);
  const shown = envs.length > 0 ? envs : [0, result.nEnvs - 1];
  const envAxis: [string, string] = [`env ${shown[0]}`, `env ${shown[shown.length - 1]}`];
  const chart = { width, height, color: options.color, format: fmt, stretch: true };
  const envNote = envs.length > 0 ? `envs ${envs.length <= 8 ? envs.join(',') : `${envs[0]}..${envs[envs.length - 1]} (${envs.length})`}` : `all ${result.nEnvs} envs`;
  const out: string[] = [];
  const text = (line: string): void => { out.push(wrap(line, width)); };
  text(`Timer ${slot.label}: ${result.steps} steps x ${result.nEnvs} envs; mean ${fmt(slot.mean)}, p50 ${fmt(slot.p50)}, p95 ${fmt(slot.p95)}, max ${fmt(slot.max)}`);
  const q = slot.quantileSample;
  if (!q.exact) text(`(p50 and p95 from a uniform sample of ${q.size.toLocaleString('en-US')} of the ${q.of.toLocaleString('en-US')} values; mean, max and the panels use every value)`);
  if (result.skippedSteps > 0) text(`(${result.skippedSteps} recorded steps left out: their batch size differs from the first step's ${result.nEnvs} envs)`);
  if (dropped > 0) text(`(--envs: ${dropped} of the ${options.envs!.length} envs asked for are past the trace's last env, ${result.nEnvs - 1}; showing the other ${envs.length})`);
  out.push('');
  out.push(renderChart([pick(slot.panels.lastStep)], { ...chart, xLabels: envAxis, title: wrap(`[1] last step, per env (${envNote})`, width) }));
  out.push('');
  out.push(renderChart([pick(slot.panels.runningMeanPerEnv)], { ...chart, xLabels: envAxis, title: wrap(`[2] running mean over ${result.steps} steps, per env (${envNote})`, width) }));
  out.push('');
  out.push(renderChart([slot.panels.sortedRunningMean], { ...chart, xLabels: ['fastest', 'slowest'], title: wrap(`[3] running mean of each step's envs sorted ascending (the average distribution; all ${result.nEnvs} envs)`, width) }));
  out.push('');
  out.push(renderHistogram(slot.panels.runningMeanPerEnv, { width, bins: 12, format: fmt, title: wrap(`Histogram of per-env mean ${slot.label} (envs per bin)`, width) }));
  if (slot.slowestEnvs.length > 0) {
    out.push('');
    text(`Slowest envs: ${slot.slowestEnvs.map((s) => `#${s.env} ${fmt(s.mean)}`).join(', ')}`);
  }
  if (slot.max === 0 && /solve/.test(slot.label)) text('(solve time is not measured on the GPU backend: WGSL has no shader clock; try --slot iterations)');
  return out.join('\n');
}

export async function timersReport(given: string, options: TimersViewOptions): Promise<View> {
  const { timers } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  const result = await withTrace(trace, (db) => timers(db, { slowest: 8 }));
  if (!result) throw new CliError(trace, 'no per-env solver timers in this trace (record one with `gsprof record --example ...`)');
  const slot = pickSlot(result, options.slot, trace);
  return {
    text: `Trace: ${trace}\n${renderTimers(result, slot, options)}`,
    data: { trace, steps: result.steps, nEnvs: result.nEnvs, stepRange: result.stepRange, skippedSteps: result.skippedSteps, slot: slot.label, slots: result.slots.map((s) => ({ label: s.label, mean: s.mean, p50: s.p50, p95: s.p95, max: s.max, quantileSample: s.quantileSample, slowestEnvs: s.slowestEnvs })), panels: slot.panels, ...(options.envs ? { envs: options.envs } : {}), thousandsOfEnvSteps: thousands(result.steps * result.nEnvs) },
  };
}
