/**
 * Changes written one way (issue 46 §3): "▲ 12%", "▼ 3.4%" (a whole percent from 10 up, one decimal below)
 * and "no change" below 0.05%. No ↑↓, no "up/down", no "±0%" or "(=)" anywhere else.
 */

/** The change from `before` to `now` in percent; undefined when there is nothing to compare with. */
export function percentChange(now: number, before: number | undefined): number | undefined {
  if (before === undefined || !Number.isFinite(before) || before <= 0 || !Number.isFinite(now))
    return undefined;
  return ((now - before) / before) * 100;
}

/** A change given in percent: "▲ 12%", "▼ 3.4%", "no change". */
export function formatPercentChange(percent: number): string {
  if (!Number.isFinite(percent)) return 'no comparison';
  const size = Math.abs(percent);
  if (size < 0.05) return 'no change';
  const arrow = percent > 0 ? '▲' : '▼';
  const tenths = Math.round(size * 10) / 10;
  return tenths >= 10 ? `${arrow} ${Math.round(size)}%` : `${arrow} ${tenths.toFixed(1)}%`;
}

/** A change given as a fraction (0.12 for 12%). */
export function formatFractionChange(fraction: number): string {
  return formatPercentChange(fraction * 100);
}

/**
 * From `before` to `now`: "▲ 12%", "▼ 3.4%", "no change"; "new" when there was nothing before and there is
 * now, and `absent` ("no comparison" unless told) when there is nothing to compare.
 */
export function formatChange(now: number, before: number | undefined, absent = 'no comparison'): string {
  const change = percentChange(now, before);
  if (change !== undefined) return formatPercentChange(change);
  return before === 0 && now > 0 ? 'new' : absent;
}
