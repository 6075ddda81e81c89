/**
 * Per-step physics counters and per-env events (issue 30) on the GPU backend: the unstable scene of
 * physics-counters.test.ts (support/unstable-scene.ts) recorded through WebGPU (Dawn; lavapipe where there is no
 * GPU). The counters come from the device's reduction (sim-core's gpu/step-stats.ts, no per-env readback); they
 * must equal the per-env solver timers read back after each step, and the events must name exactly the envs made
 * unstable, at their steps. Skips with a printed reason without a WebGPU adapter, except under CI=true.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { hasWebgpuAdapter } from './support/cli.js';
import { itNamesTheUnstableEnvs, recordUnstableScene, type UnstableRun } from './support/unstable-scene.js';

const gpu = hasWebgpuAdapter();
if (!gpu) {
  if (process.env.CI === 'true') throw new Error('CI=true but Dawn finds no WebGPU adapter');
  console.warn('skipping the GPU physics-counter test: Dawn finds no WebGPU adapter');
}

let run: UnstableRun;

describe.skipIf(!gpu)('physics counters and env events in the recorded trace (GPU)', () => {
  beforeAll(async () => {
    run = await recordUnstableScene('gpu');
  }, 600_000);
  afterAll(() => { if (run) rmSync(run.dir, { recursive: true, force: true }); });

  itNamesTheUnstableEnvs(() => run, 'gpu');
});
