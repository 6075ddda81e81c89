/**
 * Nesting (depth, parent_id) and flow binding are computed while streaming when a track's events arrive in time
 * order; when they do not, by replaying the track's kept events in time order, or in SQL when they were not kept
 * (a track with B/E events, say): every path must give the same tables.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/index.js';
import { tempFiles } from './support/tmp.js';
import { mulberry32 as rng } from '../../../../test/support/random.js';

const files = tempFiles();
afterAll(() => files.cleanup());

type Ev = Record<string, unknown>;

/** Properly nested X slices (some touching, some zero-length) on two threads, with ac2g-style flows. */
function randomTrace(seed: number): Ev[] {
  const r = rng(seed);
  const out: Ev[] = [];
  let n = 0;
  const fill = (tid: number, start: number, end: number, depth: number) => {
    let t = start;
    let zeroAt = -1;
    while (t < end && depth < 5) {
      // Zero-length slices at one ts nest in file order, which shuffling changes: keep them at distinct ts.
      const gap = Math.floor(r() * 3) + (t === zeroAt ? 1 : 0);
      const s = t + gap;
      if (s >= end) break;
      const len = r() < 0.1 ? 0 : 1 + Math.floor(r() * (end - s));
      let e = Math.min(end, s + len);
      // A child with exactly its parent's extent is ambiguous (file order decides); keep children strictly inside.
      if (depth > 0 && s === start && e === end) e = Math.max(s, end - 1);
      const name = `s${n++}`;
      if (e === s) zeroAt = s;
      out.push({ ph: 'X', name, pid: 1, tid, ts: s, dur: e - s });
      if (e - s > 0 && r() < 0.3) {
        const id = n;
        out.push({ ph: 's', id, cat: 'ac2g', name: 'ac2g', pid: 1, tid, ts: s + (e - s) / 2 });
        // strictly later than its 's', so file order never decides which comes first
        out.push({ ph: 'f', id, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 3 - tid, ts: s + (e - s) / 2 + 1, bp: 'e' });
      }
      if (e - s > 2) fill(tid, s, e, depth + 1);
      t = e;
    }
  };
  fill(1, 0, 200, 0);
  fill(2, 0, 200, 0);
  return out;
}

async function tables(events: Ev[], name: string) {
  const db = await openTrace(files.write(name, JSON.stringify(events)));
  try {
    const nest = (await db.query(`select s.name, s.depth, p.name as parent from slice s left join slice p on p.id = s.parent_id order by s.name`)).rows;
    const flows = (await db.query(`select o.name as o, i.name as i from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in order by 1, 2`)).rows;
    return { nest, flows, outOfOrder: await db.stat('tracks_out_of_order') };
  } finally {
    await db.close();
  }
}

describe('nesting and flow binding', () => {
  it('give the same result streamed (events in order), replayed and in SQL (events shuffled)', async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const events = randomTrace(seed);
      // In order: by ts, longest first; flow events after the slices that start at their ts.
      const sorted = [...events].sort((a, b) => (a.ts as number) - (b.ts as number)
        || (a.ph === 'X' ? 0 : 1) - (b.ph === 'X' ? 0 : 1) || ((b.dur as number) ?? 0) - ((a.dur as number) ?? 0));
      const r = rng(seed * 7919);
      const shuffled = [...events].sort(() => r() - 0.5);
      const a = await tables(sorted, `sorted-${seed}.json`);
      const b = await tables(shuffled, `shuffled-${seed}.json`);
      // A B/E pair on each thread, far from the rest, sends both tracks to SQL's nesting: the shuffled events
      // are nested in SQL there, and replayed in time order from what was kept without it.
      const far = [1, 2].flatMap((tid) => [
        { ph: 'B', name: `far${tid}`, pid: 1, tid, ts: 10_000 }, { ph: 'E', pid: 1, tid, ts: 10_001 }]);
      const c = await tables([...shuffled, ...far], `sql-${seed}.json`);
      expect(a.outOfOrder, `seed ${seed}`).toBe(0);
      expect(b.outOfOrder, `seed ${seed}`).toBeGreaterThan(0);
      expect(b.nest, `seed ${seed}`).toEqual(a.nest);
      expect(b.flows, `seed ${seed}`).toEqual(a.flows);
      expect(c.outOfOrder, `seed ${seed}`).toBeGreaterThan(0);
      expect(c.nest.filter((x) => !String(x.name).startsWith('far')), `seed ${seed}`).toEqual(a.nest);
      expect(c.flows, `seed ${seed}`).toEqual(a.flows);
      expect(a.nest.some((x) => Number(x.depth) >= 2)).toBe(true);
      expect(a.flows.length).toBeGreaterThan(0);
    }
  });

  it('bind a flow as streaming does when a slice spills over its parent, whatever the file order', async () => {
    // As Kineto writes a GPU stream: a copy, then a sync that starts inside it and ends after it (a spill: it
    // does not nest there), and the launch's flow ending at the sync's start. Streaming binds the flow to the
    // slice open there, the copy; a track written out of order must give the same tables.
    const events: Ev[] = [
      { ph: 'X', name: 'launch', pid: 1, tid: 1, ts: 300, dur: 20 },
      { ph: 's', id: 7, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 1, ts: 311 },
      { ph: 'X', name: 'copy', pid: 1, tid: 9, ts: 100, dur: 280 },
      { ph: 'X', name: 'sync', pid: 1, tid: 9, ts: 312, dur: 73 },
      { ph: 'f', id: 7, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 9, ts: 312, bp: 'e' },
      { ph: 'X', name: 'after', pid: 1, tid: 9, ts: 400, dur: 5 },
    ];
    const inOrder = await tables(events, 'spill-sorted.json');
    const outOfOrder = await tables([events[0]!, events[1]!, events[5]!, events[2]!, events[3]!, events[4]!], 'spill-shuffled.json');
    expect(inOrder.outOfOrder).toBe(0);
    expect(outOfOrder.outOfOrder).toBe(1);
    expect(outOfOrder.nest).toEqual(inOrder.nest);
    expect(inOrder.nest.find((x) => x.name === 'sync')).toEqual({ name: 'sync', depth: 0, parent: null });
    expect(inOrder.flows).toEqual([{ o: 'launch', i: 'copy' }]);
    expect(outOfOrder.flows).toEqual(inOrder.flows);
  });
});
