import { Gauge, type Registry } from 'prom-client';
import type { MonthFeedback } from '../jobs/job-feedback.js';

export interface MetricsSources {
  /** Jobs currently watched, by their last known status. Read from the state store on each scrape. */
  watchedJobs?: () => Promise<Array<{ status: string }>>;
  /** Units left in each hourly budget (`agent_jobs`, `analytics`), read on each scrape. */
  quotas?: Record<string, () => Promise<number>>;
  /** This month's rated pull requests, from the shared state store on each scrape. */
  feedbackThisMonth?: () => Promise<MonthFeedback>;
}

const PREFIX = 'docs_agent_';

/**
 * A recorder's scrape-time gauges, each reading `sources()` when collected. A single-workspace recorder
 * builds them once into its registry; a tenant's recorder builds them, unregistered, only when the process's
 * exposition reads that tenant's gauges, so a resident tenant holds no Gauge (issue 43 §2).
 */
export function scrapeGauges(registers: Registry[], sources: () => MetricsSources): Array<Gauge<string>> {
  const rated = new Gauge({
    name: `${PREFIX}pull_requests_rated_this_month`,
    help: 'Pull requests rated this calendar month (UTC) by rating: useful when 👍 outnumber 👎 (shared state)',
    labelNames: ['rating'],
    registers,
    async collect() {
      this.reset();
      const month = await sources()
        .feedbackThisMonth?.()
        .catch(() => undefined);
      if (!month) return;
      this.set({ rating: 'useful' }, month.useful);
      this.set({ rating: 'not_useful' }, month.rated - month.useful);
    },
  });
  const watched = new Gauge({
    name: `${PREFIX}watched_jobs`,
    help: 'Agent jobs currently watched, by last known status (from the shared state store)',
    labelNames: ['status'],
    registers,
    async collect() {
      this.reset();
      const read = sources().watchedJobs;
      if (!read) return;
      const counts = new Map<string, number>();
      for (const job of await read().catch(() => [])) {
        counts.set(job.status, (counts.get(job.status) ?? 0) + 1);
      }
      for (const [status, count] of counts) this.set({ status }, count);
    },
  });
  const quotas = new Gauge({
    name: `${PREFIX}quota_remaining`,
    help: 'Units left in a rolling-hour budget (agent_jobs: per project; analytics: per organisation)',
    labelNames: ['budget'],
    registers,
    async collect() {
      this.reset();
      for (const [budget, read] of Object.entries(sources().quotas ?? {})) {
        // An unreachable store leaves the series out rather than failing the whole scrape.
        const value = await read().catch(() => undefined);
        if (value !== undefined) this.set({ budget }, value);
      }
    },
  });
  return [rated, watched, quotas];
}
