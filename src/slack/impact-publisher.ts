import type { Outbox } from '../delivery/ports.js';
import type { ImpactModel } from '../insights/health/impact.js';
import type { ImpactCheck, ImpactPublisher } from '../insights/health/ports.js';
import { healthImpactMessage } from './messages/health-impact.js';

/**
 * The record of an impact post stands long after it: a retried check, a replica that took over a stalled
 * one or a second enqueue finds it and posts nothing more.
 */
const IMPACT_KEEP_MS = 180 * 24 * 60 * 60 * 1000;

/** Owes "Did it work?" in the thread of the job a /docs-health gap started: one delivery per job. */
export class SlackImpactPublisher implements ImpactPublisher {
  constructor(private readonly outbox: Outbox) {}

  /** Resolves once the post is recorded (the outbox delivers it); rejects when the store failed. */
  async postImpact(check: ImpactCheck, model: ImpactModel): Promise<'posted'> {
    await this.outbox.owe({
      key: `impact:${check.jobId}`,
      target: { kind: 'post', channel: check.channelId, threadTs: check.threadTs },
      payload: healthImpactMessage(model, { prLink: check.prLink, countedFrom: check.countedFrom ?? 'pr' }),
      priority: 'reply',
      keepMs: IMPACT_KEEP_MS,
    });
    return 'posted';
  }
}
