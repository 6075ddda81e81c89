/** The Dawn start-up every gsprof package shares: the runtime folder policy, kept instances, exact timestamps. */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createInstance, QUANTIZATION_OFF, withTimestampQuery } from '../src/index.js';

const SOURCE = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** Runs `body` in a fresh node process that has imported this package as `dawn`, without XDG_RUNTIME_DIR. */
function inChild(body: string): { code: number | null; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.XDG_RUNTIME_DIR;
  const script = `const dawn = await import(${JSON.stringify(SOURCE)});\n${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('@gsprof/dawn', () => {
  it('an unset XDG_RUNTIME_DIR becomes a private folder of this process, never the shared temp folder, removed at exit', () => {
    const r = inChild(`
      const { statSync } = await import('node:fs');
      dawn.ensureRuntimeDir();
      const dir = process.env.XDG_RUNTIME_DIR;
      dawn.ensureRuntimeDir();
      console.log(JSON.stringify({ dir, again: process.env.XDG_RUNTIME_DIR, mode: statSync(dir).mode & 0o777 }));`);
    expect(r.code, r.err).toBe(0);
    const { dir, again, mode } = JSON.parse(r.out) as { dir: string; again: string; mode: number };
    expect(dir).not.toBe(tmpdir());
    expect(dir.startsWith(tmpdir())).toBe(true);
    expect(again).toBe(dir);
    expect(mode.toString(8)).toBe('700');
    const after = spawnSync('test', ['-e', dir]);
    expect(after.status, `${dir} should be gone after the process exits`).not.toBe(0);
  });

  it('a runtime folder the user set is left as it is', () => {
    const r = inChild(`process.env.XDG_RUNTIME_DIR = '/run/user/x'; dawn.ensureRuntimeDir(); console.log(process.env.XDG_RUNTIME_DIR);`);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim()).toBe('/run/user/x');
  });

  it('every instance gets exact timestamps unless the caller already chose the quantization setting', () => {
    const calls: string[][] = [];
    const fake = { create: (flags: string[]) => { calls.push(flags); return { id: calls.length }; } };
    createInstance(fake);
    createInstance(fake, ['adapter=x']);
    createInstance(fake, ['enable-dawn-features=timestamp_quantization']);
    expect(calls).toEqual([[QUANTIZATION_OFF], [QUANTIZATION_OFF, 'adapter=x'], ['enable-dawn-features=timestamp_quantization']]);
  });

  it("timestamp-query is added to a device's features only when the adapter has it, keeping the caller's", () => {
    const adapter = (has: boolean) => ({ features: new Set(has ? ['timestamp-query'] : []) }) as unknown as GPUAdapter;
    const asked: GPUDeviceDescriptor = { label: 'mine', requiredFeatures: ['shader-f16'] };
    expect(withTimestampQuery(adapter(true), asked)).toEqual({ label: 'mine', requiredFeatures: ['shader-f16', 'timestamp-query'] });
    expect(withTimestampQuery(adapter(false), asked)).toEqual({ label: 'mine', requiredFeatures: ['shader-f16'] });
    expect(asked.requiredFeatures).toEqual(['shader-f16']);
  });
});
