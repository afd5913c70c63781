import { describe, expect, it } from 'vitest';
import { DocsApiError } from '../../../src/common/docs-api-error.js';
import { createLogger } from '../../../src/common/logger.js';
import { budgetUsedUp, refundIfNeverSent } from '../../../src/jobs/use-cases/job-budget.js';

const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });

function quota(refund: () => Promise<void> = async () => undefined) {
  const calls = { refunds: 0 };
  return {
    calls,
    take: async () => ({ ok: true as const }),
    refund: async () => {
      calls.refunds += 1;
      await refund();
    },
  };
}

describe('job budget', () => {
  it('a used-up budget is a rate_limited error with its wait', () => {
    const error = budgetUsedUp(42_000);
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(42_000);
  });

  it('refunds a request that never left, and only that one', async () => {
    const q = quota();
    const refused = new DocsApiError('unavailable', 'down', { cause: { code: 'ECONNREFUSED' } });
    expect(await refundIfNeverSent({ quota: q, logger }, refused)).toBe(true);
    const answered = new DocsApiError('unavailable', '502', { status: 502 });
    expect(await refundIfNeverSent({ quota: q, logger }, answered)).toBe(false);
    expect(await refundIfNeverSent({ quota: q, logger }, new Error('other'))).toBe(false);
    expect(q.calls.refunds).toBe(1);
  });

  it('a failing refund is logged, not thrown', async () => {
    const q = quota(async () => {
      throw new Error('redis down');
    });
    const refused = new DocsApiError('unavailable', 'down', { cause: { code: 'ECONNREFUSED' } });
    await expect(refundIfNeverSent({ quota: q, logger }, refused)).resolves.toBe(true);
    expect(q.calls.refunds).toBe(1);
  });
});
