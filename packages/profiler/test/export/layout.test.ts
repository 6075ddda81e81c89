// Slice placement shared by both exporters: start order, and overflow lanes that make every lane nest.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutSlices } from '../../src/export/layout.js';
import { emptyTrace, type SliceEvent } from '../../src/model/trace.js';

function traceOf(slices: SliceEvent[]) {
  const trace = emptyTrace({ baseTimeNs: 0n, traceName: 't', producer: 'p', hostname: 'h', pid: 1, deviceProperties: [], syncEachStep: false, run: {} });
  trace.tracks.push({ id: 1, kind: 'thread', name: 'a', pid: 1, tid: 1 }, { id: 2, kind: 'gpu_queue', name: 'q', pid: 2, tid: 0 });
  for (const s of slices) trace.slices.push(s);
  return trace;
}

const sliceArb = fc.record({
  track: fc.constantFrom(1, 2), name: fc.constant('s'), category: fc.constant('c'),
  ts: fc.integer({ min: 0, max: 200 }), dur: fc.integer({ min: 0, max: 60 }),
});

describe('layoutSlices', () => {
  it('orders slices by start, longest first, then input order, for any input', () => {
    fc.assert(fc.property(fc.array(sliceArb, { maxLength: 120 }), (slices) => {
      const { order } = layoutSlices(traceOf(slices));
      const expected = slices.map((_, i) => i).sort((a, b) =>
        slices[a]!.ts - slices[b]!.ts || (slices[b]!.ts + slices[b]!.dur) - (slices[a]!.ts + slices[a]!.dur) || a - b);
      expect([...order]).toEqual(expected);
    }), { numRuns: 300 });
  });

  it('puts slices into lanes of their own track where no two partially overlap', () => {
    fc.assert(fc.property(fc.array(sliceArb, { maxLength: 120 }), (slices) => {
      const { laneOf, lanes, depthOf } = layoutSlices(traceOf(slices));
      slices.forEach((s, i) => { expect(lanes[laneOf[i]!]!.track.id).toBe(s.track); });
      for (let a = 0; a < slices.length; a++) for (let b = 0; b < slices.length; b++) {
        if (a === b || laneOf[a] !== laneOf[b]) continue;
        const [a0, a1, b0, b1] = [slices[a]!.ts, slices[a]!.ts + slices[a]!.dur, slices[b]!.ts, slices[b]!.ts + slices[b]!.dur];
        expect(a0 < b0 && b0 < a1 && a1 < b1).toBe(false);
        // A slice that starts inside another of its lane (and ends within it) is deeper.
        if (a0 <= b0 && b0 < a1 && b1 <= a1 && (a0 < b0 || b1 < a1)) expect(depthOf[b]!).toBeGreaterThan(depthOf[a]!);
      }
    }), { numRuns: 300 });
  });

  it('keeps properly nested slices on the track itself', () => {
    const { laneOf, lanes } = layoutSlices(traceOf([
      { track: 1, name: 'child', category: 'c', ts: 10, dur: 5 },
      { track: 1, name: 'sibling', category: 'c', ts: 15, dur: 5 },
      { track: 1, name: 'parent', category: 'c', ts: 0, dur: 100 },
    ]));
    expect(lanes).toHaveLength(2);
    expect([...laneOf]).toEqual([0, 0, 0]);
  });
});
