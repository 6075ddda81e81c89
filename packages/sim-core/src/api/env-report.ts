/**
 * What a scene reports about its envs through the tracer seam (instrument.ts), for a profiler to put on its
 * timeline: per-step counter samples of the solver's work and the contacts, and an instant event for each env
 * that resets, is found with a non-finite state, or stops at the solver's iteration limit unconverged.
 * The scene's own tallies (EnvEventCounts) are kept whether or not a tracer listens, so that a trace's events
 * can be checked against them.
 */
import type { DeviceStepStats } from '../backend/backend.js';
import type { SimTracer, SpanArgs } from '../instrument.js';
import {
  TIMER_CONTACTS, TIMER_IMPROVEMENT, TIMER_ITERATIONS, TIMER_NEFC, TIMER_NOT_CONVERGED,
} from '../solver/timers.js';

/** Counter track names, one sample per scene step at the step's start. */
export const PHYSICS_COUNTERS = {
  iterationsMax: 'solver iterations (max)',
  iterationsMean: 'solver iterations (mean)',
  contacts: 'contacts',
  contactsMax: 'contacts (max per env)',
  constraints: 'constraints',
  notConverged: 'solver not converged',
  resets: 'env resets',
} as const;

/** Instant event names (category ENV_EVENT_CATEGORY). */
export const ENV_EVENTS = { reset: 'env reset', nan: 'env nan', notConverged: 'solver not converged' } as const;
export const ENV_EVENT_CATEGORY = 'env';

/**
 * 'solver not converged' instants per step at most: a scene that runs its solver with too few iterations on
 * purpose (Genesis' timers.py runs one) would otherwise put an event per env per step in the trace. The
 * counter track of the same name holds every step's exact count.
 */
export const MAX_NOT_CONVERGED_EVENTS_PER_STEP = 64;

/** nan: a non-finite value in the state; limit: a blow-up past blowUpThreshold or a contact buffer overflow;
 *  user: scene.reset(). */
export type ResetReason = 'nan' | 'limit' | 'user';

export interface EnvEventCounts {
  /** Env resets by reason (an env reset twice counts twice). */
  readonly resets: Record<ResetReason, number>;
  /** Resets of each env, every reason. */
  readonly resetsPerEnv: Uint32Array;
  /** Envs found with a non-finite state (each finding once). */
  nan: number;
  /** Env-steps whose solve stopped at the iteration limit unconverged (the step's last substep). */
  notConverged: number;
}

/** One step's figures over every env, from the solver timers. */
export interface StepTotals {
  iterationsMax: number;
  iterationsMean: number;
  contacts: number;
  contactsMax: number;
  constraints: number;
  notConverged: number;
}

/** The step's figures from the solver timers (slot-major, timers[slot * nEnvs + e]) of its last substep. */
export function stepTotals(timers: ArrayLike<number>, nEnvs: number): StepTotals {
  let itMax = 0, itSum = 0, con = 0, conMax = 0, efc = 0, unconverged = 0;
  const it0 = TIMER_ITERATIONS * nEnvs, c0 = TIMER_CONTACTS * nEnvs, r0 = TIMER_NEFC * nEnvs, u0 = TIMER_NOT_CONVERGED * nEnvs;
  for (let e = 0; e < nEnvs; e++) {
    const it = timers[it0 + e]!, c = timers[c0 + e]!;
    if (it > itMax) itMax = it;
    itSum += it;
    con += c;
    if (c > conMax) conMax = c;
    efc += timers[r0 + e]!;
    if (timers[u0 + e] !== 0) unconverged++;
  }
  return { iterationsMax: itMax, iterationsMean: itSum / nEnvs, contacts: con, contactsMax: conMax, constraints: efc, notConverged: unconverged };
}

export class EnvReport {
  readonly counts: EnvEventCounts;
  private resetsSinceSample = 0;

  constructor(private readonly nEnvs: number) {
    this.counts = { resets: { nan: 0, limit: 0, user: 0 }, resetsPerEnv: new Uint32Array(nEnvs), nan: 0, notConverged: 0 };
  }

  /**
   * After a scene step whose solver timers are current: tallies the unconverged envs, and with a tracer that
   * takes them, samples the counters at the step's start and marks each unconverged env.
   */
  stepped(tracer: SimTracer | null, timers: ArrayLike<number>, step: number, startMs: number): void {
    const n = this.nEnvs;
    const totals = stepTotals(timers, n);
    if (!this.sample(tracer, totals, startMs) || totals.notConverged === 0 || !tracer?.instant) return;
    const u0 = TIMER_NOT_CONVERGED * n, it0 = TIMER_ITERATIONS * n, i0 = TIMER_IMPROVEMENT * n;
    let shown = 0;
    for (let e = 0; e < n && shown < MAX_NOT_CONVERGED_EVENTS_PER_STEP; e++) {
      if (timers[u0 + e] === 0) continue;
      shown++;
      tracer.instant(ENV_EVENTS.notConverged, ENV_EVENT_CATEGORY, { env: e, step, iterations: timers[it0 + e]!, improvement: timers[i0 + e]! }, startMs);
    }
  }

  /**
   * A device step's figures, from the device's reduction (backend.ts, DeviceStepStats), when they arrive: as
   * stepped(), and each env newly found with a non-finite state, with its stage (counted here, not by nan()). The
   * events are placed at the step's start: the host clock does not see when the device ran the step.
   */
  deviceStepped(tracer: SimTracer | null, stats: DeviceStepStats, step: number, startMs: number): void {
    this.counts.nan += stats.nanCount;
    const traced = this.sample(tracer, stats.totals, startMs);
    if (!traced || !tracer?.instant) return;
    for (const u of stats.unconverged.slice(0, MAX_NOT_CONVERGED_EVENTS_PER_STEP)) {
      tracer.instant(ENV_EVENTS.notConverged, ENV_EVENT_CATEGORY, { env: u.env, step, iterations: u.iterations, improvement: u.improvement }, startMs);
    }
    for (const { env, stage } of stats.nan) tracer.instant(ENV_EVENTS.nan, ENV_EVENT_CATEGORY, { env, stage, step }, startMs);
  }

  /** Tallies the step's unconverged envs and, with a tracer that takes counters, samples them at `startMs`. */
  private sample(tracer: SimTracer | null, totals: StepTotals, startMs: number): boolean {
    this.counts.notConverged += totals.notConverged;
    if (!tracer?.counter) { this.resetsSinceSample = 0; return false; }
    const C = PHYSICS_COUNTERS;
    tracer.counter(C.iterationsMax, 'count', totals.iterationsMax, startMs);
    tracer.counter(C.iterationsMean, 'count', totals.iterationsMean, startMs);
    tracer.counter(C.contacts, 'count', totals.contacts, startMs);
    tracer.counter(C.contactsMax, 'count', totals.contactsMax, startMs);
    tracer.counter(C.constraints, 'count', totals.constraints, startMs);
    tracer.counter(C.notConverged, 'count', totals.notConverged, startMs);
    tracer.counter(C.resets, 'count', this.resetsSinceSample, startMs);
    this.resetsSinceSample = 0;
    return true;
  }

  /** Envs reset, each for its reason; counted in the next step's 'env resets' sample. */
  reset(tracer: SimTracer | null, envs: ArrayLike<number>, reasons: readonly ResetReason[] | ResetReason, step: number): void {
    const now = performance.now();
    for (let i = 0; i < envs.length; i++) {
      const env = envs[i]!;
      const reason = typeof reasons === 'string' ? reasons : reasons[i]!;
      this.counts.resets[reason]++;
      this.counts.resetsPerEnv[env]!++;
      this.resetsSinceSample++;
      tracer?.instant?.(ENV_EVENTS.reset, ENV_EVENT_CATEGORY, { env, reason, step }, now);
    }
  }

  /** An env found with a non-finite state; `stage` names where it was first seen. */
  nan(tracer: SimTracer | null, env: number, stage: string, step: number): void {
    this.counts.nan++;
    const args: SpanArgs = { env, stage, step };
    tracer?.instant?.(ENV_EVENTS.nan, ENV_EVENT_CATEGORY, args);
  }
}
