import { InMemoryHourlyQuota } from '../src/common/hourly-quota.js';
import { createLogger } from '../src/common/logger.js';
import { AnalyticsSource } from '../src/insights/analytics-source.js';
import { HealthTrends } from '../src/insights/health/health-trend.js';
import { rangeKey } from '../src/insights/page-views/page-views-reports.js';
import { ViewsTrends } from '../src/insights/page-views/views-trend.js';
import { chartBuckets } from '../src/insights/ranges/buckets.js';
import { addDays, type DateRange, type RangeSpec, resolveRange } from '../src/insights/ranges/dates.js';
import { DocsApiClient } from '../src/platform/docs-client.js';
import { createMemoryAnalyticsCache } from '../src/state/keyv-analytics-cache.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID, FakeDocs } from '../test/support/fake-docs.js';
import { table } from './stats.js';

/**
 * Analytics requests per chart (issue 30): the production chart reads (`ViewsTrends`, `HealthTrends`,
 * through `AnalyticsSource` and the memory cache with its usual 15-minute TTL) against the HTTP fake docs
 * platform through the production client, on a simulated clock that moves a day at a time. Requests are
 * counted on the fake. The floor is one totals read per chart point not read before (a point is a day up
 * to 20 days, then 2 days, then a week); a point whose days can still change (yesterday, today) is read
 * again once it is final.
 */
const logger = createLogger({ level: 'silent', secrets: [] });
const DAY_MS = 86_400_000;
const START = Date.parse('2026-11-02T09:00:00Z'); // a Monday

export interface ChartCostRow {
  chart: string;
  requests: number;
  floor: number | string;
  target: string;
  ok: boolean;
}

export async function runChartCost(): Promise<{ rows: ChartCostRow[] }> {
  const docs = await FakeDocs.start();
  for (let i = 1; i <= 400; i++)
    docs.viewsByDay.set(addDays('2026-12-31', -i), [
      { path: '/docs/a', human: 40 + (i % 9), ai: 5, total: 45 + (i % 9) },
    ]);
  try {
    const rows: ChartCostRow[] = [];
    const lab = () => setUp(docs);
    const row = (chart: string, requests: number, floor: number | string, target: number) =>
      rows.push({ chart, requests, floor, target: `≤ ${target}`, ok: requests <= target });

    // "Last 7 days" (the week and the week before): cold, again, then the next day and every day for 4 weeks.
    {
      const l = lab();
      const seven = (t: number) => resolveRange({ kind: 'days', days: 7 }, t, 'UTC');
      row('/docs-views 7d, first time (7 days + 7 days before)', await l.views(seven(l.now())), 14, 14);
      row('the same chart again, same day', await l.views(seven(l.now())), 0, 0);
      l.advance(DAY_MS);
      row('the next day', await l.views(seven(l.now())), '1–2', 2);
      let month = 0;
      for (let d = 0; d < 28; d++) {
        l.advance(DAY_MS);
        month += await l.views(seven(l.now()));
      }
      row('every day for 4 more weeks: per day (mean)', Math.round((month / 28) * 100) / 100, '1–2', 2);
    }
    // Weekly post (last week, Monday to Sunday): the first, then one a week.
    {
      const l = lab();
      const lastWeek = (t: number) => resolveRange({ kind: 'last-week' }, t, 'UTC');
      row('weekly post, last week, first time', await l.views(lastWeek(l.now())), 14, 14);
      let weeks = 0;
      for (let w = 0; w < 4; w++) {
        l.advance(7 * DAY_MS);
        weeks += await l.views(lastWeek(l.now()));
      }
      // Seven new days, and last Sunday once more: it was still "yesterday" when last week's post read it.
      row('weekly post, each later week (mean of 4)', weeks / 4, '7 + 1', 8);
    }
    // Longer ranges: points of 2 days (28 days, with the 28 before) and of a week (90 days).
    for (const [spec, label] of [
      [{ kind: 'days', days: 28 }, '/docs-views 28d (2-day points + 28 days before)'],
      [{ kind: 'days', days: 90 }, '/docs-views 90d (weekly points)'],
    ] as Array<[RangeSpec, string]>) {
      const l = lab();
      const range = (t: number) => resolveRange(spec, t, 'UTC');
      const points = chartBuckets(range(l.now())).length * (spec.kind === 'days' && spec.days === 28 ? 2 : 1);
      row(`${label}, first time`, await l.views(range(l.now())), points, points);
      l.advance(DAY_MS);
      row(`${label}, the next day`, await l.views(range(l.now())), '1–4', 4);
    }
    // /docs-health 7d: each point is its own window of searches and feedback by page (2 requests), plus
    // one read of the week before's conversations (the current week's are the report's own).
    {
      const l = lab();
      const seven = (t: number) => resolveRange({ kind: 'days', days: 7 }, t, 'UTC');
      row('/docs-health 7d, first time (7 days + 7 days before)', await l.health(seven(l.now())), 29, 29);
      row('the same health chart again, same day', await l.health(seven(l.now())), 0, 0);
      l.advance(DAY_MS);
      row('the health chart the next day', await l.health(seven(l.now())), '2–5', 5);
    }
    return { rows };
  } finally {
    await docs.close();
  }
}

/** A fresh cache and budget on a simulated clock; each call returns the requests it made. */
function setUp(docs: FakeDocs) {
  let nowMs = START;
  const now = () => nowMs;
  const source = new AnalyticsSource({
    cache: createMemoryAnalyticsCache(logger, now),
    budget: new InMemoryHourlyQuota(100_000, now),
    logger,
    cacheTtlMs: 15 * 60_000,
  });
  const client = new DocsApiClient({
    baseUrl: docs.url,
    apiKey: FAKE_API_KEY,
    projectId: FAKE_PROJECT_ID,
    timeoutMs: 5000,
    logger,
  });
  const views = new ViewsTrends({
    source,
    apiFor: () => client,
    now,
    keyOf: (endpoint, range, projectId) => ({ endpoint, projectId, range: rangeKey(range) }),
  });
  const health = new HealthTrends({ source, apiFor: () => client, now, maxPages: 40 });
  const counted = async (read: () => Promise<unknown>) => {
    const before = docs.requests.length;
    if ((await read()) === undefined) throw new Error('chart not drawn');
    return docs.requests.length - before;
  };
  return {
    now,
    advance: (ms: number) => {
      nowMs += ms;
    },
    views: (range: DateRange) => counted(() => views.trend(range, FAKE_PROJECT_ID)),
    health: (range: DateRange) => counted(() => health.trend(range, FAKE_PROJECT_ID, [])),
  };
}

export function chartCostVerdict(rows: ChartCostRow[]): string[] {
  const missed = rows.filter((r) => !r.ok);
  return [
    missed.length === 0
      ? `PASS: every chart at or under its target (${rows.length} figures)`
      : `FAIL: ${missed.map((r) => r.chart).join('; ')}`,
  ];
}

export const chartCostTable = (rows: ChartCostRow[]) =>
  table(rows.map((r) => ({ chart: r.chart, requests: r.requests, floor: r.floor, target: r.target })));

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows } = await runChartCost();
  console.log('## Analytics requests per chart, cold and warm');
  console.log(chartCostTable(rows));
  for (const line of chartCostVerdict(rows)) console.log(line);
}
