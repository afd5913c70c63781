import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../src/common/backoff.js';
import { failedPollDelay, nextPollDelay, watchedPollDelay } from '../../src/jobs/domain/poll-timing.js';

describe('backoffDelay', () => {
  it('grows exponentially with full jitter between half and all of the ceiling', () => {
    const opts = { baseMs: 100, maxMs: 10_000 };
    expect(backoffDelay(0, { ...opts, random: () => 0 })).toBe(50);
    expect(backoffDelay(0, { ...opts, random: () => 1 })).toBe(100);
    expect(backoffDelay(3, { ...opts, random: () => 1 })).toBe(800);
    expect(backoffDelay(20, { ...opts, random: () => 1 })).toBe(10_000);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('30')).toBe(30_000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter(['7'])).toBe(7000);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('nextPollDelay', () => {
  const timing = { minMs: 5000, maxMs: 60_000 };
  const mid = () => 0.5;

  it('polls at the fastest rate while a job is young', () => {
    expect(nextPollDelay(0, timing, mid)).toBe(5000);
    expect(nextPollDelay(19_000, timing, mid)).toBe(5000);
  });

  it('backs off to at most 11 s for jobs under ten minutes, so the PR link follows within 12 s', () => {
    expect(nextPollDelay(20_000, timing, mid)).toBe(10_000);
    expect(nextPollDelay(4 * 60_000, timing, mid)).toBe(11_000);
    expect(nextPollDelay(10 * 60_000 - 1, timing, mid)).toBe(11_000);
    for (const r of [0, 1]) expect(nextPollDelay(9 * 60_000, timing, () => r)).toBeLessThanOrEqual(12_100);
  });

  it('scales the young-job schedule with the configured fastest rate (a slower POLL_INTERVAL_MS polls slower)', () => {
    // 2.2 fastest intervals at most, while younger than 120 of them.
    expect(nextPollDelay(5 * 60_000, { minMs: 20_000, maxMs: 60_000 }, mid)).toBe(44_000);
    expect(nextPollDelay(5 * 60_000, { minMs: 1_000, maxMs: 12_000 }, mid)).toBe(12_000);
    expect(nextPollDelay(60_000, { minMs: 1_000, maxMs: 12_000 }, mid)).toBe(2_200);
  });

  it('keeps the interval at a tenth of the age for long jobs, up to the cap', () => {
    expect(nextPollDelay(10 * 60_000, timing, mid)).toBe(60_000);
    expect(nextPollDelay(10 * 60_000, { minMs: 5000, maxMs: 600_000 }, mid)).toBe(60_000);
    expect(nextPollDelay(30 * 60_000, { minMs: 5000, maxMs: 600_000 }, mid)).toBe(180_000);
    expect(nextPollDelay(60 * 60_000, timing, mid)).toBe(60_000);
  });

  it('jitters by at most ±10% and never leaves [min, max]', () => {
    for (const r of [0, 0.25, 0.75, 1]) {
      const d = nextPollDelay(4 * 60_000, timing, () => r);
      expect(d).toBeGreaterThanOrEqual(9_900);
      expect(d).toBeLessThanOrEqual(12_100);
      expect(nextPollDelay(0, timing, () => r)).toBeGreaterThanOrEqual(5000);
      expect(nextPollDelay(10 * 3600_000, timing, () => r)).toBeLessThanOrEqual(60_000);
    }
  });

  it('fails over to exponential backoff or the server’s Retry-After', () => {
    expect(failedPollDelay(1, timing)).toBe(10_000);
    expect(failedPollDelay(3, timing)).toBe(40_000);
    expect(failedPollDelay(10, timing)).toBe(60_000);
    expect(failedPollDelay(1, timing, 90_000)).toBe(90_000);
  });
});

describe('watchedPollDelay (the GitHub doorbell rings the job at a new PR)', () => {
  const timing = { minMs: 5000, maxMs: 60_000 };
  const mid = () => 0.5;

  it('grows to 3 × the age, bounded at 6 fastest intervals (30 s): an end without a PR is still seen', () => {
    expect(watchedPollDelay(0, timing, mid)).toBe(5000);
    expect(watchedPollDelay(5000, timing, mid)).toBe(15_000);
    expect(watchedPollDelay(20_000, timing, mid)).toBe(30_000);
    expect(watchedPollDelay(4 * 60_000, timing, mid)).toBe(30_000);
    for (const r of [0, 1]) expect(watchedPollDelay(90_000, timing, () => r)).toBeLessThanOrEqual(33_000);
  });

  it('is never shorter than the usual schedule (a long job keeps its own backoff)', () => {
    for (const age of [0, 1000, 20_000, 60_000, 9 * 60_000, 20 * 60_000, 5 * 3600_000])
      expect(watchedPollDelay(age, timing, mid)).toBeGreaterThanOrEqual(nextPollDelay(age, timing, mid));
    expect(watchedPollDelay(20 * 60_000, timing, mid)).toBe(nextPollDelay(20 * 60_000, timing, mid));
  });
});
