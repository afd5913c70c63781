import { describe, expect, it } from 'vitest';
import { decodeReportRequest } from '../../src/insights/page-views/page-views-reports.js';
import { buildReport, type ReportRequest, toCsv } from '../../src/insights/page-views/report.js';
import type { RangePageViews } from '../../src/insights/ports.js';
import { LIMITS } from '../../src/slack/messages/limits.js';
import { pageViewsHelpMessage } from '../../src/slack/messages/page-views-help.js';
import { codeToken, invalidPageViewsCommandMessage } from '../../src/slack/messages/page-views-replies.js';
import {
  formatChange,
  pageViewsReportMessage,
  splitBar,
} from '../../src/slack/messages/page-views-report.js';
import { schedulesList } from '../../src/slack/messages/schedule-replies.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

function checkLimits(message: SlackMessage) {
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
  expect(checkMessage(message)).toEqual({ ok: true });
}

/** The blocks as plain JSON, to look inside them. */
// biome-ignore lint/suspicious/noExplicitAny: inspecting Block Kit JSON
const blocksOf = (message: SlackMessage): any[] => message.blocks;

function rangeViews(count: number, pathOf: (i: number) => string): RangePageViews {
  const pages = Array.from({ length: count }, (_, i) => ({
    path: pathOf(i),
    human: (count - i) * 7,
    ai: (count - i) * 3,
    total: (count - i) * 10,
  }));
  return {
    range: { from: '2025-03-03', toExclusive: '2025-03-10' },
    totals: pages.reduce(
      (t, p) => ({ human: t.human + p.human, ai: t.ai + p.ai, total: t.total + p.total }),
      {
        human: 0,
        ai: 0,
        total: 0,
      },
    ),
    pages,
    partial: false,
    requests: 1,
    fetchedAt: Date.parse('2025-03-10T09:00:00Z'),
  };
}

const request = (overrides: Partial<ReportRequest> = {}): ReportRequest => ({
  range: { from: '2025-03-03', toExclusive: '2025-03-10' },
  label: 'Last 7 days',
  timeZone: 'UTC',
  top: 10,
  prefix: undefined,
  ...overrides,
});

describe('report view', () => {
  it('shows header with range and zone, totals with change, ranked pages with links and bars, and a footer', () => {
    const views = rangeViews(30, (i) => `/docs/page-${i}`);
    const report = buildReport(request({ top: 3 }), views, { human: 100, ai: 100, total: 200 });
    const message = pageViewsReportMessage(report, { siteUrl: 'https://docs.acme.dev/', interactive: true });
    checkLimits(message);
    const json = JSON.stringify(message.blocks);
    expect(blocksOf(message)[0].text.text).toBe('Page views · Last 7 days: 3–9 Mar 2025 (UTC)');
    expect(json).toContain(
      '*1.* <https://docs.acme.dev/docs/page-0|/docs/page-0>  *300*  `███████░░░` 210 human · 90 AI',
    );
    expect(json).toContain('*3.* <https://docs.acme.dev/docs/page-2|/docs/page-2>');
    expect(json).not.toContain('page-3|');
    expect(json).toContain('vs previous 7 days');
    expect(json).toContain('*AI share*\\n30% (▼ 20 pts)');
    expect(json).toContain('30 pages counted');
    expect(json).toContain('Post to channel');
    expect(message.text).toContain('Top page: /docs/page-0 (300)');
  });

  it('writes singular counts in the singular', () => {
    const views = rangeViews(1, (i) => `/docs/only-${i}`);
    const report = buildReport(request({ top: 5, prefix: '/docs' }), views, undefined);
    const json = JSON.stringify(
      pageViewsReportMessage(report, { siteUrl: undefined, interactive: false }).blocks,
    );
    expect(json).toContain('*Top 1 page under `/docs`*');
    expect(json).toContain('1 page counted');
    expect(json).toContain('1 page ·');
    expect(json).not.toMatch(/\b1 pages\b/);
  });

  it('groups thousands as en-US does', () => {
    const views = rangeViews(1, () => '/big');
    const big = { ...views, totals: { human: 1_234_567, ai: 1_000, total: 1_235_567 } };
    const report = buildReport(request({ top: 1 }), big, { human: 999, ai: 0, total: 999 });
    const json = JSON.stringify(
      pageViewsReportMessage(report, { siteUrl: undefined, interactive: false }).blocks,
    );
    expect(json).toContain('*Total views*\\n1,235,567');
    expect(json).toContain('*Human*\\n1,234,567');
    expect(json).toContain('*AI*\\n1,000');
  });

  it('stays within Block Kit limits for top 50 with very long, hostile paths', () => {
    expect.hasAssertions();
    const long = (i: number) => `/${'x'.repeat(2000)}<!channel>|*_${i}`;
    const views = { ...rangeViews(10_000, long), partial: true };
    const report = buildReport(request({ top: 50, prefix: `/${'x'.repeat(199)}` }), views, undefined);
    const message = pageViewsReportMessage(report, { siteUrl: 'https://docs.acme.dev', interactive: true });
    checkLimits(message);
    const json = JSON.stringify(message);
    expect(json).not.toContain('<!channel>');
    expect(json).toContain('Partial');
    // 50 such rows would break Slack's ~12,000-character total (msg_blocks_too_long): fewer, and said so.
    expect(json).toMatch(/Showing the top \d+ of 50 pages/);
    expect(json).toContain('Post to channel');
    expect(json).toContain("raise docs-agent's page cap");
    expect(report.top).toHaveLength(50);
  });

  it('without a site URL shows paths as code, and says when nothing matched a prefix', () => {
    const views = rangeViews(5, (i) => `/guides/${i}`);
    const plain = pageViewsReportMessage(buildReport(request(), views, undefined), {
      siteUrl: undefined,
      interactive: false,
    });
    checkLimits(plain);
    expect(JSON.stringify(plain.blocks)).toContain('`/guides/0`');
    expect(JSON.stringify(plain.blocks)).not.toContain('Post to channel');
    const empty = pageViewsReportMessage(buildReport(request({ prefix: '/api' }), views, undefined), {
      siteUrl: undefined,
      interactive: true,
    });
    expect(JSON.stringify(empty.blocks)).toContain('No page under `/api` has views');
  });

  it('puts the request, not the report, in the button value, and reads it back', () => {
    const req = request({ prefix: '/api', top: 50, timeZone: 'America/Argentina/ComodRivadavia' });
    const message = pageViewsReportMessage(
      buildReport(
        req,
        rangeViews(3, (i) => `/api/${i}`),
        undefined,
      ),
      {
        siteUrl: undefined,
        interactive: true,
      },
    );
    const button = blocksOf(message).find((b) => b.type === 'actions').elements[0];
    // The range keeps the report's time zone, so the posted copy asks the API for the same instants.
    expect(decodeReportRequest(button.value)).toEqual({
      ...req,
      range: { ...req.range, timeZone: req.timeZone },
    });
    expect(
      decodeReportRequest('{"f":"2025-03-10","t":"2025-03-03","l":"x","z":"UTC","n":5}'),
    ).toBeUndefined();
    expect(decodeReportRequest('not json')).toBeUndefined();
  });

  it('draws the human/AI bar and the change', () => {
    expect(splitBar(70, 30)).toBe('███████░░░');
    expect(splitBar(0, 0)).toBe('░░░░░░░░░░');
    expect(formatChange(120, 100)).toBe('▲ 20%');
    expect(formatChange(50, 100)).toBe('▼ 50%');
    expect(formatChange(10, 0)).toBe('new');
  });

  it('writes a CSV of every matching page, escaped and safe for spreadsheets', () => {
    const csv = toCsv(
      [
        { path: '/a,b', human: 2, ai: 1, total: 3 },
        { path: '/q"x', human: 1, ai: 0, total: 1 },
        { path: '-cmd', human: 1, ai: 0, total: 1 },
      ],
      undefined,
    );
    expect(csv).toBe('rank,path,total,human,ai\r\n1,"/a,b",3,2,1\r\n2,"/q""x",1,1,0\r\n3,\'-cmd,1,1,0\r\n');
  });
});

describe('help and replies', () => {
  it('explains the whole grammar with examples, within limits', () => {
    const help = pageViewsHelpMessage('/docs-views');
    checkLimits(help);
    const json = JSON.stringify(help.blocks);
    for (const part of [
      '7d',
      '30d',
      '90d',
      'yesterday',
      'last-week',
      'this-month',
      'last-month',
      'top N',
      'csv',
      'schedule',
      'unschedule',
      'schedules',
      '/api',
    ]) {
      expect(json).toContain(part);
    }
  });

  it('names the exact token, escaped so it can never ping', () => {
    const message = invalidPageViewsCommandMessage('/docs-views', '<!here>`x', 'is not a range');
    expect(message).toContain('`&lt;!here&gt;ˋx`');
    expect(message).not.toContain('<!here>');
    expect(codeToken('a'.repeat(500)).length).toBeLessThan(100);
  });

  it('lists schedules with their local times', () => {
    const text = schedulesList(
      [
        {
          channelId: 'C1',
          cron: '0 9 * * 1',
          timeZone: 'Europe/Berlin',
          createdBy: 'U1',
          createdAt: 0,
          source: 'command',
          nextRun: Date.parse('2025-03-31T07:00:00Z'),
        },
      ],
      'C1',
    );
    expect(text).toContain('<#C1> (this channel): every Monday at 09:00 (Europe/Berlin), by <@U1>');
  });

  it('describes a cron with a named weekday (as in .env.example) like a numeric one', () => {
    const text = schedulesList(
      [
        {
          channelId: 'C2',
          cron: '0 9 * * MON',
          timeZone: 'UTC',
          createdBy: 'U1',
          createdAt: 0,
          source: 'env',
          nextRun: undefined,
        },
        {
          channelId: 'C3',
          cron: '30 17 * * fri',
          timeZone: 'UTC',
          createdBy: 'U1',
          createdAt: 0,
          source: 'env',
          nextRun: undefined,
        },
        {
          channelId: 'C4',
          cron: '0 9 * * 1-5',
          timeZone: 'UTC',
          createdBy: 'U1',
          createdAt: 0,
          source: 'env',
          nextRun: undefined,
        },
      ],
      'C1',
    );
    expect(text).toContain('<#C2>: every Monday at 09:00 (UTC)');
    expect(text).toContain('<#C3>: every Friday at 17:30 (UTC)');
    expect(text).toContain('<#C4>: every cron `0 9 * * 1-5` (UTC)');
  });
});
