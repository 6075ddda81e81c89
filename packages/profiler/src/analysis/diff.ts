/**
 * Trace diff with Holistic Trace Analysis' TraceDiff semantics: per name, counts and total durations in the
 * control and test traces, CPU ops and GPU kernels separately; a name is added (only in test), deleted (only
 * in control), increased / decreased (count went up / down) or unchanged.
 * With an iteration, CPU ops are those starting inside that ProfilerStep#k (any thread), and GPU ops are those
 * launched by a CPU op inside it.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { GPU_OP_CATEGORY_SQL, HOST_WHERE, STEP_WHERE, num, sqlString } from './common.js';

export interface DiffOptions {
  /** ProfilerStep number to compare in both traces (HTA's control_iteration / test_iteration). */
  iteration?: number;
  controlIteration?: number;
  testIteration?: number;
}

export type ChangeKind = 'added' | 'deleted' | 'increased' | 'decreased' | 'unchanged';

export interface DiffRow {
  name: string;
  controlCount: number;
  testCount: number;
  controlDurNs: number;
  testDurNs: number;
  diffCount: number;
  diffDurNs: number;
  change: ChangeKind;
}

export interface DiffSide {
  rows: DiffRow[];
  added: string[];
  deleted: string[];
  increased: string[];
  decreased: string[];
  unchanged: string[];
}

export interface DiffResult {
  ops: DiffSide;
  kernels: DiffSide;
}

interface Summary { name: string; n: number; dur: number }

async function summarize(db: TraceDb, device: 'cpu' | 'gpu', iteration: number | undefined): Promise<Map<string, Summary>> {
  let sql: string;
  if (device === 'cpu') {
    const inStep = iteration === undefined ? '' : `
      AND EXISTS (SELECT 1 FROM slice st WHERE ${STEP_WHERE.replace(/\b(name|category|dur)\b/g, 'st.$1')}
                  AND st.name = ${sqlString(`ProfilerStep#${iteration}`)} AND s.ts >= st.ts AND s.ts < st.ts + st.dur)`;
    sql = `SELECT s.name, count(*) AS n, sum(greatest(s.dur, 0)) AS dur FROM slice s
           WHERE ${HOST_WHERE.replace('category', 's.category')} AND s.name IS NOT NULL AND s.dur >= 0 ${inStep} GROUP BY s.name`;
  } else {
    const inStep = iteration === undefined ? '' : `
      AND EXISTS (SELECT 1 FROM gpu_launch gl
                  JOIN slice st ON st.name = ${sqlString(`ProfilerStep#${iteration}`)}
                    AND coalesce(st.category, '') <> 'gpu_user_annotation' AND gl.launch_ts >= st.ts AND gl.launch_ts < st.ts + st.dur
                  WHERE gl.gpu_slice_id = s.id)`;
    sql = `SELECT s.name, count(*) AS n, sum(greatest(s.dur, 0)) AS dur FROM slice s
           WHERE s.category IN ${GPU_OP_CATEGORY_SQL} AND s.name IS NOT NULL ${inStep} GROUP BY s.name`;
  }
  const rows = await db.rows<Record<string, unknown>>(sql);
  return new Map(rows.map((r) => [String(r.name), { name: String(r.name), n: num(r.n), dur: num(r.dur) }]));
}

function compareSide(control: Map<string, Summary>, test: Map<string, Summary>): DiffSide {
  const names = [...new Set([...control.keys(), ...test.keys()])].sort();
  const side: DiffSide = { rows: [], added: [], deleted: [], increased: [], decreased: [], unchanged: [] };
  for (const name of names) {
    const c = control.get(name);
    const t = test.get(name);
    const cn = c?.n ?? 0;
    const tn = t?.n ?? 0;
    const change: ChangeKind = cn === 0 ? 'added' : tn === 0 ? 'deleted' : tn > cn ? 'increased' : tn < cn ? 'decreased' : 'unchanged';
    side.rows.push({ name, controlCount: cn, testCount: tn, controlDurNs: c?.dur ?? 0, testDurNs: t?.dur ?? 0,
      diffCount: tn - cn, diffDurNs: (t?.dur ?? 0) - (c?.dur ?? 0), change });
    side[change].push(name);
  }
  side.rows.sort((a, b) => Math.abs(b.diffDurNs) - Math.abs(a.diffDurNs) || a.name.localeCompare(b.name));
  return side;
}

export async function diff(control: TraceDb, test: TraceDb, opts: DiffOptions = {}): Promise<DiffResult> {
  const ci = opts.controlIteration ?? opts.iteration;
  const ti = opts.testIteration ?? opts.iteration;
  return {
    ops: compareSide(await summarize(control, 'cpu', ci), await summarize(test, 'cpu', ti)),
    kernels: compareSide(await summarize(control, 'gpu', ci), await summarize(test, 'gpu', ti)),
  };
}
