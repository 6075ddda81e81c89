// A recording cycle that spills its finished events (maxHeldEvents, issue 33) holds no more than that many in
// memory however long it records, and the trace written from its runs is the one the in-memory cycle writes:
// the same slices (tracks, times, depths, the overflow tracks of partial overlaps), args (the GPU passes'
// correlation ids), flows, counters, instants, env timers and metadata, read back through the importer, in both
// formats. The feed is synthetic and the same for both cycles: host spans, GPU batches with submits (some
// resolved after their submit was spilled, some with unwritten or negative timestamps, sync markers), two
// devices, counters, instants, env timers, slices that partly overlap or tie, one never closed, and a shift
// of ts 0 after spills (pre-recorded spans).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import { writeChromeTrace, writePerfettoTrace } from '../../src/export/index.js';
import { Cycle, type GpuDeviceInfo, type GpuPassResult } from '../../src/record/cycle.js';
import { FakeClock } from '../../src/record/index.js';
import { openTrace } from '../../src/sql/trace-db.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-spill-test-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
beforeEach(() => { logger.setSink(() => undefined); });
afterEach(() => { logger.setSink(null); });

const DEVICES: GpuDeviceInfo[] = [
  { index: 0, properties: { id: 0, name: 'gpu a', backend: 'webgpu', timestampQuery: true } },
  { index: 1, properties: { id: 1, name: 'gpu b', backend: 'webgpu', timestampQuery: true } },
];
const STEPS = 400;
const STEP_NS = 100_000;
/** Each device's GPU clock runs ahead of the host's by its own offset. */
const gpuNs = (device: number, hostNs: number): bigint => BigInt(hostNs) + 7_000_000_000n + BigInt(device) * 3_000_000_000n;

/** Feeds the same events to the cycle, whatever it holds them in; returns the cycle finalised. */
async function record(maxHeldEvents?: number): Promise<Cycle> {
  const clock = new FakeClock(50_000);
  const cycle = new Cycle({ clock, traceName: 'spill', syncEachStep: false, run: { nEnvs: 16 }, devices: [DEVICES[0]!], ...(maxHeldEvents ? { maxHeldEvents } : {}) });
  cycle.start(50_000);
  const waiting: Array<{ at: number; add: () => void }> = [];
  const worker = cycle.threadTrack('env worker 1', 7);
  let straddling: ReturnType<Cycle['openSlice']> | null = null;
  for (let step = 0; step < STEPS; step++) {
    const t = 50_000 + step * STEP_NS;
    const stepSlice = cycle.openSlice(`ProfilerStep#${step}`, 'user_annotation', t, { step });
    // A readback awaited in the next step: it partly overlaps both steps (an overflow track).
    if (straddling) { cycle.closeSlice(straddling, t + 30_000); straddling = null; }
    if (step % 25 === 3) straddling = cycle.openSlice('readback', 'gsprof', t + 60_000);
    for (const device of step % 7 === 0 ? DEVICES : [DEVICES[0]!]) {
      const submit = cycle.completeSlice('queue.submit', 'cuda_runtime', t + 10_000, t + 12_000, { step, device: device.index });
      const passes: GpuPassResult[] = ['kinematics', 'crb', 'solve'].map((kernel, k) => {
        const begin = gpuNs(device.index, t + 15_000 + k * 10_000);
        return { name: kernel, args: { kernel, step }, begin, end: begin + 8_000n };
      });
      if (step % 50 === 9) passes[1] = { ...passes[1]!, begin: 0n };
      if (step % 70 === 11) passes[2] = { ...passes[2]!, end: passes[2]!.begin - 1n };
      // Two passes at the same GPU time, the shorter added first: the longer is the parent.
      if (step % 30 === 5) passes.unshift({ name: 'short', args: {}, begin: passes[0]!.begin, end: passes[0]!.begin + 2_000n });
      const batch = { device, submitHostNs: t + 10_000, doneHostNs: t + 60_000, submitSlice: submit, passes };
      // Some readbacks resolve steps later, after their submit span was spilled.
      const delay = step % 9 === 0 ? 3 : 0;
      waiting.push({ at: step + delay, add: () => cycle.addGpuBatch(batch) });
    }
    if (step % 40 === 20) {
      const at = gpuNs(0, t + 70_000);
      waiting.push({ at: step, add: () => cycle.addGpuBatch({ device: DEVICES[0]!, submitHostNs: t + 69_000, doneHostNs: t + 71_000, submitSlice: null, passes: [{ name: 'marker', args: {}, begin: at, end: at }], marker: 'sync' }) });
    }
    for (const w of waiting.filter((x) => x.at === step)) w.add();
    // Slices of one time and duration on two tracks, the worker's added first.
    cycle.completeSlice('tie', 'cpu_op', t + 40_000, t + 45_000, undefined, worker);
    cycle.completeSlice('tie', 'cpu_op', t + 40_000, t + 45_000);
    cycle.counter('FPS', 'env-steps/s', t, 1e6 + step);
    if (step % 10 === 0) cycle.instant('checkpoint', 'user_annotation', t + 1_000, { step });
    if (step % 20 === 0) cycle.envTimers({ step, ts: cycle.ts(t + 90_000), nEnvs: 2, values: Float64Array.from([step, step + 0.5, 3, 4]) });
    cycle.closeSlice(stepSlice, t + STEP_NS - 1_000);
    // Spans from before recording arrive late: ts 0 moves back, shifting what is held and what was spilled.
    if (step === 200) {
      cycle.moveBaseEarlier(20_000);
      cycle.completeSlice('scene build', 'gsprof', 20_000, 45_000);
    }
  }
  for (const w of waiting.filter((x) => x.at >= STEPS)) w.add();
  cycle.openSlice('never closed', 'user_annotation', 50_000 + STEPS * STEP_NS - 500);
  cycle.trace.metadata.timerLabels = ['solve_ns', 'iterations'];
  cycle.stop(50_000 + STEPS * STEP_NS);
  await cycle.finalize();
  return cycle;
}

const QUERIES = {
  slices: `SELECT coalesce(t.name, th.name) AS track, s.name, s.ts, s.dur, s.depth, s.category FROM slice s
           JOIN track t ON t.id = s.track_id LEFT JOIN thread th ON th.utid = t.utid ORDER BY ALL`,
  args: `SELECT s.name, s.ts, a.key, coalesce(a.string_value, CAST(a.int_value AS VARCHAR), CAST(a.real_value AS VARCHAR)) AS value
         FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id ORDER BY ALL`,
  flows: `SELECT so.name AS out_name, so.ts AS out_ts, si.name AS in_name, si.ts AS in_ts, f.category FROM flow f
          JOIN slice so ON so.id = f.slice_out JOIN slice si ON si.id = f.slice_in ORDER BY ALL`,
  counters: 'SELECT t.name, c.ts, c.value FROM counter c JOIN track t ON t.id = c.track_id ORDER BY ALL',
  threads: 'SELECT name, tid FROM thread ORDER BY ALL',
};

async function tables(path: string): Promise<Record<string, unknown[]>> {
  const db = await openTrace(path, { cache: false });
  try {
    const out: Record<string, unknown[]> = {};
    for (const [name, sql] of Object.entries(QUERIES)) out[name] = await db.rows(sql);
    return out;
  } finally {
    await db.close();
  }
}

describe('a recording cycle that spills its events', () => {
  // 32: many runs of one block; 1,500: runs of several blocks (512 records, 384 host slice shapes a block).
  it.each([32, 1_500])('holds at most maxHeldEvents (%i), and writes the trace the in-memory cycle writes (pftrace and JSON)', async (cap) => {
    const inMemory = await record();
    const spilled = await record(cap);
    expect(spilled.spilling).toBe(true);
    // The cap held: never more than `cap` events in memory, where the in-memory cycle ended with every one.
    expect(spilled.maxHeldSeen).toBeLessThanOrEqual(cap);
    expect(spilled.maxHeldSeen).toBeGreaterThan(0);
    expect(spilled.trace.slices).toHaveLength(0);
    expect(inMemory.heldEvents).toBeGreaterThan(3_000);
    // The spilled cycle learnt the same GPU facts (alignment, discarded passes) and made the same tracks.
    expect(spilled.trace.metadata).toEqual(inMemory.trace.metadata);
    expect(spilled.trace.tracks).toEqual(inMemory.trace.tracks);
    for (const [ext, write] of [['pftrace', writePerfettoTrace], ['json', writeChromeTrace]] as const) {
      const a = join(dir, `memory.${ext}`);
      const b = join(dir, `spilled-${cap}.${ext}`);
      await write(inMemory.trace, a);
      await write(spilled.trace, b);
      const [expected, got] = [await tables(a), await tables(b)];
      // The feed exercises what it claims: overflow tracks, flows (some late), correlation args, timers, markers.
      const slices = expected.slices as Array<{ track: string; name: string }>;
      expect(slices.some((s) => / \(overlapping\)$/.test(s.track)), ext).toBe(true);
      expect(slices.filter((s) => s.name === 'sync').length, ext).toBe(STEPS / 40);
      expect(expected.flows!.length, ext).toBeGreaterThan(1_000);
      expect((expected.args as Array<{ key: string }>).some((r) => r.key.endsWith('correlation')), ext).toBe(true);
      for (const name of Object.keys(QUERIES)) expect(got[name], `${ext} ${name}`).toEqual(expected[name]);
    }
    // Its file goes once the trace is written (other processes may have theirs in TMPDIR).
    const spills = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith('gsprof-trace-') && existsSync(join(tmpdir(), f, 'events.spill')));
    const before = spills();
    spilled.disposeSpill();
    expect(before.filter((f) => !spills().includes(f))).toHaveLength(1);
    // Written after its file went: one clear error, no half-written trace.
    await expect(writePerfettoTrace(spilled.trace, join(dir, 'late.pftrace'))).rejects.toThrow(/removed once the trace is handed over/);
    expect(existsSync(join(dir, 'late.pftrace'))).toBe(false);
  }, 60_000);
});
