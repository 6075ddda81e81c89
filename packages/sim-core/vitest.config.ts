import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'sim-core', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
  ssr: { resolve: { conditions: ['@gsprof/source', 'module', 'node', 'development|production'] } },
});
