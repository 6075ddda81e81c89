/**
 * `record -- <program>` with a program that fails or hangs: with --nproc, one rank's failure stops the others
 * (SIGTERM, then SIGKILL after --term-grace, as torchrun does) and gsprof names the rank that failed first; a
 * second Ctrl-C kills a program that ignores the first. Plain node programs (no WebGPU), spinning only for the
 * short grace periods.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, startGsprof, tempDir } from './support/cli.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('record --nproc when a rank fails', () => {
  it('stops the rank that ignores SIGTERM with SIGKILL after the grace period and names rank 0 as the failure', async () => {
    const started = Date.now();
    const dir = tempDir();
    const r = await gsprof(['record', '--nproc', '2', '--term-grace', '1', '--out', dir, '--', 'node', 'test/fixtures/rank-fails.mjs', dir], { timeoutMs: 60_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(3);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('gsprof:'));
    expect(lines).toEqual(['gsprof: rank 0: exited with code 3 first; 1 other rank(s) still running were stopped (SIGTERM, then SIGKILL after --term-grace)']);
    expect(r.stdout).toMatch(/rank 1: .*killed by SIGKILL/);
    // Without the stop gsprof never returns (the 60 s timeout kills it); with it: start, 1 s grace, exit.
    expect(seconds).toBeLessThan(30);
  }, 90_000);
});

describe('record -- <program> and a second Ctrl-C', () => {
  it('kills a program that cannot act on the first SIGINT (exit 137), where one Ctrl-C alone would wait for it', async () => {
    const run = startGsprof(['record', '--out', tempDir(), '--', 'node', 'test/fixtures/spin-ignoring-signals.mjs']);
    try {
      expect(await run.waitFor(/spinning/, 30_000)).toBe(true);
      run.child.kill('SIGINT');
      // A repeat within a second is the same Ctrl-C delivered twice (terminal and wrapper): still running.
      await new Promise((r) => setTimeout(r, 50));
      run.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 1200));
      expect(run.child.exitCode).toBeNull();
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(137);
      expect(run.output()).toMatch(/gsprof: node: killed by SIGKILL/);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 60_000);
});
