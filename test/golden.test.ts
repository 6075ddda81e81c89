/**
 * Golden outputs of `gsprof summary` and `gsprof compare` on the committed reference traces (traces/), with
 * timings normalised: numbers become '#', durations '<t>', table borders and column widths are dropped, and
 * kernel rows are sorted by name (their order follows timings). Regenerate traces with traces/regenerate.sh,
 * then the goldens with UPDATE_GOLDEN=1.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/shared.js';
import { ensureBuilt, gsprof } from './support/cli.js';

const TRACES = join(REPO_ROOT, 'traces');
const GOLDEN = join(TRACES, 'golden');

/** Timing-independent form of a command's output. */
function normalise(text: string): string {
  const out: string[] = [];
  let rows: string[] = [];
  const flush = (): void => { for (const r of rows.sort()) out.push(r); rows = []; };
  for (const raw of text.split('\n')) {
    if (/^[┌├└]/.test(raw)) continue;
    let line = raw
      .replace(/^(Trace|Baseline|Current): .*$/, '$1: <file>') // the file read: a path on this machine
      .replace(/\b\d[\d,]*(\.\d+)?(e[+-]?\d+)?(ns|us|ms|s)\b/g, '<t>')
      .replace(/[+-]?\b\d[\d,]*(\.\d+)?(e[+-]?\d+)?%?/g, '#')
      .replace(/^.*(: # kernels, <t> total)(;.*)?$/, '<track>$1$2');
    if (line.startsWith('│')) {
      const cells = line.split('│').slice(1, -1).map((c) => c.trim());
      const isHeader = cells.some((c) => /Time \(%\)|Metric/.test(c));
      line = cells.join(' | ').trim();
      if (isHeader) { flush(); out.push(line); } else rows.push(line);
      continue;
    }
    flush();
    out.push(line.trimEnd());
  }
  flush();
  return `${out.join('\n').trim()}\n`;
}

function checkGolden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    writeFileSync(file, actual);
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`golden ${name} did not exist; wrote it (review and commit)`);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

const backends = ['cpu', 'gpu'].filter((b) => existsSync(join(TRACES, `franka-${b}.pftrace`)));

describe.each(backends)('golden outputs for traces/franka-%s', (backend) => {
  const pftrace = join(TRACES, `franka-${backend}.pftrace`);
  const json = join(TRACES, `franka-${backend}.pt.trace.json`);
  const baseline = join(TRACES, 'baselines', `franka-${backend}.json`);
  beforeAll(() => { ensureBuilt(); });

  it('summary (Perfetto and Chrome JSON give the same normalised output)', async () => {
    const a = await gsprof(['summary', pftrace]);
    expect(a.code).toBe(0);
    const b = await gsprof(['summary', json]);
    expect(b.code).toBe(0);
    expect(normalise(b.stdout)).toBe(normalise(a.stdout));
    checkGolden(`summary-franka-${backend}.txt`, normalise(a.stdout));
  });

  it('compare: two sets of runs of the same code, recorded back to back, are no regression', async () => {
    const rerun = join(TRACES, 'baselines', `franka-${backend}-rerun.json`);
    const r = await gsprof(['compare', baseline, rerun]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    checkGolden(`compare-franka-${backend}.txt`, normalise(r.stdout));
  });
});

describe('normalise', () => {
  it('keeps structure and names, drops timings and widths', () => {
    const text = [
      'host: 1,280 kernels, 131.663ms total',
      '┌──────────┬──────┐',
      '│ Time (%) │ Name │',
      '│     60.2 │ solve │',
      '│     39.8 │ crb  │',
      '└──────────┴──────┘',
      'Steps: 32 recorded, mean 1.152ms',
    ].join('\n');
    expect(normalise(text)).toBe('<track>: # kernels, <t> total\nTime (%) | Name\n# | crb\n# | solve\nSteps: # recorded, mean <t>\n');
  });
});
