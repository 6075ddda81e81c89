/** `gsprof bench --html FILE`: the scaling sweep as a page: env-steps/s and step time against nEnvs, and the table. */
import type { BenchResult } from '../../record/bench.js';
import { duration, thousands } from '../format.js';
import { type ChartSpec, COLORS, chartBox, esc, htmlPage, notice, sortableTable } from './page.js';

export function benchPage(result: BenchResult, options: { example: string; steps: number; warmup: number }): string {
  const charts: ChartSpec[] = [];
  const p = result.points;
  const body: string[] = [];
  const backends = [...new Set(p.map((x) => x.backend))].join(', ') || '-';
  body.push(`<p>${esc(`${options.example} on ${backends}: each point a fresh process, ${options.warmup} untimed steps, then ${options.steps} timed steps to a final sync; no profiler attached.`)}</p>`);
  if (p.length === 0) body.push(notice('No point was measured.'));
  else {
    const x = p.map((q) => q.nEnvs);
    const logX = x.length > 1 && x[x.length - 1]! / x[0]! >= 8;
    body.push(chartBox({ id: 'chart-bench-throughput', x, xLabel: 'nEnvs', yLabel: 'env-steps/s', xUnit: 'count', yUnit: 'count', logX, yFromZero: true,
      series: [{ label: 'env-steps/s', values: p.map((q) => q.envStepsPerSecond), color: COLORS.main, kind: 'line' },
        { label: 'measured point', values: p.map((q) => q.envStepsPerSecond), color: COLORS.main, kind: 'points', size: 7 }] },
    'Throughput (completed env-steps per second) against nEnvs', charts));
    body.push(chartBox({ id: 'chart-bench-step', x, xLabel: 'nEnvs', yLabel: 'step time', xUnit: 'count', yUnit: 'ns', logX, yFromZero: true,
      series: [{ label: 'step time', values: p.map((q) => q.stepSeconds * 1e9), color: COLORS.warmup, kind: 'line' },
        { label: 'measured point', values: p.map((q) => q.stepSeconds * 1e9), color: COLORS.warmup, kind: 'points', size: 7 }] },
    'Step time (all envs) against nEnvs', charts));
    body.push(sortableTable(['nEnvs', 'Backend', 'env-steps/s', 'Step', 'Build (s)', 'First step (s)'].map((label) => ({ label, type: label === 'Backend' ? 'text' : 'number' } as const)),
      p.map((q) => [{ text: thousands(q.nEnvs), v: q.nEnvs }, { text: q.backend }, { text: thousands(q.envStepsPerSecond, 0), v: q.envStepsPerSecond },
        { text: duration(q.stepSeconds * 1e9), v: q.stepSeconds }, { text: q.buildSeconds.toFixed(2), v: q.buildSeconds }, { text: q.firstStepSeconds.toFixed(2), v: q.firstStepSeconds }]), 'bench-table'));
  }
  if (result.stoppedAt) body.push(notice(`Stopped at nEnvs ${result.stoppedAt.nEnvs}: ${result.stoppedAt.reason}`));
  return htmlPage({ title: `gsprof bench: ${options.example}`, subtitle: 'Scaling sweep: env-steps/s against nEnvs', body: body.join('\n'), charts });
}
