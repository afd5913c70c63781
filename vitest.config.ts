import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration suites mostly wait on loopback servers, timers and child processes: four files at once on a
    // 2-core CI halves the run (353 s with 2 workers, 183 s with 4, 2026-11-26) without starving them.
    maxWorkers: 4,
  },
});
