/**
 * Per-env solver timers across steps, from 'env_timers' instants (args: step, n_envs, labels comma-joined,
 * values_b64 = base64 little-endian Float64Array, slot-major values[slot * nEnvs + env]).
 * Gives per-slot statistics, the slowest envs and Genesis' three panels.
 *
 * Memory stays bounded whatever the run size: events are read a page at a time and folded into per-env sums;
 * p50/p95 come from a fixed-size uniform sample of the values (exact while every value fits in it).
 */
import type { TraceDb } from '../sql/trace-db.js';
import { num } from './common.js';
import { mulberry32 } from './stats.js';

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
  /** How many values p50 and p95 were computed from: all of them (exact) or a uniform sample. */
  quantileSample: { size: number; of: number; exact: boolean };
  /** Envs with the highest mean, slowest first. */
  slowestEnvs: { env: number; mean: number }[];
  panels: TimerPanels;
}

export interface TimersResult {
  steps: number;
  nEnvs: number;
  /** First and last recorded step number. */
  stepRange: [number, number];
  /** Recorded steps left out because their batch size differs from the first one's. */
  skippedSteps: number;
  slots: TimerSlot[];
}

export interface TimersOptions {
  slowest?: number;
  /** Values kept for the quantiles per slot (default 2^18: 2 MiB per slot). */
  quantileSampleSize?: number;
  /** Events decoded per query (bounds the base64 text held at once). */
  pageSize?: number;
}


/** Linear-interpolated quantile (as stats.quantile) of an already sorted array. */
function sortedQuantile(s: Float64Array, q: number): number {
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** One slot's running state: sums per env, sums of each step's sorted row, max, and a reservoir sample. */
class SlotAccumulator {
  readonly perEnvSum: Float64Array;
  readonly sortedSum: Float64Array;
  readonly reservoir: Float64Array;
  last: Float64Array;
  seen = 0;
  sum = 0;
  max = -Infinity;
  private readonly random = mulberry32(0x9e3779b9);
  /** Reservoir sampling, Li's algorithm L: index of the next value that enters the sample, and its weight. */
  private next = 0;
  private w = 1;

  constructor(readonly nEnvs: number, readonly capacity: number) {
    this.perEnvSum = new Float64Array(nEnvs);
    this.sortedSum = new Float64Array(nEnvs);
    this.reservoir = new Float64Array(capacity);
    this.last = new Float64Array(nEnvs);
  }

  private skip(): void {
    // Draws are in (0, 1]: 1 - random() never hits 0, so the logs stay finite.
    this.w *= Math.exp(Math.log(1 - this.random()) / this.capacity);
    this.next += Math.floor(Math.log(1 - this.random()) / Math.log(1 - this.w)) + 1;
  }

  add(row: Float64Array): void {
    const n = this.nEnvs;
    let sum = 0;
    let max = this.max;
    for (let e = 0; e < n; e++) {
      const v = row[e]!;
      this.perEnvSum[e]! += v;
      sum += v;
      if (v > max) max = v;
    }
    this.sum += sum;
    this.max = max;
    // The first `capacity` values fill the sample; past that, only the values algorithm L picks are touched.
    let e = 0;
    while (this.seen + e < this.capacity && e < n) { this.reservoir[this.seen + e] = row[e]!; e++; }
    if (this.seen + e === this.capacity && this.next < this.capacity) { this.next = this.capacity - 1; this.skip(); }
    while (this.next < this.seen + n && this.next >= this.capacity) {
      this.reservoir[Math.floor(this.random() * this.capacity)] = row[this.next - this.seen]!;
      this.skip();
    }
    this.seen += n;
    const sorted = row.slice().sort(); // Float64Array sorts numerically
    for (let k = 0; k < n; k++) this.sortedSum[k]! += sorted[k]!;
    this.last = row.slice();
  }
}

/** A values_b64 payload as float64s (little-endian in the trace). */
function decodeValues(b64: string): Float64Array {
  const bytes = Buffer.from(b64, 'base64');
  if (LITTLE_ENDIAN) return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~7)));
  const values = new Float64Array(bytes.length >> 3);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readDoubleLE(i * 8);
  return values;
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** One recorded step's per-env timers: values[slot * nEnvs + env]. */
export interface EnvTimerRow {
  /** The event's time (ns, the trace's clock): just after the step it belongs to. */
  ts: number;
  /** The profiler's step number, where the event names one. */
  step: number | undefined;
  nEnvs: number;
  labels: string;
  values: Float64Array;
}

/** Every 'env_timers' event of the trace in time order, read `pageSize` events per query. */
export async function* envTimerRows(db: TraceDb, pageSize = 256): AsyncGenerator<EnvTimerRow> {
  const ids = await db.rows<{ id: number; ts: number }>(`SELECT id, ts FROM slice WHERE name = 'env_timers' ORDER BY ts, id`);
  for (let from = 0; from < ids.length; from += pageSize) {
    const page = ids.slice(from, from + pageSize);
    const rows = await db.rows<{ id: number; k: string; s: string | null; i: number | null }>(`
      SELECT s.id, regexp_replace(a.key, '^(args|debug)\\.', '') AS k, a.string_value AS s,
             coalesce(a.int_value, a.real_value) AS i
      FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id
      WHERE s.id IN (${page.map((r) => Number(r.id)).join(',')}) AND regexp_replace(a.key, '^(args|debug)\\.', '') IN ('step', 'n_envs', 'labels', 'values_b64')`);
    const events = new Map<number, { ts: number; step?: number; nEnvs?: number; labels?: string; b64?: string }>(page.map((r) => [Number(r.id), { ts: num(r.ts) }]));
    for (const r of rows) {
      const e = events.get(Number(r.id));
      if (!e) continue;
      if (r.k === 'step') e.step = num(r.i ?? r.s);
      else if (r.k === 'n_envs') e.nEnvs = num(r.i ?? r.s);
      else if (r.k === 'labels') e.labels = r.s ?? '';
      else if (r.k === 'values_b64') e.b64 = r.s ?? '';
    }
    for (const e of events.values()) { // in page (= ts) order: a Map keeps insertion order
      if (!e.nEnvs || e.b64 === undefined) continue;
      yield { ts: e.ts, step: e.step, nEnvs: e.nEnvs, labels: e.labels ?? '', values: decodeValues(e.b64) };
    }
  }
}

export async function timers(db: TraceDb, opts: TimersOptions = {}): Promise<TimersResult | null> {
  const capacity = Math.max(1, Math.floor(opts.quantileSampleSize ?? 1 << 18));
  let nEnvs = 0;
  let labels: string[] = [];
  let acc: SlotAccumulator[] = [];
  let steps = 0;
  let skippedSteps = 0;
  let firstStep = NaN;
  let lastStep = NaN;
  for await (const e of envTimerRows(db, opts.pageSize ?? 256)) {
    const values = e.values;
    if (nEnvs === 0) {
      nEnvs = e.nEnvs;
      labels = e.labels.split(',').filter((l) => l.length > 0);
      const nSlots = Math.max(1, Math.floor(values.length / nEnvs));
      acc = Array.from({ length: nSlots }, () => new SlotAccumulator(nEnvs, capacity));
    }
    // A different batch size (or a truncated sample) cannot be averaged with the rest.
    if (e.nEnvs !== nEnvs || values.length < acc.length * nEnvs) { skippedSteps++; continue; }
    acc.forEach((a, slot) => { a.add(values.subarray(slot * nEnvs, (slot + 1) * nEnvs)); });
    const step = e.step ?? steps;
    if (steps === 0) firstStep = step;
    lastStep = step;
    steps++;
  }
  if (steps === 0 || nEnvs === 0) return null;
  const slowestN = opts.slowest ?? 5;
  const slots: TimerSlot[] = acc.map((a, slot) => {
    const runningMeanPerEnv = Array.from(a.perEnvSum, (v) => v / steps);
    const slowestEnvs = runningMeanPerEnv.map((m, env) => ({ env, mean: m }))
      .sort((x, y) => y.mean - x.mean || x.env - y.env).slice(0, slowestN);
    const sample = a.reservoir.slice(0, Math.min(a.seen, a.capacity)).sort();
    return {
      label: labels[slot] ?? `slot${slot}`,
      mean: a.sum / a.seen, p50: sortedQuantile(sample, 0.5), p95: sortedQuantile(sample, 0.95), max: a.max,
      quantileSample: { size: sample.length, of: a.seen, exact: sample.length === a.seen },
      slowestEnvs,
      panels: { lastStep: Array.from(a.last), runningMeanPerEnv, sortedRunningMean: Array.from(a.sortedSum, (v) => v / steps) },
    };
  });
  return { steps, nEnvs, stepRange: [firstStep, lastStep], skippedSteps, slots };
}
