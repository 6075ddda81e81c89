/**
 * gsprof's own work inside the recorded period: the host spans of category 'gsprof' (timestamp resolution and
 * readback, trace hand-over, the record loop's progress output, event-loop yields, timer copies and backpressure
 * waits), clipped to the period from the first step's start to the last one's completion. A reader sees how much
 * of what was measured the profiler itself cost (the observer effect), by name.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { STEP_WHERE, num } from './common.js';

export interface OwnWork {
  /** ns of gsprof spans in the period (outermost ones: a gsprof span inside another is not counted twice). */
  ns: number;
  /** ns / the period. */
  share: number;
  byName: { name: string; ns: number; count: number }[];
}

/** `periodNs`: from the first step's start to the last one's completion (StepTimes.periodNs). Null with no step
 * or no gsprof span (a trace gsprof did not record). */
export async function ownWork(db: TraceDb, periodNs: number): Promise<OwnWork | null> {
  if (!(periodNs > 0)) return null;
  const rows = await db.rows<{ name: string; ns: number; n: number }>(`
    WITH p AS (SELECT min(ts) AS a, min(ts) + ${Math.round(periodNs)} AS b FROM slice WHERE ${STEP_WHERE}),
    g AS (SELECT s.name, greatest(s.ts, p.a) AS a, least(s.ts + s.dur, p.b) AS b
          FROM slice s LEFT JOIN slice par ON par.id = s.parent_id, p
          WHERE s.category = 'gsprof' AND s.dur >= 0 AND (par.id IS NULL OR par.category IS DISTINCT FROM 'gsprof'))
    SELECT name, CAST(sum(b - a) AS BIGINT) AS ns, count(*) AS n FROM g WHERE b > a GROUP BY name ORDER BY ns DESC, name`);
  if (rows.length === 0) return null;
  const byName = rows.map((r) => ({ name: String(r.name), ns: num(r.ns), count: num(r.n) }));
  const ns = byName.reduce((a, r) => a + r.ns, 0);
  return { ns, share: ns / periodNs, byName };
}
