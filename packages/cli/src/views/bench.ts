import type { BenchResult } from '../record/bench.js';
import { renderChart } from '../render/chart.js';
import { terminalWidth } from '../render/color.js';
import { duration, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';

export function renderBench(result: BenchResult, options: { color: boolean; example: string }): string {
  const lines: string[] = [];
  const rows = result.points.map((p) => [
    thousands(p.nEnvs), p.backend, thousands(p.envStepsPerSecond, 0), duration(p.stepSeconds * 1e9),
    `${p.buildSeconds.toFixed(2)} s`, `${p.firstStepSeconds.toFixed(2)} s`,
  ]);
  lines.push(renderTable(['nEnvs', 'Backend', 'env-steps/s', 'Step', 'Build', 'First step'], rows, {
    color: options.color, align: ['right', 'left', 'right', 'right', 'right', 'right'],
  }));
  if (result.points.length > 1) {
    // One column block per point, so the x axis reads as the doubling sweep.
    const width = Math.min(terminalWidth(), 100);
    const per = Math.max(1, Math.floor((width - 16) / result.points.length));
    const series = result.points.flatMap((p) => Array<number>(per).fill(p.envStepsPerSecond));
    lines.push('');
    lines.push(renderChart([series], { width, height: 10, color: options.color, title: `${options.example}: env-steps/s against nEnvs`, format: (v) => thousands(v, 0) }));
    lines.push(`nEnvs: ${result.points.map((p) => p.nEnvs).join(' → ')}`);
  }
  if (result.stoppedAt) lines.push(`stopped at nEnvs ${result.stoppedAt.nEnvs}: ${result.stoppedAt.reason}`);
  return lines.join('\n');
}
