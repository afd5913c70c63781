import { describe, expect, it, vi } from 'vitest';
import { AnalyticsBudgetError } from '../../../src/insights/analytics-source.js';
import { parseHealthCommand } from '../../../src/insights/health/health-reports.js';
import { buildHealthReport } from '../../../src/insights/health/report.js';
import { type DocsHealthDeps, docsHealthCommand } from '../../../src/slack/listeners/commands/docs-health.js';
import { access, allText, answers, CHANNEL, only, recordingLogger, slashCommand } from './fakes.js';

const NOW = Date.UTC(2025, 2, 10, 12);
const REPORT = buildHealthReport({
  dateFrom: '2025-03-03',
  dateTo: '2025-03-10',
  searches: [
    {
      searchQuery: 'rotate keys',
      hits: 40,
      ctr: 0,
      topClickedPage: null,
      lastSearchedAt: '2025-03-05T00:00:00Z',
    },
  ],
  totalSearches: 400,
  pages: [],
  feedback: [],
  conversations: [],
  partial: [],
  requests: 4,
} as never);

function setup(report: () => Promise<unknown> = async () => REPORT) {
  const reports = {
    now: () => NOW,
    report: vi.fn(report),
    inChannel: (request: object, channelId: string | undefined) => ({
      ...request,
      projectId: `proj_of_${channelId}`,
    }),
  };
  const weekly = {
    schedule: vi.fn(async (input: { kind?: string; channelId: string }) => ({
      schedule: {
        ...input,
        cron: '0 9 * * 1',
        timeZone: 'Europe/Berlin',
        createdBy: 'U1',
        createdAt: 0,
        source: 'command',
      },
      nextRun: undefined,
      replaced: false,
    })),
    unschedule: vi.fn(async () => true),
    list: vi.fn(async () => []),
  };
  const { logger } = recordingLogger();
  const deps: DocsHealthDeps = {
    access: access(),
    logger,
    limits: { analyticsPerHour: 100 },
    health: { reports: reports as never, weekly: weekly as never, siteUrl: undefined },
  };
  const { ack, respond, calls } = answers();
  const run = (text: string) =>
    docsHealthCommand(deps)({ command: slashCommand('/docs-health', text), ack, respond });
  return { run, ack, respond, calls, reports, weekly };
}

describe('parseHealthCommand', () => {
  it('defaults to the last 7 days, top 5; takes a range and top 1–25; refuses page-views extras', () => {
    expect(parseHealthCommand('')).toEqual({
      kind: 'report',
      request: { range: { kind: 'days', days: 7 }, top: 5 },
    });
    expect(parseHealthCommand('30d top 25')).toEqual({
      kind: 'report',
      request: { range: { kind: 'days', days: 30 }, top: 25 },
    });
    expect(parseHealthCommand('top 26')).toMatchObject({ kind: 'invalid', token: '26' });
    expect(parseHealthCommand('/api')).toMatchObject({ kind: 'invalid', token: '/api' });
    expect(parseHealthCommand('csv')).toMatchObject({ kind: 'invalid', token: 'csv' });
    expect(parseHealthCommand('help')).toEqual({ kind: 'help' });
  });

  it('reads the weekly sub-commands with the /docs-views grammar and refusals', () => {
    expect(parseHealthCommand('schedule monday 09:00 Europe/Berlin')).toEqual({
      kind: 'schedule',
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'Europe/Berlin',
    });
    expect(parseHealthCommand('schedules')).toEqual({ kind: 'schedules' });
    expect(parseHealthCommand('unschedule')).toEqual({ kind: 'unschedule' });
    expect(parseHealthCommand('schedule funday 09:00')).toMatchObject({ kind: 'invalid', token: 'funday' });
    expect(parseHealthCommand('7d schedules')).toMatchObject({ kind: 'invalid', token: 'schedules' });
  });
});

describe('docsHealthCommand', () => {
  it('answers help and unreadable text in the acknowledgement, with no fetch', async () => {
    const t = setup();
    await t.run('help');
    expect(allText(only(t.ack))).toContain('top N');
    const u = setup();
    await u.run('top 0');
    expect(allText(only(u.ack))).toContain('1–25');
    expect(t.reports.report).not.toHaveBeenCalled();
    expect(u.reports.report).not.toHaveBeenCalled();
  });

  it('acknowledges, then responds with the report for the parsed request', async () => {
    const t = setup();
    await t.run('top 3');
    expect(t.calls).toEqual(['ack', 'respond']);
    expect(t.reports.report).toHaveBeenCalledWith({
      range: { kind: 'days', days: 7 },
      top: 3,
      projectId: `proj_of_${CHANNEL}`,
    });
    expect(allText(only(t.respond))).toContain('rotate keys');
  });

  it('schedules and unschedules the channel’s docs-health post, never the page-view one', async () => {
    const t = setup();
    await t.run('schedule monday 09:00 Europe/Berlin');
    expect(t.weekly.schedule).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'health', channelId: CHANNEL, weekday: 1, hour: 9, minute: 0 }),
    );
    expect(allText(only(t.respond))).toContain('docs-health report');
    expect(allText(only(t.respond))).toContain('/docs-health unschedule');
    const u = setup();
    await u.run('unschedule');
    expect(u.weekly.unschedule).toHaveBeenCalledWith(CHANNEL, 'health');
    expect(allText(only(u.respond))).toContain('weekly docs-health post');
    expect(t.reports.report).not.toHaveBeenCalled();
  });

  it('over budget, says so and when it can run', async () => {
    const t = setup(async () => {
      throw new AnalyticsBudgetError(20 * 60_000);
    });
    await t.run('');
    const text = allText(only(t.respond));
    expect(text).toContain('analytics budget');
    expect(text).toMatch(/20 min/);
  });
});
