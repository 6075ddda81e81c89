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

/** A trace left out of a set of ranks, and why (one line). */
export interface SkippedTrace {
  path: string;
  reason: string;
}

/**
 * The ranks of a set of traces, claimed one trace at a time: a trace without a rank is rank 0 when it is the only
 * one and is skipped among several (which rank it is cannot be told); when two traces claim one rank, both are
 * skipped (which is the rank's cannot be told either), and so is any later claimant.
 */
export class RankClaims {
  readonly skipped: SkippedTrace[] = [];
  private readonly owner = new Map<number, string>();
  private readonly contested = new Set<number>();

  constructor(private readonly total: number) {}

  /** The trace's rank, or null when it is skipped; `evicted`: the rank an earlier trace held, now skipped with
   * this one (the caller drops what it kept of that rank). */
  claim(path: string, found: TraceRank | null): { rank: number | null; evicted: number | null } {
    if (!found && this.total > 1) return this.refuse(path, 'names no rank (no distributedInfo): which rank it is cannot be told');
    const rank = found?.rank ?? 0;
    if (this.contested.has(rank)) return this.refuse(path, `rank ${rank} is claimed by another trace too; none of them is used`);
    const first = this.owner.get(rank);
    if (first !== undefined) {
      this.owner.delete(rank);
      this.contested.add(rank);
      this.skip(first, `rank ${rank} is claimed by ${path} too; neither is used`);
      return { ...this.refuse(path, `rank ${rank} is claimed by ${first} too; neither is used`), evicted: rank };
    }
    this.owner.set(rank, path);
    return { rank, evicted: null };
  }

  private refuse(path: string, reason: string): { rank: null; evicted: null } {
    this.skip(path, reason);
    return { rank: null, evicted: null };
  }

  /** Records a trace that could not be read at all. */
  skip(path: string, reason: string): null {
    this.skipped.push({ path, reason });
    return null;
  }
}
