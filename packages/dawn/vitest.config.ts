import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'dawn', include: ['test/**/*.test.ts'] },
});
