import { vi } from 'vitest';
import type { PageViewsReport, ReportRequest } from '../../../src/insights/page-views/report.js';
import type { WeeklySchedule } from '../../../src/insights/ports.js';
import type { SlackDeps } from '../../../src/slack/listeners/deps.js';

/** A resolved request for the last 30 days, top 5 under /api. */
export const REQUEST: ReportRequest = {
  range: { from: '2026-10-24', toExclusive: '2026-11-23' },
  label: 'Last 30 days',
  timeZone: 'UTC',
  top: 5,
  prefix: undefined,
};

export const REPORT: PageViewsReport = {
  request: REQUEST,
  totals: { human: 900, ai: 300, total: 1200 },
  previousTotals: { human: 800, ai: 200, total: 1000 },
  prefixTotals: undefined,
  top: [
    { path: '/api/jobs', human: 500, ai: 100, total: 600, rank: 1 },
    { path: '/quickstart', human: 400, ai: 200, total: 600, rank: 2 },
  ],
  pagesCounted: 2,
  partial: false,
  generatedAt: Date.parse('2026-11-23T08:00:00Z'),
};

const NEXT_RUN = Date.parse('2026-11-30T08:00:00Z');

/** A channel's Monday 09:00 (Berlin) post, as `WeeklyReports.list` returns it. */
export function schedule(channelId: string, createdBy: string): WeeklySchedule & { nextRun: number } {
  return { ...weeklySchedule(channelId, createdBy), nextRun: NEXT_RUN };
}

function weeklySchedule(channelId: string, createdBy: string): WeeklySchedule {
  return {
    channelId,
    cron: '0 9 * * 1',
    timeZone: 'Europe/Berlin',
    createdBy,
    createdAt: Date.parse('2026-11-01T00:00:00Z'),
    source: 'command',
  };
}

/** Page-view use cases and weekly schedules as fakes: every report is `REPORT`. */
export function pageViewsFakes(schedules: Array<WeeklySchedule & { nextRun: number }> = []) {
  const analytics = {
    now: () => Date.parse('2026-11-23T09:00:00Z'),
    requestFor: vi.fn(() => REQUEST),
    report: vi.fn(async (): Promise<PageViewsReport> => REPORT),
    publish: vi.fn(async (): Promise<PageViewsReport> => REPORT),
    uploadCsv: vi.fn(async (): Promise<void> => undefined),
    inChannel: vi.fn((request: ReportRequest, channelId: string | undefined) => ({
      ...request,
      projectId: `proj_of_${channelId}`,
    })),
  };
  const weekly = {
    schedule: vi.fn(async (input: { channelId: string; userId: string }) => ({
      schedule: weeklySchedule(input.channelId, input.userId),
      nextRun: NEXT_RUN,
      replaced: false,
    })),
    unschedule: vi.fn(async () => true),
    removeSchedule: vi.fn(async () => ({ removed: true })),
    restore: vi.fn(async () => true),
    list: vi.fn(async (channelId?: string) =>
      channelId === undefined ? schedules : schedules.filter((s) => s.channelId === channelId),
    ),
  };
  const pageViews: SlackDeps['pageViews'] = { analytics, weekly, siteUrl: 'https://docs.acme.test' };
  return { analytics, weekly, pageViews };
}
