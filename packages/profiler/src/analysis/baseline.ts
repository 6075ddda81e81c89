/**
 * Baseline: a small JSON file with a run's metadata and per-step samples (step time, per-kernel time per step,
 * counter samples such as solver iterations), to commit under traces/baselines/ and compare against later.
 */
import { open, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../export/file-sink.js';
import type { TraceDb } from '../sql/traceDb.js';
import { KERNEL_WHERE, STEP_WHERE, nEnvsOf, num } from './common.js';

export const BASELINE_FORMAT = 'gsprof-baseline';
export const BASELINE_VERSION = 1;

export interface BaselineRun {
  machine?: string;
  adapter?: string;
  versions?: Record<string, string>;
  options?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Baseline {
  format: typeof BASELINE_FORMAT;
  version: typeof BASELINE_VERSION;
  createdAt: string;
  /** Where the samples came from (trace file name), informational. */
  source?: string;
  run: BaselineRun;
  nEnvs: number | null;
  /** Duration of each ProfilerStep, ns, in step order. */
  steps: number[];
  /** Per kernel name: its total time in each step (ns; 0 where it did not run), or per instance without steps. */
  kernels: Record<string, number[]>;
  /** Per counter track name: its samples in time order (e.g. solver iterations). */
  counts: Record<string, number[]>;
}

export class BaselineFormatError extends Error {
  override readonly name = 'BaselineFormatError';
}

export async function baselineFromTrace(db: TraceDb, run: BaselineRun = {}): Promise<Baseline> {
  const steps = (await db.rows<{ dur: number }>(`SELECT dur FROM slice WHERE ${STEP_WHERE} ORDER BY ts, id`)).map((r) => num(r.dur));
  const kernels: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  if (steps.length > 0) {
    // Each kernel belongs to the step during which it was launched (or, with no launch link, started).
    const rows = await db.rows<{ name: string; step: number; total: number }>(`
      WITH st AS (SELECT row_number() OVER (ORDER BY ts, id) - 1 AS step, ts, ts + dur AS e FROM slice WHERE ${STEP_WHERE}),
      k AS (SELECT k.name, k.dur, coalesce(l.ts, k.ts) AS at FROM slice k
            LEFT JOIN gpu_launch gl ON gl.gpu_slice_id = k.id LEFT JOIN slice l ON l.id = gl.launch_slice_id
            WHERE k.${KERNEL_WHERE.replace(/ AND dur/, ' AND k.dur')})
      SELECT k.name, st.step, sum(k.dur) AS total FROM k JOIN st ON k.at >= st.ts AND k.at < st.e
      GROUP BY k.name, st.step ORDER BY k.name, st.step`);
    for (const r of rows) {
      const arr = kernels[r.name] ??= new Array<number>(steps.length).fill(0);
      arr[num(r.step)] = num(r.total);
    }
  } else {
    const rows = await db.rows<{ name: string; dur: number }>(`SELECT name, dur FROM slice WHERE ${KERNEL_WHERE} ORDER BY ts, id`);
    for (const r of rows) (kernels[r.name] ??= []).push(num(r.dur));
  }
  const counts: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  const crows = await db.rows<{ name: string; value: number }>(`
    SELECT coalesce(t.name, 'counter ' || t.id) AS name, c.value FROM counter c JOIN track t ON t.id = c.track_id
    ORDER BY t.id, c.ts, c.id`);
  // Chrome 'C' events name their track "<name> <arg key>" (Perfetto's rule) and our exporter's key is "value":
  // drop it so a counter has the same name whichever format the run was saved in.
  for (const r of crows) (counts[r.name.replace(/ value$/, '')] ??= []).push(num(r.value));
  return {
    format: BASELINE_FORMAT, version: BASELINE_VERSION, createdAt: new Date().toISOString(), source: db.path,
    run: { ...(await runFromMetadata(db)), ...run }, nEnvs: await nEnvsOf(db),
    steps, kernels: { ...kernels }, counts: { ...counts },
  };
}

async function runFromMetadata(db: TraceDb): Promise<BaselineRun> {
  const json = await db.metadata('gsprof.json');
  if (typeof json !== 'string') return {};
  try {
    const m = JSON.parse(json) as Record<string, unknown>;
    const devices = Array.isArray(m.deviceProperties) ? m.deviceProperties as Record<string, unknown>[] : [];
    const out: BaselineRun = {};
    if (typeof m.hostname === 'string') out.machine = m.hostname;
    if (typeof devices[0]?.name === 'string') out.adapter = devices[0].name;
    if (typeof m.producer === 'string') out.versions = { producer: m.producer };
    if (m.run && typeof m.run === 'object') out.options = { ...(m.run as Record<string, unknown>) };
    return out;
  } catch {
    return {};
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

export function validateBaseline(v: unknown, where = 'baseline'): Baseline {
  const b = v as Partial<Baseline> | null;
  if (!b || typeof b !== 'object' || b.format !== BASELINE_FORMAT) throw new BaselineFormatError(`${where}: not a gsprof baseline (format must be "${BASELINE_FORMAT}")`);
  if (b.version !== BASELINE_VERSION) throw new BaselineFormatError(`${where}: unsupported baseline version ${String(b.version)}`);
  if (!isSamples(b.steps)) throw new BaselineFormatError(`${where}: "steps" must be an array of numbers`);
  if (!isSampleMap(b.kernels)) throw new BaselineFormatError(`${where}: "kernels" must map names to arrays of numbers`);
  if (!isSampleMap(b.counts)) throw new BaselineFormatError(`${where}: "counts" must map names to arrays of numbers`);
  const kernels = Object.assign(Object.create(null) as Record<string, number[]>, b.kernels);
  const counts = Object.assign(Object.create(null) as Record<string, number[]>, b.counts);
  return { format: BASELINE_FORMAT, version: BASELINE_VERSION, createdAt: String(b.createdAt ?? ''), source: b.source,
    run: (b.run && typeof b.run === 'object' ? b.run : {}) as BaselineRun, nEnvs: typeof b.nEnvs === 'number' ? b.nEnvs : null,
    steps: b.steps, kernels: { ...kernels }, counts: { ...counts } };
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
