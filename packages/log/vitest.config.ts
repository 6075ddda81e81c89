import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'log', include: ['test/**/*.test.ts'] },
});
