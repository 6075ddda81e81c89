/**
 * `gsprof merge` in bounded memory: the ranks' EventStreams (each in time order) merged into one EventStream on
 * mergeLayout's header, by a k-way merge that holds one batch per rank. Events move onto the merged timeline and
 * tracks; flow ids are renumbered so that ranks never share one; per-env timer samples stay in the rank traces
 * (their slots would mix ranks) and are only counted.
 */
import type { EventStream, StreamEvent, StreamFlow } from '../export/event-stream.js';
import { eventTime } from '../export/event-stream.js';
import { mergeLayout, type ClockAlignmentPlan } from './merge.js';

export interface StreamPart {
  rank: number;
  source: string;
  stream: EventStream;
  /** The ids of the part's commonest flows (which its flowNames give without ids): read only where parts
   *  disagree on which (category, name) is commonest. */
  commonFlowIds(): Promise<number[]>;
}

/** What the merge saw of each part, complete once the merged stream has been read to its end. */
export interface MergeStreamCounts {
  /** Per part, in the order given. */
  slices: number[];
  /** Timer samples left in the rank traces. */
  envTimerSamples: number;
}

/** Events per merged batch. */
const BATCH = 4096;

/** Flow ids of part `i` of `n`: id k becomes (k - 1) n + i + 1, so ranks' ids never meet. */
function flowId(id: number, i: number, n: number): number {
  return (id - 1) * n + i + 1;
}

export async function mergeEventStreams(parts: readonly StreamPart[], plan: ClockAlignmentPlan): Promise<{ stream: EventStream; counts: MergeStreamCounts }> {
  const n = parts.length;
  const layout = mergeLayout(parts.map((p) => ({ rank: p.rank, source: p.source, ...p.stream })), plan);
  const counts: MergeStreamCounts = { slices: parts.map(() => 0), envTimerSamples: 0 };
  const flowNames = await mergedFlowNames(parts, n);

  const move = (e: StreamEvent, i: number): StreamEvent | null => {
    const { shiftNs, trackId } = layout.parts[i]!;
    const flows = (fs: StreamFlow[] | undefined): StreamFlow[] | undefined => fs?.map((f) => ({ ...f, id: flowId(f.id, i, n) }));
    switch (e.kind) {
      case 'slice': {
        counts.slices[i]!++;
        const out: StreamEvent = { ...e, track: trackId.get(e.track)!, ts: e.ts + shiftNs };
        if (e.flowsOut) out.flowsOut = flows(e.flowsOut)!;
        if (e.flowsIn) out.flowsIn = flows(e.flowsIn)!;
        return out;
      }
      case 'instant':
      case 'counter':
        return { ...e, track: trackId.get(e.track)!, ts: e.ts + shiftNs };
      case 'timers':
        counts.envTimerSamples++;
        return null;
    }
  };

  async function* events(): AsyncGenerator<readonly StreamEvent[]> {
    const iters = parts.map((p) => p.stream.events[Symbol.asyncIterator]());
    const heads: Array<{ batch: readonly StreamEvent[]; at: number } | null> = parts.map(() => null);
    const refill = async (i: number): Promise<void> => {
      for (;;) {
        const r = await iters[i]!.next();
        if (r.done) { heads[i] = null; return; }
        if (r.value.length > 0) { heads[i] = { batch: r.value, at: 0 }; return; }
      }
    };
    await Promise.all(parts.map((_, i) => refill(i)));
    let out: StreamEvent[] = [];
    for (;;) {
      // The earliest head on the merged timeline; ties go to the lower part, so each part keeps its own order.
      let best = -1;
      let bestTs = Infinity;
      for (let i = 0; i < n; i++) {
        const h = heads[i];
        if (!h) continue;
        const ts = eventTime(h.batch[h.at]!) + layout.parts[i]!.shiftNs;
        if (best < 0 || ts < bestTs) { best = i; bestTs = ts; }
      }
      if (best < 0) break;
      const h = heads[best]!;
      const moved = move(h.batch[h.at]!, best);
      if (moved) out.push(moved);
      if (++h.at === h.batch.length) await refill(best);
      if (out.length >= BATCH) { yield out; out = []; }
    }
    if (out.length > 0) yield out;
  }

  return {
    stream: { metadata: layout.metadata, processes: layout.processes, tracks: layout.tracks, ...(flowNames !== undefined ? { flowNames } : {}), events: events() },
    counts,
  };
}

interface FlowNames { default: [string, string]; other: Array<[string, string, number[]]> }

/**
 * The parts' flow names (flowNamesOfGroups' JSON) with their ids renumbered. Each part's commonest (category,
 * name) comes without ids; the first part's stays the merged default, and a part whose commonest differs has
 * those ids read (commonFlowIds) and listed.
 */
async function mergedFlowNames(parts: readonly StreamPart[], n: number): Promise<string | undefined> {
  let fallback: [string, string] | null = null;
  const other = new Map<string, [string, string, number[]]>();
  const add = (cat: string, name: string, ids: readonly number[], i: number): void => {
    const key = `${cat}\u0000${name}`;
    let group = other.get(key);
    if (!group) { group = [cat, name, []]; other.set(key, group); }
    for (const id of ids) group[2].push(flowId(id, i, n));
  };
  for (const [i, part] of parts.entries()) {
    const text = part.stream.flowNames;
    if (text === undefined) continue;
    const names = JSON.parse(text) as FlowNames;
    fallback ??= names.default;
    if (names.default[0] !== fallback[0] || names.default[1] !== fallback[1]) add(names.default[0], names.default[1], await part.commonFlowIds(), i);
    for (const [cat, name, ids] of names.other) add(cat, name, ids, i);
  }
  if (fallback === null) return undefined;
  // A group listed here that is the default pair would be the same; no part lists it (it is its default).
  return JSON.stringify({ default: fallback, other: [...other.values()] });
}
