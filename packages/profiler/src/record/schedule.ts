/**
 * torch.profiler.schedule, with the same arithmetic: a schedule maps a step number to the action the profiler
 * takes at that step. See REFERENCE §2; the examples there are table-tested.
 */
import { warn } from './warn.js';

export const ProfilerAction = {
  NONE: 'NONE',
  WARMUP: 'WARMUP',
  RECORD: 'RECORD',
  RECORD_AND_SAVE: 'RECORD_AND_SAVE',
} as const;
export type ProfilerAction = (typeof ProfilerAction)[keyof typeof ProfilerAction];

export type ScheduleFn = (step: number) => ProfilerAction;

export interface ScheduleOptions {
  wait: number;
  warmup: number;
  active: number;
  /** Number of wait/warmup/active cycles; 0 repeats forever. */
  repeat?: number;
  /** Steps ignored once, before the first cycle. */
  skipFirst?: number;
  /** Non-zero: the first cycle starts at its warmup (skips its wait). */
  skipFirstWait?: number;
}

export function schedule(options: ScheduleOptions): ScheduleFn {
  const { wait, warmup, active, repeat = 0, skipFirst = 0, skipFirstWait = 0 } = options;
  for (const [name, value] of Object.entries({ wait, warmup, active, repeat, skipFirst, skipFirstWait })) {
    if (!Number.isInteger(value)) throw new Error(`Invalid profiler schedule arguments: ${name} must be an integer, got ${String(value)}`);
  }
  if (!(wait >= 0 && warmup >= 0 && active > 0 && repeat >= 0 && skipFirst >= 0)) {
    throw new Error(
      `Invalid profiler schedule arguments: need wait >= 0, warmup >= 0, active > 0, repeat >= 0, skipFirst >= 0 ` +
        `(got wait=${wait}, warmup=${warmup}, active=${active}, repeat=${repeat}, skipFirst=${skipFirst})`,
    );
  }
  if (warmup === 0) warn("Profiler won't be using warmup, this can skew profiler results");
  // Kept for trace metadata and for tools that print the schedule.
  return Object.assign(actionsOf(options), { options: { wait, warmup, active, repeat, skipFirst, skipFirstWait } });
}

/** The schedule's arithmetic, for options schedule() has checked. */
function actionsOf(options: ScheduleOptions): ScheduleFn {
  const { wait, warmup, active, repeat = 0, skipFirst = 0, skipFirstWait = 0 } = options;
  const cycle = wait + warmup + active;
  return (stepNumber: number) => {
    if (!Number.isInteger(stepNumber) || stepNumber < 0) throw new Error(`schedule: step must be an integer >= 0, got ${stepNumber}`);
    if (stepNumber < skipFirst) return ProfilerAction.NONE;
    let step = stepNumber - skipFirst;
    if (skipFirstWait !== 0) step += wait;
    if (repeat > 0 && step / cycle >= repeat) return ProfilerAction.NONE;
    const m = step % cycle;
    if (m < wait) return ProfilerAction.NONE;
    if (m < wait + warmup) return ProfilerAction.WARMUP;
    return m < cycle - 1 ? ProfilerAction.RECORD : ProfilerAction.RECORD_AND_SAVE;
  };
}

/**
 * The steps a schedule records among the first `steps` (RECORD or RECORD_AND_SAVE), as inclusive [first, last]
 * ranges, one per cycle: what a run's throughput from its first recorded step covers beyond what its traces hold.
 */
export function recordedRanges(options: ScheduleOptions, steps: number): Array<[number, number]> {
  const fn = actionsOf(options);
  const out: Array<[number, number]> = [];
  for (let k = 0; k < steps; k++) {
    const a = fn(k);
    if (a !== ProfilerAction.RECORD && a !== ProfilerAction.RECORD_AND_SAVE) continue;
    const last = out[out.length - 1];
    if (last && last[1] === k - 1 && fn(k - 1) !== ProfilerAction.RECORD_AND_SAVE) last[1] = k;
    else out.push([k, k]);
  }
  return out;
}

/** The schedule used without one: every step records, as torch's default. */
export const alwaysRecord: ScheduleFn = () => ProfilerAction.RECORD;
