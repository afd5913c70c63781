import { describe, expect, it } from 'vitest';
import { buildReport, type ReportRequest } from '../../src/insights/page-views/report.js';
import type { PageViewRow, RangePageViews } from '../../src/insights/ports.js';
import { pageViewsReportMessage } from '../../src/slack/messages/page-views-report.js';
import { NO_GATE, withoutNewBlocks } from '../../src/slack/new-blocks.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

// biome-ignore lint/suspicious/noExplicitAny: inspecting Block Kit JSON
type Json = any;

const range = { from: '2025-03-03', toExclusive: '2025-03-10' };
const request: ReportRequest = { range, label: 'Last 7 days', timeZone: 'UTC', top: 10, prefix: undefined };
const row = (path: string, total: number): PageViewRow => ({ path, human: total - 10, ai: 10, total });

function views(pages: PageViewRow[], partial = false): RangePageViews {
  const total = pages.reduce((sum, p) => sum + p.total, 0);
  return { range, totals: { human: total, ai: 0, total }, pages, partial, requests: 1, fetchedAt: 0 };
}

/** The current week: a page up 20%, one down 5%, one level, one up 0.04%, one new. */
const current = views([
  row('/up', 1200),
  row('/down', 950),
  row('/level', 500),
  row('/nudge', 2501),
  row('/new', 300),
]);
const before = [row('/up', 1000), row('/down', 1000), row('/level', 500), row('/nudge', 2500)];

async function tableOf(report: ReturnType<typeof buildReport>) {
  const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: false, table: true });
  const withTable = (await NO_GATE.blocksFor(message.blocks)) as Json[];
  expect(checkMessage({ text: message.text, blocks: withTable })).toEqual({ ok: true });
  const table = withTable.find((b) => b.type === 'data_table');
  const byPath = new Map<string, Json>(table.rows.slice(1).map((cells: Json[]) => [cells[0].text, cells[2]]));
  return { message, header: table.rows[0].map((c: Json) => c.text), byPath };
}

describe('"vs last period" in the top pages', () => {
  it('gives each page its change on the period before, in the copy system, as a sortable number', async () => {
    const { header, byPath } = await tableOf(buildReport(request, current, undefined, views(before)));
    expect(header).toEqual(['Page', 'Views', 'vs last period', 'AI %']);
    expect(byPath.get('/up')).toEqual({ type: 'raw_number', value: 20, text: '▲ 20%' });
    expect(byPath.get('/down')).toEqual({ type: 'raw_number', value: -5, text: '▼ 5.0%' });
    expect(byPath.get('/level')).toEqual({ type: 'raw_number', value: 0, text: 'no change' });
    expect(byPath.get('/nudge')).toMatchObject({ type: 'raw_number', text: 'no change' });
    // Every page of the period before was read: one missing from it had no views then.
    expect(byPath.get('/new')).toEqual({ type: 'raw_text', text: 'new' });
  });

  it('says "—" where the period before is not known: unread, or only its first rows read', async () => {
    const unread = await tableOf(buildReport(request, current, undefined, undefined));
    expect([...unread.byPath.values()].every((cell) => cell.text === '—')).toBe(true);
    // Only the first page of a longer period: a page missing from it may be further down.
    const partial = await tableOf(buildReport(request, current, undefined, views(before, true)));
    expect(partial.byPath.get('/new')).toEqual({ type: 'raw_text', text: '—' });
    expect(partial.byPath.get('/up')?.text).toBe('▲ 20%');
  });

  it('the list in its place says the same figure in words', () => {
    const report = buildReport(request, current, undefined, views(before));
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: false });
    const list = JSON.stringify(withoutNewBlocks(message.blocks));
    expect(list).toContain('1,190 human · 10 AI · ▲ 20% on last period');
    expect(list).toMatch(/`\/up`[^\n]*· ▲ 20% on last period/);
    expect(list).toMatch(/`\/down`[^\n]*· ▼ 5\.0% on last period/);
    expect(list).toMatch(/`\/level`[^\n]*· no change on last period/);
    expect(list).toMatch(/`\/new`[^\n]*· new this period/);
    const unknown = pageViewsReportMessage(buildReport(request, current, undefined, undefined), {
      siteUrl: undefined,
      interactive: false,
    });
    expect(JSON.stringify(unknown.blocks)).not.toContain('last period');
  });
});
