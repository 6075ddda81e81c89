/**
 * Runs the built `gsprof` binary the way users and CI do (`node packages/cli/bin/run.js`), after making sure
 * dist/ is current. Output is captured with NO_COLOR so assertions read plain text.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { REPO_ROOT } from './shared.js';

export const BIN = join(REPO_ROOT, 'packages/cli/bin/run.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let built = false;

/** `tsc -b` once per process, serialised across test files with a lock folder. */
export function ensureBuilt(): void {
  if (built) return;
  const lock = join(REPO_ROOT, '.cache', 'e2e-build.lock');
  mkdirSync(join(REPO_ROOT, '.cache'), { recursive: true });
  const started = Date.now();
  for (;;) {
    try { mkdirSync(lock); break; } catch { /* another file is building */ }
    if (Date.now() - started > 240_000) { rmSync(lock, { recursive: true, force: true }); continue; }
    spawnSync('sleep', ['0.5']);
  }
  try {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: REPO_ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tsc -b failed:\n${r.stdout}${r.stderr}`);
    built = true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir(), ...extra };
  delete env.GITHUB_STEP_SUMMARY;
  delete env.FORCE_COLOR;
  // vitest sets NODE_ENV=test, which makes oclif load src/ through tsx: test the build users run.
  delete env.NODE_ENV;
  return { ...env, ...extra };
}

/** Runs `gsprof ...args` to completion. */
export async function gsprof(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return await new Promise<CliRun>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`gsprof ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, options.timeoutMs ?? 170_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** A gsprof run left going, for tests that signal it: its output so far (stdout and stderr together), a wait
 * for a pattern in it, and its exit code once it closes. */
export interface RunningGsprof {
  child: ReturnType<typeof spawn>;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<boolean>;
  exited: Promise<number | null>;
}

/** `detached`: in a process group of its own, so that a SIGINT to the group (`process.kill(-pid)`) reaches gsprof
 * and the program it records together, as a terminal's Ctrl-C does. */
export function startGsprof(args: string[], options: { env?: NodeJS.ProcessEnv; detached?: boolean } = {}): RunningGsprof {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs: number): Promise<boolean> => {
    const started = Date.now();
    while (!pattern.test(output) && Date.now() - started < timeoutMs) await new Promise((r) => setTimeout(r, 100));
    return pattern.test(output);
  };
  return { child, output: () => output, waitFor, exited };
}

/** Dawn's lavapipe prints two harmless "Warning: max...Layout artificially reduced" lines; drop them. */
export function withoutDawnNoise(text: string): string {
  return text.split('\n').filter((l) => !/^Warning: maxDynamic\w+ artificially reduced/.test(l)).join('\n');
}

/**
 * `gsprof convert` from each file of `chain` (in `dir`, the first already written) to the next, failing on an
 * error; the last file's traceEvents (it must be JSON).
 */
export async function convertChain<E>(dir: string, chain: string[]): Promise<E[]> {
  for (let i = 1; i < chain.length; i++) await convertFile(dir, chain[i - 1]!, chain[i]!);
  return (JSON.parse(readFileSync(join(dir, chain[chain.length - 1]!), 'utf8')) as { traceEvents: E[] }).traceEvents;
}

/** `gsprof convert` of `from` to `to`, both in `dir`, without the import cache; throws on an error. */
export async function convertFile(dir: string, from: string, to: string): Promise<void> {
  const r = await gsprof(['convert', join(dir, from), join(dir, to)], { env: { GSPROF_NO_CACHE: '1' } });
  if (r.code !== 0) throw new Error(`convert ${from} -> ${to} failed:\n${r.stderr}`);
}

/**
 * For a convert test file: a temp folder that holds `source` as `in.json` once the build is current (made in
 * beforeAll), with convert, query (csv rows) and read (a file's text) on the files in it.
 */
export function convertFixture(source: unknown): {
  convert(from: string, to: string): Promise<void>; query(file: string, sql: string): Promise<string[]>; read(file: string): string;
} {
  let dir = '';
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
    writeFileSync(join(dir, 'in.json'), JSON.stringify(source));
  });
  return {
    convert: (from, to) => convertFile(dir, from, to),
    query: (file, sql) => queryCsv(join(dir, file), sql),
    read: (file) => readFileSync(join(dir, file), 'utf8'),
  };
}

/** The csv rows (header left out) `gsprof query` gives for `sql` on `path`, without the import cache. */
export async function queryCsv(path: string, sql: string): Promise<string[]> {
  const r = await gsprof(['query', path, sql, '--format', 'csv'], { env: { GSPROF_NO_CACHE: '1' } });
  if (r.code !== 0) throw new Error(`query on ${path} failed:\n${r.stderr}`);
  return r.stdout.trim().split('\n').slice(1);
}

/** Folders `tempDir` made in this test file, removed after it: runs of the suite left thousands behind. */
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'gsprof-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** Whether Dawn finds a WebGPU adapter here (lavapipe or a real GPU). */
export function hasWebgpuAdapter(): boolean {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/check-webgpu.mjs')], { cwd: REPO_ROOT, env: cliEnv(), encoding: 'utf8' });
  return r.status === 0;
}

/** A bad-input failure as users see it: exit 2, one line `gsprof: <what>: <why>` on stderr matching `pattern`, no stack. */
export function expectOneLineError(r: CliRun, pattern: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  // record's progress lines (`franka: step 12/12 ...`) go to stderr too; everything else must be the one line.
  const lines = r.stderr.trim().split('\n').filter((l) => !/^\w+: step \d+\/\d+ /.test(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^gsprof: [^:]+: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
