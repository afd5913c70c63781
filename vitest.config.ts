import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration suites start servers on random loopback ports; a few files at once keeps a 2-core CI fast.
    maxWorkers: 2,
  },
});
