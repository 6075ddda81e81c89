/** Turns the record command's schedule flags into torch-style schedule arguments, filling defaults that keep
 * the compiling first steps out of the recording. */
import { CliError } from '../errors.js';

export interface ScheduleFlags {
  wait?: number;
  warmup?: number;
  active?: number;
  repeat?: number;
  skipFirst?: number;
}

export interface ScheduleArgs {
  wait: number;
  warmup: number;
  active: number;
  repeat: number;
  skipFirst: number;
}

/**
 * With no schedule flag given: warm up on the first steps (up to 10, a fifth of the run at most) and record all
 * the others, once. With any flag given, the unset ones take torch's defaults (0, active 1).
 * `steps` is the number of steps the run will take, or undefined when unknown (an external program).
 */
export function scheduleFromFlags(flags: ScheduleFlags, steps: number | undefined): ScheduleArgs {
  const given = [flags.wait, flags.warmup, flags.active, flags.repeat, flags.skipFirst].some((v) => v !== undefined);
  for (const [name, v] of Object.entries(flags)) {
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new CliError(`--${kebab(name)}`, `must be a whole number >= 0, got ${v}`);
  }
  if (!given) {
    if (steps === undefined) return { wait: 0, warmup: 1, active: 1_000_000_000, repeat: 1, skipFirst: 0 };
    const warmup = Math.min(10, Math.floor(steps / 5));
    return { wait: 0, warmup, active: Math.max(1, steps - warmup), repeat: 1, skipFirst: 0 };
  }
  const out: ScheduleArgs = {
    wait: flags.wait ?? 0,
    warmup: flags.warmup ?? 0,
    active: flags.active ?? 1,
    repeat: flags.repeat ?? 0,
    skipFirst: flags.skipFirst ?? 0,
  };
  if (out.active < 1) throw new CliError('--active', 'must be at least 1 (no step would be recorded)');
  if (steps !== undefined && out.skipFirst + out.wait + out.warmup >= steps) {
    throw new CliError('--steps', `${steps} steps end before the first recorded step (skip-first ${out.skipFirst} + wait ${out.wait} + warmup ${out.warmup})`);
  }
  return out;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
