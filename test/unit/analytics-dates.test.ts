import { describe, expect, it } from 'vitest';
import { nextOccurrence, previousOccurrence, weeklyCron } from '../../src/insights/ranges/cron-times.js';
import {
  addDays,
  formatRange,
  isValidDate,
  localDate,
  previousPeriod,
  resolveRange,
} from '../../src/insights/ranges/dates.js';

const at = (iso: string) => Date.parse(iso);

describe('report date math', () => {
  it('computes "today" in the time zone, not in UTC', () => {
    const instant = at('2025-03-10T23:30:00Z');
    expect(localDate(instant, 'UTC')).toBe('2025-03-10');
    expect(localDate(instant, 'Europe/Berlin')).toBe('2025-03-11');
    expect(localDate(instant, 'America/Los_Angeles')).toBe('2025-03-10');
    expect(localDate(at('2025-03-10T05:00:00Z'), 'America/Los_Angeles')).toBe('2025-03-09');
  });

  it('gives the same UTC day through its shortcut as through Intl, around midnight and leap days', () => {
    for (const iso of [
      '2024-02-28T23:59:59.999Z',
      '2024-02-29T00:00:00Z',
      '2025-12-31T23:59:59Z',
      '1999-01-01T00:00:00Z',
    ]) {
      expect(localDate(at(iso), 'UTC')).toBe(localDate(at(iso), 'Etc/UTC'));
    }
    expect(localDate(at('2024-02-29T00:00:00Z'), 'UTC')).toBe('2024-02-29');
  });

  it('gives the last N full days with an exclusive dateTo of today', () => {
    const now = at('2025-03-10T12:00:00Z');
    expect(resolveRange({ kind: 'days', days: 7 }, now, 'UTC')).toEqual({
      from: '2025-03-03',
      toExclusive: '2025-03-10',
    });
    expect(resolveRange({ kind: 'days', days: 30 }, now, 'UTC')).toEqual({
      from: '2025-02-08',
      toExclusive: '2025-03-10',
    });
    expect(resolveRange({ kind: 'yesterday' }, now, 'UTC')).toEqual({
      from: '2025-03-09',
      toExclusive: '2025-03-10',
    });
  });

  it('turns an inclusive end date into the exclusive dateTo, across month and year ends', () => {
    const now = at('2025-06-01T00:00:00Z');
    expect(resolveRange({ kind: 'explicit', from: '2025-03-01', to: '2025-03-31' }, now, 'UTC')).toEqual({
      from: '2025-03-01',
      toExclusive: '2025-04-01',
    });
    expect(
      resolveRange({ kind: 'explicit', from: '2024-12-25', to: '2024-12-31' }, now, 'UTC').toExclusive,
    ).toBe('2025-01-01');
    expect(resolveRange({ kind: 'explicit', from: '2024-02-29', to: '2024-02-29' }, now, 'UTC')).toEqual({
      from: '2024-02-29',
      toExclusive: '2024-03-01',
    });
    expect(formatRange({ from: '2025-03-01', toExclusive: '2025-04-01' })).toBe('2025-03-01 – 2025-03-31');
    expect(formatRange({ from: '2025-03-01', toExclusive: '2025-03-02' })).toBe('2025-03-01');
  });

  it('handles months of every length for this-month and last-month', () => {
    expect(resolveRange({ kind: 'last-month' }, at('2025-03-15T10:00:00Z'), 'UTC')).toEqual({
      from: '2025-02-01',
      toExclusive: '2025-03-01',
    });
    expect(resolveRange({ kind: 'last-month' }, at('2024-03-01T10:00:00Z'), 'UTC')).toEqual({
      from: '2024-02-01',
      toExclusive: '2024-03-01',
    });
    expect(resolveRange({ kind: 'last-month' }, at('2025-01-31T10:00:00Z'), 'UTC')).toEqual({
      from: '2024-12-01',
      toExclusive: '2025-01-01',
    });
    expect(resolveRange({ kind: 'this-month' }, at('2025-01-31T10:00:00Z'), 'UTC')).toEqual({
      from: '2025-01-01',
      toExclusive: '2025-02-01',
    });
    // Still February in New York while it is already March in UTC.
    expect(resolveRange({ kind: 'this-month' }, at('2025-03-01T03:00:00Z'), 'America/New_York')).toEqual({
      from: '2025-02-01',
      toExclusive: '2025-03-01',
      timeZone: 'America/New_York',
    });
  });

  it('gives last week as Monday to Sunday, also in a DST week', () => {
    // Thursday 2025-04-03 in Berlin; the previous week contains the switch to summer time (2025-03-30).
    expect(resolveRange({ kind: 'last-week' }, at('2025-04-03T10:00:00Z'), 'Europe/Berlin')).toEqual({
      from: '2025-03-24',
      toExclusive: '2025-03-31',
      timeZone: 'Europe/Berlin',
    });
    // On a Monday, last week is the one that just ended.
    expect(resolveRange({ kind: 'last-week' }, at('2025-03-31T06:00:00Z'), 'Europe/Berlin')).toEqual({
      from: '2025-03-24',
      toExclusive: '2025-03-31',
      timeZone: 'Europe/Berlin',
    });
    // On a Sunday it is still the week before.
    expect(resolveRange({ kind: 'last-week' }, at('2025-03-30T12:00:00Z'), 'Europe/Berlin')).toEqual({
      from: '2025-03-17',
      toExclusive: '2025-03-24',
      timeZone: 'Europe/Berlin',
    });
  });

  it('keeps 7 calendar days for a week spanning a DST change (23 or 25 hours do not shift days)', () => {
    expect(resolveRange({ kind: 'days', days: 7 }, at('2025-03-31T07:00:00Z'), 'Europe/Berlin')).toEqual({
      from: '2025-03-24',
      toExclusive: '2025-03-31',
      timeZone: 'Europe/Berlin',
    });
    expect(resolveRange({ kind: 'days', days: 7 }, at('2025-11-03T14:00:00Z'), 'America/New_York')).toEqual({
      from: '2025-10-27',
      toExclusive: '2025-11-03',
      timeZone: 'America/New_York',
    });
  });

  it('gives the previous period of the same length', () => {
    expect(previousPeriod({ from: '2025-03-03', toExclusive: '2025-03-10' })).toEqual({
      from: '2025-02-24',
      toExclusive: '2025-03-03',
    });
    expect(previousPeriod({ from: '2025-03-01', toExclusive: '2025-04-01' })).toEqual({
      from: '2025-01-29',
      toExclusive: '2025-03-01',
    });
  });

  it('validates calendar dates and adds days across leap years', () => {
    expect(isValidDate('2024-02-29')).toBe(true);
    expect(isValidDate('2025-02-29')).toBe(false);
    expect(isValidDate('2025-13-01')).toBe(false);
    expect(isValidDate('2025-1-01')).toBe(false);
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
  });
});

describe('weekly occurrences (croner)', () => {
  const mondayNine = weeklyCron(1, 9, 0);

  it('fires at 09:00 local time on both sides of a DST change', () => {
    expect(
      new Date(nextOccurrence(mondayNine, 'Europe/Berlin', at('2025-03-20T00:00:00Z'))!).toISOString(),
    ).toBe('2025-03-24T08:00:00.000Z');
    expect(
      new Date(nextOccurrence(mondayNine, 'Europe/Berlin', at('2025-03-24T08:00:00Z'))!).toISOString(),
    ).toBe('2025-03-31T07:00:00.000Z');
    expect(
      new Date(nextOccurrence(mondayNine, 'America/New_York', at('2025-11-01T00:00:00Z'))!).toISOString(),
    ).toBe('2025-11-03T14:00:00.000Z');
  });

  it('finds the last occurrence at or before a moment', () => {
    expect(previousOccurrence(mondayNine, 'UTC', at('2025-03-24T09:00:00Z'))).toBe(
      at('2025-03-24T09:00:00Z'),
    );
    expect(previousOccurrence(mondayNine, 'UTC', at('2025-03-24T08:59:59Z'))).toBe(
      at('2025-03-17T09:00:00Z'),
    );
  });
});
