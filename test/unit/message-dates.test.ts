import { describe, expect, it } from 'vitest';
import { formatDay, formatDayRange, formatDuration, slackTime } from '../../src/slack/messages/dates.js';

describe('dates and durations, written one way', () => {
  it.each([
    [0, '0 s'],
    [45_000, '45 s'],
    [60_000, '1 min'],
    [185_000, '3 min'],
    [3_900_000, '1 h 5 min'],
    [7_200_000, '2 h'],
    [-5, '0 s'],
    [Number.NaN, '0 s'],
  ])('%d ms is "%s"', (ms, words) => {
    expect(formatDuration(ms)).toBe(words);
  });

  it.each([
    ['2026-11-18', '2026-11-25', '18–24 Nov 2026'],
    ['2026-10-28', '2026-11-04', '28 Oct – 3 Nov 2026'],
    ['2025-12-29', '2026-01-05', '29 Dec 2025 – 4 Jan 2026'],
    ['2026-11-18', '2026-11-19', '18 Nov 2026'],
    ['2024-02-01', '2024-03-01', '1–29 Feb 2024'],
  ])('%s..%s (end exclusive) reads "%s", both days included', (from, to, words) => {
    expect(formatDayRange(from, to)).toBe(words);
  });

  it('shows what it cannot parse as it came, never a wrong date', () => {
    expect(formatDayRange('soon', '2026-11-19')).toBe('soon – 2026-11-19');
    expect(formatDay('2026-11-18')).toBe('18 Nov 2026');
  });

  it('writes instants as Slack date tokens with a UTC fallback', () => {
    expect(slackTime(Date.parse('2026-11-21T09:58:00Z'), '{date_short}')).toBe(
      '<!date^1795255080^{date_short}|2026-11-21 09:58 UTC>',
    );
  });
});
