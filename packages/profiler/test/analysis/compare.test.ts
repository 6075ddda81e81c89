import { afterAll, describe, expect, it } from 'vitest';
import {
  baselineFromTrace, compare, compareSamples, openTrace, readBaseline, writeBaseline, BaselineFormatError, type Baseline,
} from '../../src/index.js';
import { tempFiles } from '../import/support/tmp.js';
import { mulberry32 as rng } from '../../../../test/support/random.js';

const files = tempFiles();
afterAll(() => files.cleanup());

/** Deterministic normal noise: Box-Muller over a seeded rng. */
function noisy(r: () => number, n: number, mean: number, rel: number): number[] {
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    return mean * (1 + rel * z);
  });
}

function baseline(steps: number[], kernels: Record<string, number[]>, counts: Record<string, number[]> = {}): Baseline {
  return { format: 'gsprof-baseline', version: 1, createdAt: '', run: {}, nEnvs: null, steps, kernels, counts };
}

describe('compare', () => {
  it('flags a real 20% slowdown of one kernel as worse (asv rule: factor 1.1 and Mann-Whitney p < 0.002)', async () => {
    const r = rng(1);
    const base = baseline(noisy(r, 50, 1e6, 0.03), { solve: noisy(r, 50, 4e5, 0.03), integrate: noisy(r, 50, 1e5, 0.03) });
    const cur = baseline(noisy(r, 50, 1e6, 0.03), { solve: noisy(r, 50, 4.8e5, 0.03), integrate: noisy(r, 50, 1e5, 0.03) });
    const res = await compare(base, cur);
    const solve = res.metrics.find((m) => m.metric === 'kernel solve')!;
    expect(solve).toMatchObject({ verdict: 'worse', test: 'mann-whitney', significant: true });
    expect(solve.pValue!).toBeLessThan(0.002);
    expect(solve.ratio).toBeCloseTo(1.2, 1);
    expect(res.metrics.find((m) => m.metric === 'kernel integrate')!.verdict).toBe('unchanged');
    expect(res.regression).toBe(true);
    // And the other way round it is an improvement, not a regression.
    const back = await compare(cur, base);
    expect(back.metrics.find((m) => m.metric === 'kernel solve')!.verdict).toBe('improved');
    expect(back.regression).toBe(false);
  });

  it('raises no false alarm on identical distributions with noise, 10 repetitions', async () => {
    for (let rep = 0; rep < 10; rep++) {
      const r = rng(100 + rep);
      const mk = () => baseline(noisy(r, 30, 2e6, 0.05), { k: noisy(r, 30, 5e5, 0.08) }, { iters: noisy(r, 30, 20, 0.1) });
      const res = await compare(mk(), mk());
      expect(res.regression, `repetition ${rep}`).toBe(false);
      for (const m of res.metrics) expect(['unchanged', 'not significant'], `${rep} ${m.metric}`).toContain(m.verdict);
    }
  });

  it('a shift past the factor on too few samples for significance is "not significant"; 99% CI fallback decides small samples', () => {
    const noisyTwo = compareSamples('x', [100, 140], [130, 170]);
    expect(noisyTwo).toMatchObject({ test: 'ci99', verdict: 'not significant' });
    const tightTwo = compareSamples('x', [100, 101, 100], [130, 131, 130]);
    expect(tightTwo).toMatchObject({ test: 'ci99', verdict: 'worse', significant: true });
    expect(compareSamples('x', [100], [130])).toMatchObject({ test: 'none', verdict: 'worse' });
    expect(compareSamples('x', [100, 100], [100, 100]).verdict).toBe('unchanged');
  });

  it('deterministic counts: any change in solver iterations is caught, FPS is higher-is-better', async () => {
    const base = baseline([1e6, 1e6, 1e6, 1e6], {}, { 'solver iterations': [10, 10, 10, 10] });
    const cur = baseline([1.3e6, 1.3e6, 1.3e6, 1.3e6], {}, { 'solver iterations': [12, 12, 12, 12] });
    const res = await compare(base, cur);
    const byName = Object.fromEntries(res.metrics.map((m) => [m.metric, m]));
    expect(byName['count solver iterations']).toMatchObject({ verdict: 'worse' });
    expect(byName['step time']).toMatchObject({ verdict: 'worse' });
    expect(byName.fps).toMatchObject({ verdict: 'worse', higherIsBetter: true });
    expect(res.counts.worse).toBe(3);
  });

  it('percent and t-test modes', () => {
    expect(compareSamples('x', [100, 100, 101], [108, 108, 109], { mode: 'percent', thresholdPercent: 10 }).verdict).toBe('unchanged');
    expect(compareSamples('x', [100, 100, 101], [112, 112, 113], { mode: 'percent', thresholdPercent: 10 }).verdict).toBe('worse');
    expect(compareSamples('x', [100, 100, 101], [85, 86, 85], { mode: 'percent' }).verdict).toBe('improved');
    const r = rng(7);
    const a = noisy(r, 40, 100, 0.02);
    const b = noisy(r, 40, 103, 0.02);
    const t = compareSamples('x', a, b, { mode: 'ttest' });
    expect(t.test).toBe('welch');
    expect(t.pValue!).toBeLessThan(0.01);
    expect(t.verdict).toBe('worse');
    expect(compareSamples('x', a, noisy(rng(8), 40, 100, 0.02), { mode: 'ttest' }).verdict).toBe('unchanged');
  });

  it('baselines from traces: per-step kernel samples, JSON round trip, and traces or baselines on either side', async () => {
    const ev: Record<string, unknown>[] = [];
    for (let s = 0; s < 6; s++) {
      const t = s * 1000;
      ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s}`, pid: 1, tid: 1, ts: t, dur: 900 });
      ev.push({ ph: 'X', cat: 'kernel', name: 'solve', pid: 0, tid: 1, ts: t + 10, dur: 100 + s });
      ev.push({ ph: 'X', cat: 'kernel', name: 'solve', pid: 0, tid: 1, ts: t + 200, dur: 50 });
      if (s % 2 === 0) ev.push({ ph: 'X', cat: 'kernel', name: 'rare', pid: 0, tid: 1, ts: t + 300, dur: 7 });
      ev.push({ ph: 'C', name: 'solver', pid: 1, ts: t + 800, args: { iterations: 3 } });
    }
    const tracePath = files.write('run.json', JSON.stringify({ traceEvents: ev, gsprofMetadata: { hostname: 'box', producer: 'gsprof 0.1.0',
      deviceProperties: [{ id: 0, name: 'llvmpipe' }], run: { nEnvs: 64 } } }));
    const db = await openTrace(tracePath);
    let b: Baseline;
    try {
      b = await baselineFromTrace(db);
    } finally {
      await db.close();
    }
    expect(b.steps).toEqual(Array(6).fill(900_000));
    expect(b.kernels.solve).toEqual([150_000, 151_000, 152_000, 153_000, 154_000, 155_000]);
    expect(b.kernels.rare).toEqual([7000, 0, 7000, 0, 7000, 0]);
    expect(b.counts['solver iterations']).toEqual(Array(6).fill(3));
    expect(b.run).toMatchObject({ machine: 'box', adapter: 'llvmpipe', versions: { producer: 'gsprof 0.1.0' }, options: { nEnvs: 64 } });
    expect(b.nEnvs).toBe(64);
    const file = `${files.dir}/base.json`;
    await writeBaseline(file, b);
    expect(await readBaseline(file)).toEqual(b);
    const same = await compare(file, tracePath);
    expect(same.regression).toBe(false);
    expect(same.metrics.every((m) => m.verdict === 'unchanged')).toBe(true);
    expect(same.metrics.map((m) => m.metric).sort()).toEqual(['count solver iterations', 'fps', 'kernel rare', 'kernel solve', 'step time']);
    await expect(readBaseline(files.write('bad.json', '{"format":"gsprof-baseline","version":1,"steps":[1,"x"]}')))
      .rejects.toThrow(BaselineFormatError);
  });
});
