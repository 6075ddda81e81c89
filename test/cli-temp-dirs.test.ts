/**
 * gsprof's temporary folders in TMPDIR (gsprof-run-*, gsprof-xdg-*, ...) never outlive their owner: removed at
 * exit and on an unhandled SIGTERM, and a SIGKILLed run's folder is removed by the next gsprof start. Each case
 * uses a private TMPDIR so other runs' folders cannot interfere. Plain node programs, no WebGPU.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, ensureBuilt, gsprof, tempDir } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

beforeAll(() => ensureBuilt(), 300_000);

const gsprofFolders = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('gsprof-'));

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!ok()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('temporary folders', () => {
  it('a SIGKILLed record leaves its gsprof-run folder, and the next gsprof start removes it', async () => {
    const tmp = tempDir('gsprof-tmpdir-test-');
    const out = tempDir();
    const pidFile = join(out, 'program.pid');
    const program = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, [BIN, 'record', '--out', out, '--', 'node', '-e', program],
      { cwd: REPO_ROOT, env: cliEnv({ TMPDIR: tmp }), stdio: 'ignore' });
    try {
      await until('the program to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0);
      const left = gsprofFolders(tmp).filter((n) => n.startsWith('gsprof-run-'));
      expect(left).toHaveLength(1);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    } finally {
      child.kill('SIGKILL');
      try { process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL'); } catch { /* already gone */ }
    }
    expect(gsprofFolders(tmp).filter((n) => n.startsWith('gsprof-run-'))).toHaveLength(1);
    // Every command's start sweeps, even one that fails and makes no folder of its own.
    const next = await gsprof(['summary', join(out, 'missing.pftrace')], { env: { TMPDIR: tmp } });
    expect(next.code, next.stderr).toBe(2);
    expect(gsprofFolders(tmp)).toEqual([]);
  }, 60_000);

  it('the Dawn runtime folder (gsprof-xdg) is removed when its process exits and when it dies of SIGTERM', () => {
    const tmp = tempDir('gsprof-tmpdir-test-');
    const dawn = join(REPO_ROOT, 'packages/dawn/dist/index.js');
    for (const end of ['', "process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 5000);"]) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e',
        `const d = await import(${JSON.stringify(dawn)}); d.ensureRuntimeDir(); console.log(process.env.XDG_RUNTIME_DIR); ${end}`],
      { env: { ...process.env, TMPDIR: tmp, XDG_RUNTIME_DIR: '' }, encoding: 'utf8', timeout: 20_000 });
      expect(r.stdout.trim(), r.stderr).toMatch(/gsprof-xdg-/);
      if (end) expect(r.signal).toBe('SIGTERM');
      else expect(r.status, r.stderr).toBe(0);
      expect(gsprofFolders(tmp)).toEqual([]);
    }
  }, 60_000);
});
