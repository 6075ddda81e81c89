/** SQL fragments shared by the analyses: what counts as a GPU op, a step, a CPU slice. */
import { GPU_OP_CATEGORIES, GPU_OP_CATEGORY_SQL, KERNEL_CATEGORY_SQL } from '../sql/schema.js';
import type { TraceDb } from '../sql/trace-db.js';

export { GPU_OP_CATEGORY_SQL };

/** Kernels: category 'kernel' (Kineto; our WebGPU passes), old Kineto's 'Kernel', MTIA's. GPU work only. */
export const KERNEL_WHERE = `category IN ${KERNEL_CATEGORY_SQL} AND dur >= 0`;

/** CPU ops: category 'cpu_op' (Kineto; the CPU backend's stages, on the thread that ran them). */
export const CPU_OP_WHERE = `category = 'cpu_op' AND dur >= 0`;

/**
 * What a trace's stage table holds: its GPU kernels, or, in a trace with none (a CPU-backend run), the CPU
 * stages it recorded as cpu_op slices. Analyses that summarise "the work per step" ask this once per trace so
 * a CPU-only run is summarised, and labelled, as CPU work.
 */
export interface StageSource {
  kind: 'gpu kernels' | 'cpu stages';
  where: string;
}

export async function stageSourceOf(db: TraceDb): Promise<StageSource> {
  const [r] = await db.rows<Record<string, unknown>>(`SELECT count(*) AS n FROM slice WHERE ${KERNEL_WHERE}`);
  if (num(r?.n ?? 0) > 0) return { kind: 'gpu kernels', where: KERNEL_WHERE };
  const [c] = await db.rows<Record<string, unknown>>(`SELECT count(*) AS n FROM slice WHERE ${CPU_OP_WHERE}`);
  return num(c?.n ?? 0) > 0 ? { kind: 'cpu stages', where: CPU_OP_WHERE } : { kind: 'gpu kernels', where: KERNEL_WHERE };
}

/** ProfilerStep#k host slices (not Kineto's GPU-side copies of the annotation). */
export const STEP_WHERE = `name LIKE 'ProfilerStep#%' AND coalesce(category, '') <> 'gpu_user_annotation' AND dur >= 0`;

/**
 * Host (CPU) work: every slice that is not a GPU op nor Kineto's GPU-side copy of an annotation. By category,
 * not by track, so that the CPU backend (kernels on the host thread) keeps its other host slices.
 */
export const HOST_WHERE = `coalesce(category, '') NOT IN (${[...GPU_OP_CATEGORIES, 'gpu_user_annotation'].map((c) => `'${c}'`).join(', ')})`;

/** Host API calls: WebGPU encode/submit/map/sync spans, Kineto's CUDA runtime and driver calls and syncs. */
export const HOST_API_WHERE = `category IN ('cuda_runtime', 'cuda_driver', 'cuda_sync')`;

/**
 * Memory operations: GPU-side copies and fills (Kineto gpu_memcpy / gpu_memset) and the host calls that move
 * buffer contents (WebGPU writeBuffer, mapAsync, copyBufferToBuffer; CUDA memcpy/memset calls).
 */
export const MEMOP_WHERE = `category IN ('gpu_memcpy', 'gpu_memset')
  OR name IN ('queue.writeBuffer', 'GPUBuffer.mapAsync', 'copyBufferToBuffer', 'copyBufferToTexture', 'copyTextureToBuffer')
  OR (category IN ('cuda_runtime', 'cuda_driver') AND (name ILIKE 'cudaMemcpy%' OR name ILIKE 'cudaMemset%' OR name ILIKE 'cuMemcpy%' OR name ILIKE 'cuMemset%'))`;

/** User ranges: recordFunction spans and annotations, not the ProfilerStep#k spans the profiler makes itself. */
export const RANGE_WHERE = `category = 'user_annotation' AND name NOT LIKE 'ProfilerStep#%'`;

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

/** GPU -> host clock alignment our recorder wrote into the trace metadata; null for other traces. */
export interface ClockAlignmentInfo {
  /** Half-width of the feasible offset interval, ns; -1 when only one side was bounded (unknown). */
  errorBoundNs: number;
  driftPpm: number;
  samples: number;
  method: string;
  /** The drift fit ran into its search bound (not a physical drift). */
  driftAtBound: boolean;
}

export async function clockAlignmentOf(db: TraceDb): Promise<ClockAlignmentInfo | null> {
  const bound = num(await db.metadata('gsprof.clockAlignment.errorBoundNs'));
  if (!Number.isFinite(bound)) return null;
  const method = await db.metadata('gsprof.clockAlignment.method');
  return {
    errorBoundNs: bound,
    driftPpm: num(await db.metadata('gsprof.clockAlignment.driftPpm')),
    samples: num(await db.metadata('gsprof.clockAlignment.samples')),
    method: typeof method === 'string' ? method : '',
    driftAtBound: num(await db.metadata('gsprof.clockAlignment.driftAtBound')) === 1,
  };
}

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
