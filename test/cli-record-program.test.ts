/**
 * `gsprof record -- <command>` as a user's own program meets it: the program's exit code or signal is gsprof's,
 * a program written without gsprof in mind does not crash under it, a failing program keeps what was recorded,
 * and a signal sent to gsprof alone reaches the program. The WebGPU cases skip with a printed reason without
 * an adapter, except under CI=true, where WebGPU must be present.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, ensureBuilt, gsprof, hasWebgpuAdapter, tempDir } from './support/cli.js';

const adapter = hasWebgpuAdapter();
if (!adapter) {
  if (process.env.CI === 'true') throw new Error('CI=true but Dawn finds no WebGPU adapter (run scripts/install-webgpu-cpu.sh)');
  console.warn('skipping the WebGPU cases of record -- <program>: Dawn finds no adapter (run scripts/install-webgpu-cpu.sh)');
}

/** The stderr lines gsprof itself printed (`gsprof: ...`). */
const gsprofLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('gsprof:'));

describe('gsprof record -- <program>: the program ending is passed on', () => {
  beforeAll(() => { ensureBuilt(); });

  it('a program that exits 3 makes gsprof exit 3, saying so in one line', async () => {
    const r = await gsprof(['record', '--out', tempDir(), '--', 'node', 'test/fixtures/exit-with.mjs', '3']);
    expect(r.code).toBe(3);
    expect(gsprofLines(r.stderr)).toEqual(['gsprof: node: exited with code 3 (no trace written)']);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a program that kills itself with SIGSEGV: one line naming the signal, exit 128 + 11', async () => {
    const r = await gsprof(['record', '--out', tempDir(), '--', 'node', 'test/fixtures/exit-with.mjs', 'SIGSEGV']);
    expect(r.code).toBe(139);
    expect(gsprofLines(r.stderr)).toEqual(['gsprof: node: killed by SIGSEGV (no trace written)']);
  });
});

describe.skipIf(!adapter)('gsprof record -- <program> on WebGPU, as written without gsprof', () => {
  beforeAll(() => { ensureBuilt(); });

  // A plain program that drops its GPU object: test/cli-record-child.test.ts (20 of 20 runs).

  it('a program that fails with an unhandled rejection keeps its recorded steps and exits 1', async () => {
    const dir = tempDir();
    const r = await gsprof(['record', '--out', dir, '--warmup', '1', '--active', '5', '--repeat', '1', '--format', 'perfetto', '--', 'node', 'test/fixtures/webgpu-rejects.mjs']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('webgpu-rejects: failed after 30 frames');
    expect(r.stdout).toContain('30 steps (submits), 1 device(s) instrumented');
    const traces = readdirSync(dir).filter((f) => f.endsWith('.pftrace'));
    expect(traces).toHaveLength(1);
    const q = await gsprof(['query', join(dir, traces[0]!), "select count(*) as n from slice where name = 'bump' and category = 'kernel'", '--json']);
    expect((JSON.parse(q.stdout) as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(5);
  }, 120_000);

  it('SIGTERM sent to gsprof alone reaches the program: trace written, exit 143, nothing left running', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [BIN, 'record', '--out', dir, '--format', 'perfetto', '--', 'node', 'test/fixtures/webgpu-forever.mjs'],
      { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const started = Date.now();
    while (!/frame 30\b/.test(stdout) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stdout).toMatch(/\d+ steps \(submits\), 1 device\(s\) instrumented/);
    const traces = readdirSync(dir).filter((f) => f.endsWith('.pftrace'));
    expect(traces).toHaveLength(1);
    const s = await gsprof(['summary', join(dir, traces[0]!)]);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('relax');
  }, 120_000);
});
