import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files import the packages' TypeScript sources, not their built dist.
const ssr = { resolve: { conditions: ['@gsprof/source', 'module', 'node', 'development|production'] } };
const simCoreGpu = 'test/gpu/**/*.test.ts';
const simCore = { root: 'packages/sim-core', ssr };
const simCoreTimeouts = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, where most test files wait on
    // the CLI processes they start and leave the other core idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      'packages/cli',
      'packages/dawn',
      'packages/log',
      'packages/profiler',
      { ...simCore, test: { name: 'sim-core', include: ['test/**/*.test.ts'], exclude: [simCoreGpu], ...simCoreTimeouts } },
      // sim-core's WebGPU tests share one process, so one device and its compiled pipelines (GpuSim keeps them
      // per device): each test file otherwise compiled every kernel again, 11-25 s for the collision kernel
      // alone on lavapipe.
      { ...simCore, test: { name: 'sim-core-gpu', include: [simCoreGpu], isolate: false, ...simCoreTimeouts } },
      { ssr, test: { name: 'e2e', include: ['test/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 300_000 } },
    ],
  },
});
