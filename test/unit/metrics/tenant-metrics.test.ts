import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { Metrics } from '../../../src/metrics/metrics.js';
import { startMetricsServer } from '../../../src/metrics/metrics-server.js';
import { TenantMetrics } from '../../../src/metrics/tenant-metrics.js';
import { parseExposition, type Sample, seriesValues } from './exposition.js';
import { recordSampleActivity } from './sample-activity.js';

const id = (i: number) => `T${String(i).padStart(4, '0')}ABC`;
const isView = (s: Sample) => s.name.startsWith('docs_agent_tenant');
const isSummed = (s: Sample) => s.name.startsWith('docs_agent_') && !isView(s);

async function scrape(metrics: { render(): Promise<{ body: string }> }) {
  const { body } = await metrics.render();
  const { samples, families } = parseExposition(body);
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value;
  const tenantsOf = (name: string) =>
    new Set(samples.filter((s) => s.name === name).map((s) => s.labels.tenant));
  return { body, samples, families, value, tenantsOf, summed: seriesValues(samples, isSummed) };
}

/** Adds each part's series: what the sum of several single-workspace processes would show. */
function addUp(parts: ReadonlyArray<Map<string, number>>): Map<string, number> {
  const total = new Map<string, number>();
  for (const part of parts) for (const [series, v] of part) total.set(series, (total.get(series) ?? 0) + v);
  return total;
}

const VIEW_FAMILIES = [
  'docs_agent_tenant_jobs_started_total',
  'docs_agent_tenant_slack_api_errors_total',
  'docs_agent_tenant_slack_rate_limited_total',
  'docs_agent_tenant_deliveries_total',
];

describe('TenantMetrics', () => {
  it('with one tenant, renders the single-workspace docs_agent_ block unchanged, then the tenant view', async () => {
    const single = new Metrics({ defaultMetrics: false });
    recordSampleActivity(single);
    const tenants = new TenantMetrics({ defaultMetrics: false });
    recordSampleActivity(tenants.forTenant('T0ONE'));
    const { body, contentType } = await tenants.render();
    expect(contentType).toBe((await single.render()).contentType);
    const view = body.indexOf('# HELP docs_agent_tenants ');
    expect(view).toBeGreaterThan(0);
    expect(body.slice(0, view)).toBe(`${(await single.render()).body}\n`);
  });

  it('sums every tenant series (counters, and with no more tenants than shown the gauges) to what the parts add up to', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false });
    const parts: Metrics[] = [];
    for (let i = 0; i < 7; i++) {
      const metrics = tenants.forTenant(id(i));
      recordSampleActivity(metrics, i + 1);
      metrics.slackError('chat.postMessage', i % 2 ? 'ratelimited' : 'channel_not_found');
      metrics.delivery(i % 3 ? 'found' : 'abandoned', 'intermediate');
      parts.push(metrics);
    }
    expect(tenants.forTenant(id(3))).toBe(parts[3]);
    const partValues = await Promise.all(parts.map(async (m) => (await scrape(m)).summed));
    const all = await scrape(tenants);
    expect(all.summed).toEqual(addUp(partValues));
    // Spot checks that the sum is a sum: 1+…+7 = 28 runs of the sample.
    expect(all.value('docs_agent_job_starts_total', { outcome: 'started' })).toBe(28);
    expect(all.value('docs_agent_watched_jobs', { status: 'running' })).toBe(56);
    expect(all.value('docs_agent_quota_remaining', { budget: 'agent_jobs' })).toBe(700 - 28);
    expect(all.value('docs_agent_pull_requests_rated_this_month', { rating: 'useful' })).toBe(56);
    expect(all.value('docs_agent_tenants')).toBe(7);

    // The per-tenant view adds up to the same totals.
    const total = (name: string, where: (s: Sample) => boolean = () => true) =>
      all.samples.filter((s) => s.name === name && where(s)).reduce((sum, s) => sum + s.value, 0);
    expect(total('docs_agent_tenant_jobs_started_total')).toBe(28);
    expect(total('docs_agent_tenant_slack_api_errors_total')).toBe(
      total('docs_agent_slack_api_errors_total'),
    );
    expect(total('docs_agent_tenant_slack_rate_limited_total')).toBe(
      total('docs_agent_slack_api_errors_total', (s) => s.labels.code === 'ratelimited'),
    );
    for (const outcome of ['posted', 'retry', 'found', 'abandoned']) {
      const only = (s: Sample) => s.labels.outcome === outcome;
      expect(total('docs_agent_tenant_deliveries_total', only)).toBe(
        total('docs_agent_deliveries_total', only),
      );
    }
  });

  it('names at most the 10 busiest of 50 tenants and folds the other 40 into tenant="other"', async () => {
    const tenants = new TenantMetrics();
    for (let i = 0; i < 50; i++) {
      const metrics = tenants.forTenant(id(i));
      for (let n = 0; n <= i; n++) metrics.jobStarted('started');
      metrics.slackError('chat.update', 'ratelimited');
      metrics.delivery('posted', 'reply');
    }
    const all = await scrape(tenants);
    const busiest = new Set([...Array.from({ length: 10 }, (_, k) => id(49 - k)), 'other']);
    for (const family of VIEW_FAMILIES) {
      expect(all.families.get(family)).toBe('counter');
      expect(all.tenantsOf(family)).toEqual(busiest);
    }
    const withTenant = all.samples.filter((s) => s.labels.tenant !== undefined);
    expect(withTenant.length).toBe(11 * VIEW_FAMILIES.length);
    // The 40 quietest started 1+…+40 jobs; each of the 50 had one 429 and one delivery.
    expect(all.value('docs_agent_tenant_jobs_started_total', { tenant: 'other' })).toBe(820);
    expect(all.value('docs_agent_tenant_slack_rate_limited_total', { tenant: 'other' })).toBe(40);
    expect(all.value('docs_agent_tenant_jobs_started_total', { tenant: id(49) })).toBe(50);
    expect(all.value('docs_agent_tenants')).toBe(50);
    // The process metrics once (parseExposition refuses a family twice), not once per tenant.
    expect(all.families.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(all.families.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
  });

  it('reads the stores of the shown tenants only at a scrape, however many are installed', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false, topTenants: 10 });
    const read = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const metrics = tenants.forTenant(id(i));
      for (let n = 0; n <= i % 40; n++) metrics.jobStarted('started');
      const reading =
        <T>(value: T) =>
        async () => {
          read.add(id(i));
          return value;
        };
      metrics.setSources({
        watchedJobs: reading([{ status: 'running' }]),
        quotas: { agent_jobs: reading(5) },
        feedbackThisMonth: reading({ month: '2026-11', rated: 1, useful: 1 }),
      });
    }
    const all = await scrape(tenants);
    const shown = [...all.tenantsOf('docs_agent_tenant_jobs_started_total')].filter((t) => t !== 'other');
    expect(shown).toHaveLength(10);
    expect(read).toEqual(new Set(shown));
    expect(all.value('docs_agent_watched_jobs', { status: 'running' })).toBe(10);
    // Counters still sum every tenant: 300 tenants, i % 40 + 1 starts each.
    const starts = Array.from({ length: 300 }, (_, i) => (i % 40) + 1).reduce((a, b) => a + b, 0);
    expect(all.value('docs_agent_job_starts_total', { outcome: 'started' })).toBe(starts);
  });

  it('keeps a shown tenant until another is clearly busier, so the named set does not flap', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false, topTenants: 1 });
    const starts = (tenant: string, n: number) => {
      for (let k = 0; k < n; k++) tenants.forTenant(tenant).jobStarted('started');
    };
    starts('T0A', 10);
    starts('T0B', 9);
    expect((await scrape(tenants)).tenantsOf('docs_agent_tenant_jobs_started_total')).toEqual(
      new Set(['T0A', 'other']),
    );
    starts('T0B', 3); // 12 against 10: within the incumbent's margin
    expect((await scrape(tenants)).tenantsOf('docs_agent_tenant_jobs_started_total')).toEqual(
      new Set(['T0A', 'other']),
    );
    starts('T0B', 2); // 14 against 10: clearly busier
    const after = await scrape(tenants);
    expect(after.tenantsOf('docs_agent_tenant_jobs_started_total')).toEqual(new Set(['T0B', 'other']));
    expect(after.value('docs_agent_tenant_jobs_started_total', { tenant: 'other' })).toBe(10);
  });

  it('dropping a tenant removes its series and gauges; summed counters and other never go backwards', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false, topTenants: 3 });
    for (let i = 0; i < 6; i++) recordSampleActivity(tenants.forTenant(id(i)), i + 1);
    const before = await scrape(tenants);
    expect(before.tenantsOf('docs_agent_tenant_jobs_started_total')).toEqual(
      new Set([id(3), id(4), id(5), 'other']),
    );
    const otherBefore = before.value('docs_agent_tenant_jobs_started_total', { tenant: 'other' });
    expect(otherBefore).toBe(1 + 2 + 3);

    tenants.drop(id(1)); // one folded into other: 2 runs
    const afterOther = await scrape(tenants);
    expect(afterOther.value('docs_agent_tenants')).toBe(5);
    expect(afterOther.value('docs_agent_tenant_jobs_started_total', { tenant: 'other' })).toBe(otherBefore);
    // The store-read gauges sum the shown tenants (3, 4 and 5: 2×(4+5+6) running), so one in other leaves them as they were.
    expect(before.value('docs_agent_watched_jobs', { status: 'running' })).toBe(2 * (4 + 5 + 6));
    expect(afterOther.value('docs_agent_watched_jobs', { status: 'running' })).toBe(2 * (4 + 5 + 6));
    const counters = (s: Map<string, number>) =>
      new Map([...s].filter(([series]) => /_total[{]/.test(series) || series.endsWith('_total')));
    expect(counters(afterOther.summed)).toEqual(counters(before.summed));

    tenants.drop(id(5)); // the busiest, shown by id
    const afterShown = await scrape(tenants);
    expect(afterShown.samples.filter((s) => s.labels.tenant === id(5))).toEqual([]);
    expect(afterShown.body).not.toContain(id(5));
    expect(counters(afterShown.summed)).toEqual(counters(before.summed));
    expect(afterShown.value('docs_agent_tenants')).toBe(4);

    // Installed again: a fresh recorder, counting from nothing.
    tenants.drop(id(0));
    const again = tenants.forTenant(id(0));
    expect(
      (await scrape(again)).value('docs_agent_job_starts_total', { outcome: 'started' }),
    ).toBeUndefined();
  });

  it('counts a tenant dropped while a scrape is under way once, in that scrape and the next', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false });
    for (let i = 0; i < 4; i++) recordSampleActivity(tenants.forTenant(id(i)), i + 1);
    const started = (await scrape(tenants)).value('docs_agent_job_starts_total', { outcome: 'started' });
    expect(started).toBe(10);
    const during = scrape(tenants);
    tenants.drop(id(3));
    const next = scrape(tenants);
    for (const result of await Promise.all([during, next])) {
      expect(result.value('docs_agent_job_starts_total', { outcome: 'started' })).toBe(started);
    }
  });

  it('labels only Slack ids: any other key is folded into other and the exposition still parses', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false });
    for (const key of ['other', 'weird"\n}key', 'acme corp', 'E0GRID'])
      tenants.forTenant(key).jobStarted('started');
    const all = await scrape(tenants);
    expect(all.tenantsOf('docs_agent_tenant_jobs_started_total')).toEqual(new Set(['E0GRID', 'other']));
    expect(all.value('docs_agent_tenant_jobs_started_total', { tenant: 'other' })).toBe(3);
  });

  it('with no tenant yet, declares every family (HELP and TYPE) with no samples but the count', async () => {
    const all = await scrape(new TenantMetrics({ defaultMetrics: false }));
    expect(all.families.get('docs_agent_job_starts_total')).toBe('counter');
    expect(all.families.get('docs_agent_watched_jobs')).toBe('gauge');
    expect(all.value('docs_agent_tenants')).toBe(0);
  });

  it('is served by the metrics server like a single Metrics', async () => {
    const tenants = new TenantMetrics();
    tenants.forTenant('T0SERVED').jobStarted('started');
    const logger = createLogger({ level: 'silent', secrets: [] });
    const server = await startMetricsServer(tenants, { host: '127.0.0.1', port: 0 }, logger);
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const { samples } = parseExposition(await response.text());
      expect(samples).toContainEqual({ name: 'docs_agent_tenants', labels: {}, value: 1 });
      expect(samples).toContainEqual({
        name: 'docs_agent_tenant_jobs_started_total',
        labels: { tenant: 'T0SERVED' },
        value: 1,
      });
    } finally {
      await server.close();
    }
  });
});
