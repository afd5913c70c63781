import { webApi } from '@slack/bolt';
import { AppError } from '../common/errors.js';

export class SlackDeliveryError extends AppError<string> {}

/** One attempt's failure with its class (see `SlackCalls.attemptOnce`). */
export class SlackAttemptError extends AppError<string> {
  constructor(
    readonly kind: Classified,
    cause: unknown,
  ) {
    super(kind.code, `Slack call failed: ${kind.code}`, { cause });
  }
}

/** What a failed Web API call means for a retry. */
export type Classified =
  | { type: 'platform'; code: string }
  | { type: 'rate_limited'; code: 'ratelimited'; retryAfterMs: number }
  | { type: 'ambiguous'; code: string };

export function classify(error: unknown): Classified {
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  switch (e?.code) {
    // Our own pacer refused the call (shutdown): nothing reached Slack and nothing will; not a Slack fault.
    case 'shutting_down':
      return { type: 'platform', code: 'shutting_down' };
    // Our pacer's queue for this method or channel is full: retrying at once would only join the flood.
    case 'pacer_queue_full':
      return { type: 'platform', code: 'slack_queue_full' };
    case webApi.ErrorCode.PlatformError:
      // Some methods answer a rate limit in the body (`{ok: false, error: 'rate_limited'}`, HTTP 200): Slack
      // did nothing, and waiting helps (issue 35, D9), exactly as after a 429.
      if (e.data?.error === 'rate_limited' || e.data?.error === 'ratelimited')
        return { type: 'rate_limited', code: 'ratelimited', retryAfterMs: slackRetryAfterMs(e.retryAfter) };
      return { type: 'platform', code: e.data?.error ?? 'unknown_error' };
    case webApi.ErrorCode.RateLimitedError:
      return {
        type: 'rate_limited',
        code: 'ratelimited',
        retryAfterMs: slackRetryAfterMs(e.retryAfter),
      };
    case webApi.ErrorCode.HTTPError:
      return { type: 'ambiguous', code: `http_${e.statusCode ?? 'error'}` };
    default:
      return { type: 'ambiguous', code: 'request_failed' };
  }
}

export function isBlocksProblem(code: string): boolean {
  return (
    code === 'invalid_blocks' ||
    // Undocumented: more than ~12,000 characters of text across the blocks (bolt-js #2509).
    code === 'msg_blocks_too_long' ||
    code === 'msg_too_long' ||
    code === 'invalid_blocks_format' ||
    code === 'too_many_blocks'
  );
}

export function toDeliveryError(error: unknown, kind: Classified): SlackDeliveryError {
  return new SlackDeliveryError(kind.code, `Slack call failed: ${kind.code}`, { cause: error });
}

/** Slack errors that another attempt cannot fix (the bot was removed, the channel archived or deleted…). */
export function isPermanentSlackError(code: string): boolean {
  return (
    code !== 'ratelimited' &&
    code !== 'rate_limited' &&
    code !== 'request_failed' &&
    !code.startsWith('http_') &&
    code !== 'internal_error' &&
    code !== 'fatal_error' &&
    code !== 'service_unavailable' &&
    code !== 'shutting_down' &&
    code !== 'slack_queue_full'
  );
}

/** Slack's Retry-After (seconds) as a safe wait: at least 1 s, at most an hour, 1 s when unreadable. */
export const MAX_SLACK_RETRY_AFTER_MS = 60 * 60 * 1000;
function slackRetryAfterMs(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(Number(seconds))) return 1000;
  return Math.min(MAX_SLACK_RETRY_AFTER_MS, Math.max(1, Number(seconds)) * 1000);
}
