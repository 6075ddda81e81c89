/** The readers on traces gsprof did not write: a PyTorch (Kineto) trace and a Perfetto SDK trace from ../shared. */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from './support/shared.js';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

describe.skipIf(!hasShared())('gsprof on third-party traces', () => {
  const kineto = sharedPath('traces', 'pytorch-kineto', 'critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz');
  beforeAll(() => { ensureBuilt(); });

  it('summary and gaps of a PyTorch profiler trace: CUDA streams, kernels, a verdict', async () => {
    const s = await gsprof(['summary', kineto, '--json']);
    expect(s.code).toBe(0);
    const data = JSON.parse(s.stdout) as { tracks: Array<{ trackName: string; kernels: Array<{ name: string; instances: number }> }> };
    expect(data.tracks.length).toBeGreaterThan(0);
    expect(data.tracks.flatMap((t) => t.kernels.map((k) => k.name))).toContain('ampere_sgemm_32x32_sliced1x4_tn');
    const g = await gsprof(['gaps', kineto]);
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/^Verdict: (GPU-bound|CPU-bound|mixed) /m);
  });

  it('a folder of two PyTorch ranks\' traces (HTA\'s samples, no launch id) is summarised per rank, then merged', async () => {
    const dir = tempDir();
    for (const f of ['timeline_analysis__sampled_rank-0.json.gz', 'trace_filter__sampled_rank-1.json.gz']) {
      copyFileSync(sharedPath('traces', 'pytorch-kineto', f), join(dir, f));
    }
    const s = await gsprof(['summary', dir, '--json']);
    expect(s.code, s.stderr).toBe(0);
    const data = JSON.parse(s.stdout) as { run: { worldSize: number; missingRanks: number[] }; ranks: Array<{ rank: number; summary: unknown }> };
    expect(data.ranks.map((r) => r.rank)).toEqual([0, 1]);
    // each rank's numbers are its own file's summary
    const own = JSON.parse((await gsprof(['summary', join(dir, 'trace_filter__sampled_rank-1.json.gz'), '--json'])).stdout) as unknown;
    expect(data.ranks[1]!.summary).toEqual(own);
    expect(data.run.worldSize).toBe(128);
    expect((await gsprof(['summary', dir])).stdout).toContain('2 of 128 ranks; no trace from rank(s) 2-127');
    const m = await gsprof(['merge', dir, '-o', join(dir, 'merged.pftrace')]);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toContain('Clocks: wall clock, error bound unknown');
  });

  it('convert a PyTorch trace to Perfetto and back keeps the kernels', async () => {
    const dir = tempDir();
    const pf = join(dir, 'k.pftrace');
    expect((await gsprof(['convert', kineto, pf])).code).toBe(0);
    const kernels = async (f: string): Promise<string> => {
      const r = await gsprof(['query', f, "select name, count(*) as n, sum(dur) as total from slice where category = 'kernel' group by name order by name", '--format', 'csv']);
      expect(r.code).toBe(0);
      return r.stdout;
    };
    expect(await kernels(pf)).toBe(await kernels(kineto));
  });

  it('a Perfetto SDK trace with flows and counters opens in every reader', async () => {
    const t = sharedPath('traces', 'perfetto', 'track_event_counters.pftrace');
    for (const cmd of [['summary', t], ['gaps', t], ['query', t, 'select count(*) as n from counter']]) {
      const r = await gsprof(cmd);
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });
});
