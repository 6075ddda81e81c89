/**
 * What docs/install.md tells a user to do, done in an empty folder: pack the four packages, install the
 * tarballs into a new project, then run `npx gsprof`, import both libraries from a program and type-check a
 * TypeScript file against the published declarations. Nothing of this repository is on the path but the
 * tarballs.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

const NPM = 'npm';
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

function run(cmd: string, args: string[], options: SpawnSyncOptions): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, env: cliEnv(), ...options });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

describe('installed into a project of its own', { timeout: 600_000 }, () => {
  let root: string;
  let project: string;

  beforeAll(() => {
    ensureBuilt();
    root = mkdtempSync(join(tmpdir(), 'gsprof-install-'));
    const packs = join(root, 'packs');
    project = join(root, 'my-sim');
    mkdirSync(packs);
    mkdirSync(project);
    const pack = run(NPM, ['pack', '--workspaces', '--pack-destination', packs], { cwd: REPO_ROOT });
    expect(pack.code, pack.out).toBe(0);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-sim', private: true, type: 'module' }));
    const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz')).map((f) => join(packs, f));
    expect(tarballs.map((f) => f.replace(/.*\//, '')).sort()).toEqual(['gsprof-cli-0.1.0.tgz', 'gsprof-dawn-0.1.0.tgz', 'gsprof-log-0.1.0.tgz', 'gsprof-profiler-0.1.0.tgz', 'gsprof-sim-core-0.1.0.tgz']);
    const install = run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, '@types/node@20.19.43'], { cwd: project });
    expect(install.code, install.out).toBe(0);
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('`npx gsprof record --example franka` records there and `npx gsprof summary` reads it back', () => {
    const rec = run('npx', ['gsprof', 'record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '4', '--steps', '20', '--out', 'out'], { cwd: project });
    expect(rec.code, rec.out).toBe(0);
    expect(rec.out).toMatch(/wrote out\/.*\.pftrace/);
    const sum = run('npx', ['gsprof', 'summary', 'out', '--json'], { cwd: project });
    expect(sum.code, sum.out).toBe(0);
    expect(sum.out).toMatch(/"solve"/);
  });

  it("the docs' program runs there as written: imports both libraries, loads a bundled model, writes a trace", () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/install.md'), 'utf8');
    const program = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(program, 'docs/install.md has a js example').toBeDefined();
    writeFileSync(join(project, 'sim.mjs'), program!);
    const r = run(process.execPath, ['sim.mjs'], { cwd: project });
    expect(r.code, r.out).toBe(0);
    const written = /\[ '(out\/[^']+\.pt\.trace\.json)' \]/.exec(r.out)?.[1];
    expect(written, r.out).toBeDefined();
    const sum = run('npx', ['gsprof', 'summary', written!, '--json'], { cwd: project });
    expect(sum.code, sum.out).toBe(0);
    expect(JSON.parse(sum.out).steps.count).toBe(5);
  });

  it('TypeScript code type-checks against the published declarations (WebGPU types come along)', () => {
    writeFileSync(join(project, 'check.ts'), `
import { profile, schedule, type ProfileOptions } from '@gsprof/profiler';
import * as gs from '@gsprof/sim-core';
const options: ProfileOptions = { schedule: schedule({ wait: 1, warmup: 1, active: 2 }) };
export async function main(): Promise<number> {
  await gs.init({ backend: 'cpu' });
  const scene = new gs.Scene();
  scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
  await scene.build({ nEnvs: 2 });
  profile(options);
  const device: GPUDevice | undefined = gs.device?.gpuDevice ?? undefined;
  return scene.nEnvs + (device ? 1 : 0);
}
// @ts-expect-error: nEnvs is a number
export const wrong: gs.Scene = new gs.Scene({ profilingOptions: { showFPS: 'yes' } });
`);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] },
      files: ['check.ts'],
    }));
    const r = run(process.execPath, [TSC, '-p', '.'], { cwd: project });
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });
});
