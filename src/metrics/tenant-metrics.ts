import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  type PrometheusContentType,
  Registry,
} from 'prom-client';
import { Metrics } from './metrics.js';
import type { MetricsExposition } from './metrics-server.js';
import { type QueueMetrics, type QueueStatsSource, registerQueueMetrics } from './queue-metrics.js';
import {
  addCounts,
  chooseShown,
  countsOf,
  type MetricJson,
  NO_COUNTS,
  type TenantCounts,
  tenantSeries,
} from './tenant-view.js';

/** What dropped tenants leave behind: their counters, summed, and their share of `other`. */
interface Retired {
  counters: MetricJson[];
  other: TenantCounts;
}

/**
 * OAuth mode's /metrics: one `Metrics` recorder per tenant (so tenant code stays tenant-blind; it has no
 * Registry of its own) and one exposition for the process, over the process's one registry. Every
 * docs_agent_ counter is the SUM over tenants under its single-workspace
 * name and labels, so dashboards built for single-workspace mode keep working (the store-read gauges sum the
 * shown tenants only, so a scrape costs no store read per install); the process metrics appear
 * once; a bounded per-tenant view (docs_agent_tenants and docs_agent_tenant_*{tenant}) names the `topTenants`
 * busiest tenants by id and folds the rest into tenant="other".
 *
 * Tenants are ranked by what they made this process do since it started (job start requests, Slack errors,
 * deliveries, docs-API requests), not over a recent window: the per-tenant series are counters, and a
 * lifetime ranking changes its members rarely, whereas a window would reshuffle them with every burst and
 * each reshuffle moves counts in or out of `other`. It needs no timer or history, only what is counted.
 */
export class TenantMetrics implements MetricsExposition {
  private readonly tenants = new Map<string, Metrics>();
  private readonly process = new Registry();
  /** Never recorded to: gives every docs_agent_ metric its HELP and TYPE even with no tenant installed. */
  private readonly template = new Metrics({ defaultMetrics: false });
  private readonly topTenants: number;
  private shown = new Set<string>();
  /** A promise so a drop's snapshot (async in prom-client) is folded in before the next scrape reads it. */
  private retired: Promise<Retired> = Promise.resolve({ counters: [], other: NO_COUNTS });

  /**
   * Tenant contexts (scopes) built and stopped by this replica (issue 43 §4: their churn per minute); a
   * registry of their own, rendered after the tenant view so the single-workspace block still leads.
   */
  private readonly churn = new Registry();
  private readonly contexts = {
    loaded: new Counter({
      name: 'docs_agent_tenant_contexts_loaded_total',
      help: 'Workspace contexts built by this replica, by cause (request: one from Slack; work: a queued job or owed work named a workspace not resident here)',
      labelNames: ['cause'],
      registers: [this.churn],
    }),
    dropped: new Counter({
      name: 'docs_agent_tenant_contexts_dropped_total',
      help: 'Workspace contexts stopped by this replica, by reason (evicted: idle or beyond the resident cap; uninstalled)',
      labelNames: ['reason'],
      registers: [this.churn],
    }),
  };

  constructor(options: { defaultMetrics?: boolean; topTenants?: number } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.process });
    this.topTenants = options.topTenants ?? 10;
  }

  /**
   * The tenant's recorder, created on first use and kept until `drop` (a runtime rebuilt for new settings
   * gets the same one, so its counters carry on). No process metrics of its own: those are the process's.
   */
  forTenant(tenant: string): Metrics {
    let metrics = this.tenants.get(tenant);
    if (!metrics) {
      // No registry of its own: read here directly, so a tenant costs no Registry (issue 43).
      metrics = new Metrics({ defaultMetrics: false, registry: false });
      this.tenants.set(tenant, metrics);
    }
    return metrics;
  }

  /** A tenant's context was built here, for a request from Slack or for work. */
  loaded(cause: 'request' | 'work'): void {
    this.contexts.loaded.inc({ cause });
  }

  /**
   * The tenant is uninstalled (or its context evicted): its per-tenant series and its gauges (watched jobs, quotas, feedback) go at
   * once; its counters stay in the sums (and in `other` if it was there), so no summed counter goes
   * backwards, which Prometheus would read as a reset.
   */
  drop(tenant: string, reason: 'evicted' | 'uninstalled' = 'uninstalled'): void {
    this.contexts.dropped.inc({ reason });
    const metrics = this.tenants.get(tenant);
    if (!metrics) return;
    this.tenants.delete(tenant);
    const wasShown = this.shown.has(tenant);
    this.shown.delete(tenant);
    this.retired = this.retired.then(async (retired) => {
      const counters = await countersOf(metrics);
      const summed = await AggregatorRegistry.aggregate([retired.counters, counters]).getMetricsAsJSON();
      return {
        counters: summed,
        other: wasShown ? retired.other : addCounts(retired.other, countsOf(counters)),
      };
    });
  }

  /** The queue plane's series (Redis): backlog by kind, deferrals, due index; once per process. */
  watchQueues(source: QueueStatsSource): QueueMetrics {
    return registerQueueMetrics(this.process, source);
  }

  /** Installed tenants (those with a recorder). */
  get size(): number {
    return this.tenants.size;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    // Retired and live are read together, so a tenant dropped meanwhile is counted once, never twice or not at all.
    let pending: Promise<Retired>;
    let retired: Retired;
    do {
      pending = this.retired;
      retired = await pending;
    } while (pending !== this.retired);
    const live = [...this.tenants];
    const [template, ...counters] = await Promise.all([
      this.template.registry!.getMetricsAsJSON(),
      ...live.map(([, metrics]) => countersOf(metrics)),
    ]);
    const counts = new Map(live.map(([tenant], i) => [tenant, countsOf(counters[i] ?? [])]));
    this.shown = chooseShown(
      new Map([...counts].map(([t, c]) => [t, c.activity])),
      this.shown,
      this.topTenants,
    );
    // The scrape-time gauges read each tenant's stores (jobs watched, budgets, feedback): only the shown
    // tenants' are read, so a scrape makes the same few store reads with 10 installs or 100,000.
    const gauges = await Promise.all(
      live.filter(([tenant]) => this.shown.has(tenant)).map(([, metrics]) => gaugesOf(metrics)),
    );
    const view = tenantSeries({
      installed: live.length,
      counts,
      shown: this.shown,
      retiredOther: retired.other,
    });
    // Counters and histograms add up over every tenant; the gauges (jobs watched, budget units left, PRs
    // rated: each tenant has its own) over the shown tenants. The process metrics are not summed: some (start time,
    // version) must not be, and they exist once anyway.
    const summed = AggregatorRegistry.aggregate<PrometheusContentType>([
      template,
      retired.counters,
      ...counters,
      ...gauges,
      view,
    ]);
    const exposition = Registry.merge([this.process, summed, this.churn]);
    return { contentType: exposition.contentType, body: await exposition.metrics() };
  }
}

/** A tenant's counters and histograms as they stand: in memory, no store read. */
async function countersOf(metrics: Metrics): Promise<MetricJson[]> {
  return Promise.all(metrics.countersBuilt().map((m) => m.get()));
}

/** A tenant's scrape-time gauges: each reads the tenant's stores as it is collected. */
async function gaugesOf(metrics: Metrics): Promise<MetricJson[]> {
  return Promise.all(metrics.scrapeGauges().map((m) => m.get() as Promise<MetricJson>));
}
