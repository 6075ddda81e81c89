/** `gsprof summary`: the nsys-style kernel table per GPU track, then steps, FPS and compile time. */
import type { KernelRow, KernelSummary } from '@gsprof/profiler';
import { duration, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';
import { terminalWidth } from '../render/color.js';
import { withTrace } from './open-trace.js';

export interface View { text: string; data: unknown }

const HEAD = ['Time (%)', 'Total Time (ns)', 'Instances', 'Avg (ns)', 'Med (ns)', 'Min (ns)', 'Max (ns)', 'StdDev (ns)', 'Name'];
const ALIGN: Array<'left' | 'right'> = ['right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];

function kernelCells(k: KernelRow): string[] {
  return [
    k.timePercent.toFixed(1), thousands(k.totalTimeNs), thousands(k.instances), thousands(k.avgNs, 1), thousands(k.medNs, 1),
    thousands(k.minNs), thousands(k.maxNs), thousands(k.stdDevNs, 1), k.name,
  ];
}

/** Top `limit` rows, the rest folded into one "others" row (HTA's kernel breakdown does the same). */
export function foldRows(kernels: KernelRow[], limit: number): KernelRow[] {
  if (kernels.length <= limit) return kernels;
  const rest = kernels.slice(limit);
  const total = rest.reduce((a, k) => a + k.totalTimeNs, 0);
  const instances = rest.reduce((a, k) => a + k.instances, 0);
  return [...kernels.slice(0, limit), {
    name: `(${rest.length} others)`, timePercent: rest.reduce((a, k) => a + k.timePercent, 0), totalTimeNs: total,
    // reduce, not Math.min(...): a spread passes one argument per kernel and overflows the stack on huge traces.
    instances, avgNs: instances ? total / instances : 0, medNs: NaN, minNs: rest.reduce((a, k) => Math.min(a, k.minNs), Infinity),
    maxNs: rest.reduce((a, k) => Math.max(a, k.maxNs), -Infinity), stdDevNs: NaN,
  }];
}

/** Genesis' FPS line for the recorded steps. */
export function fpsSentence(fps: number, nEnvs: number | null): string {
  if (!nEnvs) return `Running at ${thousands(fps, 2)} FPS.`;
  return `Running at ${thousands(fps * nEnvs, 2)} FPS (${fps.toFixed(2)} FPS per env, ${nEnvs} envs).`;
}

export function renderSummary(s: KernelSummary, options: { color: boolean; limit?: number }): string {
  const out: string[] = [];
  if (s.tracks.length === 0) out.push('No kernels in this trace.');
  for (const track of s.tracks) {
    out.push(`${track.trackName}: ${thousands(track.kernels.reduce((a, k) => a + k.instances, 0))} kernels, ${duration(track.totalTimeNs)} total`);
    const rows = foldRows(track.kernels, options.limit ?? 25).map(kernelCells);
    // The numeric columns take about 100 characters; long C++ kernel names are cut to what is left (--json has them whole).
    out.push(renderTable(HEAD, rows, { color: options.color, align: ALIGN, maxColWidth: Math.max(40, terminalWidth() - 100) }));
  }
  if (s.steps) {
    const st = s.steps;
    out.push(`Steps: ${st.count} recorded, mean ${duration(st.meanNs)}, median ${duration(st.medianNs)}, p95 ${duration(st.p95Ns)}, min ${duration(st.minNs)}, max ${duration(st.maxNs)}`);
    out.push(fpsSentence(st.fps, st.nEnvs));
  } else {
    out.push('Steps: none recorded (no ProfilerStep#k spans).');
  }
  if (s.compileCount > 0) out.push(`Compile: ${duration(s.compileNs)} in ${s.compileCount} compile span(s)`);
  else if (s.build) {
    const first = s.build.firstStepSeconds === null ? '' : `, first step ${duration(s.build.firstStepSeconds * 1e9)}`;
    out.push(`Compile: before the recorded steps (scene build ${duration(s.build.seconds * 1e9)}${first})`);
  } else out.push('Compile: none recorded');
  return out.join('\n');
}

export async function summarize(trace: string, options: { color: boolean; limit?: number }): Promise<View> {
  const { kernelSummary } = await import('@gsprof/profiler');
  const summary = await withTrace(trace, (db) => kernelSummary(db));
  return { text: renderSummary(summary, options), data: summary };
}
