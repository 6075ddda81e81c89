/**
 * Makes every track strictly nested: a slice that partially overlaps an earlier one on its track (an async
 * readback awaited in the next step, a scope closed out of order) moves to an overflow track of the same kind,
 * the way Perfetto's JSON importer does. Exporters can then write B/E pairs and X events without checks.
 */
import type { SliceEvent, TraceTrack } from '../model/trace.js';

export function sortSlices(slices: SliceEvent[]): void {
  // Parents before children: earlier start first, then the longer one.
  slices.sort((a, b) => a.track - b.track || a.ts - b.ts || b.dur - a.dur);
}

/** Returns the new tracks it had to create. `nextId` gives fresh track ids. */
export function resolvePartialOverlaps(slices: SliceEvent[], tracks: TraceTrack[], nextId: () => number): TraceTrack[] {
  const created: TraceTrack[] = [];
  const overflowOf = new Map<number, number>();
  let pending = slices;
  for (let round = 0; round < 64 && pending.length; round++) {
    sortSlices(pending);
    const moved: SliceEvent[] = [];
    const stack: SliceEvent[] = [];
    let track = -1;
    for (const s of pending) {
      if (s.track !== track) { stack.length = 0; track = s.track; }
      const end = s.ts + s.dur;
      while (stack.length && stack[stack.length - 1]!.ts + stack[stack.length - 1]!.dur <= s.ts) stack.pop();
      const top = stack[stack.length - 1];
      if (top && end > top.ts + top.dur) { moved.push(s); continue; }
      stack.push(s);
    }
    if (!moved.length) break;
    for (const s of moved) {
      let target = overflowOf.get(s.track);
      if (target === undefined) {
        const base = tracks.find((t) => t.id === s.track) ?? created.find((t) => t.id === s.track);
        const id = nextId();
        const t: TraceTrack = { ...(base ?? { kind: 'thread', name: 'overflow', pid: 0 }), id, name: `${base?.name ?? 'track'} (overlapping)` };
        created.push(t);
        overflowOf.set(s.track, id);
        target = id;
      }
      s.track = target;
    }
    pending = moved;
  }
  return created;
}
