/**
 * The real gsprof binary on a real CPU-backend recording: record, then every command that reads it.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir, type CliRun } from './support/cli.js';

describe('gsprof record --backend cpu, then the readers', () => {
  let dir: string;
  let rec: CliRun;
  let pftrace: string;
  let json: string;
  const baseline = (): string => join(dir, 'baseline.json');

  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    rec = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '4', '--steps', '16', '--out', dir, '--baseline-out', join(dir, 'baseline.json')]);
    const files = readdirSync(dir);
    pftrace = join(dir, files.find((f) => f.endsWith('.pftrace')) ?? 'missing.pftrace');
    json = join(dir, files.find((f) => f.endsWith('.pt.trace.json')) ?? 'missing.json');
  });

  it('records, prints FPS lines, the kernel summary and the paths written', () => {
    expect(rec.stderr).not.toMatch(/^gsprof: (?!warning)/m);
    expect(rec.code).toBe(0);
    expect(rec.stdout).toMatch(/Running at [\d,]+\.\d\d FPS \([\d.]+ FPS per env, 4 envs\)\./);
    expect(rec.stdout).toMatch(/^franka on cpu: built in [\d.]+ s, first step [\d.]+ s; 16 steps x 4 envs stepped in [\d.]+ s \([\d,]+ env-steps\/s\); from step 3, where recording starts: [\d,]+ env-steps\/s \(13 steps completed in [\d.]+ s, from the first one's start to the last one's completion\); traces written in [\d.]+ s$/m);
    expect(rec.stdout).toContain('Time (%)');
    expect(rec.stdout).toMatch(/│ solve\s+│/);
    expect(rec.stdout).toContain(`wrote ${pftrace}`);
    expect(rec.stdout).toContain(`wrote ${json}`);
    expect(existsSync(pftrace) && existsSync(json)).toBe(true);
    // The CPU backend ran no GPU work: its stage table says CPU stages, never kernels.
    expect(rec.stdout).toContain('CPU stages (no GPU work in this trace):');
    const b = JSON.parse(readFileSync(baseline(), 'utf8')) as { format: string; runs: Array<{ steps: number[]; kernels: Record<string, number[]> }> };
    expect(b.format).toBe('gsprof-baseline');
    expect(b.runs[0]!.steps.length).toBeGreaterThan(5);
    // The baseline's per-stage samples are the CPU stages: one total per step.
    expect(b.runs[0]!.kernels.solve?.length).toBe(b.runs[0]!.steps.length);
    expect(b.runs[0]!.kernels.solve!.every((ns) => ns > 0)).toBe(true);
  });

  it('summary: the nsys columns, steps and FPS; --json gives the same numbers', async () => {
    const text = await gsprof(['summary', pftrace]);
    expect(text.code).toBe(0);
    const header = text.stdout.split('\n').find((l) => l.startsWith('│') && l.includes('Time (%)')) ?? '';
    expect(header.split('│').map((c) => c.trim()).filter(Boolean)).toEqual(
      ['Time (%)', 'Total Time (ns)', 'Instances', 'Avg (ns)', 'Med (ns)', 'Min (ns)', 'Max (ns)', 'StdDev (ns)', 'Name']);
    expect(text.stdout).toMatch(/^Steps: \d+ recorded/m);
    expect(text.stdout).toContain('CPU stages (no GPU work in this trace):');
    expect(text.stdout).toMatch(/: \d+ CPU stage spans, /);
    expect(text.stdout).not.toMatch(/\d kernels, /);
    const j = await gsprof(['summary', pftrace, '--json']);
    const data = JSON.parse(j.stdout) as { kind: string; tracks: Array<{ kernels: Array<{ name: string; instances: number }> }>; steps: { count: number; nEnvs: number } };
    expect(data.kind).toBe('cpu stages');
    const names = data.tracks.flatMap((t) => t.kernels.map((k) => k.name));
    for (const stage of ['kinematics', 'crb', 'solve', 'integrate']) expect(names).toContain(stage);
    expect(data.steps.nEnvs).toBe(4);
    expect(text.stdout).toContain(`Steps: ${data.steps.count} recorded`);
  });

  it('a folder means its newest trace, never the baseline written after it; every reader names the file it read', async () => {
    const text = await gsprof(['summary', dir]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`Trace: ${pftrace}`);
    expect(text.stdout).not.toContain('No kernels in this trace');
    for (const cmd of ['summary', 'gaps', 'timers']) {
      const j = await gsprof([cmd, dir, '--json']);
      expect(j.code).toBe(0);
      expect((JSON.parse(j.stdout) as { trace: string }).trace).toBe(pftrace);
    }
    const gapsText = await gsprof(['gaps', dir]);
    expect(gapsText.stdout.split('\n')[0]).toBe(`Trace: ${pftrace}`);
  });

  it('gaps: no GPU timeline on a CPU-backend run; host utilisation instead', async () => {
    const r = await gsprof(['gaps', pftrace]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Verdict: no GPU work \(no GPU timeline: this is a CPU-only trace/m);
    expect(r.stdout).not.toMatch(/GPU idle|host wait .* kernel wait/);
    expect(r.stdout).toMatch(/^Host utilisation: CPU stage spans cover \d+\.\d% of \d+ steps' wall time/m);
    const j = JSON.parse((await gsprof(['gaps', pftrace, '--json'])).stdout) as { verdict: string; hostUtilisation: { steps: number; wallNs: number; coveredNs: number; threads: unknown[] } };
    expect(j.verdict).toBe('no GPU work');
    const u = j.hostUtilisation;
    expect(u.steps).toBeGreaterThan(5);
    // Stage spans nest in the step: some of its time, never more than all of it.
    expect(u.coveredNs > 0 && u.coveredNs <= u.wallNs).toBe(true);
    expect(u.threads).toHaveLength(1);
  });

  it('timers: the three panels and the histogram, for selected envs', async () => {
    const r = await gsprof(['timers', pftrace, '--envs', '0-1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[1] last step, per env (envs 0,1)');
    expect(r.stdout).toContain('[2] running mean');
    expect(r.stdout).toContain('[3] running mean of each step');
    expect(r.stdout).toMatch(/Histogram of per-env mean solve_ns/);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    const bad = await gsprof(['timers', pftrace, '--envs', '9-12']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^gsprof: --envs: no selected env exists \(the trace has envs 0-3\)$/);
  });

  it("the run line's env-steps/s are completed steps over the stepping time (not the trace writing); from the first recorded step they are summary's", async () => {
    const out = tempDir();
    const started = performance.now();
    // 16 envs: the run line and summary measure the same period whatever the size (they were once 16% apart at 4
    // envs, when the run line's clock started after the first step's span and summary summed the step spans).
    const r = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '16', '--steps', '40', '--out', out, '--json']);
    const processSeconds = (performance.now() - started) / 1e3;
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as {
      steps: number; nEnvs: number; stepSeconds: number; writeSeconds: number; envStepsPerSecond: number; allStepsEnvStepsPerSecond: number;
      recordedFrom: number; summary: { steps: { count: number; meanNs: number; envStepsPerSec: number } };
    };
    // What a user can check: steps x envs over the seconds printed, within the process's own run time ...
    expect(Math.abs(d.allStepsEnvStepsPerSecond * d.stepSeconds - d.steps * d.nEnvs)).toBeLessThan(1e-6 * d.steps * d.nEnvs);
    expect(d.stepSeconds + d.writeSeconds).toBeLessThan(processSeconds);
    expect(d.writeSeconds).toBeGreaterThan(0);
    // ... and never less than the recorded steps, a subset of the steps taken, add up to in the trace.
    expect(d.stepSeconds).toBeGreaterThanOrEqual((d.summary.steps.count * d.summary.steps.meanNs) / 1e9);
    // From the first recorded step on, the run line times the steps summary times, over the same period (the
    // first one's start to the last one's completion) divided the same way; test/throughput-under-load.test.ts
    // holds them within 10% with every core busy. Here, without load, they may differ only in the last digits.
    expect(d.recordedFrom).toBe(d.steps - d.summary.steps.count);
    expect(Math.abs(d.envStepsPerSecond / d.summary.steps.envStepsPerSec - 1)).toBeLessThan(0.01);
  });

  it('a schedule that records some of the steps: the run line names the steps its traces hold, and each trace times its own', async () => {
    const out = tempDir();
    const r = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '4', '--steps', '40', '--wait', '2', '--warmup', '3', '--active', '10', '--repeat', '2', '--format', 'json', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/from step 5, where recording starts: [\d,]+ env-steps\/s \(35 steps completed in [\d.]+ s, [^)]*\); the traces hold 20 of them \(steps 5-14, 20-29\), and each trace's summary times its own;/);
    const traces = readdirSync(out).filter((f) => f.endsWith('.json')).map((f) => join(out, f));
    expect(traces).toHaveLength(2);
    for (const t of traces) {
      const s = await gsprof(['summary', t]);
      expect(s.stdout).toMatch(/Period: 10 steps completed in /);
    }
  });

  it('query: Perfetto table names, csv and json, and nothing but reads', async () => {
    const none = await gsprof(['query', pftrace, "select count(*) as n from slice where category = 'kernel'", '--format', 'csv']);
    expect(none.stdout.trim().split('\n')).toEqual(['n', '0']);
    const sql = "select name, count(*) as n from slice where category = 'cpu_op' group by name order by name";
    const csv = await gsprof(['query', pftrace, sql, '--format', 'csv']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('name,n');
    expect(lines).toContain(`solve,${lines.find((l) => l.startsWith('solve,'))!.split(',')[1]}`);
    const j = await gsprof(['query', pftrace, sql, '--json']);
    const parsed = JSON.parse(j.stdout) as { columns: string[]; rows: Array<{ name: string; n: number }> };
    expect(parsed.columns).toEqual(['name', 'n']);
    expect(parsed.rows.length).toBe(lines.length - 1);
    const write = await gsprof(['query', pftrace, 'delete from slice']);
    expect(write.code).toBe(2);
    expect(write.stderr.trim().split('\n')).toHaveLength(1);
    expect(write.stderr).toMatch(/^gsprof: query: only read-only queries/);
  });

  it('convert: Perfetto -> Chrome JSON -> Perfetto keeps every kernel, count and duration', async () => {
    const asJson = join(dir, 'rt.json');
    const back = join(dir, 'rt.pftrace');
    expect((await gsprof(['convert', pftrace, asJson])).code).toBe(0);
    expect((await gsprof(['convert', asJson, back])).code).toBe(0);
    const totals = async (file: string): Promise<Record<string, [number, number]>> => {
      const r = await gsprof(['summary', file, '--json']);
      const s = JSON.parse(r.stdout) as { tracks: Array<{ kernels: Array<{ name: string; instances: number; totalTimeNs: number }> }> };
      return Object.fromEntries(s.tracks.flatMap((t) => t.kernels.map((k) => [k.name, [k.instances, k.totalTimeNs]])));
    };
    const original = await totals(pftrace);
    expect(Object.keys(original).length).toBeGreaterThan(5);
    expect(await totals(asJson)).toEqual(original);
    expect(await totals(back)).toEqual(original);
    const timers = await gsprof(['timers', back, '--json']);
    expect((JSON.parse(timers.stdout) as { nEnvs: number }).nEnvs).toBe(4);
  });

  it('compare: identical inputs are no regression (exit 0), in every format', async () => {
    const table = await gsprof(['compare', baseline(), baseline()]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^No regression: step time \+0\.0%/m);
    const fromTraces = await gsprof(['compare', pftrace, pftrace, '--format', 'junit']);
    expect(fromTraces.code).toBe(0);
    expect(fromTraces.stdout).toMatch(/^<\?xml/);
    expect(fromTraces.stdout).toContain('failures="0"');
    const summaryFile = join(dir, 'step-summary.md');
    writeFileSync(summaryFile, '');
    const md = await gsprof(['compare', baseline(), pftrace, '--format', 'markdown'], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
    expect(md.code).toBe(0);
    expect(readFileSync(summaryFile, 'utf8')).toContain('### gsprof compare: no regression');
  });

  it('record --fresh-cache --json: one JSON document, the throwaway cache is gone afterwards', async () => {
    const out = tempDir();
    const r = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '2', '--steps', '8', '--out', out, '--fresh-cache', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { freshCacheDir: string; traces: string[]; nEnvs: number; summary: { tracks: unknown[] } };
    expect(j.nEnvs).toBe(2);
    expect(j.freshCacheDir).toMatch(/gsprof-cache-/);
    expect(existsSync(j.freshCacheDir)).toBe(false);
    expect(j.traces.every((t) => existsSync(t))).toBe(true);
    expect(j.summary.tracks.length).toBeGreaterThan(0);
  });

  it('bench: one point per nEnvs with env-steps/s', async () => {
    const r = await gsprof(['bench', '--example', 'franka', '--backend', 'cpu', '--n-envs', '1,2', '--steps', '3', '--warmup', '1', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { points: Array<{ nEnvs: number; envStepsPerSecond: number }> };
    expect(j.points.map((p) => p.nEnvs)).toEqual([1, 2]);
    for (const p of j.points) expect(p.envStepsPerSecond).toBeGreaterThan(0);
  });

  it('diff: two recordings of the same run have no kernel differences', async () => {
    const r = await gsprof(['diff', pftrace, json]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/GPU kernels: 0 added, 0 deleted, 0 increased, 0 decreased, \d+ unchanged/);
  });
});

/** Seconds of [start, end) intervals covered by at least one of them. */
function unionLength(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let cur: [number, number] | null = null;
  for (const [a, b] of sorted) {
    if (!cur || a > cur[1]) {
      if (cur) covered += cur[1] - cur[0];
      cur = [a, b];
    } else cur[1] = Math.max(cur[1], b);
  }
  return covered + (cur ? cur[1] - cur[0] : 0);
}

describe('gsprof record --backend cpu with worker threads (256 envs)', () => {
  type Event = { ph: string; name: string; cat?: string; ts: number; dur?: number; pid: number; tid: number };
  let events: Event[];
  let summary: string;

  beforeAll(async () => {
    ensureBuilt();
    const out = tempDir();
    const rec = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '256', '--steps', '200', '--out', out, '--no-fps'], { env: { GSPROF_CPU_THREADS: '2' } });
    expect(rec.code, rec.stderr).toBe(0);
    summary = rec.stdout;
    const json = readdirSync(out).find((f) => f.endsWith('.pt.trace.json'))!;
    events = (JSON.parse(readFileSync(join(out, json), 'utf8')) as { traceEvents: Event[] }).traceEvents.filter((e) => e.ph === 'X');
  });

  it("the worker's stages are CPU work on the worker's own thread, and summary has a table for it", () => {
    const host = events.find((e) => e.name.startsWith('ProfilerStep#'))!;
    const worker = events.filter((e) => e.tid !== host.tid && e.cat === 'cpu_op');
    expect(worker.length).toBeGreaterThan(190);
    expect(new Set(worker.map((e) => e.name))).toEqual(new Set(['kinematics', 'com', 'crb', 'factor_m', 'collision', 'make_constraint', 'passive', 'rne', 'actuation', 'smooth_acc', 'solve', 'integrate']));
    expect(worker.every((e) => e.pid === host.pid)).toBe(true);
    expect(summary).toMatch(/^env worker 1: [\d,]+ CPU stage spans, /m);
  });

  it('named spans on some thread cover the recorded steps: 98.9% of their time and 87.7% of the worst step when measured', () => {
    const steps = events.filter((e) => e.name.startsWith('ProfilerStep#'));
    const spans = events.filter((e) => !e.name.startsWith('ProfilerStep#') && e.dur !== undefined);
    expect(steps.length).toBe(190);
    let total = 0;
    let covered = 0;
    const perStep: number[] = [];
    for (const s of steps) {
      const a = s.ts;
      const b = s.ts + s.dur!;
      const inside = spans.filter((e) => e.ts < b && e.ts + e.dur! > a).map((e): [number, number] => [Math.max(a, e.ts), Math.min(b, e.ts + e.dur!)]);
      const c = unionLength(inside);
      perStep.push(c / s.dur!);
      total += s.dur!;
      covered += c;
    }
    perStep.sort((x, y) => x - y);
    // Measured on a 2-core VM: 98.9% overall, median 99.2%, worst 87.7% (a pause outside any span: the OS
    // running another process). Bounds: overall and the tenth percentile at 90%.
    expect(covered / total).toBeGreaterThanOrEqual(0.9);
    expect(perStep[Math.floor(perStep.length / 10)]).toBeGreaterThanOrEqual(0.9);
  });
});

describe('gsprof record --scene: your own model file', () => {
  beforeAll(() => { ensureBuilt(); });

  it.each([
    ['the bundled Franka MJCF', 'packages/sim-core/assets/xml/franka_emika_panda/scene.xml', 'hold', 'scene.xml'],
    ['the bundled ANYmal URDF', 'packages/sim-core/assets/urdf/anymal_c/urdf/anymal_c.urdf', 'random:0.1', 'anymal_c.urdf'],
  ])('records %s as the examples are recorded, and summary reads it', async (_what, file, control, name) => {
    const out = tempDir();
    const r = await gsprof(['record', '--scene', file, '--control', control, '--backend', 'cpu', '--n-envs', '8', '--steps', '30', '--out', out, '--no-fps']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${name.replace('.', '\\.')} on cpu: built in [\\d.]+ s, first step [\\d.]+ s; 30 steps x 8 envs stepped in`, 'm'));
    const s = await gsprof(['summary', out, '--json']);
    expect(s.code).toBe(0);
    const summary = JSON.parse(s.stdout) as { kind: string; steps: { count: number } };
    expect(summary.kind).toBe('cpu stages');
    expect(summary.steps.count).toBeGreaterThan(0);
    const json = readdirSync(out).find((f) => f.endsWith('.pt.trace.json'))!;
    const meta = (JSON.parse(readFileSync(join(out, json), 'utf8')) as { gsprofMetadata: { run: Record<string, unknown> } }).gsprofMetadata.run;
    expect(meta).toMatchObject({ scene: name, control, nEnvs: 8, backend: 'cpu' });
  });

  it('refuses a missing file, --scene with --example, --control without --scene and an unknown control, in one line each', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--scene', 'no-such.xml'], /^gsprof: no-such\.xml: no such file$/],
      [['--scene', 'x.xml', '--example', 'franka'], /^gsprof: --scene: give either --scene FILE or --example NAME, not both$/],
      [['--control', 'zero'], /^gsprof: --control: only applies to --scene FILE$/],
      [['--scene', 'packages/sim-core/assets/xml/franka_emika_panda/scene.xml', '--control', 'wiggle'], /^gsprof: --control: 'wiggle' is not a control/],
    ];
    for (const [args, line] of cases) {
      const r = await gsprof(['record', ...args, '--backend', 'cpu']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toMatch(line);
    }
  });
});

describe('gsprof record -- <a sim-core program written without gsprof>', () => {
  beforeAll(() => { ensureBuilt(); });

  it('records its CPU stages and takes its scene steps as the steps', async () => {
    const out = tempDir();
    const r = await gsprof(['record', '--out', out, '--format', 'perfetto', '--', 'node', 'test/fixtures/simcore-program.mjs', 'cpu', '30']);
    expect(r.code, r.stderr).toBe(0);
    // the first scene step starts the recording, as a first WebGPU device does
    expect(r.stdout).toContain('node test/fixtures/simcore-program.mjs cpu 30: 29 steps (scene steps), 0 device(s) instrumented');
    expect(r.stdout).toContain('CPU stages (no GPU work in this trace):');
    expect(r.stdout).toMatch(/^Running at [\d,.]+ FPS \([\d.]+ FPS per env, 8 envs\)\.$/m);
    const q = await gsprof(['query', out, "select count(*) as n, count(distinct name) as names from slice where category = 'cpu_op'", '--format', 'csv']);
    expect(q.stdout.trim().split('\n')[1]).toBe(`${28 * 12},12`);
    // sim-core's per-step physics counters reach the trace through the preload's tracer: one sample per scene
    // step whose stages were recorded (the 28 above).
    const c = await gsprof(['query', out, "select t.name, count(*) as n from counter c join track t on c.track_id = t.id where t.name like 'solver iterations%' group by t.name order by t.name", '--format', 'csv']);
    expect(c.stdout.trim().split('\n').slice(1)).toEqual(['solver iterations (max),28', 'solver iterations (mean),28']);
  });
});
