/**
 * Per-env solver timers across steps, from 'env_timers' instants (args: step, n_envs, labels comma-joined,
 * values_b64 = base64 little-endian Float64Array, slot-major values[slot * nEnvs + env]).
 * Gives per-slot statistics, the slowest envs and Genesis' three panels.
 */
import type { TraceDb } from '../sql/traceDb.js';
import { mean, quantile } from './stats.js';
import { num } from './common.js';

export interface TimerPanels {
  /** Value per env at the last recorded step. */
  lastStep: number[];
  /** Mean over steps, per env. */
  runningMeanPerEnv: number[];
  /** Mean over steps of each step's values sorted ascending: the average distribution curve. */
  sortedRunningMean: number[];
}

export interface TimerSlot {
  label: string;
  mean: number;
  p50: number;
  p95: number;
  max: number;
  /** Envs with the highest mean, slowest first. */
  slowestEnvs: { env: number; mean: number }[];
  panels: TimerPanels;
}

export interface TimersResult {
  steps: number;
  nEnvs: number;
  stepNumbers: number[];
  slots: TimerSlot[];
}

export interface TimersOptions { slowest?: number }

export async function timers(db: TraceDb, opts: TimersOptions = {}): Promise<TimersResult | null> {
  const rows = await db.rows<{ id: number; k: string; s: string | null; i: number | null }>(`
    SELECT s.id, regexp_replace(a.key, '^(args|debug)\\.', '') AS k, a.string_value AS s,
           coalesce(a.int_value, a.real_value) AS i
    FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id
    WHERE s.name = 'env_timers' AND regexp_replace(a.key, '^(args|debug)\\.', '') IN ('step', 'n_envs', 'labels', 'values_b64')
    ORDER BY s.ts, s.id`);
  const events = new Map<number, { step?: number; nEnvs?: number; labels?: string; b64?: string }>();
  for (const r of rows) {
    let e = events.get(r.id);
    if (!e) { e = {}; events.set(r.id, e); }
    if (r.k === 'step') e.step = num(r.i ?? r.s);
    else if (r.k === 'n_envs') e.nEnvs = num(r.i ?? r.s);
    else if (r.k === 'labels') e.labels = r.s ?? '';
    else if (r.k === 'values_b64') e.b64 = r.s ?? '';
  }
  const samples: { step: number; values: Float64Array }[] = [];
  let nEnvs = 0;
  let labels: string[] = [];
  for (const e of events.values()) {
    if (!e.nEnvs || e.b64 === undefined) continue;
    const bytes = Buffer.from(e.b64, 'base64');
    const values = new Float64Array(bytes.length >> 3);
    for (let i = 0; i < values.length; i++) values[i] = bytes.readDoubleLE(i * 8);
    if (nEnvs === 0) { nEnvs = e.nEnvs; labels = (e.labels ?? '').split(',').filter((l) => l.length > 0); }
    if (e.nEnvs !== nEnvs) continue; // a different batch size cannot be averaged with the rest
    samples.push({ step: e.step ?? samples.length, values });
  }
  if (samples.length === 0 || nEnvs === 0) return null;
  const nSlots = Math.max(1, Math.floor(samples[0]!.values.length / nEnvs));
  const slowestN = opts.slowest ?? 5;
  const slots: TimerSlot[] = [];
  for (let slot = 0; slot < nSlots; slot++) {
    const all: number[] = [];
    const perEnvSum = new Float64Array(nEnvs);
    const sortedSum = new Float64Array(nEnvs);
    for (const s of samples) {
      const row = Array.from(s.values.subarray(slot * nEnvs, (slot + 1) * nEnvs));
      for (let e = 0; e < nEnvs; e++) { perEnvSum[e]! += row[e] ?? 0; all.push(row[e] ?? 0); }
      row.sort((a, b) => a - b);
      for (let e = 0; e < nEnvs; e++) sortedSum[e]! += row[e] ?? 0;
    }
    const last = samples[samples.length - 1]!.values;
    const runningMeanPerEnv = Array.from(perEnvSum, (v) => v / samples.length);
    const slowestEnvs = runningMeanPerEnv.map((m, env) => ({ env, mean: m }))
      .sort((a, b) => b.mean - a.mean || a.env - b.env).slice(0, slowestN);
    slots.push({
      label: labels[slot] ?? `slot${slot}`,
      mean: mean(all), p50: quantile(all, 0.5), p95: quantile(all, 0.95), max: Math.max(...all),
      slowestEnvs,
      panels: {
        lastStep: Array.from(last.subarray(slot * nEnvs, (slot + 1) * nEnvs)),
        runningMeanPerEnv,
        sortedRunningMean: Array.from(sortedSum, (v) => v / samples.length),
      },
    });
  }
  return { steps: samples.length, nEnvs, stepNumbers: samples.map((s) => s.step), slots };
}
