import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { boundedDelay, MAX_TIMER_MS } from '../../src/common/backoff.js';
import { classify } from '../../src/slack/slack-errors.js';

describe('delays from outside data', () => {
  it('are made safe for a timer: NaN and negatives are 0, past the limit is the limit', () => {
    expect(boundedDelay(Number.NaN)).toBe(0);
    expect(boundedDelay(-5)).toBe(0);
    expect(boundedDelay(1500)).toBe(1500);
    expect(boundedDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
    expect(boundedDelay(10_000, 5_000)).toBe(5_000);
  });

  it("bound Slack's Retry-After to an hour (and read an unreadable one as 1 s)", () => {
    const limited = (retryAfter: unknown) =>
      classify({ code: webApi.ErrorCode.RateLimitedError, retryAfter }) as { retryAfterMs: number };
    expect(limited(30).retryAfterMs).toBe(30_000);
    expect(limited(10 ** 12).retryAfterMs).toBe(60 * 60 * 1000);
    expect(limited(Number.NaN).retryAfterMs).toBe(1000);
    expect(limited(undefined).retryAfterMs).toBe(1000);
  });
});
