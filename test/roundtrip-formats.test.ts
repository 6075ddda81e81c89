/**
 * One real 64-env Franka recording per backend, written as Perfetto protobuf and as Chrome JSON by the same
 * run, read back through the importer: both files must describe exactly the same kernels.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kernelSummary, openTrace } from '@gsprof/profiler';
import { ensureBuilt, gsprof, hasWebgpuAdapter, tempDir } from './support/cli.js';

const STAGES = ['kinematics', 'com', 'crb', 'factor_m', 'collision', 'make_constraint', 'passive', 'rne', 'actuation', 'smooth_acc', 'solve', 'integrate'];

interface KernelFacts { instances: number; totalNs: number }

async function kernelsOf(path: string): Promise<Map<string, KernelFacts>> {
  const db = await openTrace(path);
  try {
    const out = new Map<string, KernelFacts>();
    for (const track of (await kernelSummary(db)).tracks) {
      for (const k of track.kernels) {
        const prev = out.get(k.name) ?? { instances: 0, totalNs: 0 };
        out.set(k.name, { instances: prev.instances + Number(k.instances), totalNs: prev.totalNs + Number(k.totalTimeNs) });
      }
    }
    return out;
  } finally {
    await db.close();
  }
}

const gpuOk = process.env.CI === 'true' || hasWebgpuAdapter();
if (!gpuOk) console.warn('skipping the gpu round trip: no WebGPU adapter (install lavapipe with scripts/install-webgpu-cpu.sh)');

describe.each([
  { backend: 'cpu', run: true },
  { backend: 'gpu', run: gpuOk },
])('a 64-env Franka recording on $backend, both formats', ({ backend, run }) => {
  let pftrace = '';
  let json = '';
  beforeAll(async () => {
    if (!run) return;
    ensureBuilt();
    const dir = tempDir();
    const r = await gsprof(['record', '--example', 'franka', '--backend', backend, '--n-envs', '64', '--steps', '12', '--warmup', '1', '--active', '8', '--format', 'both', '--out', dir, '--no-fps']);
    expect(r.stderr).not.toMatch(/^gsprof: (?!warning)/m);
    expect(r.code).toBe(0);
    const files = readdirSync(dir);
    pftrace = join(dir, files.find((f) => f.endsWith('.pftrace'))!);
    json = join(dir, files.find((f) => f.endsWith('.pt.trace.json'))!);
  });

  it.skipIf(!run)('kernel names, counts and per-kernel total time agree exactly between Perfetto and Chrome JSON', async () => {
    const a = await kernelsOf(pftrace);
    const b = await kernelsOf(json);
    for (const stage of STAGES) expect(a.get(stage)?.instances, stage).toBeGreaterThanOrEqual(8);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [name, facts] of a) expect(b.get(name), name).toEqual(facts);
  });
});
