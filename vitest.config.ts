import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      {
        test: { name: 'e2e', include: ['test/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 300_000 },
        ssr: { resolve: { conditions: ['@gsprof/source', 'module', 'node', 'development|production'] } },
      },
    ],
  },
});
