/**
 * The statistics of docs-health alerts: Poisson tails (how unlikely a day's count is under a baseline rate),
 * medians and a "usual" range. Pure and exact enough for p-values down to 1e-12; no library does this small.
 */

const LOG_FACTORIALS: number[] = [0];
for (let n = 1; n < 256; n += 1) LOG_FACTORIALS.push(LOG_FACTORIALS[n - 1]! + Math.log(n));

/** ln(n!) for whole n ≥ 0: a table below 256, Stirling's series (error < 1e-12) above. */
export function logFactorial(n: number): number {
  if (n < 256) return LOG_FACTORIALS[n]!;
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n ** 3);
}

/** ln P(X = k) for X ~ Poisson(λ), λ > 0. */
function logPmf(k: number, lambda: number): number {
  return -lambda + k * Math.log(lambda) - logFactorial(k);
}

/** Adds the terms of a monotonically shrinking series until they no longer change the sum. */
function sumTerms(term: (i: number) => number | undefined): number {
  let sum = 0;
  for (let i = 0; i < 1_000_000; i += 1) {
    const value = term(i);
    if (value === undefined) break;
    sum += value;
    if (value <= sum * 1e-17) break;
  }
  return sum;
}

/** P(X ≥ k) for X ~ Poisson(λ): the chance of a day at least this busy under the baseline rate. */
export function poissonUpperTail(k: number, lambda: number): number {
  const at = Math.ceil(k);
  if (at <= 0) return 1;
  if (!(lambda > 0)) return 0;
  // Below the mean the tail is large: compute it as the complement of a short lower sum.
  if (at <= lambda) return Math.max(0, 1 - poissonLowerTail(at - 1, lambda));
  return Math.min(
    1,
    sumTerms((i) => Math.exp(logPmf(at + i, lambda))),
  );
}

/** P(X ≤ k) for X ~ Poisson(λ): the chance of a day at most this quiet under the baseline rate. */
export function poissonLowerTail(k: number, lambda: number): number {
  const at = Math.floor(k);
  if (at < 0) return 0;
  if (!(lambda > 0)) return 1;
  if (at >= lambda) return Math.max(0, 1 - poissonUpperTail(at + 1, lambda));
  return Math.min(
    1,
    sumTerms((i) => (at - i < 0 ? undefined : Math.exp(logPmf(at - i, lambda)))),
  );
}

/** The median of the values (mean of the middle two for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What a day usually holds: the 10th to the 90th percentile of the daily values ("usual 0–1 a day"). */
export function usualRange(values: readonly number[]): { low: number; high: number } {
  if (values.length === 0) return { low: 0, high: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))]!;
  return { low: at(0.1), high: at(0.9) };
}

/**
 * The baseline rate of a count from its daily history: the upper 99.9% bound of its mean rate, (S + 1 +
 * 3.09·√(S + 1)) / days for S events in those days. A month that happened to be quiet does not make an
 * ordinary day look rare (with the plain mean, 14× more noise alerted at `normal` in the seeded simulation;
 * with the 95% bound, 3.5×), and a term never seen in 28 days is rare, not impossible (its rate is ~0.15 a
 * day: 5 searches today have p ≈ 5·10⁻⁷).
 */
export function baselineRate(history: readonly number[]): number {
  const days = Math.max(1, history.length);
  const events = history.reduce((sum, v) => sum + (Number.isFinite(v) && v > 0 ? v : 0), 0);
  return (events + 1 + 3.09 * Math.sqrt(events + 1)) / days;
}
