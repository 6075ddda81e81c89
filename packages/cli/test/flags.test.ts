import { describe, expect, it } from 'vitest';
import { scheduleFromFlags } from '../src/record/schedule-flags.js';
import { parseIndexRange, parseSweep } from '../src/render/ranges.js';
import { CliError, describeError, oneLine } from '../src/errors.js';
import { useFreshCache } from '../src/record/fresh-cache.js';
import { existsSync } from 'node:fs';

describe('schedule flags', () => {
  it('default: warm up briefly, record the rest once', () => {
    expect(scheduleFromFlags({}, 200)).toEqual({ wait: 0, warmup: 10, active: 190, repeat: 1, skipFirst: 0 });
    expect(scheduleFromFlags({}, 20)).toEqual({ wait: 0, warmup: 4, active: 16, repeat: 1, skipFirst: 0 });
  });
  it('any flag given: torch defaults for the rest', () => {
    expect(scheduleFromFlags({ active: 3 }, 100)).toEqual({ wait: 0, warmup: 0, active: 3, repeat: 0, skipFirst: 0 });
  });
  it('rejects schedules that never record', () => {
    expect(() => scheduleFromFlags({ wait: 50, warmup: 50 }, 100)).toThrow(/--steps.*100 steps end before/);
    expect(() => scheduleFromFlags({ active: 0 }, 100)).toThrow(CliError);
  });
});

describe('ranges', () => {
  it('parses env selections', () => {
    expect(parseIndexRange('0-3,7,2')).toEqual([0, 1, 2, 3, 7]);
    expect(() => parseIndexRange('3-1')).toThrow(/backwards/);
    expect(() => parseIndexRange('a')).toThrow(/--envs/);
  });
  it('parses doubling sweeps', () => {
    expect(parseSweep('1..16')).toEqual([1, 2, 4, 8, 16]);
    expect(parseSweep('3..20')).toEqual([3, 6, 12, 20]);
    expect(parseSweep('64,8')).toEqual([8, 64]);
    expect(() => parseSweep('0..4')).toThrow(CliError);
  });
});

describe('errors', () => {
  it('fold oclif multi-line messages into one line', () => {
    expect(oneLine('Missing 1 required arg:\ntrace  a trace\nSee more help with --help')).toBe('Missing 1 required arg: trace a trace');
  });
  it('keep the subject of a CliError', () => {
    expect(describeError(new CliError('x.json', 'line 3: bad'), 'summary')).toEqual({ what: 'x.json', why: 'line 3: bad' });
    expect(describeError(new Error('boom\nmore'), 'summary')).toEqual({ what: 'summary', why: 'boom more' });
  });
});

describe('fresh cache', () => {
  it('points the cache variables at a throwaway folder and restores them', () => {
    const env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: '/keep' };
    const cache = useFreshCache(env);
    expect(env.XDG_CACHE_HOME).toBe(cache.dir);
    expect(env.MESA_SHADER_CACHE_DIR).toBe(`${cache.dir}/mesa_shader_cache`);
    expect(existsSync(cache.dir)).toBe(true);
    cache.dispose();
    expect(env).toEqual({ XDG_CACHE_HOME: '/keep' });
    expect(existsSync(cache.dir)).toBe(false);
  });
});
