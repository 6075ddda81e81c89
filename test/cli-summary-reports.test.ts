/** `gsprof summary --report/--format/--output/--sort/--timeunit/--name-width` on a trace with known contents. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

const LONG = `void gemm_kernel<float, 128, 64, ${'x'.repeat(60)}>(float const*, float*)`;

describe('summary reports', () => {
  let trace: string;
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
    trace = join(dir, 'known.json');
    const ev = [
      { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 7, ts: 0, dur: 10 },
      { ph: 'X', cat: 'kernel', name: 'a', pid: 0, tid: 8, ts: 0, dur: 30 },
      { ph: 'X', cat: 'kernel', name: LONG, pid: 0, tid: 8, ts: 50, dur: 60 },
      { ph: 'X', cat: 'cuda_runtime', name: 'queue.submit', pid: 1, tid: 1, ts: 0, dur: 5 },
      { ph: 'X', cat: 'user_annotation', name: 'rollout', pid: 1, tid: 1, ts: 0, dur: 100 },
      { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#0', pid: 1, tid: 1, ts: 0, dur: 120 },
    ];
    writeFileSync(trace, JSON.stringify({ traceEvents: ev }));
  });

  it('csv: full names, nsys columns in the chosen unit, Time (%) across streams', async () => {
    const r = await gsprof(['summary', trace, '--report', 'kernels', '--format', 'csv', '--timeunit', 'us']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      '# kernels: GPU kernels (cuda_gpu_kern_sum)',
      'Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name',
      `60.0,60.000,1,60.000,60.000,60.000,60.000,0.000,"${LONG}"`,
      '40.0,40.000,2,20.000,20.000,10.000,30.000,14.142,a',
    ]);
  });

  it('json has every report asked for; --sort and --output write the file atomically and say so', async () => {
    const j = await gsprof(['summary', trace, '--report', 'host', '--report', 'ranges', '--report', 'steps', '--format', 'json']);
    expect(j.code, j.stderr).toBe(0);
    const data = JSON.parse(j.stdout) as { reports: Array<{ report: string; rows: Array<{ name: string; totalTimeNs: number }> }> };
    expect(data.reports.map((x) => [x.report, x.rows.map((row) => row.name)])).toEqual([
      ['host', ['queue.submit']], ['ranges', ['rollout']], ['steps', ['ProfilerStep*']],
    ]);
    const out = join(dir, 'k.csv');
    const w = await gsprof(['summary', trace, '--report', 'kernels', '--format', 'csv', '--sort', 'instances', '--output', out]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout.trim()).toBe(`wrote ${out}`);
    expect(readFileSync(out, 'utf8').split('\n')[2]).toMatch(/^40\.0,40000,2,/);
  });

  it('tables print full names unless --name-width cuts them', async () => {
    const full = await gsprof(['summary', trace, '--report', 'kernels'], { env: { COLUMNS: '80' } });
    expect(full.stdout).toContain(LONG);
    const cut = await gsprof(['summary', trace, '--report', 'kernels', '--name-width', '20']);
    expect(cut.stdout).toContain(`${LONG.slice(0, 19)}…`);
    expect(cut.stdout).not.toContain(LONG);
    const perTrack = await gsprof(['summary', trace]);
    expect(perTrack.stdout).toContain(LONG);
    expect(perTrack.stdout).toMatch(/Time \(%\) of this track/);
  });
});
