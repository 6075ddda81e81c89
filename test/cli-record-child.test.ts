/** `record -- <program>` never makes a program crash, even one that crashes alone on Dawn. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, hasWebgpuAdapter, tempDir } from './support/cli.js';
import { slowdown } from './support/machine-load.js';

const adapter = hasWebgpuAdapter();
if (!adapter) {
  if (process.env.CI === 'true') throw new Error('CI=true but Dawn finds no WebGPU adapter (run scripts/install-webgpu-cpu.sh)');
  console.warn('skipping the record -- <program> tests: Dawn finds no adapter (run scripts/install-webgpu-cpu.sh)');
}

// 300 s for the 20 records on an idle 2-core machine, times what the machine delivers when the file starts (a
// busy machine stretches every record; the test judges crashes, not speed).
describe.skipIf(!adapter)('record -- <program>', { timeout: 300_000 * slowdown() }, () => {
  beforeAll(() => ensureBuilt());

  it('a plain WebGPU program that drops its GPU object (it segfaults alone on Dawn) records cleanly 20 of 20 times', async () => {
    const failures: string[] = [];
    for (let run = 0; run < 20; run++) {
      const dir = tempDir();
      const r = await gsprof(['record', '--warmup', '1', '--active', '5', '--repeat', '1', '--out', dir, '--', 'node', 'test/fixtures/plain-webgpu.mjs', '30']);
      const traces = readdirSync(dir).filter((f) => f.endsWith('.pftrace'));
      if (r.code !== 0 || traces.length !== 1 || !/data\[0\] = /.test(r.stdout)) failures.push(`run ${run}: exit ${r.code}, ${traces.length} trace(s)\n${r.stderr}`);
      else {
        const s = await gsprof(['summary', join(dir, traces[0]!), '--json']);
        if ((JSON.parse(s.stdout) as { steps: { count: number } }).steps.count !== 5) failures.push(`run ${run}: ${s.stdout.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  // Exit codes and signals passed through: test/cli-record-program.test.ts.

  it('--profile-memory adds the GPU memory counter: the two 16 KiB buffers of the program', async () => {
    const dir = tempDir();
    const r = await gsprof(['record', '--warmup', '1', '--active', '5', '--repeat', '1', '--profile-memory', '--out', dir, '--', 'node', 'test/fixtures/plain-webgpu.mjs', '10']);
    expect(r.code, r.stderr).toBe(0);
    const q = await gsprof(['query', dir, "select max(c.value) as bytes from counter c join track t on t.id = c.track_id where t.name = 'gpu_memory'", '--format', 'csv']);
    expect(q.stdout).toBe('bytes\n32768\n');
  });
});
