/** SQL fragments shared by the analyses: what counts as a GPU op, a step, a CPU slice. */
import { GPU_OP_CATEGORIES, GPU_OP_CATEGORY_SQL, KERNEL_CATEGORY_SQL } from '../sql/schema.js';
import type { TraceDb } from '../sql/traceDb.js';

export { GPU_OP_CATEGORY_SQL };

/** Kernels: category 'kernel' (Kineto; our WebGPU passes and CPU-backend stages), old Kineto's 'Kernel', MTIA's. */
export const KERNEL_WHERE = `category IN ${KERNEL_CATEGORY_SQL} AND dur >= 0`;

/** ProfilerStep#k host slices (not Kineto's GPU-side copies of the annotation). */
export const STEP_WHERE = `name LIKE 'ProfilerStep#%' AND coalesce(category, '') <> 'gpu_user_annotation' AND dur >= 0`;

/**
 * Host (CPU) work: every slice that is not a GPU op nor Kineto's GPU-side copy of an annotation. By category,
 * not by track, so that the CPU backend (kernels on the host thread) keeps its other host slices.
 */
export const HOST_WHERE = `coalesce(category, '') NOT IN (${[...GPU_OP_CATEGORIES, 'gpu_user_annotation'].map((c) => `'${c}'`).join(', ')})`;

export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Display name of each track: its own name, else its thread's or process's, else "track <id>". */
export const TRACK_NAME_SQL = `
  SELECT t.id AS track_id,
         coalesce(t.name, th.name, p.name,
                  CASE WHEN th.tid IS NOT NULL THEN 'thread ' || th.tid END, 'track ' || t.id) AS track_name,
         coalesce(p.pid, pp.pid) AS pid, th.tid AS tid
  FROM track t LEFT JOIN thread th ON th.utid = t.utid LEFT JOIN process p ON p.upid = t.upid
  LEFT JOIN process pp ON pp.upid = th.upid`;

/** Number of environments of the recorded run, from our metadata, if present. */
export async function nEnvsOf(db: TraceDb): Promise<number | null> {
  for (const name of ['gsprof.run.nEnvs', 'gsprof.nEnvs', 'nEnvs']) {
    const v = await db.metadata(name);
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (Number.isFinite(n) && n > 0) return n;
  }
  return null;
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);
