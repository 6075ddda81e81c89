import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import type { TraceModel } from '../../src/model/trace.js';
import { FakeClock, profile, ProfilerAction, schedule, type ScheduleFn } from '../../src/record/index.js';

const { NONE, WARMUP, RECORD, RECORD_AND_SAVE } = ProfilerAction;
let warnings: string[];
beforeEach(() => {
  warnings = [];
  logger.setSink((r) => { warnings.push(r.message); });
});
afterEach(() => { logger.setSink(null); });

const stepNames = (t: TraceModel): string[] => t.slices.filter((s) => s.name.startsWith('ProfilerStep#')).map((s) => s.name);

/** Runs `steps` iterations of 1 ms each; returns the traces handed over and the step() during which each came. */
async function drive(opts: { schedule?: ScheduleFn; steps: number; stopAfter?: boolean }) {
  const clock = new FakeClock();
  const delivered: { atStep: number; steps: string[]; trace: TraceModel }[] = [];
  const prof = profile({
    activities: ['cpu'], clock, ...(opts.schedule ? { schedule: opts.schedule } : {}),
    onTraceReady: (p) => { delivered.push({ atStep: p.stepNumber, steps: stepNames(p.trace), trace: p.trace }); },
  });
  await prof.start();
  for (let i = 0; i < opts.steps; i++) {
    clock.advance(1e6);
    await prof.step();
  }
  if (opts.stopAfter !== false) await prof.stop();
  return { prof, delivered, clock };
}

describe('profile() transitions (torch action map)', () => {
  it('w1 u1 a2 r1: records steps 2-3 and hands over inside the step() that leaves step 3', async () => {
    const { delivered } = await drive({ schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 }), steps: 8 });
    expect(delivered.map((d) => [d.atStep, d.steps])).toEqual([[4, ['ProfilerStep#2', 'ProfilerStep#3']]]);
    const steps = delivered[0]!.trace.slices.filter((s) => s.name.startsWith('ProfilerStep#'));
    expect(steps.every((s) => s.category === 'user_annotation' && s.dur === 1e6)).toBe(true);
  });

  it('w1 u1 a2 r2 skipFirst 2: two cycles, steps 4-5 and 8-9', async () => {
    const { delivered } = await drive({ schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 2, skipFirst: 2 }), steps: 12 });
    expect(delivered.map((d) => [d.atStep, d.steps])).toEqual([
      [6, ['ProfilerStep#4', 'ProfilerStep#5']],
      [10, ['ProfilerStep#8', 'ProfilerStep#9']],
    ]);
  });

  it('w0 u0 a1: every step is its own trace', async () => {
    const { delivered } = await drive({ schedule: schedule({ wait: 0, warmup: 0, active: 1 }), steps: 3 });
    // Three step() calls hand over steps 0,1,2; stop() during step 3 (RECORD_AND_SAVE) hands over step 3.
    expect(delivered.map((d) => d.steps)).toEqual([['ProfilerStep#0'], ['ProfilerStep#1'], ['ProfilerStep#2'], ['ProfilerStep#3']]);
    expect(delivered.map((d) => d.atStep)).toEqual([1, 2, 3, 3]);
  });

  it('exit during WARMUP discards: no hand-over, no trace', async () => {
    const { prof, delivered } = await drive({ schedule: schedule({ wait: 0, warmup: 3, active: 1 }), steps: 1 });
    expect(delivered).toEqual([]);
    expect(() => prof.trace).toThrow(/no trace yet/);
  });

  it('exit during RECORD hands over what was recorded', async () => {
    const { delivered } = await drive({ schedule: schedule({ wait: 0, warmup: 1, active: 3 }), steps: 2 });
    expect(delivered.map((d) => [d.atStep, d.steps])).toEqual([[2, ['ProfilerStep#1', 'ProfilerStep#2']]]);
  });

  it('without a schedule: records everything, no ProfilerStep spans, hands over at stop', async () => {
    const { delivered } = await drive({ steps: 3 });
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.steps).toEqual([]);
    // Three timed steps; the one stop() cuts short has no duration yet.
    expect(delivered[0]!.trace.metadata.run.recordedSteps).toBe(3);
  });

  // Every (prev -> next) pair of torch's action map, and every exit.
  const expectations: [ProfilerAction, ProfilerAction | 'exit', string | null, number, boolean][] = [
    // prev, next, warning, traces handed over by that transition, recording afterwards
    [NONE, NONE, null, 0, false],
    [NONE, WARMUP, null, 0, false],
    [NONE, RECORD, null, 0, true],
    [NONE, RECORD_AND_SAVE, null, 0, true],
    [WARMUP, NONE, 'Incorrect schedule: WARMUP followed by NONE', 0, false],
    [WARMUP, WARMUP, null, 0, false],
    [WARMUP, RECORD, null, 0, true],
    [WARMUP, RECORD_AND_SAVE, null, 0, true],
    [RECORD, NONE, 'Incorrect schedule: RECORD followed by NONE', 0, false],
    [RECORD, WARMUP, 'Incorrect schedule: RECORD followed by WARMUP', 0, false],
    [RECORD, RECORD, null, 0, true],
    [RECORD, RECORD_AND_SAVE, null, 0, true],
    [RECORD_AND_SAVE, NONE, null, 1, false],
    [RECORD_AND_SAVE, WARMUP, null, 1, false],
    [RECORD_AND_SAVE, RECORD, null, 1, true],
    [RECORD_AND_SAVE, RECORD_AND_SAVE, null, 1, true],
    [NONE, 'exit', null, 0, false],
    [WARMUP, 'exit', null, 0, false],
    [RECORD, 'exit', null, 1, false],
    [RECORD_AND_SAVE, 'exit', null, 1, false],
  ];
  it.each(expectations)('%s -> %s', async (prev, next, warning, handedOver, recordingAfter) => {
    const seq: ScheduleFn = (s) => (s === 0 ? prev : s === 1 && next !== 'exit' ? next : NONE);
    let calls = 0;
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock, schedule: seq, onTraceReady: () => { calls++; } });
    await prof.start();
    clock.advance(1000);
    if (next === 'exit') await prof.stop();
    else await prof.step();
    expect(warnings).toEqual(warning ? [warning] : []);
    expect(calls).toBe(handedOver);
    expect(prof.isRecording).toBe(recordingAfter);
    if (next !== 'exit') await prof.stop();
  });

  it('RECORD_AND_SAVE -> RECORD: the handed-over trace holds the old cycle, recording continues in a new one', async () => {
    const clock = new FakeClock();
    const seen: string[][] = [];
    const prof = profile({ activities: ['cpu'], clock, schedule: () => RECORD_AND_SAVE, onTraceReady: (p) => { seen.push(stepNames(p.trace)); } });
    await prof.start();
    clock.advance(10);
    const pending = prof.step();
    // Switched synchronously: the new cycle already records step 1.
    expect(stepNames(prof.trace)).toEqual(['ProfilerStep#1']);
    await pending;
    expect(seen).toEqual([['ProfilerStep#0']]);
    await prof.stop();
    expect(seen).toEqual([['ProfilerStep#0'], ['ProfilerStep#1']]);
  });

  it('a failing onTraceReady rejects that step() and does not block later hand-overs', async () => {
    let n = 0;
    const prof = profile({ activities: ['cpu'], clock: new FakeClock(), schedule: () => RECORD_AND_SAVE, onTraceReady: () => { if (n++ === 0) throw new Error('disk full'); } });
    await prof.start();
    await expect(prof.step()).rejects.toThrow('disk full');
    await prof.step();
    // stop() still hands over the last trace, then reports that one trace of the run was lost.
    await expect(prof.stop()).rejects.toThrow('disk full');
    expect(n).toBe(3);
  });

  it('await using stops the profiler at scope exit', async () => {
    let handed = 0;
    {
      await using prof = profile({ activities: ['cpu'], clock: new FakeClock(), onTraceReady: () => { handed++; } });
      await prof.start();
    }
    expect(handed).toBe(1);
  });

  it('only one profiler runs at a time', async () => {
    const a = profile({ clock: new FakeClock() });
    const b = profile({ clock: new FakeClock() });
    await a.start();
    expect(() => b.start()).toThrow(/another profiler is already running/);
    await a.stop();
    await b.start();
    await b.stop();
  });
});

describe('counters', () => {
  it('FPS per recorded step, in env-steps/s when nEnvs is known, and its mean in metadata', async () => {
    const clock = new FakeClock();
    let trace: TraceModel | undefined;
    const prof = profile({ activities: ['cpu'], clock, schedule: schedule({ wait: 0, warmup: 1, active: 3, repeat: 1 }), onTraceReady: (p) => { trace = p.trace; } });
    prof.setRunInfo({ nEnvs: 100 });
    await prof.start();
    for (const ms of [1, 2, 4, 5, 7]) { clock.advance(ms * 1e6); await prof.step(); }
    await prof.stop();
    const fpsTrack = trace!.tracks.find((t) => t.kind === 'counter' && t.name === 'FPS')!;
    expect(fpsTrack.unit).toBe('env-steps/s');
    const fps = trace!.counters.filter((c) => c.track === fpsTrack.id).map((c) => c.value);
    // Steps 1..3 took 2, 4, 5 ms.
    expect(fps).toEqual([50_000, 25_000, 20_000]);
    expect(trace!.metadata.run.fps).toBeCloseTo((3 * 100) / 0.011, 6);
    expect(trace!.metadata.run.nEnvs).toBe(100);
  });

  it('recordEnvTimers stores the arrays and percentile counters for solve time and iterations', async () => {
    const clock = new FakeClock();
    const prof = profile({ activities: ['cpu'], clock });
    await prof.start();
    const nEnvs = 5;
    const values = new Float64Array([
      100, 200, 300, 400, 1000, // slot 0: solve_ns
      1, 2, 3, 4, 10, // slot 1: iterations
      0, 0, 0, 0, 0,
    ]);
    prof.recordEnvTimers(['solve_ns', 'iterations', 'constraints'], nEnvs, values);
    values[0] = 999; // the recorder keeps its own copy
    await prof.stop();
    const t = prof.trace;
    expect(t.envTimers).toHaveLength(1);
    expect(t.envTimers[0]!.values[0]).toBe(100);
    expect(t.envTimers[0]!.nEnvs).toBe(5);
    expect(t.metadata.timerLabels).toEqual(['solve_ns', 'iterations', 'constraints']);
    const counter = (name: string): number => {
      const track = t.tracks.find((x) => x.name === name)!;
      return t.counters.find((c) => c.track === track.id)!.value;
    };
    expect(counter('solve_ns_p50')).toBe(300);
    expect(counter('solve_ns_p95')).toBeCloseTo(400 + 0.8 * 600);
    expect(counter('solver_iterations_mean')).toBe(4);
    expect(counter('solver_iterations_p95')).toBeCloseTo(4 + 0.8 * 6);
    expect(() => prof.recordEnvTimers(['a'], 3, new Float64Array(4))).toThrow(/expected labels.length \* nEnvs = 1 \* 3/);
  });

  it('a slot of NaN (unavailable on the GPU) gets no counters', async () => {
    const prof = profile({ activities: ['cpu'], clock: new FakeClock() });
    await prof.start();
    prof.recordEnvTimers(['solve_ns', 'iterations'], 2, [NaN, NaN, 3, 5]);
    await prof.stop();
    const names = prof.trace.tracks.filter((t) => t.kind === 'counter').map((t) => t.name);
    expect(names).toContain('solver_iterations_mean');
    expect(names).not.toContain('solve_ns_p50');
  });
});

describe('counter() and instant() at a given time', () => {
  it('keep a sample inside the recording at its time, and drop one from before it began (a late readback), not moving it to ts 0', async () => {
    // A span from before the recording (a compile) moves ts 0 back before the late sample: it is dropped still.
    const clock = new FakeClock();
    clock.advance(10e6);
    const before = clock.nowNs() - 1e6;
    const prof = profile({ activities: ['cpu'], clock });
    prof.addPreRecordedSpans([{ name: 'compile', category: 'compile', startHostNs: before - 2e6, endHostNs: before - 1e6 }]);
    await prof.start();
    const start = clock.nowNs();
    clock.advance(2e6);
    prof.counter('late', 1, { hostNs: before });
    prof.instant('late', { hostNs: before });
    prof.counter('in time', 2, { hostNs: start + 1e6 });
    prof.instant('in time', { hostNs: start + 1e6 });
    await prof.stop();
    const t = prof.trace;
    const track = (name: string) => t.tracks.find((k) => k.kind === 'counter' && k.name === name)?.id;
    // ts 0 is the compile span's start, 3 ms before the recording began.
    expect(t.counters.filter((c) => c.track === track('in time')).map((c) => [c.ts, c.value])).toEqual([[4e6, 2]]);
    expect(t.counters.filter((c) => c.track === track('late'))).toEqual([]);
    expect(t.instants.filter((i) => i.name === 'in time').map((i) => i.ts)).toEqual([4e6]);
    expect(t.instants.filter((i) => i.name === 'late')).toEqual([]);
  });
});
