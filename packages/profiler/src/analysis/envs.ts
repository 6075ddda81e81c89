/**
 * Which envs of a batched simulation cost the time, and why: from the per-step counter tracks a simulator
 * reports ('solver iterations (max)', ...), its per-env instants ('env reset', 'env nan', 'solver not
 * converged', args env and step) and, where recorded, the per-env solver timers ('env_timers' events).
 * Steps are the simulator's own step numbers (the 'step' slices' args.step, which is what a timeline shows).
 * The trace tables are the only input: the names are conventions of the recorder, not physics.
 */
import type { TraceDb } from '../sql/trace-db.js';
import { num } from './common.js';
import { envTimerRows } from './timers.js';

export const ENV_EVENT_NAMES = ['env reset', 'env nan', 'solver not converged'] as const;
/** The counter that marks a trace with per-step physics counters. A one-word name read from Chrome JSON gets
 *  " value" appended (the reader names a JSON counter "<name> <arg key>"), so both spellings are looked up. */
const ITERATIONS_MAX = 'solver iterations (max)';

export interface EnvCost {
  env: number;
  /** From the per-env timers (null without them): solver iterations summed over the steps, their mean and max. */
  iterations: { total: number; mean: number; max: number; maxStep: number | null } | null;
  contacts: { mean: number; max: number } | null;
  resets: { step: number | null; reason: string }[];
  nan: { step: number | null; stage: string }[];
  /** Steps whose solve stopped unconverged in this env (events), and how many. */
  notConverged: { count: number; steps: number[] };
  /** Steps to look at on the timeline: the env's most iterations, its first resets, NaNs and unconverged solves. */
  lookAt: number[];
}

export interface SlowStep {
  step: number | null;
  durNs: number;
  iterationsMax: number | null;
  /** The env with the most iterations in that step (per-env timers), or null without them. */
  topEnv: { env: number; iterations: number } | null;
}

export interface EnvsResult {
  /** The batch size, from the per-env timers; null without them (the events name only some envs). */
  nEnvs: number | null;
  /** Scene steps in the trace (step slices). */
  steps: number;
  /** What ranks the envs: their solver iterations (per-env timers) or their events. */
  rankedBy: 'solver iterations' | 'events';
  envs: EnvCost[];
  /** The envs with any reset, NaN or unconverged solve, most events first (at most `top`). */
  eventful: EnvCost[];
  /** One value per env, the one `rankedBy` names (total iterations; or number of events, for env 0 up to the
   *  highest env an event names). */
  perEnv: number[];
  totalResets: number;
  resetsByReason: Record<string, number>;
  nanEvents: number;
  notConvergedEvents: number;
  /** Envs with at least one event. */
  envsWithEvents: number;
  /** Pearson correlation of each step's duration with its 'solver iterations (max)' sample, over `n` steps
   *  (null with fewer than 3, or when either does not vary). */
  correlation: { r: number | null; n: number };
  slowestSteps: SlowStep[];
  counters: Record<string, { mean: number; max: number; samples: number }>;
}

export interface EnvsOptions {
  /** Envs listed (default 10). */
  top?: number;
  /** Slowest steps listed (default 5). */
  slowest?: number;
}

interface EventRow { name: string; ts: number; env: number | null; step: number | null; what: string | null; iterations: number | null }

/** Null when the trace has neither the counters nor the events (not a simulator's recording). */
export async function envs(db: TraceDb, opts: EnvsOptions = {}): Promise<EnvsResult | null> {
  const counterRows = await db.rows<{ name: string; ts: number; value: number }>(`
    SELECT t.name, c.ts, c.value FROM counter c JOIN track t ON c.track_id = t.id
    WHERE t.name IN ('${ITERATIONS_MAX}', 'solver iterations (mean)', 'contacts', 'contacts value', 'contacts (max per env)',
      'constraints', 'constraints value', 'solver not converged', 'env resets')
    ORDER BY c.ts`);
  const key = `regexp_replace(a.key, '^(args|debug)\\.', '')`;
  const events = await db.rows<EventRow>(`
    SELECT s.name, s.ts,
      max(CASE WHEN ${key} = 'env' THEN coalesce(a.int_value, a.real_value) END) AS env,
      max(CASE WHEN ${key} = 'step' THEN coalesce(a.int_value, a.real_value) END) AS step,
      max(CASE WHEN ${key} IN ('reason', 'stage') THEN a.string_value END) AS what,
      max(CASE WHEN ${key} = 'iterations' THEN coalesce(a.int_value, a.real_value) END) AS iterations
    FROM slice s LEFT JOIN args a ON a.arg_set_id = s.arg_set_id
    WHERE s.name IN (${ENV_EVENT_NAMES.map((n) => `'${n}'`).join(', ')})
    GROUP BY s.id, s.name, s.ts ORDER BY s.ts, s.id`);
  if (counterRows.length === 0 && events.length === 0) return null;

  const stepRows = await db.rows<{ ts: number; dur: number; step: number | null }>(`
    SELECT s.ts, s.dur, (SELECT coalesce(a.int_value, a.real_value) FROM args a WHERE a.arg_set_id = s.arg_set_id AND ${key} = 'step' LIMIT 1) AS step
    FROM slice s WHERE s.name = 'step' AND s.category = 'step' AND s.dur >= 0 ORDER BY s.ts`);
  const steps = stepRows.map((r) => ({ ts: num(r.ts), dur: num(r.dur), step: r.step === null ? null : num(r.step) }));
  /** The scene step a time falls in or after: the last step slice starting at or before it. */
  const stepAt = (ts: number): number | null => {
    let lo = 0, hi = steps.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (steps[mid]!.ts <= ts) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found < 0 ? null : steps[found]!.step;
  };

  /** Index of the first step slice starting at or after a time (steps.length when none does). */
  const firstStepFrom = (ts: number): number => {
    let lo = 0, hi = steps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (steps[mid]!.ts < ts) lo = mid + 1; else hi = mid;
    }
    return lo;
  };

  // Counters: per name, mean and max; and 'solver iterations (max)' by the step its sample starts.
  const counters: EnvsResult['counters'] = {};
  const itersMaxAt = new Map<number, number>();
  for (const r of counterRows) {
    const name = r.name.replace(/ value$/, '');
    counters[name] ??= { mean: 0, max: -Infinity, samples: 0 };
    const c = counters[name];
    const v = num(r.value);
    c.mean += v; c.max = Math.max(c.max, v); c.samples++;
    // A sample is taken at its step's start, just before the step slice opens: the next step slice is its step.
    if (r.name === ITERATIONS_MAX) {
      const i = firstStepFrom(num(r.ts));
      if (i < steps.length && !itersMaxAt.has(i)) itersMaxAt.set(i, v);
    }
  }
  for (const c of Object.values(counters)) c.mean /= c.samples;

  // Per-env timers, by scene step (the step slice the event follows).
  let nEnvs = 0;
  let iterSlot = -1, contactSlot = -1;
  let itTotal: Float64Array | null = null, itMax: Float64Array | null = null, conSum: Float64Array | null = null, conMax: Float64Array | null = null;
  let itMaxStep: (number | null)[] = [];
  let timerSteps = 0;
  const topEnvAt = new Map<number | null, { env: number; iterations: number }>();
  for await (const row of envTimerRows(db)) {
    if (nEnvs === 0) {
      const labels = row.labels.split(',');
      iterSlot = labels.indexOf('iterations');
      contactSlot = labels.indexOf('contacts');
      if (iterSlot < 0) break;
      nEnvs = row.nEnvs;
      itTotal = new Float64Array(nEnvs); itMax = new Float64Array(nEnvs).fill(-1);
      conSum = new Float64Array(nEnvs); conMax = new Float64Array(nEnvs);
      itMaxStep = new Array<number | null>(nEnvs).fill(null);
    }
    if (row.nEnvs !== nEnvs || row.values.length < (Math.max(iterSlot, contactSlot) + 1) * nEnvs) continue;
    const step = stepAt(row.ts);
    let top = -1, topIt = -1;
    for (let e = 0; e < nEnvs; e++) {
      const it = row.values[iterSlot * nEnvs + e]!;
      itTotal![e]! += it;
      if (it > itMax![e]!) { itMax![e] = it; itMaxStep[e] = step; }
      if (it > topIt) { topIt = it; top = e; }
      if (contactSlot >= 0) {
        const c = row.values[contactSlot * nEnvs + e]!;
        conSum![e]! += c;
        if (c > conMax![e]!) conMax![e] = c;
      }
    }
    if (top >= 0) topEnvAt.set(step, { env: top, iterations: topIt });
    timerSteps++;
  }

  // Events per env.
  const maxEnv = events.reduce((m, e) => (e.env === null ? m : Math.max(m, num(e.env))), -1);
  if (timerSteps === 0) nEnvs = maxEnv + 1;
  const size = Math.max(nEnvs, maxEnv + 1);
  const costs: EnvCost[] = Array.from({ length: size }, (_, env) => ({
    env,
    iterations: timerSteps > 0 && env < nEnvs ? { total: itTotal![env]!, mean: itTotal![env]! / timerSteps, max: Math.max(0, itMax![env]!), maxStep: itMaxStep[env] ?? null } : null,
    contacts: timerSteps > 0 && contactSlot >= 0 && env < nEnvs ? { mean: conSum![env]! / timerSteps, max: conMax![env]! } : null,
    resets: [], nan: [], notConverged: { count: 0, steps: [] }, lookAt: [],
  }));
  const resetsByReason: Record<string, number> = {};
  let totalResets = 0, nanEvents = 0, notConvergedEvents = 0;
  for (const e of events) {
    if (e.env === null) continue;
    const c = costs[num(e.env)]!;
    const step = e.step === null ? null : num(e.step);
    if (e.name === 'env reset') {
      const reason = e.what ?? 'unknown';
      c.resets.push({ step, reason });
      resetsByReason[reason] = (resetsByReason[reason] ?? 0) + 1;
      totalResets++;
    } else if (e.name === 'env nan') {
      c.nan.push({ step, stage: e.what ?? 'unknown' });
      nanEvents++;
    } else {
      c.notConverged.count++;
      if (step !== null && c.notConverged.steps.length < 20) c.notConverged.steps.push(step);
      notConvergedEvents++;
    }
  }
  const eventCount = (c: EnvCost): number => c.resets.length + c.nan.length + c.notConverged.count;
  for (const c of costs) {
    const look = [c.iterations?.maxStep ?? null, ...c.nan.map((n) => n.step), ...c.resets.map((r) => r.step), ...c.notConverged.steps.slice(0, 1)];
    c.lookAt = [...new Set(look.filter((s): s is number => s !== null))].slice(0, 4);
  }
  const rankedBy: EnvsResult['rankedBy'] = timerSteps > 0 ? 'solver iterations' : 'events';
  const score = (c: EnvCost): number => (rankedBy === 'solver iterations' ? c.iterations?.total ?? 0 : eventCount(c));
  const perEnv = costs.map(score);
  const ranked = [...costs].sort((a, b) => score(b) - score(a) || eventCount(b) - eventCount(a) || a.env - b.env);

  // Step time against the step's max iterations.
  const pairs: [number, number][] = [];
  for (const [i, it] of itersMaxAt) pairs.push([steps[i]!.dur, it]);
  const slowest = steps.map((s, i) => ({ s, i })).sort((a, b) => b.s.dur - a.s.dur).slice(0, opts.slowest ?? 5)
    .map(({ s, i }): SlowStep => ({ step: s.step, durNs: s.dur, iterationsMax: itersMaxAt.get(i) ?? null, topEnv: topEnvAt.get(s.step) ?? null }));

  return {
    nEnvs: timerSteps > 0 ? nEnvs : null, steps: steps.length, rankedBy, envs: ranked.slice(0, opts.top ?? 10),
    eventful: costs.filter((c) => eventCount(c) > 0).sort((a, b) => eventCount(b) - eventCount(a) || a.env - b.env).slice(0, opts.top ?? 10),
    perEnv,
    totalResets, resetsByReason, nanEvents, notConvergedEvents, envsWithEvents: costs.filter((c) => eventCount(c) > 0).length,
    correlation: { r: pearson(pairs), n: pairs.length }, slowestSteps: slowest, counters,
  };
}

function pearson(pairs: [number, number][]): number | null {
  const n = pairs.length;
  if (n < 3) return null;
  let mx = 0, my = 0;
  for (const [x, y] of pairs) { mx += x; my += y; }
  mx /= n; my /= n;
  let sxy = 0, sxx = 0, syy = 0;
  for (const [x, y] of pairs) { sxy += (x - mx) * (y - my); sxx += (x - mx) ** 2; syy += (y - my) ** 2; }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}
