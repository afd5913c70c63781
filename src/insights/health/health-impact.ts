import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { AnalyticsBudgetError, type AnalyticsSource } from '../analytics-source.js';
import type { RangePageViews } from '../ports.js';
import type { DateRange } from '../ranges/dates.js';
import { type Evidence, evidenceKey, normalisePath } from './evidence.js';
import { decodeEvidenceRef } from './evidence-ref.js';
import { fetchHealthWindow, type HealthPart } from './fetch-health.js';
import { compareImpact, type ImpactModel, impactWindows } from './impact.js';
import type { HealthApi, ImpactCheck, ImpactPublisher, ImpactQueue } from './ports.js';

export interface HealthImpactOptions {
  queue: ImpactQueue;
  publisher: ImpactPublisher;
  /** The analytics endpoints of one project (one admin key serves every project). */
  apiFor(projectId: string): HealthApi;
  /** Every page's views over a range (the page-views reports' cached fetch): a page's views before/after. */
  pageViews: { views(range: DateRange, extra: number, projectId: string): Promise<RangePageViews> };
  /** The shared budget, cache and in-flight sharing of every analytics endpoint. */
  source: AnalyticsSource;
  clock: Clock;
  logger: Logger;
  /** The project of checks enqueued before several projects existed (DOCS_PROJECT_ID). */
  defaultProjectId: string;
  maxPages: number;
  /** HEALTH_IMPACT_DAYS: the length of each window, and how long after the PR the check is due. */
  days: number;
}

/** First retry of a check whose docs API call or Slack post failed; doubles per attempt up to the cap. */
const RETRY_FIRST_MS = 60_000;
const RETRY_MAX_MS = 6 * 60 * 60 * 1000;
/** Past this many failed attempts each failure is logged as an error (someone should look). */
const LOUD_AFTER_ATTEMPTS = 5;

/** The one endpoint (or two) each kind of evidence is measured with. */
const PARTS: Record<Evidence['kind'], HealthPart[]> = {
  search: ['searches'],
  page: ['pages'],
  question: ['conversations'],
};

/**
 * "Did it work?": a job started from a /docs-health gap that ends with a pull request is remembered, and
 * `days` after the PR the same evidence is measured again, after vs before, and posted in the job's thread.
 * Over budget or on a docs API/Slack failure the check is retried later, never dropped silently.
 */
export class HealthImpact {
  constructor(private readonly o: HealthImpactOptions) {}

  /** Starts running due checks (in Redis mode also those enqueued before a restart or by other replicas). */
  start(): void {
    this.o.queue.start((check, attempt) => this.run(check, attempt));
  }

  stop(): Promise<void> {
    return this.o.queue.close();
  }

  /**
   * Remembers a pull request of a job started from a gap: one check per job, due once the window after the
   * PR is over. A reference we cannot read (not written by this bot) is logged and ignored.
   */
  async remember(input: Omit<ImpactCheck, 'prSeenAt'> & { prSeenAt?: number }): Promise<void> {
    if (!decodeEvidenceRef(input.evidenceRef)) {
      this.o.logger.warn({ jobId: input.jobId }, 'job evidence is unreadable; no impact check');
      return;
    }
    const check: ImpactCheck = { ...input, prSeenAt: input.prSeenAt ?? this.o.clock.now() };
    const { dueAt } = impactWindows(check.prSeenAt, this.o.days, check.openedAt);
    await this.o.queue.enqueue(check, dueAt);
    this.o.logger.info(
      { jobId: check.jobId, dueAt: new Date(dueAt).toISOString() },
      `pull request from a health gap: impact check scheduled (counted from the ${check.countedFrom === 'merge' ? 'merge' : "PR's day"})`,
    );
  }

  /** Measures and posts one due check; resolves null when done, else the delay before trying again. */
  async run(check: ImpactCheck, attempt: number): Promise<number | null> {
    const { logger } = this.o;
    const evidence = decodeEvidenceRef(check.evidenceRef);
    if (!evidence) {
      logger.error({ jobId: check.jobId }, 'impact check has unreadable evidence; dropped');
      return null;
    }
    try {
      const model = await this.measure(evidence, check, check.projectId ?? this.o.defaultProjectId);
      const delivery = await this.o.publisher.postImpact(check, model);
      if (delivery === 'undeliverable')
        logger.error({ jobId: check.jobId }, 'impact post refused by Slack for good; dropped');
      else logger.info({ jobId: check.jobId, delivery }, 'impact check done');
      return null;
    } catch (error) {
      if (error instanceof AnalyticsBudgetError) {
        logger.info(
          { jobId: check.jobId, retryAfterMs: error.retryAfterMs },
          'impact check waits for budget',
        );
        return Math.max(1_000, error.retryAfterMs);
      }
      const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt, 16));
      const level = attempt + 1 >= LOUD_AFTER_ATTEMPTS ? 'error' : 'warn';
      logger[level](
        { jobId: check.jobId, attempt: attempt + 1, retryInMs: delay, error: describeError(error) },
        'impact check failed; retrying later',
      );
      return delay;
    }
  }

  /** The evidence over the days after the PR and as many days before it. */
  async measure(
    evidence: Evidence,
    live: Pick<ImpactCheck, 'prSeenAt' | 'openedAt'>,
    projectId: string,
  ): Promise<ImpactModel> {
    const { before, after } = impactWindows(live.prSeenAt, this.o.days, live.openedAt);
    const window = (w: { from: string; toExclusive: string }) =>
      fetchHealthWindow(
        this.o.apiFor(projectId),
        { dateFrom: w.from, dateTo: w.toExclusive },
        {
          source: this.o.source,
          projectId,
          maxPages: this.o.maxPages,
          parts: PARTS[evidence.kind],
        },
      );
    const beforeWindow = await window(before);
    const afterWindow = await window(after);
    if (evidence.kind !== 'page') return compareImpact(evidence, beforeWindow, afterWindow);
    const key = evidenceKey(evidence);
    const viewsOf = async (range: DateRange) =>
      (await this.o.pageViews.views(range, 0, projectId)).pages
        .filter((row) => normalisePath(row.path) === key)
        .reduce((sum, row) => sum + row.total, 0);
    const pageViews = { before: await viewsOf(before), after: await viewsOf(after) };
    return compareImpact(evidence, beforeWindow, afterWindow, pageViews);
  }
}
