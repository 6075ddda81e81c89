import { afterAll, describe, expect, it } from 'vitest';
import {
  baselineFromTrace, compare, CompareInputError, openTrace, readBaseline, runsNeeded, writeBaseline, BaselineFormatError, type Baseline, type RunConfig,
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

const CONFIG: RunConfig = { example: 'franka', backend: 'cpu', nEnvs: 64, precision: '32', machine: 'box' };

/**
 * `runs` runs of 40 steps each. A run's own level varies by `runRel` (what differs between processes: placement,
 * frequency, neighbours); its steps scatter by `stepRel` around it. `solveShare` of each step is the kernel solve.
 */
function side(seed: number, runs: number, stepNs: number, opts: { runRel?: number; stepRel?: number; solveNs?: number; iterations?: number; config?: RunConfig } = {}): Baseline {
  const r = rng(seed);
  return {
    format: 'gsprof-baseline', version: 2, createdAt: '', config: opts.config ?? CONFIG,
    runs: Array.from({ length: runs }, () => {
      const level = stepNs * (1 + (opts.runRel ?? 0.02) * noisy(r, 1, 1, 1)[0]! - (opts.runRel ?? 0.02));
      // Interference only adds time: each step is the run's level plus a non-negative delay.
      const steps = noisy(r, 40, 1, 1).map((x) => level * (1 + (opts.stepRel ?? 0.2) * Math.abs(x - 1)));
      const solve = noisy(r, 40, opts.solveNs ?? level * 0.4, 0.05);
      return { steps, kernels: { solve, integrate: noisy(r, 40, level * 0.1, 0.05) }, counts: { 'solver iterations': Array(40).fill(opts.iterations ?? 10) } };
    }),
  };
}

describe('compare: runs are the samples', () => {
  it('a real 20% slowdown over 10 runs per side is worse, and the explanation names the kernel', async () => {
    const res = await compare(side(1, 10, 1e6), side(2, 10, 1.2e6, { solveNs: 0.6e6 }));
    expect(res.decision).toMatchObject({ metric: 'step time', verdict: 'worse', test: 'mann-whitney-exact', decisive: true });
    // All ten current runs are slower than all ten baseline runs: U = 0, p = 2 / C(20, 10).
    expect(res.decision.pValue!).toBeCloseTo(2 / 184756, 12);
    expect(res.regression).toBe(true);
    expect(res.explanation).toMatch(/^step time \+\d+\.\d%: solve \+\d+\.\d%/);
    const back = await compare(side(2, 10, 1.2e6), side(1, 10, 1e6));
    expect(back.decision.verdict).toBe('improved');
    expect(back.regression).toBe(false);
  });

  it('noisy steps within runs raise no false alarm: 20 pairs of identical code, 0 regressions', async () => {
    for (let rep = 0; rep < 20; rep++) {
      // Steps scatter by 50%: per-step tests found "significant" differences between any two such runs.
      const res = await compare(side(100 + rep, 10, 1e6, { stepRel: 0.5 }), side(200 + rep, 10, 1e6, { stepRel: 0.5 }));
      expect(res.regression, `repetition ${rep}: ${res.explanation}`).toBe(false);
    }
  });

  it('too few runs: says how many are needed instead of deciding', async () => {
    const res = await compare(side(3, 3, 1e6), side(4, 3, 1.5e6));
    expect(res.decision.verdict).toBe('too few runs');
    expect(res.regression).toBe(false);
    expect(res.minRunsNeeded).toBe(7);
    expect(runsNeeded(0.002)).toBe(7); // 2/C(12,6) = 0.00216 >= 0.002; 2/C(14,7) = 0.00058
  });

  it('identical runs are unchanged; kernels decide only with failOnKernels', async () => {
    const same = side(5, 8, 1e6);
    const res = await compare(same, same);
    expect(res.metrics.every((m) => m.verdict === 'unchanged')).toBe(true);
    // Step time within 10% but solve 60% slower: explained, not failed, unless kernels decide.
    const base = side(6, 10, 1e6, { solveNs: 1e5, runRel: 0.005 });
    const cur = side(7, 10, 1.05e6, { solveNs: 1.6e5, runRel: 0.005 });
    const lenient = await compare(base, cur);
    expect(lenient.decision.verdict).toBe('unchanged');
    expect(lenient.metrics.find((m) => m.metric === 'stage solve')!.verdict).toBe('worse');
    expect(lenient.regression).toBe(false);
    expect((await compare(base, cur, { failOnKernels: true })).regression).toBe(true);
  });

  it('deterministic counters that differ mean the workload changed, not a slowdown', async () => {
    const res = await compare(side(8, 8, 1e6), side(9, 8, 1e6, { iterations: 12 }));
    expect(res.metrics.find((m) => m.metric === 'count solver iterations')!.verdict).toBe('workload changed');
    expect(res.regression).toBe(false);
  });

  it('one run a side cannot show a counter is deterministic: a difference is no workload change', async () => {
    const res = await compare(side(8, 1, 1e6), side(9, 1, 1e6, { iterations: 12 }));
    expect(res.metrics.find((m) => m.metric === 'count solver iterations')!.verdict).not.toBe('workload changed');
  });

  it('prints the spread and says when the machine is too noisy for the factor', async () => {
    const res = await compare(side(10, 10, 1e6, { runRel: 0.3 }), side(11, 10, 1e6, { runRel: 0.3 }));
    expect(res.decision.baseline.spreadPercent).toBeGreaterThan(10);
    expect(res.noise).toMatch(/too noisy for factor 1\.1/);
    expect((await compare(side(12, 10, 1e6), side(13, 10, 1e6))).noise).toBeNull();
  });

  it('says when the runs are still warming up (steps 10x slower at the start, as a cold JIT makes them)', async () => {
    const warm = side(17, 10, 1e6);
    // The first 20 of 40 steps fall from 10x to 1x: the run median measures the warm-up.
    const cold: Baseline = { ...warm, runs: warm.runs.map((r) => ({ ...r, steps: r.steps.map((x, k) => x * (1 + Math.max(0, 9 * (1 - k / 20)))) })) };
    const res = await compare(cold, warm);
    expect(res.warmingUp).toMatch(/^the runs are still warming up .*baseline: 10 of 10 runs, median \d+%\): the check measures warm-up/);
    expect(res.warmingUp).not.toMatch(/current:/);
    // Steady runs with 50% step-to-step noise are not taken for warm-up.
    expect((await compare(side(18, 10, 1e6, { stepRel: 0.5 }), side(19, 10, 1e6, { stepRel: 0.5 }))).warmingUp).toBeNull();
  });

  it('each run contributes its fastest step by default: a neighbour slowing most steps of some runs hides nothing', async () => {
    // In runs 0-4 of each side a neighbour takes the core for 70% of the steps, doubling them.
    const disturbed = (b: Baseline): Baseline => ({
      ...b, runs: b.runs.map((run, k) => (k >= 5 ? run : { ...run, steps: run.steps.map((x, i) => (i % 10 < 7 ? 2 * x : x)) })),
    });
    const base = disturbed(side(20, 10, 1e6, { stepRel: 0.05 }));
    const slower = disturbed(side(21, 10, 1.2e6, { stepRel: 0.05 }));
    const byMin = await compare(base, slower);
    expect(byMin.options.statistic).toBe('min');
    expect(byMin.decision.verdict).toBe('worse');
    expect(byMin.decision.baseline.spreadPercent).toBeLessThan(10);
    const byMedian = await compare(base, slower, { statistic: 'median' });
    expect(byMedian.decision.verdict).toBe('not significant');
    expect(byMedian.noise).toMatch(/too noisy/);
    // A change that slows every other step by 50%: only the median sees it.
    const everyOther = (b: Baseline): Baseline => ({ ...b, runs: b.runs.map((run) => ({ ...run, steps: run.steps.map((x, i) => (i % 2 ? 1.5 * x : x)) })) });
    const quiet = side(22, 10, 1e6, { stepRel: 0.05 });
    expect((await compare(quiet, everyOther(side(23, 10, 1e6, { stepRel: 0.05 })))).decision.verdict).toBe('unchanged');
    expect((await compare(quiet, everyOther(side(23, 10, 1e6, { stepRel: 0.05 })), { statistic: 'median' })).decision.verdict).toBe('worse');
  });

  it('names CPU-backend stages "stage", GPU kernels "kernel", from the runs or, in older baselines, the backend', async () => {
    const names = (b: Baseline): string[] => b.runs.length === 0 ? [] : Object.keys(b.runs[0]!.kernels);
    const cpu = side(8, 4, 1e6);
    expect((await compare(cpu, cpu)).metrics.map((m) => m.metric)).toEqual(expect.arrayContaining(names(cpu).map((k) => `stage ${k}`)));
    const gpu = side(8, 4, 1e6, { config: { ...CONFIG, backend: 'gpu' } });
    expect((await compare(gpu, gpu)).metrics.map((m) => m.metric)).toEqual(expect.arrayContaining(names(gpu).map((k) => `kernel ${k}`)));
    // A run that says what it recorded wins over the backend: a WebGPU program recorded under `record --`.
    const marked = { ...gpu, runs: gpu.runs.map((r) => ({ ...r, stageKind: 'cpu stages' as const })) };
    expect((await compare(marked, marked)).metrics.some((m) => m.metric === 'stage solve')).toBe(true);
  });

  it('refuses runs of different workloads, warns about other differences', async () => {
    const other = side(14, 8, 1e6, { config: { ...CONFIG, nEnvs: 128, backend: 'gpu' } });
    await expect(compare(side(15, 8, 1e6), other)).rejects.toThrow(/different workloads: backend cpu vs gpu; nEnvs 64 vs 128 \(--allow-config-change/);
    const allowed = await compare(side(15, 8, 1e6), other, { allowConfigChange: true });
    expect(allowed.warnings).toEqual(['backend differs: cpu (baseline) vs gpu (current)', 'nEnvs differs: 64 (baseline) vs 128 (current)']);
    const machine = await compare(side(15, 8, 1e6), side(16, 8, 1e6, { config: { ...CONFIG, machine: 'other' } }));
    expect(machine.warnings).toEqual(['machine differs: box (baseline) vs other (current)']);
  });

  it('a side with no steps is bad input, not "no regression"', async () => {
    const empty: Baseline = { format: 'gsprof-baseline', version: 2, createdAt: '', config: CONFIG, runs: [{ steps: [], kernels: {}, counts: {} }] };
    await expect(compare(side(17, 8, 1e6), empty)).rejects.toThrow(CompareInputError);
    await expect(compare(side(17, 8, 1e6), empty)).rejects.toThrow(/no recorded steps/);
  });

  it('no runs, zero, negative or non-finite step times are bad input, not a pass (issue 33)', async () => {
    const good = side(19, 8, 1e6);
    const none: Baseline = { ...good, runs: [] };
    await expect(compare(none, good)).rejects.toThrow(/the baseline side has no runs/);
    await expect(compare(good, none)).rejects.toThrow(/the current side has no runs/);
    for (const t of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const bad = side(20, 8, 1e6);
      bad.runs[3]!.steps[7] = t;
      await expect(compare(good, bad)).rejects.toThrow(new RegExp(`run 4 of the current side has a step time of ${String(t)} ns: step times must be positive and finite`));
      await expect(compare(bad, good)).rejects.toThrow(CompareInputError);
    }
  });

  it('a baseline without the workload config is refused unless --allow-config-change, which warns (issue 33)', async () => {
    const bare = side(21, 8, 1e6, { config: {} });
    await expect(compare(bare, side(22, 8, 1e6))).rejects.toThrow(/cannot check that both sides ran the same workload: only the current side records example, backend, nEnvs, precision \(--allow-config-change/);
    await expect(compare(side(22, 8, 1e6), bare)).rejects.toThrow(/only the baseline side records example, backend, nEnvs, precision/);
    const allowed = await compare(bare, side(22, 8, 1e6), { allowConfigChange: true });
    expect(allowed.warnings).toContain('the workload was not checked: only the current side records example, backend, nEnvs, precision');
    // Neither side recording it (two third-party traces) is not a difference to refuse.
    expect((await compare(bare, side(23, 8, 1e6, { config: {} }))).regression).toBe(false);
  });

  it('a kernel with a million instances: no stack overflow anywhere in compare', async () => {
    const big = side(18, 2, 1e6);
    big.runs[0]!.kernels.tiny = new Array(1_000_000).fill(5);
    big.runs[0]!.steps = new Array(200_000).fill(1e6);
    const res = await compare(big, big);
    expect(res.regression).toBe(false);
  });
});

describe('baselines', () => {
  it('from a trace: one run with per-step kernel samples, the configuration, and a JSON round trip', async () => {
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
      deviceProperties: [{ id: 0, name: 'llvmpipe' }], run: { nEnvs: 64, backend: 'gpu', example: 'franka' } } }));
    const db = await openTrace(tracePath);
    let b: Baseline;
    try {
      b = await baselineFromTrace(db);
    } finally {
      await db.close();
    }
    expect(b.runs).toHaveLength(1);
    const run = b.runs[0]!;
    expect(run.steps).toEqual(Array(6).fill(900_000));
    expect(run.kernels.solve).toEqual([150_000, 151_000, 152_000, 153_000, 154_000, 155_000]);
    expect(run.kernels.rare).toEqual([7000, 0, 7000, 0, 7000, 0]);
    expect(run.counts['solver iterations']).toEqual(Array(6).fill(3));
    expect(b.config).toMatchObject({ machine: 'box', adapter: 'llvmpipe', gsprof: 'gsprof 0.1.0', nEnvs: 64, backend: 'gpu', example: 'franka' });
    const file = `${files.dir}/base.json`;
    await writeBaseline(file, b);
    expect(await readBaseline(file)).toEqual(b);
    const same = await compare(file, [tracePath]);
    expect(same.regression).toBe(false);
    expect(same.metrics.every((m) => m.verdict === 'unchanged' || m.verdict === 'too few runs')).toBe(true);
  });

  it('an old per-step baseline (version 1) gets an error saying how to regenerate it', async () => {
    const old = files.write('old.json', JSON.stringify({ format: 'gsprof-baseline', version: 1, steps: [1, 2], kernels: {}, counts: {} }));
    await expect(readBaseline(old)).rejects.toThrow(BaselineFormatError);
    await expect(readBaseline(old)).rejects.toThrow(/old per-step format \(version 1\).*gsprof record .* --runs N --baseline-out FILE/);
  });
});
