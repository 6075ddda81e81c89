/**
 * Which rank of a multi-process run wrote a trace: gsprof's own metadata (a process a launcher started), else the
 * Kineto trace's distributedInfo, which PyTorch writes for every distributed run.
 */
import type { TraceDb } from '../sql/trace-db.js';

export interface TraceRank {
  rank: number;
  worldSize: number;
  /** The launch every rank of the run shares, when the launcher named it. */
  jobId: string | null;
}

/** A JSON object held in a metadata string, or undefined (not a string, not JSON, not an object). */
export function parseJsonObject(v: unknown): Record<string, unknown> | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const o = JSON.parse(v) as unknown;
    return o && typeof o === 'object' && !Array.isArray(o) ? o as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** The rank a trace was recorded as; null for a trace of a process on its own (no distributedInfo, or a world
 * of one). */
export async function rankOf(db: TraceDb): Promise<TraceRank | null> {
  const info = (parseJsonObject(await db.metadata('gsprof.json'))?.distributedInfo as Record<string, unknown> | undefined)
    ?? parseJsonObject(await db.metadata('distributedInfo'));
  if (!info) return null;
  const rank = Number(info.rank);
  const worldSize = Number(info.world_size);
  if (!Number.isSafeInteger(rank) || !Number.isSafeInteger(worldSize) || worldSize < 2 || rank < 0 || rank >= worldSize) return null;
  return { rank, worldSize, jobId: typeof info.job_id === 'string' ? info.job_id : null };
}
