import { describe, expect, it } from 'vitest';
import { failureOf } from '../../src/slack/delivery-sender.js';

describe("the outbox's view of a failed Slack attempt", () => {
  it('no answer at all (timeout, reset) may still be landing: its look-up waits for Slack to settle', () => {
    expect(failureOf({ type: 'ambiguous', code: 'request_failed' })).toEqual({
      kind: 'unknown',
      code: 'request_failed',
      inFlight: true,
    });
  });

  it('a 5xx was answered: looked up on the normal backoff; refusals and 429 keep their classes', () => {
    expect(failureOf({ type: 'ambiguous', code: 'http_503' })).toEqual({
      kind: 'unknown',
      code: 'http_503',
      inFlight: false,
    });
    expect(failureOf({ type: 'platform', code: 'channel_not_found' })).toEqual({
      kind: 'permanent',
      code: 'channel_not_found',
    });
    expect(failureOf({ type: 'rate_limited', code: 'ratelimited', retryAfterMs: 3_000 })).toEqual({
      kind: 'not_sent',
      code: 'ratelimited',
      retryAfterMs: 3_000,
    });
  });
});
