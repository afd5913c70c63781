import { Counter, collectDefaultMetrics, type Gauge, Registry } from 'prom-client';
import type { DeliveryPriority } from '../delivery/domain.js';
import type { DeliveryMetrics } from '../delivery/ports.js';
import type { FeedbackChange, FeedbackMetrics, FeedbackVote } from '../jobs/job-feedback.js';
import type { JobMetrics, JobStartOutcome, PollOutcome } from '../jobs/job-service.js';
import type { ApiMetrics } from '../platform/http-transport.js';
import type { SlackApiMetrics } from '../slack/slack-gateway.js';
import { type MetricsSources, scrapeGauges } from './scrape-gauges.js';
import { type CounterRead, TenantCount } from './tenant-count.js';

/**
 * The one module that knows prom-client. Services and adapters declare the narrow recorder interfaces they
 * accept (ApiMetrics, SlackApiMetrics, JobMetrics); `Metrics` implements them all. Each single-workspace app
 * has its own registry, so several apps in one process (tests) never collide; a tenant's recorder (OAuth mode)
 * has none: the process's one exposition (TenantMetrics) reads its metrics directly (issue 43).
 */

export type { MetricsSources } from './scrape-gauges.js';

const PREFIX = 'docs_agent_';

/** The counters every recorder has: name, help and labels. */
const COUNTERS = {
  apiCalls: {
    name: `${PREFIX}docs_api_requests_total`,
    help: 'Upstream docs-API requests (each attempt), by HTTP method and outcome code (ok or the error code)',
    labelNames: ['method', 'code'],
  },
  slackErrors: {
    name: `${PREFIX}slack_api_errors_total`,
    help: 'Failed Slack Web API calls (each attempt), by API method and Slack error code',
    labelNames: ['method', 'code'],
  },
  deliveries: {
    name: `${PREFIX}deliveries_total`,
    help: 'Attempts of messages the bot owes (outbox), by outcome (posted, found after an unknown outcome, retry, abandoned) and priority',
    labelNames: ['outcome', 'priority'],
  },
  jobStarts: {
    name: `${PREFIX}job_starts_total`,
    help: 'Requests to start an agent job, by outcome',
    labelNames: ['outcome'],
  },
  followUps: {
    name: `${PREFIX}follow_ups_total`,
    help: 'Follow-up messages to agent jobs, by outcome',
    labelNames: ['outcome'],
  },
  polls: {
    name: `${PREFIX}polls_total`,
    help: 'Polls of watched agent jobs, by outcome',
    labelNames: ['outcome'],
  },
  finished: {
    name: `${PREFIX}jobs_finished_total`,
    help: 'Agent jobs (generations) seen reaching a terminal status, by status',
    labelNames: ['status'],
  },
  feedback: {
    name: `${PREFIX}job_feedback_total`,
    help: "Clicks on a job result's feedback buttons, by vote (useful, not_useful) and change (new, changed, same)",
    labelNames: ['vote', 'change'],
  },
} as const;
type CounterName = keyof typeof COUNTERS;

export class Metrics implements ApiMetrics, SlackApiMetrics, JobMetrics, DeliveryMetrics, FeedbackMetrics {
  /** Its own registry (single-workspace mode); absent for a tenant's recorder, read through `list()`. */
  readonly registry: Registry | undefined;
  /**
   * Its counters: all of them with a registry (its exposition lists each); a tenant's recorder builds each
   * on its first count, as a TenantCount (its counts alone, no prom-client object), read by the process's
   * exposition (issue 43 §2: a tenant that never polls or posts pays nothing for it; the exposition names
   * every metric through its template either way).
   */
  private readonly counters: Partial<Record<CounterName, Counter<string> | TenantCount>> = {};
  /** Its scrape-time gauges when it has a registry; a tenant's recorder has none kept (built per read). */
  private readonly gauges: Array<Gauge<string>> | undefined;
  private sources: MetricsSources = {};

  constructor(options: { defaultMetrics?: boolean; registry?: boolean } = {}) {
    this.registry = (options.registry ?? true) ? new Registry() : undefined;
    if (this.registry && (options.defaultMetrics ?? true)) collectDefaultMetrics({ register: this.registry });
    if (this.registry) for (const name of Object.keys(COUNTERS) as CounterName[]) this.counter(name);
    // A tenant's recorder builds its gauges only when read (see `list`): a resident tenant holds none.
    this.gauges = this.registry ? scrapeGauges([this.registry], () => this.sources) : undefined;
  }

  /**
   * Every metric of this recorder: its counters (those built), then its scrape-time gauges (a tenant's
   * recorder: built for this read, unregistered, each reading its stores when collected).
   */
  list(): ReadonlyArray<Counter<string> | Gauge<string>> {
    const counters = this.countersBuilt().map((c) => (c instanceof TenantCount ? c.toCounter() : c));
    return [...(counters as Array<Counter<string>>), ...this.scrapeGauges()];
  }

  /** Its counters, those built (a tenant's recorder: those it has counted with). */
  countersBuilt(): CounterRead[] {
    const counters = (Object.keys(COUNTERS) as CounterName[]).map((name) => this.counters[name]);
    return counters.filter((c) => c !== undefined) as CounterRead[];
  }

  /** Its scrape-time gauges (a tenant's recorder: built now, for this read). */
  scrapeGauges(): Array<Gauge<string>> {
    return this.gauges ?? scrapeGauges([], () => this.sources);
  }

  private counter(name: CounterName): Pick<TenantCount, 'inc'> {
    let counter = this.counters[name];
    if (!counter) {
      const { labelNames, ...spec } = COUNTERS[name];
      counter = this.registry
        ? new Counter({ ...spec, labelNames: [...labelNames], registers: [this.registry] })
        : new TenantCount(COUNTERS[name]);
      this.counters[name] = counter;
    }
    return counter;
  }

  /** Where scrape-time gauges read from; set once the app's adapters exist. */
  setSources(sources: MetricsSources): void {
    this.sources = sources;
  }

  apiCall(method: string, code: string): void {
    this.counter('apiCalls').inc({ method, code });
  }

  delivery(outcome: 'posted' | 'found' | 'retry' | 'abandoned', priority: DeliveryPriority): void {
    this.counter('deliveries').inc({ outcome, priority });
  }

  slackError(method: string, code: string): void {
    this.counter('slackErrors').inc({ method, code });
  }

  jobStarted(outcome: JobStartOutcome): void {
    this.counter('jobStarts').inc({ outcome });
  }

  followUp(outcome: 'sent' | 'refused'): void {
    this.counter('followUps').inc({ outcome });
  }

  polled(outcome: PollOutcome): void {
    this.counter('polls').inc({ outcome });
  }

  jobFinished(status: string): void {
    this.counter('finished').inc({ status });
  }

  feedbackRecorded(vote: FeedbackVote, change: FeedbackChange): void {
    this.counter('feedback').inc({ vote, change });
  }

  /** The exposition text and its content type (a tenant's recorder: in a registry made for this read). */
  async render(): Promise<{ contentType: string; body: string }> {
    let registry = this.registry;
    if (!registry) {
      registry = new Registry();
      for (const metric of this.list()) registry.registerMetric(metric);
    }
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
