/** The readers on traces gsprof did not write: a PyTorch (Kineto) trace and a Perfetto SDK trace from ../shared. */
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
