import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger } from '@gsprof/log';
import { Cycle, GPU_PID_BASE, type GpuBatch, type GpuDeviceInfo } from '../../src/record/cycle.js';
import { FakeClock } from '../../src/record/index.js';

const device: GpuDeviceInfo = { index: 0, properties: { id: 0, name: 'test gpu', backend: 'webgpu', timestampQuery: true } };
let warnings: string[];
beforeEach(() => {
  warnings = [];
  logger.setSink((r) => { warnings.push(r.message); });
});
afterEach(() => { logger.setSink(null); });

/** GPU clock = host clock + 1e9 ns (so the true offset is -1e9). */
const GPU_AHEAD = 1_000_000_000n;
const gpu = (hostNs: number): bigint => BigInt(hostNs) + GPU_AHEAD;

function recordingCycle(): { cycle: Cycle; clock: FakeClock } {
  const clock = new FakeClock(5_000);
  const cycle = new Cycle({ clock, traceName: 't', syncEachStep: false, run: {}, devices: [device] });
  cycle.start(clock.nowNs());
  return { cycle, clock };
}

describe('Cycle: placing GPU work', () => {
  it('drops unwritten (0) and negative passes and counts them; aligns and links the rest', async () => {
    const { cycle } = recordingCycle();
    const submit = cycle.completeSlice('queue.submit', 'cuda_runtime', 10_000, 12_000);
    const batch: GpuBatch = {
      device, submitHostNs: 10_000, doneHostNs: 60_000, submitSlice: submit,
      passes: [
        { name: 'a', args: { kernel: 'a' }, begin: gpu(13_000), end: gpu(20_000) },
        { name: 'unwritten', args: {}, begin: 0n, end: gpu(21_000) },
        { name: 'negative', args: {}, begin: gpu(30_000), end: gpu(25_000) },
        { name: 'b', args: { kernel: 'b' }, begin: gpu(31_000), end: gpu(50_000) },
      ],
    };
    cycle.addGpuBatch(batch);
    cycle.stop(70_000);
    const t = await cycle.finalize();
    expect(t.metadata.run.gpuSpansDiscardedUnwritten).toBe(1);
    expect(t.metadata.run.gpuSpansDiscardedNegative).toBe(1);
    const kernels = t.slices.filter((s) => s.category === 'kernel');
    expect(kernels.map((k) => k.name)).toEqual(['a', 'b']);
    // Host - GPU is within [10_000 - 13_000 - 1e9, 60_000 - 50_000 - 1e9]: midpoint -1e9 + 3_500, half-width
    // 6_500; the metadata gives trace ts - raw GPU ns, and ts 0 is host 5_000.
    expect(t.metadata.clockAlignment).toMatchObject({ offsetNs: 3_500 - 1e9 - 5_000, errorBoundNs: 6_500, samples: 2, driftPpm: 0, method: 'causality-bounds' });
    // ts relative to the cycle start (host 5_000): a began at host 13_000 (+3_500 estimate error).
    expect(kernels.map((k) => [k.ts, k.dur])).toEqual([[11_500, 7_000], [29_500, 19_000]]);
    expect(t.flows.map((f) => [t.slices[f.fromSlice]!.name, t.slices[f.toSlice]!.name, f.category])).toEqual([
      ['queue.submit', 'a', 'ac2g'], ['queue.submit', 'b', 'ac2g'],
    ]);
    expect(kernels.map((k) => k.args?.correlation)).toEqual([1, 2]);
    const queue = t.tracks.find((x) => x.kind === 'gpu_queue')!;
    expect(queue.pid).toBe(GPU_PID_BASE);
    expect(t.processes.find((p) => p.pid === GPU_PID_BASE)).toMatchObject({ kind: 'gpu', name: 'GPU 0 (test gpu)' });
    expect(warnings).toEqual([]);
  });

  it('warns when every timestamp is a multiple of 65,536 ns', async () => {
    const { cycle } = recordingCycle();
    const q = (k: number): bigint => 1_000_000_000n * 65_536n + BigInt(k) * 65_536n;
    cycle.addGpuBatch({ device, submitHostNs: 0, doneHostNs: 1e12, submitSlice: null, passes: [
      { name: 'a', args: {}, begin: q(1), end: q(2) }, { name: 'b', args: {}, begin: q(2), end: q(2) },
    ] });
    cycle.stop(10);
    const t = await cycle.finalize();
    expect(t.metadata.run.gpuTimestampQuantizationNs).toBe(65_536);
    expect(warnings.join('\n')).toMatch(/quantized to 65,536 ns.*createGpu\(\)/s);
  });

  it('batches arriving while only warming up are ignored', async () => {
    const clock = new FakeClock();
    const cycle = new Cycle({ clock, traceName: 't', syncEachStep: false, run: {}, devices: [device] });
    cycle.addGpuBatch({ device, submitHostNs: 0, doneHostNs: 10, submitSlice: null, passes: [{ name: 'w', args: {}, begin: 1n, end: 2n }] });
    cycle.start(0);
    cycle.stop(100);
    const t = await cycle.finalize();
    expect(t.slices).toEqual([]);
    expect(t.metadata.clockAlignment).toBeUndefined();
  });

  it('finalize waits for readbacks still in flight', async () => {
    const { cycle } = recordingCycle();
    let release!: () => void;
    cycle.track(new Promise<void>((r) => { release = r; }).then(() => {
      cycle.addGpuBatch({ device, submitHostNs: 6_000, doneHostNs: 9_000, submitSlice: null, passes: [{ name: 'late', args: {}, begin: gpu(7_000), end: gpu(8_000) }] });
    }));
    cycle.stop(10_000);
    const done = cycle.finalize();
    release();
    const t = await done;
    expect(t.slices.map((s) => s.name)).toEqual(['late']);
  });
});
