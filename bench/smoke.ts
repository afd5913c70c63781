/**
 * `npm run bench:smoke` (`BENCH_SMOKE=1` or `--smoke`): every section once at tiny sizes, so CI proves in
 * under a minute that the whole benchmark still runs (a moved module, a changed fake, a renamed config
 * variable) without measuring anything. Figures at these sizes mean nothing, so none are printed.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1' || process.argv.includes('--smoke');

/** The full run's size, or the smoke run's. */
export function sized<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}
