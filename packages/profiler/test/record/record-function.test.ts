import { describe, expect, it } from 'vitest';
import type { SliceEvent } from '../../src/model/trace.js';
import { FakeClock, profile, recordFunction } from '../../src/record/index.js';

const byName = (slices: SliceEvent[], name: string): SliceEvent => {
  const s = slices.find((x) => x.name === name);
  if (!s) throw new Error(`no slice ${name}`);
  return s;
};

describe('recordFunction and the structural tracer', () => {
  it("CPU-backend stages (the tracer's 'cpu_op' spans) are CPU time in keyAverages, on the thread that ran them, no device time", async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu', 'gpu'], clock });
    const { tracer } = prof;
    await prof.start();
    tracer.begin('step', 'step');
    tracer.begin('kinematics', 'cpu_op', { nEnvs: 4 });
    clock.advance(7);
    tracer.end();
    tracer.begin('solve', 'cpu_op', { nEnvs: 4 });
    clock.advance(11);
    tracer.end();
    tracer.end();
    await prof.stop();
    const slices = prof.trace.slices;
    expect(slices.some((x) => x.category === 'kernel')).toBe(false);
    const solve = byName(slices, 'solve');
    expect(solve.category).toBe('cpu_op');
    expect(prof.trace.tracks.find((t) => t.id === solve.track)?.kind).toBe('thread');
    const rows = prof.keyAverages().rows;
    expect(rows.find((r) => r.key === 'kinematics')).toMatchObject({ count: 1, cpuTimeTotalNs: 7, selfCpuTimeTotalNs: 7, deviceTimeTotalNs: 0, selfDeviceTimeTotalNs: 0 });
    expect(rows.find((r) => r.key === 'solve')).toMatchObject({ count: 1, cpuTimeTotalNs: 11, selfCpuTimeTotalNs: 11, deviceTimeTotalNs: 0, selfDeviceTimeTotalNs: 0 });
    // The step span holds them: its self CPU time is what the stages did not cover (none here).
    expect(rows.find((r) => r.key === 'step')).toMatchObject({ cpuTimeTotalNs: 18, selfCpuTimeTotalNs: 0 });
  });

  it("another thread's spans land on that thread's own track, at the times it reported", async () => {
    const prof = profile({ activities: ['cpu'] });
    await prof.start();
    const t0 = performance.now();
    prof.tracer.threadSpan({ name: 'env worker 1', tid: 7 }, 'solve', 'cpu_op', t0 + 1, t0 + 1.25, { nEnvs: 64 });
    await prof.stop();
    const solve = byName(prof.trace.slices, 'solve');
    const track = prof.trace.tracks.find((t) => t.id === solve.track)!;
    expect(track).toMatchObject({ kind: 'thread', name: 'env worker 1', tid: 7, pid: process.pid });
    expect(solve.dur).toBe(250_000);
    expect(solve.args).toEqual({ nEnvs: 64 });
  });

  it("V8's garbage collections while recording are 'gc' spans on the host thread, inside the recording", async () => {
    const prof = profile({ activities: ['cpu'] });
    await prof.start();
    const start = performance.now();
    // Enough short-lived garbage for several scavenges of the young generation.
    let keep = 0;
    for (let i = 0; i < 200_000; i++) keep += new Float64Array(64).length;
    await new Promise((resolve) => setImmediate(resolve));
    const end = performance.now();
    await prof.stop();
    expect(keep).toBe(200_000 * 64);
    const gcs = prof.trace.slices.filter((s) => s.category === 'gc');
    expect(gcs.length).toBeGreaterThan(0);
    const host = prof.trace.tracks.find((t) => t.name === 'host')!.id;
    expect(gcs.every((s) => s.name.startsWith('GC (') && s.track === host)).toBe(true);
    const base = Number(prof.trace.metadata.baseTimeNs) - performance.timeOrigin * 1e6;
    for (const g of gcs) {
      expect(base + g.ts).toBeGreaterThanOrEqual(start * 1e6 - 1e6);
      expect(base + g.ts + g.dur).toBeLessThanOrEqual(end * 1e6 + 1e6);
    }
  });

  it('nested `using` scopes become nested host slices with exact times', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock });
    await prof.start();
    clock.advance(100);
    {
      using _outer = recordFunction('outer', { phase: 'a' });
      clock.advance(10);
      {
        using _inner = recordFunction('inner');
        clock.advance(5);
      }
      clock.advance(20);
    }
    await prof.stop();
    const { slices } = prof.trace;
    const outer = byName(slices, 'outer');
    const inner = byName(slices, 'inner');
    expect([outer.ts, outer.dur, outer.category, outer.args]).toEqual([100, 35, 'user_annotation', { phase: 'a' }]);
    expect([inner.ts, inner.dur]).toEqual([110, 5]);
    expect(outer.track).toBe(inner.track);
  });

  it('wraps sync and async functions; the span ends when the promise settles, also on throw', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock });
    const add = recordFunction('add', (a: number, b: number) => { clock.advance(7); return a + b; });
    const later = recordFunction('later', { k: 1 }, async (x: number) => { await Promise.resolve(); clock.advance(30); return x * 2; });
    const boom = recordFunction('boom', () => { clock.advance(3); throw new Error('bad'); });
    await prof.start();
    expect(add(2, 3)).toBe(5);
    expect(await later(4)).toBe(8);
    expect(() => boom()).toThrow('bad');
    await prof.stop();
    const { slices } = prof.trace;
    expect(byName(slices, 'add').dur).toBe(7);
    expect(byName(slices, 'later').dur).toBe(30);
    expect(byName(slices, 'later').args).toEqual({ k: 1 });
    expect(byName(slices, 'boom').dur).toBe(3);
    expect(add.name).toBe('add');
  });

  it('records nothing without a running profiler, or while it is not recording', async () => {
    const clock = new FakeClock();
    { using _ = recordFunction('before'); clock.advance(1); }
    const prof = profile({ activities: ['cpu'], clock, schedule: (s) => (s === 0 ? 'NONE' : 'RECORD') });
    await prof.start();
    { using _ = recordFunction('idle'); clock.advance(1); }
    prof.tracer.begin('idle-tracer', 'kernel');
    prof.tracer.end();
    await prof.step();
    { using _ = recordFunction('recorded'); clock.advance(1); }
    await prof.stop();
    expect(prof.trace.slices.map((s) => s.name).sort()).toEqual(['ProfilerStep#1', 'recorded']);
  });

  it('tracer begin/end nest like a stack, and a span begun while idle does not steal a later end', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock, schedule: (s) => (s === 0 ? 'NONE' : 'RECORD') });
    const { tracer } = prof;
    await prof.start();
    tracer.begin('episode', 'step'); // idle: nothing recorded, but it occupies its place on the stack
    await prof.step();
    tracer.begin('physics', 'step', { nEnvs: 4 });
    clock.advance(10);
    tracer.begin('kinematics', 'kernel');
    clock.advance(5);
    tracer.end();
    tracer.end();
    clock.advance(1);
    tracer.end(); // closes 'episode' (unrecorded), not ProfilerStep#1
    clock.advance(4);
    await prof.stop();
    const { slices } = prof.trace;
    expect(byName(slices, 'physics')).toMatchObject({ ts: 0, dur: 15, category: 'step', args: { nEnvs: 4 } });
    expect(byName(slices, 'kinematics')).toMatchObject({ ts: 10, dur: 5, category: 'kernel' });
    expect(byName(slices, 'ProfilerStep#1')).toMatchObject({ ts: 0, dur: 20 });
    expect(slices.some((s) => s.name === 'episode')).toBe(false);
  });

  it('a scope still open at stop is closed at the stop time and marked unfinished', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock });
    await prof.start();
    const scope = recordFunction('long');
    clock.advance(50);
    await prof.stop();
    clock.advance(50);
    scope.end();
    expect(byName(prof.trace.slices, 'long')).toMatchObject({ dur: 50, args: { unfinished: true } });
  });

  it('withStack adds the caller stack; activities without cpu records only ProfilerStep spans', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock, withStack: true });
    await prof.start();
    { using _ = recordFunction('x'); }
    await prof.stop();
    expect(String(byName(prof.trace.slices, 'x').args?.stack)).toMatch(/record-function\.test\.ts/);

    const gpuOnly = profile({ activities: ['gpu'], clock, schedule: () => 'RECORD' });
    await gpuOnly.start();
    { using _ = recordFunction('y'); }
    await gpuOnly.stop();
    expect(gpuOnly.trace.slices.map((s) => s.name)).toEqual(['ProfilerStep#0']);
  });

  it('partially overlapping host spans are moved to an overflow track so every track nests', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock });
    await prof.start();
    const a = recordFunction('a');
    clock.advance(10);
    const b = recordFunction('b');
    clock.advance(10);
    a.end(); // out of order: b started inside a and outlives it
    clock.advance(10);
    b.end();
    await prof.stop();
    const t = prof.trace;
    const sa = byName(t.slices, 'a');
    const sb = byName(t.slices, 'b');
    expect(sa.track).not.toBe(sb.track);
    expect(t.tracks.find((x) => x.id === sb.track)?.name).toBe('host (overlapping)');
  });
});
