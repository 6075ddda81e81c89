/** The library examples that docs/profiling.md shows run as written and do what their comments say. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt, gsprof, hasWebgpuAdapter, tempDir } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

function runExample(file: string, args: string[] = [], timeout = 120_000): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, file), ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: cliEnv(), timeout });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const gpu = hasWebgpuAdapter();
if (!gpu) {
  if (process.env.CI === 'true') throw new Error('CI=true but Dawn finds no WebGPU adapter');
  console.warn('skipping the GPU run of unstable-envs.mjs: Dawn finds no WebGPU adapter');
}

describe('library examples', () => {
  beforeAll(() => ensureBuilt());

  it('schedule-and-handlers.mjs: two recorded cycles, each written as Chrome JSON and .pftrace', () => {
    const out = tempDir();
    const r = runExample('examples/profiling/schedule-and-handlers.mjs', [out]);
    expect(r.code, r.out).toBe(0);
    const files = readdirSync(out).sort();
    expect(files.filter((f) => f.endsWith('.pt.trace.json'))).toHaveLength(2);
    expect(files.filter((f) => f.endsWith('.pftrace'))).toHaveLength(2);
    expect(r.out.match(/^wrote /gm)).toHaveLength(4);
  });

  it('record-function.mjs: user ranges and one ProfilerStep* row in the keyAverages table', () => {
    const r = runExample('examples/profiling/record-function.mjs');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^\s+ProfilerStep\*\s.*\s4\s\s$/m);
    expect(r.out).toMatch(/^\s+policy\s.*\s4\s\s$/m);
    expect(r.out).toMatch(/^\s+control\s.*\s4\s\s$/m);
    expect(r.out).not.toMatch(/ProfilerStep#/);
  });

  it('unstable-envs.mjs (docs/profiling.md): the envs broken on purpose reset once each, at their steps, as envs reads them', async () => {
    const out = tempDir();
    const r = runExample('examples/profiling/unstable-envs.mjs', [out]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('resets: {"nan":3,"limit":1,"user":1}, NaN findings: 3, unconverged solves: 0');
    const files = readdirSync(out);
    expect(files.filter((f) => f.endsWith('.pftrace'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('.pt.trace.json'))).toHaveLength(1);
    const envs = await gsprof(['envs', out, '--format', 'json']);
    expect(envs.code, envs.stderr).toBe(0);
    const report = JSON.parse(envs.stdout) as { totalResets: number; eventful: { env: number; resets: { step: number; reason: string }[] }[] };
    expect(report.totalResets).toBe(5);
    const resets = report.eventful.flatMap((e) => e.resets.map((x) => `${e.env}@${x.step}:${x.reason}`)).sort();
    expect(resets).toEqual(['17@40:nan', '23@60:limit', '42@40:nan', '5@40:nan', '7@80:user']);
  });

  it.skipIf(!gpu)('unstable-envs.mjs on the GPU backend: the same resets, each env once (a reset env did not go NaN again)', () => {
    const out = tempDir();
    const r = runExample('examples/profiling/unstable-envs.mjs', [out, 'gpu'], 590_000);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('resets: {"nan":3,"limit":1,"user":1}, NaN findings: 3,');
  }, 600_000);

  it('control_dofs.mjs: dofsIdx from joint names, env 2 alone goes to its own target', () => {
    const r = runExample('examples/tutorials/control_dofs.mjs');
    expect(r.code, r.out).toBe(0);
    const values = /joint1 per env: (.*)/.exec(r.out)![1]!.split(' ').map(Number);
    expect(values).toHaveLength(4);
    expect(values[2]).toBeCloseTo(0.5, 1);
    for (const e of [0, 1, 3]) expect(Math.abs(values[e]!)).toBeLessThan(0.05);
  });
});
