/**
 * Baseline: a small JSON file with a run's metadata and per-step samples (step time, per-kernel time per step,
 * counter samples such as solver iterations), to commit under traces/baselines/ and compare against later.
 */
import { open, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../export/file-sink.js';
import type { TraceDb } from '../sql/trace-db.js';
import { STEP_WHERE, type StageSource, nEnvsOf, num, stageSourceOf } from './common.js';
import { completedStepTimes } from './step-times.js';

export const BASELINE_FORMAT = 'gsprof-baseline';
/** 2: a list of runs (each a fresh process), with the configuration that makes runs comparable. */
export const BASELINE_VERSION = 2;

/**
 * What makes two runs comparable. compare refuses to judge runs whose scene, backend, nEnvs, precision or
 * adapter differ (COMPARABLE_KEYS), and warns about the rest.
 */
export interface RunConfig {
  example?: string;
  scene?: string;
  backend?: string;
  adapter?: string;
  nEnvs?: number | null;
  precision?: string;
  steps?: number;
  schedule?: string;
  dt?: number;
  performanceMode?: boolean;
  machine?: string;
  cpuModel?: string;
  cpuCores?: number;
  node?: string;
  gsprof?: string;
  gitCommit?: string;
  /** The rank of a multi-process run (its trace's distributedInfo), and the run's number of ranks. */
  rank?: number;
  worldSize?: number;
  [key: string]: unknown;
}

/** Keys whose difference makes a comparison meaningless: a different workload, not a slowdown. */
export const COMPARABLE_KEYS = ['example', 'scene', 'backend', 'nEnvs', 'precision', 'adapter', 'rank', 'worldSize'] as const;

/** One run's samples: its step durations and, per step, each kernel's total and the counters' values. */
export interface RunSamples {
  /** Duration of each ProfilerStep, ns, in step order. */
  steps: number[];
  /** Per kernel name: its total time in each step (ns; 0 where it did not run), or per instance without steps. */
  kernels: Record<string, number[]>;
  /** Per counter track name: its samples in time order (e.g. solver iterations). */
  counts: Record<string, number[]>;
  /** The trace the run was read from, informational. */
  source?: string;
  /** What `kernels` holds: GPU kernels, or a CPU-backend run's stages (host spans). Older baselines lack it. */
  stageKind?: StageSource['kind'];
}

export interface Baseline {
  format: typeof BASELINE_FORMAT;
  version: typeof BASELINE_VERSION;
  createdAt: string;
  config: RunConfig;
  /** Independent runs (separate processes): compare's samples are per-run statistics. */
  runs: RunSamples[];
}

export class BaselineFormatError extends Error {
  override readonly name = 'BaselineFormatError';
}

/** The regeneration hint every old or broken baseline error ends with. */
export const REGENERATE_HINT = 'regenerate it with `gsprof record ... --runs N --baseline-out FILE` (docs/ci.md)';

/** Several baselines of one side (their runs together); their configurations must agree. */
export function mergeBaselines(list: Baseline[]): Baseline {
  if (list.length === 0) throw new BaselineFormatError('no runs to merge');
  const first = list[0]!;
  return { ...first, runs: list.flatMap((b) => b.runs) };
}

export async function baselineFromTrace(db: TraceDb, config: RunConfig = {}): Promise<Baseline> {
  // Completed work, not the host's queueing rate (see step-times.ts).
  const steps = (await completedStepTimes(db)).durations;
  const kernels: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  // GPU kernels, or a CPU-backend run's cpu_op stages: either is the work compare explains a step time by.
  const { kind: stageKind, where: stageWhere } = await stageSourceOf(db);
  if (steps.length > 0) {
    // Each kernel belongs to the step during which it was launched (or, with no launch link, started).
    const rows = await db.rows<{ name: string; step: number; total: number }>(`
      WITH st AS (SELECT row_number() OVER (ORDER BY ts, id) - 1 AS step, ts, ts + dur AS e FROM slice WHERE ${STEP_WHERE}),
      k AS (SELECT k.name, k.dur, coalesce(gl.launch_ts, k.ts) AS at FROM slice k
            LEFT JOIN gpu_launch gl ON gl.gpu_slice_id = k.id
            WHERE k.${stageWhere.replace(/ AND dur/, ' AND k.dur')})
      SELECT k.name, st.step, sum(k.dur) AS total FROM k ASOF JOIN st ON k.at >= st.ts WHERE k.at < st.e
      GROUP BY k.name, st.step ORDER BY k.name, st.step`);
    for (const r of rows) {
      entry(kernels, r.name, () => new Array<number>(steps.length).fill(0))[num(r.step)] = num(r.total);
    }
  } else {
    const rows = await db.rows<{ name: string; dur: number }>(`SELECT name, dur FROM slice WHERE ${stageWhere} ORDER BY ts, id`);
    for (const r of rows) entry(kernels, r.name, () => []).push(num(r.dur));
  }
  const counts: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  const crows = await db.rows<{ name: string; value: number }>(`
    SELECT coalesce(t.name, 'counter ' || t.id) AS name, c.value FROM counter c JOIN track t ON t.id = c.track_id
    ORDER BY t.id, c.ts, c.id`);
  // Chrome 'C' events name their track "<name> <arg key>" (Perfetto's rule) and our exporter's key is "value":
  // drop it so a counter has the same name whichever format the run was saved in.
  for (const r of crows) {
    const name = r.name.replace(/ value$/, '');
    // The recorder's FPS counter is 1 / step time, which compare already judges: as a count it would only
    // repeat that verdict, or pass for a workload change.
    if (name === 'FPS') continue;
    entry(counts, name, () => []).push(num(r.value));
  }
  return {
    format: BASELINE_FORMAT, version: BASELINE_VERSION, createdAt: new Date().toISOString(),
    config: { ...(await configFromMetadata(db)), ...config },
    runs: [{ steps, kernels: { ...kernels }, counts: { ...counts }, source: db.path, stageKind }],
  };
}

/** The list stored under `key`, created by `make` the first time. */
function entry(lists: Record<string, number[]>, key: string, make: () => number[]): number[] {
  let list = lists[key];
  if (!list) {
    list = make();
    lists[key] = list;
  }
  return list;
}

async function configFromMetadata(db: TraceDb): Promise<RunConfig> {
  const json = await db.metadata('gsprof.json');
  if (typeof json !== 'string') return { nEnvs: await nEnvsOf(db) };
  try {
    const m = JSON.parse(json) as Record<string, unknown>;
    const devices = Array.isArray(m.deviceProperties) ? m.deviceProperties as Record<string, unknown>[] : [];
    const run = (m.run && typeof m.run === 'object' ? m.run : {}) as Record<string, unknown>;
    const out: RunConfig = { nEnvs: await nEnvsOf(db) };
    const str = (k: string): string | undefined => (typeof run[k] === 'string' ? run[k] as string : undefined);
    const numOf = (k: string): number | undefined => (typeof run[k] === 'number' ? run[k] as number : undefined);
    if (str('example')) out.example = str('example');
    if (str('scene')) out.scene = str('scene');
    if (str('backend')) out.backend = str('backend');
    if (str('precision')) out.precision = str('precision');
    if (numOf('steps') !== undefined) out.steps = numOf('steps');
    if (numOf('dt') !== undefined) out.dt = numOf('dt');
    if (typeof run.performanceMode === 'boolean') out.performanceMode = run.performanceMode;
    if (str('schedule')) out.schedule = str('schedule');
    if (str('cpuModel')) out.cpuModel = str('cpuModel');
    if (numOf('cpuCores') !== undefined) out.cpuCores = numOf('cpuCores');
    if (str('node')) out.node = str('node');
    if (str('gitCommit')) out.gitCommit = str('gitCommit');
    // The CPU backend has no adapter; the GPU run's is the first device's name.
    if (typeof devices[0]?.name === 'string') out.adapter = devices[0].name;
    if (typeof m.hostname === 'string') out.machine = m.hostname;
    if (typeof m.producer === 'string') out.gsprof = m.producer;
    const dist = (m.distributedInfo && typeof m.distributedInfo === 'object' ? m.distributedInfo : {}) as Record<string, unknown>;
    if (typeof dist.rank === 'number' && typeof dist.world_size === 'number' && dist.world_size > 1) {
      out.rank = dist.rank;
      out.worldSize = dist.world_size;
    }
    return out;
  } catch {
    return { nEnvs: await nEnvsOf(db) };
  }
}

export async function writeBaseline(path: string, baseline: Baseline): Promise<void> {
  // format first: readers recognise a baseline from its first bytes.
  const { format, version, ...rest } = baseline;
  // One line per sample array keeps the file small and diffable.
  const text = JSON.stringify({ format, version, ...rest }, null, 1)
    .replace(/\[\n\s*([-\d.eE+,\s]*?)\n\s*\]/g, (_m, body: string) => `[${body.replace(/\s+/g, '')}]`);
  await writeFileAtomic(path, `${text}\n`);
}

export async function readBaseline(path: string): Promise<Baseline> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new BaselineFormatError(`${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new BaselineFormatError(`${path}: not JSON: ${(err as Error).message}`);
  }
  return validateBaseline(v, path);
}

function isSamples(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

function isSampleMap(v: unknown): v is Record<string, number[]> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isSamples);
}

function isRun(v: unknown): v is RunSamples {
  const r = v as Partial<RunSamples> | null;
  return !!r && typeof r === 'object' && isSamples(r.steps) && isSampleMap(r.kernels) && isSampleMap(r.counts)
    && (r.stageKind === undefined || r.stageKind === 'gpu kernels' || r.stageKind === 'cpu stages');
}

export function validateBaseline(v: unknown, where = 'baseline'): Baseline {
  const b = v as (Partial<Baseline> & { steps?: unknown }) | null;
  if (!b || typeof b !== 'object' || b.format !== BASELINE_FORMAT) throw new BaselineFormatError(`${where}: not a gsprof baseline (format must be "${BASELINE_FORMAT}")`);
  if ((b.version as unknown) === 1 || (b.version === undefined && b.steps !== undefined)) {
    throw new BaselineFormatError(`${where}: a baseline in the old per-step format (version 1), whose steps are not independent samples; ${REGENERATE_HINT}`);
  }
  if (b.version !== BASELINE_VERSION) throw new BaselineFormatError(`${where}: unsupported baseline version ${String(b.version)}; ${REGENERATE_HINT}`);
  if (!Array.isArray(b.runs) || !b.runs.every(isRun)) throw new BaselineFormatError(`${where}: "runs" must be a list of {steps, kernels, counts}; ${REGENERATE_HINT}`);
  const runs = b.runs.map((r) => ({
    steps: r.steps, kernels: { ...Object.assign(Object.create(null) as Record<string, number[]>, r.kernels) },
    counts: { ...Object.assign(Object.create(null) as Record<string, number[]>, r.counts) }, ...(r.source ? { source: r.source } : {}),
    ...(r.stageKind ? { stageKind: r.stageKind } : {}),
  }));
  return { format: BASELINE_FORMAT, version: BASELINE_VERSION, createdAt: String(b.createdAt ?? ''),
    config: (b.config && typeof b.config === 'object' ? b.config : {}) as RunConfig, runs };
}

/** True when the file starts like a baseline (its "format" key comes first), without reading a whole trace. */
export async function looksLikeBaseline(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(256);
    const { bytesRead } = await fh.read(buf, 0, 256, 0);
    return buf.toString('utf8', 0, bytesRead).includes(`"${BASELINE_FORMAT}"`);
  } finally {
    await fh.close();
  }
}
