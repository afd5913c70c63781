import { configDefaults, defineConfig } from 'vitest/config';
import { ISOLATED_INTEGRATION_FILES } from './test/support/isolated-test-files.js';

const INTEGRATION = ['test/integration/**/*.test.ts', 'test/drills/**/*.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Per test file: real timers, every test asserting something, seeded properties (see the file).
    setupFiles: ['test/support/expect-assertions.ts'],
    // expect.poll waits for an event: its 1 s default ran out under CI load (a Redis restart, then a look-up).
    expect: { poll: { timeout: 10_000 } },
    // Integration suites mostly wait on loopback servers, timers and child processes: four files at once on a
    // 2-core CI halves the run (353 s with 2 workers, 183 s with 4, 2026-11-26) without starving them.
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        // `npm run test:fast`: no process, no Redis, no real sleep. Unit files share one module graph per
        // worker (no isolation): importing src/ once instead of once per file cut its CPU time from 94 s to
        // 22 s (2026-12-07). Each file still cleans up after itself (timers, env) in its own hooks.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      // `npm run test:slow`: simulations and long property runs.
      { extends: true, test: { name: 'slow', include: ['test/slow/**/*.test.ts'] } },
      // Integration files share their worker's module graph too (each builds its own apps, fakes and Redis,
      // and stops them): src/ and its libraries were imported once per file, 536 of the suite's ~2,500 worker-
      // seconds in CI (2026-12-07). Files that mock a module or spy on a global keep a graph of their own.
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...configDefaults.exclude, ...ISOLATED_INTEGRATION_FILES],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'integration-isolated', include: [...ISOLATED_INTEGRATION_FILES] } },
    ],
  },
});
