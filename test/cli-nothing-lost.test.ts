/**
 * Nothing lost, round two (issue 33): the CI gate refuses what cannot support a verdict, and no command writes
 * over one of its own inputs. Every case is a one-line error with exit 2.
 */
import { copyFileSync, existsSync, linkSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/shared.js';
import { ensureBuilt, expectOneLineError, gsprof, tempDir } from './support/cli.js';

const BASELINE = join(REPO_ROOT, 'traces/baselines/franka-cpu.json');
const RERUN = join(REPO_ROOT, 'traces/baselines/franka-cpu-rerun.json');

describe('compare: the CI gate does not pass on nothing', () => {
  let dir: string;
  let base: Record<string, unknown> & { runs: Array<{ steps: number[] }> };
  const variant = (name: string, edit: (b: typeof base) => void): string => {
    const b = JSON.parse(JSON.stringify(base)) as typeof base;
    edit(b);
    const f = join(dir, `${name}.json`);
    writeFileSync(f, JSON.stringify(b));
    return f;
  };
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
    base = JSON.parse(readFileSync(BASELINE, 'utf8')) as typeof base;
  });

  it('a side with no runs, no steps, or step times of 0 or -1 exits 2 on either side', async () => {
    const empty = variant('empty', (b) => { b.runs = []; });
    expectOneLineError(await gsprof(['compare', empty, RERUN]), /the baseline side has no runs: nothing to compare/);
    expectOneLineError(await gsprof(['compare', RERUN, empty]), /the current side has no runs/);
    const zero = variant('zero', (b) => { for (const r of b.runs) r.steps = r.steps.map(() => 0); });
    expectOneLineError(await gsprof(['compare', BASELINE, zero]), /run 1 of the current side has a step time of 0 ns: step times must be positive and finite/);
    const negative = variant('negative', (b) => { b.runs[2]!.steps[5] = -1; });
    expectOneLineError(await gsprof(['compare', negative, RERUN]), /run 3 of the baseline side has a step time of -1 ns/);
    const noSteps = variant('nosteps', (b) => { b.runs[0]!.steps = []; });
    expectOneLineError(await gsprof(['compare', BASELINE, noSteps]), /no recorded steps/);
  });

  it('a baseline without its config is refused, and --allow-config-change compares with a warning', async () => {
    const bare = variant('bare', (b) => { delete b.config; });
    expectOneLineError(await gsprof(['compare', bare, RERUN]), /cannot check that both sides ran the same workload: only the current side records nEnvs, example, backend, precision \(--allow-config-change/);
    const allowed = await gsprof(['compare', bare, RERUN, '--allow-config-change']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/^warning: the workload was not checked: only the current side records nEnvs/m);
  });
});

describe('no command writes over its own input', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
  });

  it('summary --output, report -o, export -o, record --baseline-out and compare\'s GITHUB_STEP_SUMMARY refuse an input, by path, link or hard link, and leave it intact', async () => {
    const trace = join(dir, 't.pftrace');
    copyFileSync(join(REPO_ROOT, 'traces/franka-cpu.pftrace'), trace);
    const before = readFileSync(trace);
    linkSync(trace, join(dir, 'hard.pftrace'));
    symlinkSync(trace, join(dir, 'soft.pftrace'));
    for (const out of ['t.pftrace', 'hard.pftrace', 'soft.pftrace']) {
      expectOneLineError(await gsprof(['summary', trace, '--report', 'kernels', '--output', join(dir, out)]), /is an input of summary.*; summary never writes over its own input/);
    }
    expectOneLineError(await gsprof(['report', trace, '-o', trace]), /is an input of report/);
    // export replaces its output folder: neither an input folder nor one that holds an input trace.
    expectOneLineError(await gsprof(['export', trace, '--format', 'parquet', '-o', dir]), /holds .*t\.pftrace, an input of export/);
    expectOneLineError(await gsprof(['merge', trace, join(dir, 'hard.pftrace'), '-o', join(dir, 'm.pftrace')]), /hard\.pftrace: is the same file as .*t\.pftrace: merge takes each trace once/);
    expect(readFileSync(trace).equals(before)).toBe(true);
    const scene = join(dir, 'scene.xml');
    writeFileSync(scene, '<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1"/></body></worldbody></mujoco>');
    expectOneLineError(await gsprof(['record', '--scene', scene, '--steps', '2', '--out', dir, '--baseline-out', scene]), /scene\.xml: is an input of record/);
    expect(readFileSync(scene, 'utf8')).toMatch(/^<mujoco>/);
    const base = join(dir, 'base.json');
    copyFileSync(BASELINE, base);
    expectOneLineError(await gsprof(['compare', base, RERUN], { env: { GITHUB_STEP_SUMMARY: base } }), /base\.json: is an input of compare/);
    expect(readFileSync(base, 'utf8')).toBe(readFileSync(BASELINE, 'utf8'));
  });
});

describe('record -- node prog.mjs: process.exit(code) never returns', () => {
  beforeAll(() => { ensureBuilt(); });

  it('the statement after process.exit(3) does not run; the trace is written and gsprof exits 3', async () => {
    const dir = tempDir();
    const after = join(dir, 'after.txt');
    const r = await gsprof(['record', '--out', dir, '--', 'node', 'test/fixtures/exit-then-write.mjs', after]);
    expect(r.code, r.stderr).toBe(3);
    expect(existsSync(after)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.pftrace'))).toHaveLength(1);
  });
});

describe('merge: ranks of one job, all of them', () => {
  let dir: string;
  /** A Chrome trace of one slice, as rank `rank` of `worldSize` in job `jobId`. */
  const rankTrace = (name: string, rank: number, worldSize: number, jobId: string): string => {
    const f = join(dir, name);
    writeFileSync(f, JSON.stringify({
      distributedInfo: { backend: 'gloo', rank, world_size: worldSize, job_id: jobId },
      traceEvents: [{ ph: 'X', name: `work${rank}`, pid: 100 + rank, tid: 1, ts: 1000 + rank, dur: 50 }],
    }));
    return f;
  };
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
  });

  it('ranks of different jobs are refused, naming both jobs', async () => {
    const a = rankTrace('a0.json', 0, 2, 'jobA');
    const b = rankTrace('b1.json', 1, 2, 'jobB');
    const out = join(dir, 'mixed.json');
    expectOneLineError(await gsprof(['merge', a, b, '-o', out, '--no-cache']), /the traces come from 2 different jobs \(jobA: .*a0\.json; jobB: .*b1\.json\): merge takes the ranks of one job/);
    expect(existsSync(out)).toBe(false);
  });

  it('2 of 4 ranks merge, marked Incomplete with the missing ranks', async () => {
    const r0 = rankTrace('c0.json', 0, 4, 'jobC');
    const r2 = rankTrace('c2.json', 2, 4, 'jobC');
    const out = join(dir, 'partial.json');
    const r = await gsprof(['merge', r0, r2, '-o', out, '--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Incomplete: 2 of 4 ranks \(missing rank 1, 3\)\nMerged 2 trace\(s\) into /);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: Array<{ name: string }> };
    expect(merged.traceEvents.map((e) => e.name)).toEqual(expect.arrayContaining(['work0', 'work2']));
  });
});
