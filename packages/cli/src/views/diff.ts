/** `gsprof diff`: HTA TraceDiff, GPU kernels then CPU ops, sorted by the size of the change. */
import type { DiffRow, DiffSide, TraceDb } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { duration, thousands } from '../render/format.js';
import { renderTable } from '../render/table.js';
import { resolveTrace, withTrace } from './open-trace.js';
import type { View } from './view.js';

function side(title: string, s: DiffSide, options: { color: boolean; limit: number }): string {
  const changed = s.rows.filter((r) => r.change !== 'unchanged' || r.diffDurNs !== 0);
  const sorted = [...changed].sort((a, b) => Math.abs(b.diffDurNs) - Math.abs(a.diffDurNs) || a.name.localeCompare(b.name));
  const signed = (v: number, f: (x: number) => string): string => `${v > 0 ? '+' : v < 0 ? '-' : ''}${f(Math.abs(v))}`;
  const cells = (r: DiffRow): string[] => [r.name, thousands(r.controlCount), thousands(r.testCount), signed(r.diffCount, (x) => thousands(x)),
    duration(r.controlDurNs), duration(r.testDurNs), signed(r.diffDurNs, duration), r.change];
  const head = `${title}: ${s.added.length} added, ${s.deleted.length} deleted, ${s.increased.length} increased, ${s.decreased.length} decreased, ${s.unchanged.length} unchanged in count`;
  if (sorted.length === 0) return `${head}\n(no differences)`;
  const shown = sorted.slice(0, options.limit);
  const more = sorted.length > shown.length ? `\n(${sorted.length - shown.length} more; --limit to show them)` : '';
  return `${head}\n${renderTable(['Name', 'Control n', 'Test n', 'Δ n', 'Control total', 'Test total', 'Δ total', 'Change'], shown.map(cells), {
    color: options.color, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], maxColWidth: 50,
  })}${more}`;
}

export async function diffReport(control: string, test: string, options: { color: boolean; limit: number; iteration?: number }): Promise<View> {
  control = resolveTrace(control);
  test = resolveTrace(test);
  const { diff } = await import('@gsprof/profiler');
  const { iteration } = options;
  // A step that is not in a trace would compare nothing and print "no differences": refuse it instead.
  const hasStep = async (db: TraceDb, path: string): Promise<void> => {
    if (iteration === undefined) return;
    const [r] = await db.rows<{ n: number }>(`SELECT count(*) AS n FROM slice WHERE name = 'ProfilerStep#${iteration}'`);
    if (!r || r.n === 0) throw new CliError(path, `has no ProfilerStep#${iteration} (--iteration)`);
  };
  const result = await withTrace(control, (c) => withTrace(test, async (t) => {
    await hasStep(c, control);
    await hasStep(t, test);
    return diff(c, t, { iteration });
  }));
  return { text: `Control: ${control}\nTest: ${test}\n${side('GPU kernels', result.kernels, options)}\n\n${side('CPU ops', result.ops, options)}`, data: { control, test, ...result } };
}
