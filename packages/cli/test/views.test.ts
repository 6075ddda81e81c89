import type { CompareResult, MetricComparison, TimersResult } from '@gsprof/profiler';
import { describe, expect, it } from 'vitest';
import { notes, plain, renderJunit, renderMarkdown, ruleText, sortedMetrics } from '../src/views/compare.js';
import { fpsSentence, foldRows } from '../src/views/summary.js';
import { pickSlot } from '../src/views/timers.js';
import { outputFormat } from '../src/views/convert.js';
import { StepSource } from '../src/preload/step-source.js';

function metric(name: string, verdict: MetricComparison['verdict'], ratio: number, decisive = false): MetricComparison {
  const s = { n: 10, values: [], median: 100, min: 90, max: 110, spreadPercent: 4 };
  return { metric: name, kind: name === 'step time' ? 'step' : 'kernel', unit: 'ns', decisive, baseline: s, current: { ...s, median: 100 * ratio }, ratio,
    worsePercent: (ratio - 1) * 100, test: 'mann-whitney-exact', pValue: verdict === 'worse' ? 1e-5 : 0.5, significant: verdict === 'worse', verdict };
}

const step = metric('step time', 'worse', 1.2, true);
const result: CompareResult = {
  mode: 'asv', options: { factor: 1.1, alpha: 0.002, failOnKernels: false, statistic: 'median' }, regression: true, decision: step,
  metrics: [metric('kernel crb', 'unchanged', 1.01), metric('kernel <solve>&', 'worse', 1.5), step],
  explanation: 'step time +20.0%: <solve>& +50.0%', noise: null, minRunsNeeded: null, warmingUp: null, warnings: ['machine differs: a (baseline) vs b (current)'],
  configDifferences: [], onlyInBaseline: [], onlyInCurrent: [],
  counts: { worse: 2, improved: 0, 'not significant': 0, unchanged: 1, 'too few runs': 0, 'workload changed': 0 },
};

describe('compare views', () => {
  it('the deciding metric first, then regressions', () => {
    expect(sortedMetrics(result).map((m) => m.metric)).toEqual(['step time', 'kernel <solve>&', 'kernel crb']);
  });
  it('junit: one case per metric, a failure only for a deciding regression, XML-escaped, notes as properties', () => {
    const xml = renderJunit(result, 'mannwhitney');
    expect(xml).toContain('tests="3" failures="1"');
    expect(xml).toContain('name="kernel &lt;solve&gt;&amp;"><system-out>');
    expect(xml).toContain('name="step time"><failure message=');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<property name="note" value="warning: machine differs: a (baseline) vs b (current)"/>');
  });
  it('markdown and notes state the verdict, the explanation, the rule, the spread and the warnings', () => {
    expect(renderMarkdown(result, 'mannwhitney')).toMatch(/^### gsprof compare: regression\n\n\| Metric \(per-run medians\) \|/);
    expect(notes(result, 'mannwhitney')).toEqual([
      'REGRESSION: step time +20.0%: <solve>& +50.0% (step time 100ns -> 120ns, worse; mannwhitney: factor 1.1 and Mann-Whitney U p < 0.002 over per-run medians)',
      'Run-to-run spread of step time (IQR / median of the per-run medians): baseline 4.0% over 10 run(s), current 4.0% over 10 run(s)',
      'warning: machine differs: a (baseline) vs b (current)',
    ]);
  });
  it('the table and the rule name the per-run statistic the test used', () => {
    const mins: CompareResult = { ...result, options: { ...result.options, statistic: 'min' } };
    expect(renderMarkdown(mins, 'mannwhitney')).toMatch(/\| Metric \(per-run mins\) \|/);
    expect(ruleText(mins, 'mannwhitney')).toContain('over per-run mins');
  });
  it('rule text prints numbers as written: threshold 10%, not 10.000000000000009%', () => {
    expect(ruleText({ ...result, mode: 'percent' }, 'percent')).toBe('percent: threshold 10%');
    expect(plain(1.1 - 1)).toBe('0.1');
  });
});

describe('summary views', () => {
  it('Genesis FPS sentence, batched and not', () => {
    expect(fpsSentence(43_000_000 / 30000, 30000)).toBe('Running at 43,000,000.00 FPS (1433.33 FPS per env, 30000 envs).');
    expect(fpsSentence(812.5, null)).toBe('Running at 812.50 FPS.');
  });
  it('fold the tail of the kernel table into one row', () => {
    const k = (name: string, total: number) => ({ name, totalTimeNs: total, instances: 2, timePercent: total, avgNs: total / 2, medNs: 1, minNs: 1, maxNs: total, stdDevNs: 0 });
    const rows = foldRows([k('a', 50), k('b', 30), k('c', 15), k('d', 5)], 2);
    expect(rows.map((r) => r.name)).toEqual(['a', 'b', '(2 others)']);
    expect(rows[2]).toMatchObject({ totalTimeNs: 20, instances: 4, timePercent: 20 });
  });
});

describe('summary compile line', () => {
  // --fresh-cache on lavapipe: 5.9 s of compile spans, but the first step (Mesa compiling at first dispatch) took 185 s.
  it('names the first step next to the compile spans, so the spans are not read as the whole compile', async () => {
    const { renderSummary } = await import('../src/views/summary.js');
    const text = renderSummary({ kind: 'gpu kernels', tracks: [], steps: null, compileNs: 5.929e9, compileCount: 16, build: { seconds: 3.2, firstStepSeconds: 185 }, clockAlignment: null, ownWork: null }, { color: false });
    expect(text).toContain('Compile: 5.929s in 16 compile span(s); first step 185.000s, outside the spans (a GPU driver that compiles at first dispatch bills it there)');
  });
  it('a CPU-stage summary titles its table as CPU stages and blames no GPU driver for the first step', async () => {
    const { renderSummary } = await import('../src/views/summary.js');
    const row = { name: 'solve', totalTimeNs: 10, instances: 2, timePercent: 100, avgNs: 5, medNs: 5, minNs: 4, maxNs: 6, stdDevNs: 1 };
    const text = renderSummary({ kind: 'cpu stages', tracks: [{ trackId: 1, trackName: 'host', pid: 1, tid: 1, totalTimeNs: 10, kernels: [row] }], steps: null,
      compileNs: 2e8, compileCount: 5, build: { seconds: 0.5, firstStepSeconds: 0.08 }, clockAlignment: null, ownWork: null }, { color: false });
    expect(text.split('\n').slice(0, 2)).toEqual(['CPU stages (no GPU work in this trace):', 'host: 2 CPU stage spans, 10ns total; Time (%) of this track (--report kernels: across all)']);
    expect(text).not.toMatch(/kernels, |GPU driver/);
    expect(text).toContain('Compile: 200.000ms in 5 compile span(s); first step 80.000ms, outside the spans');
  });
});

describe('timers slot choice', () => {
  const slot = (label: string, max: number) => ({ label, mean: max / 2, p50: 0, p95: 0, max, quantileSample: { size: 6, of: 6, exact: true }, slowestEnvs: [], panels: { lastStep: [], runningMeanPerEnv: [], sortedRunningMean: [] } });
  const r = (slots: ReturnType<typeof slot>[]): TimersResult => ({ steps: 3, nEnvs: 2, stepRange: [0, 2], skippedSteps: 0, slots });
  it('solve_ns when it was measured (CPU), iterations when it was not (GPU)', () => {
    expect(pickSlot(r([slot('solve_ns', 5), slot('iterations', 3)]), undefined, 't').label).toBe('solve_ns');
    expect(pickSlot(r([slot('solve_ns', 0), slot('iterations', 3)]), undefined, 't').label).toBe('iterations');
  });
  it('by name or index, with the slots listed when it does not exist', () => {
    expect(pickSlot(r([slot('solve_ns', 5), slot('iterations', 3)]), '1', 't').label).toBe('iterations');
    expect(() => pickSlot(r([slot('solve_ns', 5)]), 'nope', 'x.pftrace')).toThrow(/'nope' is not a timer slot of x\.pftrace \(slots: solve_ns\)/);
  });
});

describe('convert output format', () => {
  it('follows the extension', () => {
    expect(outputFormat('a.pftrace')).toBe('perfetto');
    expect(outputFormat('a.json.gz')).toBe('chrome');
    expect(() => outputFormat('a.txt')).toThrow(/a\.txt: unknown output format/);
  });
});

describe('program steps', () => {
  it('auto: submits until the first mark, then marks only', () => {
    let n = 0;
    const s = new StepSource(() => n++);
    s.submit(); s.submit();
    expect([n, s.mode]).toEqual([2, 'submits']);
    s.mark(); s.submit(); s.submit(); s.mark();
    expect([n, s.mode]).toEqual([4, 'marks']);
  });
  it('auto on a program whose script marks: marks from the start, no step invented from its first submits', () => {
    let n = 0;
    const s = new StepSource(() => n++, 'auto', true);
    s.submit(); s.submit(); s.submit(); s.mark(); s.submit(); s.mark();
    expect([n, s.mode, s.submitStepsBeforeMark]).toEqual([2, 'marks', 0]);
  });
  it('auto that learns of marks late reports the submit steps it counted before the first mark', () => {
    let n = 0;
    const s = new StepSource(() => n++, 'auto');
    s.submit(); s.submit(); s.mark();
    expect(s.submitStepsBeforeMark).toBe(2);
  });
  it('finds gsprof.step() calls in the main script', async () => {
    const { programUsesMarks } = await import('../src/preload/step-source.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-marks-'));
    writeFileSync(join(dir, 'a.mjs'), 'for (;;) { step(); globalThis.gsprof?.step(); }');
    writeFileSync(join(dir, 'b.mjs'), 'device.queue.submit([]);');
    expect(programUsesMarks(join(dir, 'a.mjs'))).toBe(true);
    expect(programUsesMarks(join(dir, 'b.mjs'))).toBe(false);
    expect(programUsesMarks(join(dir, 'missing.mjs'))).toBe(false);
    expect(programUsesMarks(undefined)).toBe(false);
  });
  it('a sim-core program: its scene steps are the steps, and once sim-core is loaded its GPU submits are not', () => {
    let n = 0;
    const s = new StepSource(() => n++, 'auto');
    s.expectSceneSteps();
    s.submit(); s.submit(); // the scene's uploads while it builds
    expect(n).toBe(0);
    s.scene(); s.submit(); s.scene();
    expect([n, s.mode]).toEqual([2, 'scene steps']);
    // explicit marks still win
    s.mark(); s.scene();
    expect([n, s.mode]).toEqual([3, 'marks']);
    // --steps-from submits: scene steps do not count
    let m = 0;
    const submits = new StepSource(() => m++, 'submits');
    submits.expectSceneSteps(); submits.scene(); submits.submit();
    expect([m, submits.mode]).toEqual([1, 'submits']);
  });
  it('marks or submits only, when asked', () => {
    let n = 0;
    const marks = new StepSource(() => n++, 'marks');
    marks.submit(); marks.mark();
    expect(n).toBe(1);
    const submits = new StepSource(() => n++, 'submits');
    submits.mark(); submits.submit();
    expect(n).toBe(2);
  });
});

describe('timers units', () => {
  it('solve_ns reads as time, iterations as a count', async () => {
    const { renderTimers } = await import('../src/views/timers.js');
    const slot = (label: string) => ({ label, mean: 1500, p50: 1500, p95: 1500, max: 1500, quantileSample: { size: 2, of: 2, exact: true }, slowestEnvs: [], panels: { lastStep: [1500, 1500], runningMeanPerEnv: [1500, 1500], sortedRunningMean: [1500, 1500] } });
    const r: TimersResult = { steps: 1, nEnvs: 2, stepRange: [0, 0], skippedSteps: 0, slots: [slot('solve_ns'), slot('iterations')] };
    expect(renderTimers(r, r.slots[0]!, { color: false, width: 60 }).split('\n')[0]).toContain('mean 1.5us');
    expect(renderTimers(r, r.slots[1]!, { color: false, width: 60 }).split('\n')[0]).toContain('mean 1500,');
  });
});

describe('timers layout', () => {
  const values = [57_200, 19_900, 19_600, 19_600, 18_800, 105_700, 20_000, 18_800];
  const slot = {
    label: 'solve_ns', mean: 31_900, p50: 18_500, p95: 41_500, max: 2_790_000, quantileSample: { size: 256, of: 256, exact: true },
    slowestEnvs: values.map((mean, env) => ({ env, mean })).sort((a, b) => b.mean - a.mean),
    panels: { lastStep: values, runningMeanPerEnv: values, sortedRunningMean: [...values].sort((a, b) => a - b) },
  };
  const r: TimersResult = { steps: 32, nEnvs: 8, stepRange: [0, 31], skippedSteps: 0, slots: [slot] };

  it.each([40, 60, 100])('every line fits %i columns, the long text lines wrapped rather than cut', async (width) => {
    const { renderTimers } = await import('../src/views/timers.js');
    const text = renderTimers(r, slot, { color: false, width, envs: [5, 6, 7] });
    const over = text.split('\n').filter((l) => l.length > width);
    expect(over).toEqual([]);
    // wrapped, not lost: every slow env is still named
    expect(text.replace(/\n\s+/g, ' ')).toContain('Slowest envs: #5 105.7us, #0 57.2us, #6 20.0us, #1 19.9us, #2 19.6us, #3 19.6us, #4 18.8us, #7 18.8us');
  });

  it('--envs past the last env says how many were dropped instead of clamping silently; none left is an error', async () => {
    const { renderTimers } = await import('../src/views/timers.js');
    const text = renderTimers(r, slot, { color: false, width: 120, envs: Array.from({ length: 16 }, (_, k) => 5 + k) });
    expect(text).toContain("(--envs: 13 of the 16 envs asked for are past the trace's last env, 7; showing the other 3)");
    expect(text).toContain('[1] last step, per env (envs 5,6,7)');
    expect(renderTimers(r, slot, { color: false, width: 120, envs: [0, 1] })).not.toContain('--envs:');
    expect(() => renderTimers(r, slot, { color: false, width: 120, envs: [8, 9] })).toThrow(/no selected env exists \(the trace has envs 0-7\)/);
  });
});
