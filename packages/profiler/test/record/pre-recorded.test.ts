import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import type { SliceEvent, TraceModel } from '../../src/model/trace.js';
import { FakeClock, profile, schedule, SpanCollector } from '../../src/record/index.js';

beforeEach(() => { logger.setSink(() => {}); });
afterEach(() => { logger.setSink(null); });

const MS = 1e6;
const named = (t: TraceModel, prefix: string): SliceEvent[] => t.slices.filter((s) => s.name.startsWith(prefix));

/** A build (parse, compile model with two kernel compiles) and a first step with one more compile, 1 ms apiece. */
function collectBuild(clock: FakeClock, collector: SpanCollector): void {
  const span = (name: string, category: string, inner?: () => void, args?: Record<string, string>): void => {
    collector.begin(name, category, args);
    clock.advance(MS);
    inner?.();
    collector.end();
  };
  span('parse', 'compile');
  span('compile model', 'compile', () => {
    span('compile:fk', 'compile', undefined, { kernel: 'fk', cache: 'miss' });
    span('compile:crb', 'compile', undefined, { kernel: 'crb', cache: 'hit' });
  });
  span('step', 'step', () => span('compile:solve', 'compile', () => span('solve', 'kernel'), { kernel: 'solve', cache: 'miss' }));
}

describe('SpanCollector + addPreRecordedSpans', () => {
  it('the collector keeps only the asked categories, in begin order, with their host times', () => {
    const clock = new FakeClock(5 * MS);
    const collector = new SpanCollector({ clock, categories: ['compile'] });
    collectBuild(clock, collector);
    const spans = collector.take();
    expect(spans.map((s) => [s.name, s.startHostNs / MS, s.endHostNs / MS])).toEqual([
      ['parse', 5, 6], ['compile model', 6, 9], ['compile:fk', 7, 8], ['compile:crb', 8, 9], ['compile:solve', 10, 12],
    ]);
    expect(spans[2]!.args).toEqual({ kernel: 'fk', cache: 'miss' });
    expect(collector.take()).toEqual([]);
  });

  it('marks spans still open at take() as unfinished, ending them then', () => {
    const clock = new FakeClock();
    const collector = new SpanCollector({ clock });
    collector.begin('build', 'compile');
    clock.advance(2 * MS);
    const [span] = collector.take();
    expect(span).toMatchObject({ name: 'build', startHostNs: 0, endHostNs: 2 * MS, args: { unfinished: true } });
  });

  it('puts the spans into the first recorded cycle before its steps, moves its base earlier, leaves later cycles alone', async () => {
    const clock = new FakeClock(100 * MS);
    const collector = new SpanCollector({ clock, categories: ['compile'] });
    collectBuild(clock, collector);
    clock.advance(10 * MS); // time between the first step and the profiler's start
    const traces: TraceModel[] = [];
    const prof = profile({
      activities: ['cpu'], clock, schedule: schedule({ wait: 1, warmup: 0, active: 2, repeat: 2 }),
      onTraceReady: (p) => { traces.push(p.trace); },
    });
    prof.addPreRecordedSpans(collector.take());
    await prof.start();
    const startNs = clock.now;
    for (let i = 0; i < 6; i++) {
      clock.advance(MS);
      await prof.step();
    }
    await prof.stop();
    expect(traces).toHaveLength(2);
    const [first, second] = traces as [TraceModel, TraceModel];

    // ts 0 is now the start of the earliest span (parse at 100 ms), not the start of recording.
    const compiles = first.slices.filter((s) => s.category === 'compile');
    expect(compiles.map((s) => [s.name, s.ts / MS, s.dur / MS])).toEqual([
      ['parse', 0, 1], ['compile model', 1, 3], ['compile:fk', 2, 1], ['compile:crb', 3, 1], ['compile:solve', 5, 2],
    ]);
    expect(first.metadata.baseTimeNs).toBe(clock.epochNs(100 * MS));
    expect(compiles.every((s) => s.track === compiles[0]!.track && first.tracks.find((t) => t.id === s.track)?.name === 'host')).toBe(true);
    expect(compiles.find((s) => s.name === 'compile:crb')!.args).toEqual({ kernel: 'crb', cache: 'hit' });

    // The steps keep their true times and durations, and no compile span lies inside one.
    const steps = named(first, 'ProfilerStep#');
    expect(steps.map((s) => [s.name, s.dur / MS])).toEqual([['ProfilerStep#1', 1], ['ProfilerStep#2', 1]]);
    expect(steps[0]!.ts).toBe(startNs + MS - 100 * MS);
    for (const c of compiles) for (const s of steps) expect(c.ts + c.dur <= s.ts || c.ts >= s.ts + s.dur).toBe(true);
    expect(first.metadata.run.recordedSteps).toBe(2);
    expect(Math.min(...first.slices.map((s) => s.ts), ...first.counters.map((c) => c.ts))).toBeGreaterThanOrEqual(0);

    // The second cycle has no compile spans and its own base at its first step.
    expect(second.slices.some((s) => s.category === 'compile')).toBe(false);
    expect(named(second, 'ProfilerStep#').map((s) => [s.name, s.ts])).toEqual([['ProfilerStep#4', 0], ['ProfilerStep#5', MS]]);
  });

  it('spans added while a cycle records shift what is already in it', async () => {
    const clock = new FakeClock(50 * MS);
    const traces: TraceModel[] = [];
    const prof = profile({ activities: ['cpu'], clock, schedule: schedule({ wait: 0, warmup: 0, active: 2 }), onTraceReady: (p) => { traces.push(p.trace); } });
    await prof.start();
    clock.advance(MS);
    prof.addPreRecordedSpans([{ name: 'compile:late', category: 'compile', startHostNs: 40 * MS, endHostNs: 45 * MS }]);
    await prof.step();
    clock.advance(MS);
    await prof.stop();
    const t = traces[0]!;
    expect(t.slices.map((s) => [s.name, s.ts / MS, s.dur / MS])).toEqual([
      ['compile:late', 0, 5], ['ProfilerStep#0', 10, 1], ['ProfilerStep#1', 11, 1],
    ]);
    expect(t.metadata.baseTimeNs).toBe(clock.epochNs(40 * MS));
  });

  it('rejects a span that ends before it starts, naming it', () => {
    const prof = profile({ activities: ['cpu'], clock: new FakeClock() });
    expect(() => prof.addPreRecordedSpans([{ name: 'bad', category: 'compile', startHostNs: 5, endHostNs: 1 }])).toThrow(/'bad'.*invalid times/);
  });
});
