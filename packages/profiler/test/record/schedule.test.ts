import { afterEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import { type ProfilerAction, recordedRanges, schedule } from '../../src/record/index.js';

const letter: Record<ProfilerAction, string> = { NONE: 'N', WARMUP: 'W', RECORD: 'R', RECORD_AND_SAVE: 'S' };
const run = (fn: (s: number) => ProfilerAction, steps: number): string => Array.from({ length: steps }, (_, i) => letter[fn(i)]).join(' ');

describe('schedule (torch semantics, REFERENCE §2)', () => {
  let warnings: string[] = [];
  afterEach(() => { logger.setSink(null); warnings = []; });
  const quiet = (): void => {
    logger.setSink((r) => { warnings.push(r.message); });
  };

  it.each([
    // The REFERENCE examples.
    [{ wait: 1, warmup: 1, active: 2, repeat: 1 }, 8, 'N W R S N N N N'],
    [{ wait: 1, warmup: 1, active: 2, repeat: 2, skipFirst: 2 }, 11, 'N N N W R S N W R S N'],
    [{ wait: 0, warmup: 0, active: 1 }, 4, 'S S S S'],
    // Repeat forever, single active step, longer cycles.
    [{ wait: 1, warmup: 1, active: 2 }, 9, 'N W R S N W R S N'],
    [{ wait: 2, warmup: 1, active: 1, repeat: 2 }, 10, 'N N W S N N W S N N'],
    [{ wait: 0, warmup: 2, active: 3, repeat: 1 }, 7, 'W W R R S N N'],
    // skipFirstWait: the first cycle starts at its warmup; the shift counts towards repeat.
    [{ wait: 2, warmup: 1, active: 1, repeat: 2, skipFirstWait: 1 }, 8, 'W S N N W S N N'],
    [{ wait: 2, warmup: 1, active: 1, repeat: 1, skipFirstWait: 1 }, 4, 'W S N N'],
    [{ wait: 1, warmup: 1, active: 1, skipFirst: 3, skipFirstWait: 1 }, 9, 'N N N W S N W S N'],
  ])('%j gives %s steps: %s', (opts, steps, expected) => {
    quiet();
    expect(run(schedule(opts), steps)).toBe(expected);
  });

  it('warns, as torch does, when warmup is 0', () => {
    quiet();
    schedule({ wait: 0, warmup: 0, active: 1 });
    expect(warnings).toEqual(["Profiler won't be using warmup, this can skew profiler results"]);
    warnings = [];
    schedule({ wait: 0, warmup: 1, active: 1 });
    expect(warnings).toEqual([]);
  });

  it.each([
    [{ wait: -1, warmup: 1, active: 1 }, /Invalid profiler schedule arguments/],
    [{ wait: 0, warmup: 1, active: 0 }, /active > 0/],
    [{ wait: 0, warmup: -2, active: 1 }, /warmup >= 0/],
    [{ wait: 0, warmup: 1, active: 1, repeat: -1 }, /repeat >= 0/],
    [{ wait: 0, warmup: 1, active: 1, skipFirst: -1 }, /skipFirst >= 0/],
    [{ wait: 0.5, warmup: 1, active: 1 }, /wait must be an integer/],
  ])('rejects %j', (opts, message) => {
    quiet();
    expect(() => schedule(opts)).toThrow(message);
  });

  it('rejects negative step numbers', () => {
    quiet();
    expect(() => schedule({ wait: 0, warmup: 1, active: 1 })(-1)).toThrow(/step must be an integer >= 0/);
  });

  it.each([
    [{ wait: 2, warmup: 3, active: 10, repeat: 2 }, 60, [[5, 14], [20, 29]]],
    [{ wait: 0, warmup: 10, active: 190, repeat: 1 }, 200, [[10, 199]]],
    // Back-to-back cycles (no wait or warmup) are separate traces, so separate ranges.
    [{ wait: 0, warmup: 0, active: 2 }, 5, [[0, 1], [2, 3], [4, 4]]],
    [{ wait: 1, warmup: 1, active: 2, repeat: 2, skipFirst: 2 }, 11, [[4, 5], [8, 9]]],
  ] as Array<[Parameters<typeof schedule>[0], number, Array<[number, number]>]>)('recordedRanges(%j, %i): the steps schedule() records, one range per cycle', (opts, steps, ranges) => {
    quiet();
    expect(recordedRanges(opts, steps)).toEqual(ranges);
    // The same steps as the schedule's own R and S actions.
    const fn = schedule(opts);
    const recorded = Array.from({ length: steps }, (_, k) => k).filter((k) => fn(k) === 'RECORD' || fn(k) === 'RECORD_AND_SAVE');
    expect(ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i))).toEqual(recorded);
  });
});
