/** `gsprof envs`: the envs that cost the most, their reset/NaN history, the steps to look at, a histogram
 * across envs, and how step time follows the solver's iterations. */
import type { EnvCost, EnvsResult } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { terminalWidth } from '../render/color.js';
import { duration, thousands } from '../render/format.js';
import { renderHistogram } from '../render/histogram.js';
import { renderCsv, renderTable } from '../render/table.js';
import { wrap } from '../render/wrap.js';
import { resolveTrace, withTrace } from './open-trace.js';
import type { View } from './view.js';

export type EnvsFormat = 'table' | 'json' | 'csv';

export interface EnvsViewOptions { color: boolean; top?: number; format?: EnvsFormat; width?: number }

const CSV_HEAD = ['env', 'iterations_total', 'iterations_mean', 'iterations_max', 'iterations_max_step', 'contacts_mean', 'contacts_max', 'resets', 'reset_steps', 'nan', 'nan_steps', 'not_converged', 'look_at_steps'];

function history(c: EnvCost): string {
  const parts: string[] = [];
  const from = (steps: (number | null)[]): string => (steps[0] === null || steps[0] === undefined ? '' : ` from @${steps[0]}`);
  if (c.resets.length > 0) {
    const why = [...new Set(c.resets.map((r) => r.reason))].join('/');
    parts.push(`${c.resets.length} reset${c.resets.length === 1 ? '' : 's'} (${why})${from(c.resets.map((r) => r.step))}`);
  }
  if (c.nan.length > 0) parts.push(`${c.nan.length} NaN (in ${[...new Set(c.nan.map((n) => n.stage))].join('/')})${from(c.nan.map((n) => n.step))}`);
  if (c.notConverged.count > 0) parts.push(`${c.notConverged.count} unconverged${from(c.notConverged.steps)}`);
  return parts.join('; ') || '-';
}

function csvRow(c: EnvCost): unknown[] {
  return [
    c.env, c.iterations?.total ?? '', c.iterations?.mean ?? '', c.iterations?.max ?? '', c.iterations?.maxStep ?? '',
    c.contacts?.mean ?? '', c.contacts?.max ?? '', c.resets.length, c.resets.map((r) => r.step).join(' '),
    c.nan.length, c.nan.map((n) => n.step).join(' '), c.notConverged.count, c.lookAt.join(' '),
  ];
}

export function renderEnvs(r: EnvsResult, options: EnvsViewOptions): string {
  const width = options.width ?? Math.min(terminalWidth(), 120);
  const out: string[] = [];
  const text = (line: string): void => { out.push(wrap(line, width)); };
  const reasons = Object.entries(r.resetsByReason).map(([k, n]) => `${k} ${thousands(n)}`).join(', ');
  const batch = r.nEnvs === null ? 'batch size unknown (no per-env timers)' : `${thousands(r.nEnvs)} envs`;
  text(`${batch}, ${thousands(r.steps)} steps; ${thousands(r.totalResets)} env resets${reasons ? ` (${reasons})` : ''}, ${thousands(r.nanEvents)} NaN findings, ${thousands(r.notConvergedEvents)} unconverged solves; ${thousands(r.envsWithEvents)} envs with any.`);
  const it = r.counters['solver iterations (max)'];
  const mean = r.counters['solver iterations (mean)'];
  const con = r.counters.contacts;
  if (it) text(`Per step: solver iterations max ${thousands(it.max)} (mean of the per-step max ${it.mean.toFixed(2)})${mean ? `, mean over envs ${mean.mean.toFixed(2)}` : ''}${con ? `; contacts ${con.mean.toFixed(1)} on average, at most ${thousands(con.max)}` : ''}.`);
  out.push('');
  const ranked = r.rankedBy === 'solver iterations' ? 'solver iterations summed over the steps (per-env timers)' : 'events (no per-env timers in this trace: only envs up to the highest one an event names are known)';
  text(`Envs that cost the most, by ${ranked}; steps are the 'step' slices' numbers on the timeline:`);
  const row = (c: EnvCost): (string | number)[] => [
    c.env,
    c.iterations ? thousands(c.iterations.total) : '-',
    c.iterations ? `${c.iterations.max} @${c.iterations.maxStep ?? '?'}` : '-',
    c.contacts ? `${c.contacts.mean.toFixed(1)} / ${c.contacts.max}` : '-',
    history(c),
    c.lookAt.join(', ') || '-',
  ];
  const head = ['env', 'iterations', 'max @step', 'contacts mean/max', 'resets, NaN, unconverged', 'look at steps'];
  const table = (list: EnvCost[]): string => renderTable(head, list.map(row), { color: options.color, align: ['right', 'right', 'right', 'right', 'left', 'left'], maxColWidth: 64 });
  out.push(table(r.envs));
  out.push('');
  const listed = new Set(r.envs.map((c) => c.env));
  if (r.eventful.some((c) => !listed.has(c.env))) {
    text('Envs with resets, NaNs or unconverged solves, most first:');
    out.push(table(r.eventful));
    out.push('');
  }
  const what = r.rankedBy === 'solver iterations' ? 'solver iterations summed over the steps' : `events, envs 0-${r.perEnv.length - 1}`;
  out.push(renderHistogram(r.perEnv, { width, bins: 10, format: (v) => (Number.isInteger(v) ? thousands(v) : v.toFixed(1)), title: wrap(`Histogram of per-env ${what} (envs per bin)`, width) }));
  out.push('');
  const { r: corr, n } = r.correlation;
  text(corr === null
    ? `Step time against 'solver iterations (max)': not enough varying steps to correlate (${n} steps with both).`
    : `Step time against 'solver iterations (max)': Pearson r = ${corr.toFixed(2)} over ${thousands(n)} steps.`);
  if (r.slowestSteps.length > 0) {
    text(`Slowest steps: ${r.slowestSteps.map((s) => `step ${s.step ?? '?'} ${duration(s.durNs)}${s.iterationsMax !== null ? ` (max ${s.iterationsMax} iterations${s.topEnv ? `, env ${s.topEnv.env}` : ''})` : ''}`).join('; ')}`);
  }
  return out.join('\n');
}

export async function envsReport(given: string, options: EnvsViewOptions): Promise<View> {
  const { envs } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  const result = await withTrace(trace, (db) => envs(db, { top: options.top ?? 10 }));
  if (!result) {
    throw new CliError(trace, "no physics counters or env events in this trace (record a sim-core scene with `gsprof record --example ...` or `--scene FILE`, without --no-physics-counters)");
  }
  const data = { trace, ...result };
  if (options.format === 'json') return { text: '', data };
  if (options.format === 'csv') {
    const all = result.envs;
    return { text: renderCsv(CSV_HEAD, all.map(csvRow)), data };
  }
  return { text: `Trace: ${trace}\n${renderEnvs(result, options)}`, data };
}
