import { describe, expect, it } from 'vitest';
import { mergeTraces, planAlignment } from '../../src/model/merge.js';
import { emptyTrace, type TraceMetadata, type TraceModel } from '../../src/model/trace.js';

function rankTrace(pid: number, baseTimeNs: bigint, hostClock?: TraceMetadata['hostClock']): TraceModel {
  const t = emptyTrace({ baseTimeNs, traceName: 't', producer: 'gsprof test', hostname: 'h', pid, deviceProperties: [], syncEachStep: false, run: {}, ...(hostClock ? { hostClock } : {}) });
  t.processes.push({ pid, name: 'node prog.mjs', kind: 'cpu' }, { pid: 1_000_000, name: 'GPU 0 (dev)', kind: 'gpu' });
  t.tracks.push({ id: 1, kind: 'thread', name: 'host', pid, tid: pid }, { id: 2, kind: 'gpu_queue', name: 'queue 0', pid: 1_000_000, tid: 0 });
  t.slices.push({ track: 1, name: 'submit', category: 'cuda_runtime', ts: 100, dur: 10 }, { track: 2, name: 'k', category: 'kernel', ts: 120, dur: 50 });
  t.flows.push({ id: 1, fromSlice: 0, toSlice: 1, category: 'ac2g' });
  return t;
}

describe('planAlignment: how rank traces line up', () => {
  it('one machine and boot: on CLOCK_MONOTONIC, bounded by the two largest reading errors', () => {
    const a = rankTrace(10, 1_000_000n, { bootId: 'b', monotonicNs: '5000', errorNs: 200 });
    // Rank 1 started 700 ns later on the monotonic clock, but its wall clock read 300 ns early.
    const b = rankTrace(11, 1_000_400n, { bootId: 'b', monotonicNs: '5700', errorNs: 300 });
    const plan = planAlignment([{ rank: 0, metadata: a.metadata }, { rank: 1, metadata: b.metadata }]);
    expect(plan.method).toBe('monotonic');
    expect(plan.errorBoundNs).toBe(500);
    expect(plan.ranks.map((r) => [r.baseTimeNs, r.shiftNs])).toEqual([[1_000_000n, 0], [1_000_700n, 300]]);
  });

  it('different boots, or a trace without the reading: wall clocks, and no bound claimed', () => {
    const a = rankTrace(10, 1_000_000n, { bootId: 'b1', monotonicNs: '5000', errorNs: 200 });
    const b = rankTrace(11, 1_000_400n, { bootId: 'b2', monotonicNs: '9', errorNs: 200 });
    const c = rankTrace(12, 1_000_800n);
    for (const other of [b, c]) {
      const plan = planAlignment([{ rank: 0, metadata: a.metadata }, { rank: 1, metadata: other.metadata }]);
      expect(plan.method).toBe('wall clock');
      expect(plan.errorBoundNs).toBeNull();
      expect(plan.note).toMatch(/not known to gsprof/);
    }
  });
});

describe('planAlignment: readings it cannot use are refused (issue 33)', () => {
  it('a reading that is not a whole number of ns, a NaN or negative bound, or one before 1970 names the rank', () => {
    const a = rankTrace(10, 1_000_000n, { bootId: 'b', monotonicNs: '5000', errorNs: 200 });
    const plan = (hostClock: TraceMetadata['hostClock']) => () => planAlignment([{ rank: 0, metadata: a.metadata }, { rank: 1, metadata: rankTrace(11, 1_000_400n, hostClock).metadata }]);
    expect(plan({ bootId: 'b', monotonicNs: 'abc', errorNs: 1 })).toThrow(/^rank 1: its CLOCK_MONOTONIC reading "abc" is not a whole number of ns$/);
    expect(plan({ bootId: 'b', monotonicNs: '-5', errorNs: 1 })).toThrow(/rank 1: its CLOCK_MONOTONIC reading "-5"/);
    for (const bad of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      expect(plan({ bootId: 'b', monotonicNs: '5000', errorNs: bad })).toThrow(new RegExp(`rank 1: the error bound of its clock reading, ${String(bad)}, is not a finite number of ns >= 0`));
    }
    // 1 ms of wall clock at rank 0, and a monotonic reading 2 ms earlier: rank 1 would start before the epoch.
    expect(plan({ bootId: 'b', monotonicNs: '0', errorNs: 1 })).not.toThrow();
    const early = rankTrace(10, 1_000n, { bootId: 'b', monotonicNs: '5000000', errorNs: 1 });
    expect(() => planAlignment([{ rank: 0, metadata: early.metadata }, { rank: 1, metadata: rankTrace(11, 0n, { bootId: 'b', monotonicNs: '5', errorNs: 1 }).metadata }]))
      .toThrow(/rank 1: its CLOCK_MONOTONIC reading 5 would place it before 1970 against rank 0's/);
  });
});

describe('mergeTraces: one process per rank', () => {
  it('each rank\'s tracks join its process, times move to the common base, flows keep their ends', () => {
    const a = rankTrace(10, 1_000_000n, { bootId: 'b', monotonicNs: '5000', errorNs: 1 });
    const b = rankTrace(11, 1_000_400n, { bootId: 'b', monotonicNs: '5700', errorNs: 1 });
    const parts = [{ rank: 0, source: 'a', model: a }, { rank: 1, source: 'b', model: b }];
    const m = mergeTraces(parts, planAlignment(parts.map((p) => ({ rank: p.rank, metadata: p.model.metadata }))));
    expect(m.processes.map((p) => [p.pid, p.name])).toEqual([[10, 'rank 0: node prog.mjs (pid 10 on h)'], [11, 'rank 1: node prog.mjs (pid 11 on h)']]);
    expect(m.tracks.map((t) => [t.pid, t.name])).toEqual([[10, 'host'], [10, 'GPU 0 (dev) queue 0'], [11, 'host'], [11, 'GPU 0 (dev) queue 0']]);
    // Every track of a process keeps a tid of its own, so no exporter folds two of them into one thread.
    expect(new Set(m.tracks.map((t) => `${t.pid}/${t.tid}`)).size).toBe(4);
    expect(m.metadata.baseTimeNs).toBe(1_000_000n);
    // Rank 1's kernel at its ts 120 is 700 ns later on the shared clock.
    expect(m.slices.filter((s) => s.name === 'k').map((s) => s.ts)).toEqual([120, 820]);
    expect(m.flows.map((f) => [m.slices[f.fromSlice]!.name, m.slices[f.toSlice]!.name, m.slices[f.toSlice]!.ts])).toEqual([['submit', 'k', 120], ['submit', 'k', 820]]);
    expect(m.metadata.distributedInfo).toEqual({ backend: 'none', world_size: 2 });
  });

  it('ranks from two machines with the same pid get distinct processes and threads', () => {
    const a = rankTrace(10, 1_000_000n);
    const b = rankTrace(10, 1_000_000n);
    const parts = [{ rank: 0, source: 'a', model: a }, { rank: 1, source: 'b', model: b }];
    const m = mergeTraces(parts, planAlignment(parts.map((p) => ({ rank: p.rank, metadata: p.model.metadata }))));
    expect(new Set(m.processes.map((p) => p.pid)).size).toBe(2);
    expect(new Set(m.tracks.filter((t) => t.kind === 'thread').map((t) => t.tid)).size).toBe(2);
  });
});
