import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { ProjectDirectory } from '../../src/common/projects.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import { AnalyticsBudgetError, fetchRangeViews } from '../../src/insights/page-views/fetch-page-views.js';
import { PageViewsReports } from '../../src/insights/page-views/page-views-reports.js';
import type { ReportPublisher } from '../../src/insights/ports.js';
import type { DocsApiClient } from '../../src/platform/docs-client.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { docsClientFor } from '../support/docs-client-for.js';
import { FAKE_PROJECT_ID, FakeDocs, makeViewRows, type ViewRow } from '../support/fake-docs.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const range = { from: '2025-03-03', toExclusive: '2025-03-10' };
let docs: FakeDocs;
let api: DocsApiClient;

beforeEach(async () => {
  docs = await FakeDocs.start();
  api = docsClientFor(docs, logger);
});
afterEach(async () => {
  await api.close();
  await docs.close();
});

function ranked(rows: ViewRow[]): string[] {
  return [...rows].sort((a, b) => b.total - a.total || a.path.localeCompare(b.path)).map((r) => r.path);
}

const viewsCalls = () => docs.requestsTo('GET', /\/views$/);

describe('paging and sorting', () => {
  it('fetches all 10,000 shuffled paths in 40 calls of 250 and sorts them by total', async () => {
    const rows = makeViewRows(10_000);
    // The API's order says nothing about rank: the first page does not hold the top page.
    expect(rows.slice(0, 250).map((r) => r.path)).not.toContain(ranked(rows)[0]);
    docs.viewsByRange.set('2025-03-03..2025-03-10', rows);
    const budget = new InMemoryHourlyQuota(100);
    const views = await fetchRangeViews(api, range, { maxPages: 40, budget, now: () => 0 });
    expect(viewsCalls()).toHaveLength(40);
    expect(viewsCalls().map((r) => r.query.get('offset'))).toEqual(
      Array.from({ length: 40 }, (_, i) => String(i * 250)),
    );
    expect(
      viewsCalls().every((r) => r.query.get('limit') === '250' && r.query.get('dateTo') === '2025-03-10'),
    ).toBe(true);
    expect(views.pages.map((p) => p.path)).toEqual(ranked(rows));
    expect(views.partial).toBe(false);
    expect(views.requests).toBe(40);
    expect(views.totals.total).toBe(rows.reduce((s, r) => s + r.total, 0));
    expect(await budget.remaining()).toBe(60);
  });

  it('stops at the page cap and marks the result partial, totals still from the API', async () => {
    const rows = makeViewRows(10_000);
    docs.defaultViews = rows;
    const views = await fetchRangeViews(api, range, {
      maxPages: 10,
      budget: new InMemoryHourlyQuota(100),
      now: () => 0,
    });
    expect(viewsCalls()).toHaveLength(10);
    expect(views.partial).toBe(true);
    expect(views.pages).toHaveLength(2500);
    expect(views.totals.total).toBe(rows.reduce((s, r) => s + r.total, 0));
  });

  it('stops when a page adds no new path although hasMore stays true (a static mock ignoring offset)', async () => {
    const rows = makeViewRows(250);
    docs.reshape.views = (body) => ({ ...body, views: rows, hasMore: true });
    const budget = new InMemoryHourlyQuota(100);
    const views = await fetchRangeViews(api, range, { maxPages: 40, budget, now: () => 0 });
    // One page of rows, one page that repeats it: not the 40 the cap allows.
    expect(viewsCalls()).toHaveLength(2);
    expect(await budget.remaining()).toBe(98);
    expect(views.pages.map((p) => p.path)).toEqual(ranked(rows));
    expect(views.partial).toBe(true);
  });

  it('accepts fractional counts, as the spec types them number', async () => {
    docs.defaultViews = [
      { path: '/a', human: 10.4, ai: 2.25, total: 12.65 },
      { path: '/b', human: 30.5, ai: 0, total: 30.5 },
    ];
    const views = await fetchRangeViews(api, range, {
      maxPages: 40,
      budget: new InMemoryHourlyQuota(100),
      now: () => 0,
    });
    expect(views.pages.map((p) => [p.path, p.total])).toEqual([
      ['/b', 30.5],
      ['/a', 12.65],
    ]);
    expect(views.totals.total).toBeCloseTo(43.15);
  });

  it('makes one call for a range that fits in one page, and handles an empty range', async () => {
    docs.defaultViews = makeViewRows(250);
    const one = await fetchRangeViews(api, range, {
      maxPages: 40,
      budget: new InMemoryHourlyQuota(100),
      now: () => 0,
    });
    expect(one.pages).toHaveLength(250);
    expect(viewsCalls()).toHaveLength(1);
    docs.defaultViews = [];
    const none = await fetchRangeViews(api, range, {
      maxPages: 40,
      budget: new InMemoryHourlyQuota(100),
      now: () => 0,
    });
    expect(none.pages).toEqual([]);
    expect(none.totals).toEqual({ human: 0, ai: 0, total: 0 });
  });

  it('throws a budget error with the time until a slot frees instead of calling beyond the budget', async () => {
    docs.defaultViews = makeViewRows(1000);
    let now = 1_000_000;
    const budget = new InMemoryHourlyQuota(2, () => now);
    const error = await fetchRangeViews(api, range, { maxPages: 40, budget, now: () => now }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AnalyticsBudgetError);
    expect((error as AnalyticsBudgetError).retryAfterMs).toBe(3_600_000);
    expect(viewsCalls()).toHaveLength(2);
    now += 3_600_000;
    expect(await budget.remaining()).toBe(2);
  });
});

describe('PageViewsReports cache and budget', () => {
  function service(options: { now: () => number; budget?: InMemoryHourlyQuota; ttl?: number }) {
    const publisher: Pick<ReportPublisher, 'postReport' | 'uploadCsv'> = {
      postReport: async () => undefined,
      uploadCsv: async () => undefined,
    };
    return new PageViewsReports({
      apiFor: () => api,
      source: new AnalyticsSource({
        cache: createMemoryAnalyticsCache(logger, options.now),
        budget: options.budget ?? new InMemoryHourlyQuota(100, options.now),
        logger,
        cacheTtlMs: options.ttl ?? 15 * 60_000,
      }),
      publisher,
      clock: { now: options.now },
      logger,
      projects: new ProjectDirectory(FAKE_PROJECT_ID),
      maxPages: 40,
    });
  }

  it('reuses a fetched range inside the TTL and fetches again after it', async () => {
    docs.defaultViews = makeViewRows(600);
    let now = Date.parse('2025-03-10T12:00:00Z');
    const analytics = service({ now: () => now });
    const request = analytics.requestFor({ range: { kind: 'days', days: 7 }, top: 10, prefix: undefined });
    const first = await analytics.report(request);
    expect(viewsCalls()).toHaveLength(3 + 1);
    expect(first.top[0]!.path).toBe(ranked(docs.defaultViews)[0]);
    now += 14 * 60_000;
    await analytics.report({ ...request, top: 50, prefix: '/docs' });
    await analytics.csv(request);
    expect(viewsCalls()).toHaveLength(4);
    now += 2 * 60_000;
    await analytics.report(request);
    expect(viewsCalls()).toHaveLength(8);
  });

  it('shares one fetch of the range and one of the previous period between concurrent reports', async () => {
    docs.defaultViews = makeViewRows(600);
    docs.latencyMs = 20;
    const analytics = service({ now: () => Date.parse('2025-03-10T12:00:00Z') });
    const request = analytics.requestFor({ range: { kind: 'days', days: 7 }, top: 10, prefix: undefined });
    const reports = await Promise.all([
      analytics.report(request),
      analytics.report(request),
      analytics.report(request),
    ]);
    expect(reports.map((r) => r.totals)).toEqual([
      reports[0]!.totals,
      reports[0]!.totals,
      reports[0]!.totals,
    ]);
    const rangeCalls = viewsCalls().filter((r) => r.query.get('dateTo') === request.range.toExclusive);
    expect(rangeCalls).toHaveLength(3);
    // The previous period (totals and first page) too: one call, not one per waiting report.
    expect(viewsCalls().filter((r) => r.query.get('dateTo') === request.range.from)).toHaveLength(1);
  });

  it('refuses up front when the last fetch size no longer fits the remaining budget', async () => {
    docs.defaultViews = makeViewRows(1000);
    const now = Date.parse('2025-03-10T12:00:00Z');
    const budget = new InMemoryHourlyQuota(8, () => now);
    const analytics = service({ now: () => now, budget });
    await analytics.report(
      analytics.requestFor({ range: { kind: 'days', days: 7 }, top: 10, prefix: undefined }),
    );
    expect(viewsCalls()).toHaveLength(5);
    const error = await analytics
      .report(analytics.requestFor({ range: { kind: 'days', days: 30 }, top: 10, prefix: undefined }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalyticsBudgetError);
    expect(viewsCalls()).toHaveLength(5);
  });
});
