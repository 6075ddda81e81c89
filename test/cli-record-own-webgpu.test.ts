/**
 * `gsprof record -- node prog.mjs` where the program has its own copy of the `webgpu` package, in its own
 * node_modules, as any user's project does: the program keeps using that copy, and the device it creates is
 * instrumented all the same (its kernels and their GPU times are in the trace). gsprof runs from its own folder,
 * so the copy is reachable neither from gsprof nor from the working directory, only from the program. Without an
 * adapter this skips with a printed reason, except under CI=true, where WebGPU must be present.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, hasWebgpuAdapter, tempDir } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

const adapter = hasWebgpuAdapter();
if (!adapter) {
  if (process.env.CI === 'true') throw new Error('CI=true but Dawn finds no WebGPU adapter (run scripts/install-webgpu-cpu.sh)');
  console.warn('skipping record -- <program> with its own webgpu package: Dawn finds no adapter (run scripts/install-webgpu-cpu.sh)');
}

// The plain program of test/fixtures/plain-webgpu.mjs (one compute pass per submit, written as the `webgpu`
// package's README shows), after saying whether the `webgpu` it imports is the copy in its own node_modules (the
// same module, not merely the same version).
const ENTRY = `import { globals } from 'webgpu';
const own = await import(new URL('./node_modules/webgpu/index.js', import.meta.url).href);
console.log(\`own webgpu copy: \${own.globals === globals}\`);
await import('./plain-webgpu.mjs');
`;

describe.skipIf(!adapter)('gsprof record -- <program> with its own copy of the webgpu package', () => {
  let project = '';
  beforeAll(() => {
    ensureBuilt();
    project = tempDir('gsprof-own-webgpu-');
    // A real copy, not a link: Node loads it (and its dawn.node) as a package separate from gsprof's.
    const installed = dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve('webgpu/package.json'));
    mkdirSync(join(project, 'node_modules'));
    cpSync(installed, join(project, 'node_modules', 'webgpu'), { recursive: true, dereference: true });
    cpSync(join(REPO_ROOT, 'test/fixtures/plain-webgpu.mjs'), join(project, 'plain-webgpu.mjs'));
    writeFileSync(join(project, 'prog.mjs'), ENTRY);
  });
  afterAll(() => { if (project) rmSync(project, { recursive: true, force: true }); });

  /** Records `program` (6 frames; 4 recorded steps); its stdout and the kernels of its trace: name, count, and
   * whether every one has a GPU time. */
  const record = async (program: string): Promise<{ stdout: string; kernels: unknown[] }> => {
    const dir = tempDir();
    const r = await gsprof(['record', '--out', dir, '--warmup', '1', '--active', '4', '--repeat', '1', '--format', 'perfetto', '--', 'node', program, '6']);
    expect(r.code, r.stderr).toBe(0);
    const traces = readdirSync(dir).filter((f) => f.endsWith('.pftrace'));
    expect(traces).toHaveLength(1);
    const q = await gsprof(['query', join(dir, traces[0]!), "select name, count(*) as n, min(dur) > 0 as timed from slice where category = 'kernel' group by name", '--json']);
    return { stdout: r.stdout, kernels: (JSON.parse(q.stdout) as { rows: unknown[] }).rows };
  };

  it('instruments the device the program\'s own copy creates: the same kernels, with GPU times, as on gsprof\'s copy', async () => {
    const own = await record(join(project, 'prog.mjs'));
    expect(own.stdout).toContain('own webgpu copy: true');
    expect(own.stdout).toMatch(/data\[0\] = \d+ after 6 frames/);
    // Its 6 frames and the submit that copies the result out.
    expect(own.stdout).toContain('7 steps (submits), 1 device(s) instrumented');
    // The fixture's pipeline has neither a label nor a named entry point: its pass is named by its kind.
    expect(own.kernels).toEqual([{ name: 'compute pass', n: 4, timed: true }]);
    const shared = await record('test/fixtures/plain-webgpu.mjs');
    expect(own.kernels).toEqual(shared.kernels);
  }, 120_000);
});
