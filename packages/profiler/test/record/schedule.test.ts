import { afterEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import { type ProfilerAction, schedule } from '../../src/record/index.js';

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
});
