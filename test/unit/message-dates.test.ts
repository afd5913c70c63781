import { describe, expect, it } from 'vitest';
import { formatChange, formatFractionChange, formatPercentChange } from '../../src/slack/copy/changes.js';
import { compactCount, formatCount, formatShare } from '../../src/slack/copy/counts.js';
import { formatDay, formatDayRange, formatDuration, slackTime } from '../../src/slack/copy/dates.js';
import { JOB_STATE_EMOJI, SIGNAL_EMOJI } from '../../src/slack/copy/status-emoji.js';
import { SIGNAL_REACTIONS } from '../../src/slack/job-signals.js';

const IN_2026 = Date.parse('2026-12-01T12:00:00Z');

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
    ['2026-11-18', '2026-11-25', '18–24 Nov'],
    ['2026-10-28', '2026-11-04', '28 Oct – 3 Nov'],
    ['2025-12-29', '2026-01-05', '29 Dec 2025 – 4 Jan 2026'],
    ['2026-11-18', '2026-11-19', '18 Nov'],
    ['2025-11-18', '2025-11-25', '18–24 Nov 2025'],
    ['2024-02-01', '2024-03-01', '1–29 Feb 2024'],
  ])(
    '%s..%s (end exclusive) reads "%s", both days included, the year only when not this year',
    (from, to, words) => {
      expect(formatDayRange(from, to, IN_2026)).toBe(words);
    },
  );

  it('shows what it cannot parse as it came, never a wrong date', () => {
    expect(formatDayRange('soon', '2026-11-19', IN_2026)).toBe('soon – 2026-11-19');
    expect(formatDay('2026-11-18', IN_2026)).toBe('18 Nov');
    expect(formatDay('2025-11-18', IN_2026)).toBe('18 Nov 2025');
  });

  it('writes every instant as one Slack date token with a UTC fallback', () => {
    expect(slackTime(Date.parse('2026-11-21T09:58:00Z'))).toBe(
      '<!date^1795255080^{date_short} at {time}|21 Nov 2026 09:58 UTC>',
    );
    expect(slackTime(Number.NaN)).toBe('an unknown time');
  });
});

describe('changes, counts and shares, written one way', () => {
  it.each([
    [12.4, '▲ 12%'],
    [-3.44, '▼ 3.4%'],
    [9.96, '▲ 10%'],
    [0.04, 'no change'],
    [-0.04, 'no change'],
    [0.05, '▲ 0.1%'],
    [-250, '▼ 250%'],
    [Number.NaN, 'no comparison'],
  ])('a change of %d%% reads "%s"', (percent, words) => {
    expect(formatPercentChange(percent)).toBe(words);
  });

  it('compares two counts, and says "new" when there was nothing before', () => {
    expect(formatChange(112, 100)).toBe('▲ 12%');
    expect(formatChange(5, 0)).toBe('new');
    expect(formatChange(5, undefined)).toBe('no comparison');
    expect(formatFractionChange(-0.5)).toBe('▼ 50%');
  });

  it.each([
    [1234, '1,234', '1,234'],
    [12_345, '12,345', '12.3k'],
    [456_789, '456,789', '457k'],
    [1_234_567, '1,234,567', '1.2M'],
    [-3, '0', '0'],
    [2.6, '3', '3'],
  ])('%d is "%s", or "%s" where room is short', (value, full, compact) => {
    expect(formatCount(value)).toBe(full);
    expect(compactCount(value)).toBe(compact);
  });

  it.each([
    [0.46, '46%'],
    [0.046, '4.6%'],
    [0, '0%'],
    [1.5, '100%'],
  ])('a share of %d reads "%s"', (ratio, words) => {
    expect(formatShare(ratio)).toBe(words);
  });
});

describe('one table of job-state emoji', () => {
  it('gives the reaction the emoji of its state in the same table', () => {
    expect(SIGNAL_REACTIONS).toBe(SIGNAL_EMOJI);
    expect(SIGNAL_EMOJI).toEqual({
      running: JOB_STATE_EMOJI.working,
      pull_request: JOB_STATE_EMOJI.pull_request,
      problem: JOB_STATE_EMOJI.failed,
    });
    // The reactions already on messages keep being removed by these names.
    expect(Object.values(SIGNAL_EMOJI)).toEqual(['eyes', 'white_check_mark', 'warning']);
  });
});
