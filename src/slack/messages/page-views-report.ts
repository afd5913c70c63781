import type { KnownBlock, MrkdwnElement } from '@slack/types';
import { encodeReportRequest } from '../../insights/page-views/page-views-reports.js';
import { aiShare, type PageViewsReport, type RankedPage } from '../../insights/page-views/report.js';
import type { PageViewsTotals } from '../../insights/ports.js';
import { daysBetween } from '../../insights/ranges/dates.js';
import { formatChange as copyChange, formatPercentChange } from '../copy/changes.js';
import { formatShare } from '../copy/counts.js';
import { formatDayRange } from '../copy/dates.js';
import { defuseLinks, escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { displayCount, docsPageUrl, mrkdwnLink, slackTime } from './format.js';
import { blockTextLength, LIMITS, oneLine, TOTAL_BLOCK_TEXT, truncate } from './limits.js';
import { chartMissingNote, viewsTrendChart } from './trend-chart.js';
import type { MessageBlock, SlackMessage } from './types.js';

export const POST_REPORT_ACTION = 'docs_views_post';
const BAR_CELLS = 10;
const MAX_PATH_CHARS = 150;
/** Longer page URLs are shown as text: 50 lines must fit in a few sections. */
const MAX_LINK_URL_CHARS = 500;

export interface PageViewsReportMessageOptions {
  /** DOCS_SITE_URL: paths become links when set. */
  siteUrl: string | undefined;
  /** Ephemeral reports carry the "Post to channel" button. */
  interactive: boolean;
  requestedBy?: string;
}

/**
 * `1,502,500`: en-US grouping; plain integers without Intl (a report formats dozens of numbers). The spec
 * types counts as any number, so fractions are rounded for display.
 */
const n = (value: number) => {
  const rounded = displayCount(value);
  return Number.isSafeInteger(rounded)
    ? String(rounded).replace(/\B(?=(\d{3})+$)/g, ',')
    : rounded.toLocaleString('en-US');
};

/** `█████░░░░░`: the human (█) and AI (░) split of a page's views. */
export function splitBar(human: number, ai: number, cells = BAR_CELLS): string {
  // Spec-valid negatives (`-107`) once made `repeat` throw: the bar is drawn from counts clamped at 0.
  const h = displayCount(human);
  const all = h + displayCount(ai);
  const humanCells = all === 0 ? 0 : Math.min(cells, Math.max(0, Math.round((h / all) * cells)));
  return `${'█'.repeat(humanCells)}${'░'.repeat(cells - humanCells)}`;
}

/** The copy system's change ("▲ 12%", "▼ 3.4%", "no change", "new"). */
export function formatChange(current: number, previous: number | undefined): string {
  return copyChange(displayCount(current), previous === undefined ? undefined : displayCount(previous));
}

export function pageUrl(siteUrl: string | undefined, path: string): string | undefined {
  return docsPageUrl(siteUrl, path, MAX_LINK_URL_CHARS);
}

function pageLine(page: RankedPage, siteUrl: string | undefined): string {
  const label = truncate(oneLine(page.path, MAX_PATH_CHARS), MAX_PATH_CHARS);
  const url = pageUrl(siteUrl, page.path);
  // Paths are outside text: defused as link labels and as code (Slack links bare URLs and domains).
  const path = url ? mrkdwnLink(url, defuseLinks(label)) : `\`${untrustedMrkdwn(label)}\``;
  return `*${page.rank}.* ${path}  *${n(page.total)}*  \`${splitBar(page.human, page.ai)}\` ${n(page.human)} human · ${n(page.ai)} AI`;
}

/** `1 page`, `1,204 pages`. */
export function plural(count: number, noun: string): string {
  return `${n(count)} ${noun}${count === 1 ? '' : 's'}`;
}

const capitalise = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** Room kept for the note that says rows were left out. */
const SHORTENED_NOTE_ROOM = 200;

/**
 * The title and as many rows as fit in `budget` characters and `sections` section blocks; the title is
 * written for the number of rows shown.
 */
function fitRows(lines: string[], budget: number, sections: number, title: (k: number) => string): string[] {
  let count = lines.length;
  for (;;) {
    const candidate = [title(count), ...lines.slice(0, count)];
    const packed = packLines(candidate);
    if (count === 0 || (packed.join('').length <= budget && packed.length <= sections)) return candidate;
    count -= 1;
  }
}

/** Lines packed into as few sections as fit Slack's 3,000-character section limit. */
function packLines(lines: string[]): string[] {
  const sections: string[] = [];
  let current = '';
  for (const line of lines) {
    const safe = truncate(line, LIMITS.sectionText);
    if (current && current.length + 1 + safe.length > LIMITS.sectionText) {
      sections.push(current);
      current = safe;
    } else {
      current = current ? `${current}\n${safe}` : safe;
    }
  }
  if (current) sections.push(current);
  return sections;
}

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

/** The page-view report: header, totals with change, top pages, footer, and (ephemeral) a post button. */
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
    const budget = TOTAL_BLOCK_TEXT - blockTextLength(blocks) - blockTextLength(tail) - SHORTENED_NOTE_ROOM;
    const room = LIMITS.blocks - blocks.length - tail.length - 1;
    const under = prefix ? ` under \`${prefix}\`` : '';
    const linked = report.top.map((p) => pageLine(p, options.siteUrl));
    const plain = options.siteUrl ? report.top.map((p) => pageLine(p, undefined)) : linked;
    // Links cost characters: the first rows keep theirs while the rest still fit as plain rows.
    let plainRest = plain.reduce((sum, line) => sum + line.length + 1, 0);
    let used = 0;
    let linkedRows = 0;
    const lines = report.top.map((_, i) => {
      plainRest -= plain[i]!.length + 1;
      const line = used + linked[i]!.length + 1 + plainRest <= budget ? linked[i]! : plain[i]!;
      if (line === linked[i]) linkedRows = i + 1;
      used += line.length + 1;
      return line;
    });
    const shown = fitRows(lines, budget, room, (k) => `*Top ${plural(k, 'page')}${under}* (█ human · ░ AI)`);
    for (const text of packLines(shown)) blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
    const rows = shown.length - 1;
    const notes: string[] = [];
    if (rows < report.top.length)
      notes.push(`Showing the top ${rows} of ${plural(report.top.length, 'page')}`);
    if (options.siteUrl && linkedRows < Math.min(rows, report.top.length))
      notes.push(`${linkedRows === 0 ? 'pages' : `pages ${linkedRows + 1}–${rows}`} are shown without links`);
    if (notes.length > 0) {
      tail.unshift({
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `:information_source: ${capitalise(notes.join('; '))}: Slack limits how long a message can be. Add \`csv\` to the command for every page.`,
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
