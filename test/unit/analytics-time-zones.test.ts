import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { ProjectDirectory } from '../../src/common/projects.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import {
  decodeReportRequest,
  encodeReportRequest,
  PageViewsReports,
} from '../../src/insights/page-views/page-views-reports.js';
import type { PageViewsReport } from '../../src/insights/page-views/report.js';
import type { ReportPublisher } from '../../src/insights/ports.js';
import { resolveRange } from '../../src/insights/ranges/dates.js';
import { apiBounds, localInstant, startOfLocalDay } from '../../src/insights/ranges/zone-instants.js';
import { WeeklyReports } from '../../src/insights/weekly/weekly-reports.js';
import type { DocsApiClient } from '../../src/platform/docs-client.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { createMemoryScheduleStore } from '../../src/state/keyv-schedule-store.js';
import { InProcessWeeklyScheduler } from '../../src/state/memory/weekly-cron-scheduler.js';
import { docsClientFor } from '../support/docs-client-for.js';
import { FAKE_PROJECT_ID, FakeDocs, makeViewRows } from '../support/fake-docs.js';
import { ManualTimers } from '../support/manual-timers.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const at = (iso: string) => Date.parse(iso);
let docs: FakeDocs;
let api: DocsApiClient;

beforeEach(async () => {
  docs = await FakeDocs.start();
  docs.defaultViews = makeViewRows(20);
  api = docsClientFor(docs, logger);
});
afterEach(async () => {
  await api.close();
  await docs.close();
});

function analyticsAt(timers: ManualTimers, posted: PageViewsReport[]) {
  const publisher: Pick<ReportPublisher, 'postReport' | 'uploadCsv'> = {
    postReport: async (_channelId, report) => {
      posted.push(report);
    },
    uploadCsv: async () => undefined,
  };
  return new PageViewsReports({
    apiFor: () => api,
    source: new AnalyticsSource({
      cache: createMemoryAnalyticsCache(logger, timers.now),
      budget: new InMemoryHourlyQuota(100, timers.now),
      logger,
      cacheTtlMs: 15 * 60_000,
    }),
    publisher,
    clock: { now: timers.now },
    logger,
    projects: new ProjectDirectory(FAKE_PROJECT_ID),
    maxPages: 40,
  });
}

/** Schedules Mondays 09:00 in `timeZone`, lets the clock reach `fireAt`, returns the range calls made. */
async function weeklyPost(timeZone: string, startAt: string, fireAt: string) {
  const timers = new ManualTimers(at(startAt));
  const posted: PageViewsReport[] = [];
  const weekly = new WeeklyReports({
    analytics: analyticsAt(timers, posted),
    health: { publishWeekly: async () => undefined },
    store: createMemoryScheduleStore(logger, timers.now),
    scheduler: new InProcessWeeklyScheduler(logger, timers),
    clock: { now: timers.now },
    logger,
  });
  await weekly.start();
  const { nextRun } = await weekly.schedule({
    channelId: 'C1',
    userId: 'U1',
    weekday: 1,
    hour: 9,
    minute: 0,
    timeZone,
  });
  expect(nextRun).toBe(at(fireAt));
  await timers.advanceTo(at(fireAt) + 1000);
  await weekly.stop();
  expect(posted).toHaveLength(1);
  expect(posted[0]!.request.timeZone).toBe(timeZone);
  const calls = docs
    .requestsTo('GET', /\/views$/)
    .map((r) => `${r.query.get('dateFrom')}..${r.query.get('dateTo')}`);
  return { calls: [...new Set(calls)], report: posted[0]! };
}

describe('weekly posts ask for the schedule time zone local days, as instants', () => {
  it('Pacific/Auckland: the Monday 09:00 post (Sunday 20:00 UTC) covers the local week, not UTC days', async () => {
    const { calls, report } = await weeklyPost(
      'Pacific/Auckland',
      '2026-01-08T00:00:00Z',
      '2026-01-11T20:00:00Z',
    );
    expect(report.request.range).toMatchObject({ from: '2026-01-05', toExclusive: '2026-01-12' });
    // The week, then the previous week's totals for the comparison.
    expect(calls).toEqual([
      '2026-01-05T00:00:00+13:00..2026-01-12T00:00:00+13:00',
      '2025-12-29T00:00:00+13:00..2026-01-05T00:00:00+13:00',
    ]);
  });

  it('America/Los_Angeles: local midnights at -08:00', async () => {
    const { calls } = await weeklyPost('America/Los_Angeles', '2026-01-08T00:00:00Z', '2026-01-12T17:00:00Z');
    expect(calls[0]).toBe('2026-01-05T00:00:00-08:00..2026-01-12T00:00:00-08:00');
  });

  it('a DST-change week: each bound carries its own offset (a 167-hour week)', async () => {
    // Los Angeles springs forward on Sunday 2026-03-08.
    const { calls } = await weeklyPost('America/Los_Angeles', '2026-03-05T00:00:00Z', '2026-03-09T16:00:00Z');
    expect(calls[0]).toBe('2026-03-02T00:00:00-08:00..2026-03-09T00:00:00-07:00');
    const [from, to] = calls[0]!.split('..') as [string, string];
    expect((Date.parse(to) - Date.parse(from)) / 3_600_000).toBe(167);
  });

  it('Auckland leaving summer time: +13:00 to +12:00 within the week', async () => {
    const { calls } = await weeklyPost('Pacific/Auckland', '2026-04-01T00:00:00Z', '2026-04-05T21:00:00Z');
    expect(calls[0]).toBe('2026-03-30T00:00:00+13:00..2026-04-06T00:00:00+12:00');
  });
});

describe('range bounds and cache keys', () => {
  it('keeps bare days for UTC (ad-hoc reports, which name UTC in their header)', () => {
    const range = resolveRange({ kind: 'days', days: 7 }, at('2026-01-11T20:00:00Z'), 'UTC');
    expect(apiBounds(range)).toEqual({ dateFrom: '2026-01-04', dateTo: '2026-01-11' });
  });

  it('finds the start of a day whose midnight a DST change skips', () => {
    // Santiago springs forward at local midnight on 2026-09-06: the day begins at 01:00 (-03:00).
    expect(localInstant(startOfLocalDay('2026-09-06', 'America/Santiago'), 'America/Santiago')).toBe(
      '2026-09-06T01:00:00-03:00',
    );
    expect(localInstant(startOfLocalDay('2026-01-05', 'Asia/Kolkata'), 'Asia/Kolkata')).toBe(
      '2026-01-05T00:00:00+05:30',
    );
  });

  it('the same days in two time zones are two cache entries; the same zone is one', async () => {
    const timers = new ManualTimers(at('2026-01-11T20:00:00Z'));
    const analytics = analyticsAt(timers, []);
    const days = { from: '2026-01-05', toExclusive: '2026-01-12' };
    await analytics.views(days);
    await analytics.views({ ...days, timeZone: 'Pacific/Auckland' });
    await analytics.views({ ...days, timeZone: 'Pacific/Auckland' });
    expect(docs.requestsTo('GET', /\/views$/).map((r) => r.query.get('dateFrom'))).toEqual([
      '2026-01-05',
      '2026-01-05T00:00:00+13:00',
    ]);
  });

  it('a report posted from its button asks for the same instants; an unknown time zone is refused', () => {
    const request = {
      range: { from: '2026-01-05', toExclusive: '2026-01-12', timeZone: 'Pacific/Auckland' },
      label: 'Last 7 days',
      timeZone: 'Pacific/Auckland',
      top: 10,
      prefix: undefined,
    };
    const decoded = decodeReportRequest(encodeReportRequest(request));
    expect(apiBounds(decoded!.range)).toEqual(apiBounds(request.range));
    const forged = encodeReportRequest({ ...request, timeZone: 'Mars/Olympus' });
    expect(decodeReportRequest(forged)).toBeUndefined();
  });
});
