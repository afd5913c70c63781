import type { Registry } from 'prom-client';

/**
 * The bounded per-tenant view of OAuth mode's /metrics: which tenants get series of their own (the busiest
 * few) and what those series say. Pure functions over what each tenant's registry already counted.
 */

/** One metric as `Registry.getMetricsAsJSON()` gives it (and `AggregatorRegistry.aggregate` takes it). */
export type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/** What the per-tenant series say about one tenant (or about every tenant folded into `other`). */
export interface TenantCounts {
  /** `job_starts_total{outcome="started"}`: jobs that really started. */
  jobsStarted: number;
  /** Every failed Slack call, 429s included. */
  slackErrors: number;
  /** The 429s alone (`code="ratelimited"`): a storm in one workspace shows as that tenant's. */
  slackRateLimited: number;
  /** Owed-message attempts by outcome (posted, found, retry, abandoned). */
  deliveries: Record<string, number>;
  /** How busy the tenant keeps the process: what it is ranked by. */
  activity: number;
}

export const NO_COUNTS: TenantCounts = {
  jobsStarted: 0,
  slackErrors: 0,
  slackRateLimited: 0,
  deliveries: {},
  activity: 0,
};

const PREFIX = 'docs_agent_';

/** Reads a tenant's counts from its registry's metrics (counters only are needed). */
export function countsOf(metrics: readonly MetricJson[]): TenantCounts {
  const values = (name: string) => metrics.find((m) => m.name === `${PREFIX}${name}`)?.values ?? [];
  const total = (name: string, only?: (labels: Record<string, unknown>) => boolean) =>
    values(name)
      .filter((v) => only?.(v.labels) ?? true)
      .reduce((sum, v) => sum + v.value, 0);
  const deliveries: Record<string, number> = {};
  for (const { labels, value } of values('deliveries_total')) {
    const outcome = String(labels.outcome);
    deliveries[outcome] = (deliveries[outcome] ?? 0) + value;
  }
  const slackErrors = total('slack_api_errors_total');
  // Slack calls are counted where they fail (errors) and where they are owed (deliveries); with job start
  // requests and docs-API requests that is the work a tenant makes this process do.
  const activity =
    total('job_starts_total') + slackErrors + total('deliveries_total') + total('docs_api_requests_total');
  return {
    jobsStarted: total('job_starts_total', (l) => l.outcome === 'started'),
    slackErrors,
    slackRateLimited: total('slack_api_errors_total', (l) => l.code === 'ratelimited'),
    deliveries,
    activity,
  };
}

export function addCounts(a: TenantCounts, b: TenantCounts): TenantCounts {
  const deliveries = { ...a.deliveries };
  for (const [outcome, n] of Object.entries(b.deliveries))
    deliveries[outcome] = (deliveries[outcome] ?? 0) + n;
  return {
    jobsStarted: a.jobsStarted + b.jobsStarted,
    slackErrors: a.slackErrors + b.slackErrors,
    slackRateLimited: a.slackRateLimited + b.slackRateLimited,
    deliveries,
    activity: a.activity + b.activity,
  };
}

/** Slack team and enterprise ids (`T…`, `E…`): the only label values; never `other`, which is lowercase. */
const TENANT_ID = /^[A-Z][A-Z0-9]{1,31}$/;

/**
 * A tenant already shown keeps its place until a challenger is this much busier, so two tenants of about
 * the same activity do not swap every scrape (each swap moves counts in and out of `other`, which
 * Prometheus then reads as a counter reset).
 */
const INCUMBENT_BONUS = 1.25;

/** The `limit` busiest tenants (ties by id, so a scrape is reproducible); everyone else is `other`. */
export function chooseShown(
  activity: ReadonlyMap<string, number>,
  previous: ReadonlySet<string>,
  limit: number,
): Set<string> {
  const ranked = [...activity]
    .filter(([tenant]) => TENANT_ID.test(tenant))
    .map(([tenant, score]) => ({ tenant, score: previous.has(tenant) ? score * INCUMBENT_BONUS : score }))
    .sort((a, b) => b.score - a.score || (a.tenant < b.tenant ? -1 : 1));
  return new Set(ranked.slice(0, Math.max(0, limit)).map((r) => r.tenant));
}

const counter = (name: string, help: string, values: MetricJson['values']): MetricJson =>
  ({ name: `${PREFIX}${name}`, help, type: 'counter', aggregator: 'sum', values }) as unknown as MetricJson;

/**
 * The per-tenant series: `docs_agent_tenants` and, for each shown tenant and `other`, jobs started, Slack
 * errors, 429s and deliveries. At most `shown + 1` tenant label values, however many tenants are installed.
 */
export function tenantSeries(input: {
  installed: number;
  counts: ReadonlyMap<string, TenantCounts>;
  shown: ReadonlySet<string>;
  /** Dropped tenants' counts that were in `other` when they left: `other` never goes backwards on a drop. */
  retiredOther: TenantCounts;
}): MetricJson[] {
  let other = input.retiredOther;
  const rows: Array<[string, TenantCounts]> = [];
  for (const [tenant, counts] of input.counts) {
    if (input.shown.has(tenant)) rows.push([tenant, counts]);
    else other = addCounts(other, counts);
  }
  rows.sort(([a], [b]) => (a < b ? -1 : 1));
  rows.push(['other', other]);
  const per = (pick: (c: TenantCounts) => number) =>
    rows.map(([tenant, c]) => ({ labels: { tenant }, value: pick(c) }));
  const deliveries = rows.flatMap(([tenant, c]) =>
    Object.entries(c.deliveries).map(([outcome, value]) => ({ labels: { tenant, outcome }, value })),
  );
  return [
    {
      name: `${PREFIX}tenants`,
      help: 'Tenant scopes (workspace or org-wide installs) resident in this process now: built on use, evicted when idle',
      type: 'gauge',
      aggregator: 'sum',
      values: [{ labels: {}, value: input.installed }],
    } as unknown as MetricJson,
    counter(
      'tenant_jobs_started_total',
      'Agent jobs started, for the busiest tenants by id and the rest as tenant="other"',
      per((c) => c.jobsStarted),
    ),
    counter(
      'tenant_slack_api_errors_total',
      'Failed Slack Web API calls (429s included), for the busiest tenants by id and the rest as tenant="other"',
      per((c) => c.slackErrors),
    ),
    counter(
      'tenant_slack_rate_limited_total',
      'Slack Web API calls answered 429 (ratelimited), for the busiest tenants by id and the rest as tenant="other"',
      per((c) => c.slackRateLimited),
    ),
    counter(
      'tenant_deliveries_total',
      'Attempts of messages the bot owes, by outcome, for the busiest tenants by id and the rest as tenant="other"',
      deliveries,
    ),
  ];
}
