import { DocsApiError, requestNeverSent } from '../../common/docs-api-error.js';
import { describeError } from '../../common/errors.js';
import type { HourlyQuota } from '../../common/hourly-quota.js';
import type { Logger } from '../../common/logger.js';

/** The bot's own count of the platform's hourly job budget refused a request. */
export function budgetUsedUp(retryAfterMs: number): DocsApiError {
  return new DocsApiError('rate_limited', 'The hourly job budget counted by the bot is used up', {
    retryAfterMs,
  });
}

/**
 * A request that surely never left cannot count against the platform's budget: give its unit back.
 * Resolves whether the request never left.
 */
export async function refundIfNeverSent(
  deps: { quota: Pick<HourlyQuota, 'refund'>; logger: Logger },
  error: unknown,
): Promise<boolean> {
  if (!requestNeverSent(error)) return false;
  await deps.quota.refund().catch((e: unknown) => {
    deps.logger.warn({ error: describeError(e) }, 'could not refund the job budget');
  });
  return true;
}
