import type { KnownBlock, MrkdwnElement } from '@slack/types';
import { encodeReportRequest } from '../../insights/page-views/page-views-reports.js';
import { aiShare, type PageViewsReport } from '../../insights/page-views/report.js';
import type { PageViewsTotals } from '../../insights/ports.js';
import { daysBetween } from '../../insights/ranges/dates.js';
import { formatChange as copyChange, formatPercentChange } from '../copy/changes.js';
import { formatShare } from '../copy/counts.js';
import { formatDayRange } from '../copy/dates.js';
import { defuseLinks, escapeMrkdwn } from '../markup.js';
import { STAND_IN_PREFIX } from '../new-blocks.js';
import { displayCount, slackTime } from './format.js';
import { HEADLINE_BLOCK_ID, pageViewsHeadline, reportPeriod } from './headlines.js';
import { blockTextLength, LIMITS, oneLine, TOTAL_BLOCK_TEXT, truncate } from './limits.js';
import { n, pageUrl, plural, topPagesList } from './top-pages-list.js';
import { topPagesTable } from './top-pages-table.js';
import { chartMissingNote, viewsTrendChart } from './trend-chart.js';
import type { MessageBlock, SlackMessage } from './types.js';

export const POST_REPORT_ACTION = 'docs_views_post';
/** The private report's **CSV** (every page, to the clicker's DM) and **Schedule…** buttons. */
export const CSV_REPORT_ACTION = 'docs_views_csv';
export const SCHEDULE_REPORT_ACTION = 'docs_views_schedule';

export { pageUrl, plural, splitBar } from './top-pages-list.js';
export interface PageViewsReportMessageOptions {
  /** DOCS_SITE_URL: paths become links when set. */
  siteUrl: string | undefined;
  /** Ephemeral reports carry the "Post to channel" button. */
  interactive: boolean;
  requestedBy?: string;
  /**
   * Top pages as a `data_table`, the list as its stand-in (sent only where Slack refuses the table): for
   * senders behind the new-blocks gate.
   */
  table?: boolean;
}

/** The copy system's change ("▲ 12%", "▼ 3.4%", "no change", "new"). */
export function formatChange(current: number, previous: number | undefined): string {
  return copyChange(displayCount(current), previous === undefined ? undefined : displayCount(previous));
}

const capitalise = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** Room kept for the note that says rows were left out. */
const SHORTENED_NOTE_ROOM = 200;

function totalsFields(
  totals: PageViewsTotals,
  previous: PageViewsTotals | undefined,
  periodDays: string,
): MrkdwnElement[] {
  const vs = previous ? ` vs previous ${periodDays}` : '';
  const share = aiShare(totals);
  const previousShare = previous ? aiShare(previous) : undefined;
  const shareChange =
    previousShare === undefined
      ? ''
      : ` (${formatPercentChange(share - previousShare).replace('%', ' pts')})`;
  return [
    {
      type: 'mrkdwn',
      text: `*Total views*\n${n(totals.total)}  ${previous ? `${formatChange(totals.total, previous.total)}${vs}` : ''}`.trim(),
    },
    {
      type: 'mrkdwn',
      text: `*Human*\n${n(totals.human)}  ${previous ? formatChange(totals.human, previous.human) : ''}`.trim(),
    },
    {
      type: 'mrkdwn',
      text: `*AI*\n${n(totals.ai)}  ${previous ? formatChange(totals.ai, previous.ai) : ''}`.trim(),
    },
    { type: 'mrkdwn', text: `*AI share*\n${formatShare(share / 100)}${shareChange}` },
  ];
}

/** The page-view report: header, headline, totals, top pages, footer, and (ephemeral) Post, CSV and Schedule buttons. */
export function pageViewsReportMessage(
  report: PageViewsReport,
  options: PageViewsReportMessageOptions,
): SlackMessage {
  const { request } = report;
  const dates = formatDayRange(request.range.from, request.range.toExclusive);
  const days = daysBetween(request.range.from, request.range.toExclusive);
  const periodDays = `${days} day${days === 1 ? '' : 's'}`;
  const prefix = request.prefix ? escapeMrkdwn(oneLine(request.prefix, 200)).replace(/`/g, 'ˋ') : undefined;
  const blocks: MessageBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        // Several projects configured: the report names the one it read.
        text: truncate(
          `Page views · ${report.project ? `${report.project} · ` : ''}${request.label}: ${dates} (${request.timeZone})`,
          LIMITS.headerText,
        ),
        emoji: true,
      },
    },
    {
      type: 'section',
      block_id: HEADLINE_BLOCK_ID,
      text: { type: 'mrkdwn', text: pageViewsHeadline(report, reportPeriod(request.label, dates, days)) },
    },
    { type: 'section', fields: totalsFields(report.totals, report.previousTotals, periodDays) },
  ];
  if (report.prefixTotals && prefix) {
    const t = report.prefixTotals;
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Pages under \`${prefix}\`:* ${plural(t.pages, 'page')} · ${n(t.total)} views (${n(t.human)} human · ${n(t.ai)} AI · ${formatShare(aiShare(t) / 100)} AI)`,
      },
    });
  }
  // The chart adds to the numbers above and never replaces them: its peak is said in words too.
  const trend = report.trend ? viewsTrendChart(report.trend) : undefined;
  if (trend) blocks.push(trend.chart, trend.note);
  else if (report.chartMissing) blocks.push(chartMissingNote(report.chartMissing, report.chartReads));
  blocks.push({ type: 'divider' });
  const tail: KnownBlock[] = [];
  const footer = [
    `${plural(report.pagesCounted, 'page')} counted`,
    `generated ${slackTime(report.generatedAt)}`,
    ...(options.requestedBy ? [`requested by <@${options.requestedBy}>`] : []),
  ].join(' · ');
  tail.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer }] });
  if (report.partial) {
    tail.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:warning: Partial: the page cap stopped at ${plural(report.pagesCounted, 'page')}, so pages beyond it are missing from the ranking (totals are complete). A path prefix narrows the report, or a workspace admin can raise docs-agent's page cap.`,
        },
      ],
    });
  }
  if (options.interactive) {
    tail.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: POST_REPORT_ACTION,
          text: { type: 'plain_text', text: 'Post to channel' },
          value: encodeReportRequest(request),
        },
        {
          type: 'button',
          action_id: CSV_REPORT_ACTION,
          text: { type: 'plain_text', text: 'CSV' },
          value: encodeReportRequest(request),
          accessibility_label: 'Send me a CSV of every page, privately',
        },
        {
          type: 'button',
          action_id: SCHEDULE_REPORT_ACTION,
          text: { type: 'plain_text', text: 'Schedule…' },
          value: 'page_views',
        },
      ],
    });
  }
  if (report.top.length === 0) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: prefix
          ? `No page under \`${prefix}\` has views in this range.`
          : 'No page has views in this range.',
      },
    });
  } else {
    // Slack refuses a message whose blocks hold more than about 12,000 characters in all
    // (`msg_blocks_too_long`), so the ranking gets what the rest leaves, and says when rows are left out.
    // With a table, one block less: the message holds both, though Slack gets one or the other.
    const budget = TOTAL_BLOCK_TEXT - blockTextLength(blocks) - blockTextLength(tail) - SHORTENED_NOTE_ROOM;
    const room = LIMITS.blocks - blocks.length - tail.length - 1 - (options.table ? 1 : 0);
    const under = prefix ? ` under \`${prefix}\`` : '';
    const list = topPagesList(report.top, options.siteUrl, budget, room, under);
    const table = options.table
      ? topPagesTable(
          report.top,
          (path) => pageUrl(options.siteUrl, path),
          TOTAL_BLOCK_TEXT - blockTextLength(blocks) - blockTextLength(tail),
          (k) =>
            `Top ${plural(k, 'page')}${prefix ? ` under ${oneLine(request.prefix ?? '', 100)}` : ''}${k < report.top.length ? ` of ${n(report.top.length)}` : ''}`,
        )
      : undefined;
    if (table) blocks.push(table.block);
    // Beside a table the list is its stand-in: sent only where Slack refuses the table.
    const id = (i: number) => (table ? { block_id: `${STAND_IN_PREFIX}top_pages_${i}` } : {});
    list.texts.forEach((text, i) => {
      blocks.push({ type: 'section', ...id(i), text: { type: 'mrkdwn', text } });
    });
    if (list.notes.length > 0) {
      tail.unshift({
        type: 'context',
        ...id(list.texts.length),
        elements: [
          {
            type: 'mrkdwn',
            text: `:information_source: ${capitalise(list.notes.join('; '))}: Slack limits how long a message can be. Add \`csv\` to the command for every page.`,
          },
        ],
      });
    }
  }
  const topPage = report.top[0];
  const text = truncate(
    `Page views${report.project ? ` (${report.project})` : ''} ${dates} (${request.timeZone})${request.prefix ? ` under ${request.prefix}` : ''}: ${n(report.totals.total)} total, ${n(report.totals.human)} human, ${n(report.totals.ai)} AI${trend ? `. ${trend.peak}` : ''}${topPage ? `. Top page: ${defuseLinks(oneLine(topPage.path, 200))} (${n(topPage.total)})` : ''}`,
    LIMITS.fallbackText,
  );
  return { text: escapeMrkdwn(text), blocks: [...blocks, ...tail] };
}
