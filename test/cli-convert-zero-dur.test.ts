/**
 * convert keeps a zero-duration complete event a slice (issue 12): a JSON `X` of dur 0 comes back as an `X` of
 * dur 0 through JSON -> JSON and through JSON -> pftrace -> JSON -> pftrace -> JSON, while the instants next to
 * it stay instants. Before, convert wrote every slice of dur 0 as an instant (`ph: i`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { convertChain, ensureBuilt, tempDir } from './support/cli.js';

const TRACE = {
  traceEvents: [
    { ph: 'X', cat: 'cpu_op', name: 'outer', pid: 1, tid: 11, ts: 1000, dur: 50 },
    { ph: 'X', cat: 'cpu_op', name: 'empty op', pid: 1, tid: 11, ts: 1010, dur: 0, args: { n: 3 } },
    { ph: 'i', s: 't', cat: 'marker', name: 'mark', pid: 1, tid: 11, ts: 1010 },
    { ph: 'I', cat: 'marker', name: 'old mark', pid: 1, tid: 11, ts: 1020 },
    { ph: 'X', cat: 'cpu_op', name: 'empty at end', pid: 1, tid: 11, ts: 1050, dur: 0 },
  ],
};

interface Event { ph: string; name: string; dur?: number; s?: string; args?: Record<string, unknown> }
const routes = new Map<string, Event[]>();

beforeAll(async () => {
  ensureBuilt();
  const dir = tempDir();
  writeFileSync(join(dir, 'k.json'), JSON.stringify(TRACE));
  for (const chain of [['k.json', 'direct.json'], ['k.json', 'a.pftrace', 'b.json', 'c.pftrace', 'twice.json']]) {
    routes.set(chain[chain.length - 1]!, await convertChain<Event>(dir, chain));
  }
});

/** Each named event of the file as [name, ph, dur], in name order (metadata events left out). */
const kinds = (events: Event[]) => events.filter((e) => e.ph !== 'M').map((e) => [e.name, e.ph, e.dur ?? null]).sort();

it('a zero-duration X stays an X of dur 0, and instants stay instants', () => {
  expect(routes.size).toBe(2);
  for (const [route, events] of routes) {
    expect(kinds(events), route).toEqual([
      ['empty at end', 'X', 0], ['empty op', 'X', 0], ['mark', 'i', null], ['old mark', 'i', null], ['outer', 'X', 50],
    ]);
    expect(events.find((e) => e.name === 'empty op')?.args, route).toEqual({ n: 3 });
  }
});
