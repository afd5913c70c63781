import fc from 'fast-check';

/** The seed of this run's properties: `FC_SEED` when given (a replay), else a fresh one. */
export function propertySeed(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number.parseInt(env.FC_SEED ?? '', 10);
  return Number.isFinite(fromEnv) ? fromEnv : (Math.random() * 2 ** 31) | 0;
}

/**
 * Run by the test setup (test/support/expect-assertions.ts) for every test file: each fast-check property of
 * the file runs on one seed, `FC_SEED` when given. fast-check names it in a failure ("{ seed: …, path: … }"),
 * so `FC_SEED=<seed> npx vitest run <file>` replays the same inputs. A property's own `seed` still wins.
 */
export function seedEveryProperty(env: NodeJS.ProcessEnv = process.env): number {
  const seed = propertySeed(env);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
  return seed;
}

/**
 * A property's fast-check parameters with a seed that is printed and can be replayed: `FC_SEED=<n>` runs it
 * again with the same inputs (fast-check also names the seed and path of a failure).
 */
export function replayable(name: string, numRuns: number): { numRuns: number; seed: number } {
  const seed = propertySeed();
  console.info(`property "${name}": seed ${seed} (replay with FC_SEED=${seed})`);
  return { numRuns, seed };
}
