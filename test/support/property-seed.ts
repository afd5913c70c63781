/**
 * A property's fast-check parameters with a seed that is printed and can be replayed: `FC_SEED=<n>` runs it
 * again with the same inputs (fast-check also names the seed and path of a failure).
 */
export function replayable(name: string, numRuns: number): { numRuns: number; seed: number } {
  const fromEnv = Number.parseInt(process.env.FC_SEED ?? '', 10);
  const seed = Number.isFinite(fromEnv) ? fromEnv : (Math.random() * 2 ** 31) | 0;
  console.info(`property "${name}": seed ${seed} (replay with FC_SEED=${seed})`);
  return { numRuns, seed };
}
