/**
 * Counts and shares written one way (issue 46 §3): "1,234" in sentences and tables, "12.3k" where room is
 * short (chart labels, previews), "46%" / "4.6%" for a share (a whole percent from 10 up, one decimal below).
 * The analytics spec types counts as any number, so a negative, fractional or non-finite one is shown as a
 * whole number ≥ 0.
 */

/** A count as shown: a whole number ≥ 0 whatever the platform sent. */
export function displayCount(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** A ratio as shown: 0..1 whatever the platform sent. */
export function displayRatio(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

/** "1,502,500": en-US grouping, without Intl for safe integers (a report formats dozens of numbers). */
export function formatCount(value: number): string {
  const rounded = displayCount(value);
  return Number.isSafeInteger(rounded)
    ? String(rounded).replace(/\B(?=(\d{3})+$)/g, ',')
    : rounded.toLocaleString('en-US');
}

/** "980", "9,870", "12.3k", "456k", "1.2M": short, for where room is scarce. */
export function compactCount(value: number): string {
  const n = displayCount(value);
  if (n < 10_000) return formatCount(n);
  const [size, unit] = n < 999_500 ? [n / 1000, 'k'] : [n / 1_000_000, 'M'];
  return size < 100
    ? `${(Math.round(size * 10) / 10).toFixed(1).replace(/\.0$/, '')}${unit}`
    : `${Math.round(size)}${unit}`;
}

/** A share of a whole (0..1) in percent: "46%", "4.6%", "0%". */
export function formatShare(ratio: number): string {
  const percent = displayRatio(ratio) * 100;
  if (percent === 0) return '0%';
  const tenths = Math.round(percent * 10) / 10;
  return tenths >= 10 ? `${Math.round(percent)}%` : `${tenths.toFixed(1)}%`;
}
