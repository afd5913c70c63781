import { DocsApiError, requestNeverSent } from '../../common/docs-api-error.js';
import { AppError, describeError } from '../../common/errors.js';
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

/** One person used their share of a project's hourly job budget (USER_BUDGET_SHARE); the rest is left. */
export class UserShareUsedUp extends AppError<'user_budget_share'> {
  constructor(
    readonly retryAfterMs: number,
    readonly share: number,
  ) {
    super('user_budget_share', "This person's share of the project's hourly job budget is used up");
  }
}

/** The budgets one job request counts against: the project's, and the requester's share of it. */
export interface JobBudgets {
  quotaFor(projectId: string): HourlyQuota;
  userQuotaFor?(projectId: string, userId: string): { quota: HourlyQuota; share: number };
}

/**
 * Takes one unit of the project's budget and one of the requester's share of it, or neither, so one person
 * can never spend the whole project's hour. Resolves what to refund if the request never left.
 */
export async function takeJobBudget(
  deps: JobBudgets,
  projectId: string,
  userId: string | undefined,
): Promise<{ ok: true; refund: Pick<HourlyQuota, 'refund'> } | { ok: false; error: Error }> {
  const project = deps.quotaFor(projectId);
  const user = userId ? deps.userQuotaFor?.(projectId, userId) : undefined;
  // The project's first: when it is used up that is what the person is told, whatever their share.
  const slot = await project.take();
  if (!slot.ok) return { ok: false, error: budgetUsedUp(slot.retryAfterMs) };
  if (user) {
    const mine = await user.quota.take();
    if (!mine.ok) {
      await project.refund();
      return { ok: false, error: new UserShareUsedUp(mine.retryAfterMs, user.share) };
    }
  }
  return {
    ok: true,
    refund: {
      async refund() {
        await project.refund();
        await user?.quota.refund();
      },
    },
  };
}
