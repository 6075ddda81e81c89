/**
 * `gsprof report` pages opened in Debian's chromium as a user opens them: from file://, with no console error and
 * no request past the page itself, every chart drawn, the stage table's numbers those of `summary --format json`,
 * sorting by a click on a header. One small CPU-backend recording with solver timers, two hand-written rank traces
 * (Kineto JSON with distributedInfo) and a trace with neither steps nor kernels. A screenshot of each page is
 * written; with GSPROF_UPDATE_SCREENSHOTS=1 into docs/images for the docs.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, openPage, paintedPixels } from './support/browser.js';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

interface SummaryRow { timePercent: number; totalTimeNs: number; instances: number; avgNs: number; medNs: number; minNs: number; maxNs: number; stdDevNs: number; name: string }

/** Where screenshots go: docs/images when asked to update them, else the test's temp folder. */
function screenshotPath(dir: string, name: string): string {
  if (process.env.GSPROF_UPDATE_SCREENSHOTS !== '1') return join(dir, name);
  mkdirSync(join(REPO_ROOT, 'docs/images'), { recursive: true });
  return join(REPO_ROOT, 'docs/images', name);
}

/** The page holds up as a self-contained page: no error, no request, every chart div drawn on a painted canvas. */
async function expectSelfContained(browser: Browser, file: string, shot: string): Promise<Page & { closeIt(): Promise<void> }> {
  const opened = await openPage(browser, file);
  const { page } = opened;
  const charts = await page.evaluate('document.querySelectorAll("div.chart").length') as number;
  expect(await page.evaluate('document.body.dataset.chartsDrawn')).toBe(String(charts));
  // uPlot draws the series on one canvas per chart (axes included): each must hold painted pixels.
  const painted = await paintedPixels(page, 'div.chart canvas');
  expect(painted).toHaveLength(charts);
  for (const p of painted) expect(p).toBeGreaterThan(500);
  expect(opened.errors).toEqual([]);
  expect(opened.requests).toEqual([]);
  // The top of the page (at most 1300 px of it) keeps the docs' images small.
  await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1100, height: Math.min(1300, await page.evaluate('document.body.scrollHeight') as number) }, type: 'jpeg', quality: 55 });
  return Object.assign(page, { closeIt: opened.close });
}

/** The data-v values of a table's rows, as numbers except in text columns. */
async function tableValues(page: Page, id: string): Promise<string[][]> {
  return await page.evaluate(`[...document.querySelectorAll('#${id} tbody tr')].map((tr) => [...tr.cells].map((td) => td.dataset.v ?? td.textContent))`) as string[][];
}

/** A Kineto JSON trace of one rank: steps of the given durations (us) each with two CPU stages. */
function rankTrace(rank: number, steps: number[]): unknown {
  const events: unknown[] = [];
  let ts = 1000;
  steps.forEach((dur, k) => {
    events.push({ ph: 'X', name: `ProfilerStep#${k}`, cat: 'user_annotation', pid: 1, tid: 1, ts, dur });
    events.push({ ph: 'X', name: 'collision', cat: 'cpu_op', pid: 1, tid: 1, ts: ts + 1, dur: dur / 4 });
    events.push({ ph: 'X', name: 'solve', cat: 'cpu_op', pid: 1, tid: 1, ts: ts + 2 + dur / 4, dur: dur / 2 });
    ts += dur + 10;
  });
  return { distributedInfo: { backend: 'gloo', rank, world_size: 2 }, traceEvents: events };
}

describe.skipIf(!hasChromium())('gsprof report in headless chromium', () => {
  let browser: Browser;
  let dir = '';
  let trace = '';
  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    const rec = await gsprof(['record', '--example', 'timers', '--backend', 'cpu', '--n-envs', '8', '--steps', '12', '--out', join(dir, 'run'), '--format', 'perfetto']);
    expect(rec.code, rec.stderr).toBe(0);
    trace = join(dir, 'run', readdirSync(join(dir, 'run')).find((f) => f.endsWith('.pftrace'))!);
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => { await browser?.close(); });

  it('a CPU recording: self-contained, every chart drawn, the table is summary --format json\'s, and it sorts', async () => {
    const html = join(dir, 'report.html');
    const r = await gsprof(['report', trace, '-o', html]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${html}`);
    // uPlot, the page script and the data inline: tens of KiB, not MB, for a small recording.
    expect(statSync(html).size).toBeLessThan(400_000);
    const summary = await gsprof(['summary', trace, '--format', 'json']);
    expect(summary.code, summary.stderr).toBe(0);
    const rows = (JSON.parse(summary.stdout) as { reports: Array<{ report: string; rows: SummaryRow[] }> }).reports.find((x) => x.report === 'kernels')!.rows;
    expect(rows.length).toBeGreaterThan(5);

    const page = await expectSelfContained(browser, html, screenshotPath(dir, 'report-cpu.jpg'));
    try {
      // Step time, its distribution, the CPU busy chart and the three timer panels.
      expect(await page.evaluate('[...document.querySelectorAll("div.chart")].map((d) => d.id)')).toEqual(
        ['chart-steps', 'chart-step-hist', 'chart-cpu-busy', 'chart-timer-last', 'chart-timer-mean', 'chart-timer-sorted']);
      const fields = ['timePercent', 'totalTimeNs', 'instances', 'avgNs', 'medNs', 'minNs', 'maxNs', 'stdDevNs'] as const;
      const asShown = (await tableValues(page, 'stage-table')).map((cells) => [...cells.slice(0, 8).map(Number), cells[8]]);
      expect(asShown).toEqual(rows.map((row) => [...fields.map((f) => row[f]), row.name]));

      // A click on Instances sorts descending by it, a second ascending; Name sorts by name.
      await page.click('#stage-table th:nth-child(3)');
      let shown = (await tableValues(page, 'stage-table')).map((c) => Number(c[2]));
      expect(shown).toEqual([...shown].sort((a, b) => b - a));
      await page.click('#stage-table th:nth-child(2)');
      await page.click('#stage-table th:nth-child(2)');
      shown = (await tableValues(page, 'stage-table')).map((c) => Number(c[1]));
      expect(shown).toEqual(rows.map((x) => x.totalTimeNs).sort((a, b) => a - b));
      await page.click('#stage-table th:nth-child(9)');
      const names = (await tableValues(page, 'stage-table')).map((c) => c[8]!);
      expect(names).toEqual(rows.map((x) => x.name).sort((a, b) => b.localeCompare(a)));
    } finally {
      await page.closeIt();
    }
  });

  it('a multi-process run: a row per rank and the straggler per step', async () => {
    const ranks = join(dir, 'ranks');
    mkdirSync(ranks);
    // Rank 1 is slower in steps 2 and 5.
    writeFileSync(join(ranks, 'rank0.json'), JSON.stringify(rankTrace(0, [400, 100, 100, 100, 100, 100, 100, 100, 100, 100])));
    writeFileSync(join(ranks, 'rank1.json'), JSON.stringify(rankTrace(1, [380, 90, 250, 90, 90, 300, 90, 90, 90, 90])));
    const html = join(dir, 'ranks.html');
    const r = await gsprof(['report', ranks, '-o', html]);
    expect(r.code, r.stderr).toBe(0);
    const page = await expectSelfContained(browser, html, screenshotPath(dir, 'report-ranks.jpg'));
    try {
      const rows = await tableValues(page, 'rank-table');
      // Rank, steps and the steps each rank was slowest in.
      expect(rows.map((c) => [Number(c[0]), Number(c[3]), Number(c[8])])).toEqual([[0, 10, 8], [1, 10, 2]]);
      expect(await page.evaluate('[...document.querySelectorAll("div.chart")].map((d) => d.id)')).toEqual(['chart-rank-steps', 'chart-straggler', 'chart-straggler-rank']);
      expect(await page.textContent('body')).toContain('max 200.000us at step 5');
    } finally {
      await page.closeIt();
    }
  });

  it('a trace with no steps and no kernels gets a page that says what is missing', async () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, JSON.stringify({ traceEvents: [{ ph: 'X', name: 'load', cat: 'python_function', pid: 1, tid: 1, ts: 10, dur: 50 }] }));
    const html = join(dir, 'empty.html');
    const r = await gsprof(['report', empty, '-o', html]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the page says what is missing: no GPU kernels and no CPU stages');
    const page = await expectSelfContained(browser, html, join(dir, 'empty.jpg'));
    try {
      const text = await page.textContent('body');
      expect(text).toContain('No steps in this trace (no ProfilerStep#k spans)');
      expect(text).toContain('No GPU kernels and no CPU stages (cpu_op spans) in this trace: no stage table.');
      expect(text).toContain('No per-env solver timers in this trace');
    } finally {
      await page.closeIt();
    }
  });

  it('compare --html: per metric both sides\' runs, the decision, p and the spread; the page opens clean', async () => {
    const html = join(dir, 'compare.html');
    const r = await gsprof(['compare', trace, trace, '--html', html, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { metrics: Array<{ metric: string }> };
    const page = await expectSelfContained(browser, html, screenshotPath(dir, 'compare.jpg'));
    try {
      // A chart per metric, and the table's rows are compare's metrics.
      expect(await page.evaluate('document.querySelectorAll("div.chart").length')).toBe(result.metrics.length);
      const names = (await tableValues(page, 'compare-table-0')).map((c) => c[0]);
      expect([...names].sort()).toEqual(result.metrics.map((m) => m.metric).sort());
      expect(await page.textContent('body')).toContain('No regression: step time +0.0%');
    } finally {
      await page.closeIt();
    }
    // The page never replaces an input.
    const own = await gsprof(['compare', trace, trace, '--html', trace]);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain('never writes over its own input');
  });

  it('bench --html: the sweep as charts of env-steps/s and step time against nEnvs', async () => {
    const html = join(dir, 'bench.html');
    const r = await gsprof(['bench', '--example', 'franka', '--backend', 'cpu', '--n-envs', '1,2', '--steps', '3', '--warmup', '1', '--html', html, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const points = (JSON.parse(r.stdout) as { points: Array<{ nEnvs: number; envStepsPerSecond: number }> }).points;
    const page = await expectSelfContained(browser, html, screenshotPath(dir, 'bench.jpg'));
    try {
      const rows = await tableValues(page, 'bench-table');
      expect(rows.map((c) => [Number(c[0]), Number(c[2])])).toEqual(points.map((p) => [p.nEnvs, p.envStepsPerSecond]));
    } finally {
      await page.closeIt();
    }
  });

  it('report --history: step time over commits, the regression compare finds marked', async () => {
    const folder = join(dir, 'history');
    mkdirSync(folder);
    // Four baselines of 7 runs each (enough for compare's p < 0.002); the third commit made steps 30% slower.
    const baseline = (day: number, commit: string, stepNs: number): unknown => ({
      format: 'gsprof-baseline', version: 2, createdAt: `2026-11-0${day}T12:00:00.000Z`, config: { example: 'franka', backend: 'cpu', nEnvs: 4, gitCommit: commit },
      runs: Array.from({ length: 7 }, (_, r) => ({ steps: Array.from({ length: 10 }, (_, k) => stepNs * (1 + 0.01 * ((r * 7 + k) % 5))), kernels: {}, counts: {} })),
    });
    // Written out of date order: the page orders by date.
    const commits: Array<[number, string, number]> = [[3, 'c3d4e5f6a7', 1.3e6], [1, 'a1b2c3d4e5', 1e6], [4, 'd4e5f6a7b8', 1.29e6], [2, 'b2c3d4e5f6', 1.01e6]];
    for (const [day, commit, ns] of commits) writeFileSync(join(folder, `${commit}.json`), JSON.stringify(baseline(day, commit, ns)));
    const html = join(dir, 'history.html');
    const r = await gsprof(['report', '--history', folder, '-o', html, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ baselines: 4, regressions: [join(folder, 'c3d4e5f6a7.json')] });
    const page = await expectSelfContained(browser, html, screenshotPath(dir, 'history.jpg'));
    try {
      const rows = await tableValues(page, 'history-table');
      expect(rows.map((c) => [c[1], Number(c[3]), c[6]])).toEqual([
        ['a1b2c3d4e5', 1e6, '(first)'], ['b2c3d4e5f6', 1.01e6, 'unchanged'], ['c3d4e5f6a7', 1.3e6, 'worse'], ['d4e5f6a7b8', 1.29e6, 'unchanged']]);
      expect(await page.textContent('body')).toContain('Regressions (compare says worse): c3d4e5f6 2026-11-03.');
    } finally {
      await page.closeIt();
    }
    const both = await gsprof(['report', trace, '--history', folder]);
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe('gsprof: report: give a trace (or run folder), or --history FOLDER, not both');
  });

  it('bad input: a missing trace is one line and exit 2', async () => {
    const r = await gsprof(['report', join(dir, 'nope.pftrace'), '-o', join(dir, 'nope.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`gsprof: ${join(dir, 'nope.pftrace')}: no such file`);
  });
});
