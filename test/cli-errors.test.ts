/** Bad input: one line `gsprof: <what>: <why>`, exit 2, no stack; `--json` errors are `{error: {message, exit}}`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

function expectOneLineError(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^gsprof: [^:]+: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('bad input', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
  });

  it('a missing trace', async () => {
    expectOneLineError(await gsprof(['summary', join(dir, 'nope.pftrace')]), /nope\.pftrace: no such file/);
  });

  it('a corrupt Perfetto trace names the file and the byte offset', async () => {
    const f = join(dir, 'bad.pftrace');
    writeFileSync(f, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expectOneLineError(await gsprof(['gaps', f]), /bad\.pftrace.*byte/);
  });

  it('broken JSON names the file and where', async () => {
    const f = join(dir, 'bad.json');
    writeFileSync(f, '{"traceEvents": [ {"ph": "X", "ts": 1,, } ]}');
    expectOneLineError(await gsprof(['summary', f]), /bad\.json/);
  });

  it('compare: a missing baseline is bad input (exit 2), not a regression', async () => {
    expectOneLineError(await gsprof(['compare', join(dir, 'none.json'), join(dir, 'none2.json')]), /none\.json: no such file/);
  });

  it('unknown flags, options and commands', async () => {
    expectOneLineError(await gsprof(['record', '--example', 'cartpole']), /--example/);
    expectOneLineError(await gsprof(['summary']), /Missing 1 required arg/);
    expectOneLineError(await gsprof(['frobnicate']), /^gsprof: frobnicate: unknown command/);
    expectOneLineError(await gsprof(['compare', 'a', 'b', '--factor', 'fast']), /--factor: 'fast' must be a number >= 1/);
  });

  it('--json errors are one JSON object with the message and exit code', async () => {
    const r = await gsprof(['summary', join(dir, 'nope.pftrace'), '--json']);
    expect(r.code).toBe(2);
    const parsed = JSON.parse(r.stdout) as { error: { message: string; exit: number } };
    expect(parsed).toEqual({ error: { message: expect.stringMatching(/nope\.pftrace: no such file/), exit: 2 } });
  });

  it('DEBUG=1 adds the stack for bug reports', async () => {
    const r = await gsprof(['summary', join(dir, 'nope.pftrace')], { env: { DEBUG: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^gsprof: .*no such file\n/);
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it('--help lists every command with a summary, and each command has examples', async () => {
    const top = await gsprof(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['record', 'summary', 'gaps', 'timers', 'compare', 'diff', 'query', 'open', 'convert', 'bench']) {
      expect(top.stdout).toMatch(new RegExp(`^  ${c}\\s+\\S`, 'm'));
    }
    const record = await gsprof(['record', '--help']);
    expect(record.stdout).toContain('EXAMPLES');
    expect(record.stdout).toContain('--fresh-cache');
    // oclif wraps long example lines with a trailing backslash.
    expect(record.stdout.replace(/\\\n\s*/g, '')).toContain('--active 10 -- node examples/profiling/webgpu-compute.mjs');
  });
});
