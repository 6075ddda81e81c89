/** `gsprof summary`: the nsys-style kernel table per GPU track (CPU stages per thread for a CPU-backend trace),
 * then steps, FPS and compile time. */
import { traceStats, type KernelRow, type KernelSummary } from '@gsprof/profiler';
import { duration, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';
import { resolveTrace, withTrace } from './open-trace.js';
import type { View } from './view.js';

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

/** The profiler's own share of the recorded period, by span name (the largest first). */
export function ownWorkLine(own: NonNullable<KernelSummary['ownWork']>): string {
  const parts = own.byName.slice(0, 5).map((r) => `${r.name} ${duration(r.ns)}`);
  if (own.byName.length > 5) parts.push(`${own.byName.length - 5} more`);
  return `gsprof's own work: ${duration(own.ns)}, ${(100 * own.share).toFixed(1)}% of the recorded period (${parts.join(', ')})`;
}

export function renderSummary(s: KernelSummary, options: { color: boolean; limit?: number; nameWidth?: number }): string {
  const out: string[] = [];
  const cpu = s.kind === 'cpu stages';
  if (s.tracks.length === 0) out.push('No kernels in this trace.');
  // A CPU-backend trace has no GPU kernels: its table is the CPU stages, on the threads that ran them.
  if (cpu && s.tracks.length > 0) out.push('CPU stages (no GPU work in this trace):');
  for (const track of s.tracks) {
    const what = cpu ? 'CPU stage spans' : 'kernels';
    out.push(`${track.trackName}: ${thousands(track.kernels.reduce((a, k) => a + k.instances, 0))} ${what}, ${duration(track.totalTimeNs)} total; Time (%) of this track (--report kernels: across all)`);
    const rows = foldRows(track.kernels, options.limit ?? 25).map(kernelCells);
    // Full names, as nsys prints them, unless --name-width asks for a cut.
    const width = options.nameWidth;
    if (width !== undefined) for (const r of rows) if (r[8]!.length > width) r[8] = `${r[8]!.slice(0, width - 1)}…`;
    out.push(renderTable(HEAD, rows, { color: options.color, align: ALIGN }));
  }
  if (s.steps) {
    const st = s.steps;
    out.push(`Steps: ${st.count} recorded, mean ${duration(st.meanNs)}, median ${duration(st.medianNs)}, p95 ${duration(st.p95Ns)}, min ${duration(st.minNs)}, max ${duration(st.maxNs)}`);
    out.push(fpsSentence(st.fps, st.nEnvs));
    out.push(`Period: ${st.count} steps completed in ${duration(st.periodNs)}, from the first one's start to the last one's completion`);
    if (s.ownWork) out.push(ownWorkLine(s.ownWork));
    if (st.warmupFall !== null && st.warmupFall > traceStats.WARMUP_FALL) {
      out.push(`note: the steps were still speeding up (the last third's median step time is ${(st.warmupFall * 100).toFixed(0)}% below the first third's): these numbers include warm-up (JIT compilation, caches); record with a longer --warmup for the steady state`);
    }
  } else {
    out.push('Steps: none recorded (no ProfilerStep#k spans).');
  }
  if (s.compileCount > 0) {
    // On the GPU the spans cover shader-module and pipeline creation; a driver that compiles at the first
    // dispatch (Mesa) bills that to the first step, which can dwarf them: say both.
    const first = s.build?.firstStepSeconds;
    const driver = cpu ? '' : ' (a GPU driver that compiles at first dispatch bills it there)';
    const firstStep = first === null || first === undefined ? '' : `; first step ${duration(first * 1e9)}, outside the spans${driver}`;
    out.push(`Compile: ${duration(s.compileNs)} in ${s.compileCount} compile span(s)${firstStep}`);
  } else if (s.build) {
    const first = s.build.firstStepSeconds === null ? '' : `, first step ${duration(s.build.firstStepSeconds * 1e9)}`;
    out.push(`Compile: before the recorded steps (scene build ${duration(s.build.seconds * 1e9)}${first})`);
  } else out.push('Compile: none recorded');
  const alignment = clockAlignmentLine(s.clockAlignment);
  if (alignment) out.push(alignment);
  return out.join('\n');
}

/** The GPU -> host clock alignment a GPU recording was placed with (gaps' host-wait split depends on it). */
export function clockAlignmentLine(a: KernelSummary['clockAlignment']): string | null {
  if (!a) return null;
  if (a.errorBoundNs < 0) return `Clock alignment: error unknown (bounded on one side only; ${a.samples} samples)`;
  const drift = a.driftAtBound && a.driftPpm !== 0 ? `drift ${a.driftPpm.toFixed(0)} ppm, pinned at the search bound (not a physical drift)` : `drift ${a.driftPpm.toFixed(2)} ppm`;
  return `Clock alignment: +-${duration(a.errorBoundNs)}, ${drift}, ${a.samples} samples (${a.method})`;
}

export async function summarize(inputs: string[], options: { color: boolean; limit?: number; nameWidth?: number }): Promise<View> {
  const set = await (await import('./trace-set.js')).rankSetOf(inputs, { tables: false });
  if (set) return { ...await (await import('./rank-reports.js')).rankSummary(set.run, options), skipped: set.skipped };
  const given = inputs[0]!;
  const { kernelSummary } = await import('@gsprof/profiler');
  const trace = resolveTrace(given);
  const { mergedRanksOf } = await import('./rank-traces.js');
  const [summary, merged] = await withTrace(trace, async (db) => [await kernelSummary(db), await mergedRanksOf(db)] as const);
  // A merged trace holds several ranks' steps on one timeline: statistics over all of them describe no rank.
  const note = merged > 0 ? `\nnote: this trace merges ${merged} ranks (gsprof merge): its step statistics mix their steps; summary on the folder of the rank traces gives each rank's` : '';
  return { text: `Trace: ${trace}\n${renderSummary(summary, options)}${note}`, data: { trace, ...summary } };
}
