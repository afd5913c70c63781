import type { Logger } from '../common/logger.js';
import type { ImpactModel } from '../insights/health/impact.js';
import type { ImpactCheck, ImpactPublisher } from '../insights/health/ports.js';
import { healthImpactMessage } from './messages/health-impact.js';
import { isPermanentSlackError } from './slack-errors.js';
import { SlackDeliveryError, type SlackGateway } from './slack-gateway.js';

/**
 * The claim on an impact post stands long after it (it is released only when the post fails), so a retry,
 * a replica that took over a stalled check or a second enqueue never posts it twice.
 */
const IMPACT_CLAIM_MS = 180 * 24 * 60 * 60 * 1000;

/** Set-if-absent claims shared by every replica (the job store's). */
export interface OnceClaims {
  claim(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/** Posts "Did it work?" in the thread of the job a /docs-health gap started. */
export class SlackImpactPublisher implements ImpactPublisher {
  constructor(
    private readonly gateway: SlackGateway,
    private readonly claims: OnceClaims,
    private readonly logger: Logger,
  ) {}

  async postImpact(
    check: ImpactCheck,
    model: ImpactModel,
  ): Promise<'posted' | 'already_posted' | 'undeliverable'> {
    const key = `impact:${check.jobId}`;
    if (!(await this.claims.claim(key, IMPACT_CLAIM_MS))) return 'already_posted';
    try {
      await this.gateway.post({
        channel: check.channelId,
        threadTs: check.threadTs,
        message: healthImpactMessage(model, { prLink: check.prLink, countedFrom: check.countedFrom ?? 'pr' }),
        dedupeKey: key,
        priority: 'reply',
      });
      return 'posted';
    } catch (error) {
      await this.claims.release(key).catch(() => undefined);
      if (error instanceof SlackDeliveryError && isPermanentSlackError(error.code)) {
        this.logger.error({ jobId: check.jobId, code: error.code }, 'Slack refused the impact post');
        return 'undeliverable';
      }
      throw error;
    }
  }
}
