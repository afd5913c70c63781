import type { Button, KnownBlock } from '@slack/types';
import type { Evidence, EvidenceKind } from '../../insights/health/evidence.js';
import { encodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import type { HealthReport, HealthSection } from '../../insights/health/report.js';
import { daysBetween } from '../../insights/ranges/dates.js';
import { formatShare } from '../copy/counts.js';
import { defuseLinks, untrustedMrkdwn } from '../markup.js';
import { formatDayRange } from './dates.js';
import { displayCount, docsPageUrl, formatCount, mrkdwnLink } from './format.js';
import { HEADLINE_BLOCK_ID, healthHeadline, reportPeriod } from './headlines.js';
import { blockTextLength, LIMITS, oneLine, TOTAL_BLOCK_TEXT, truncate } from './limits.js';
import { chartMissingNote, healthTrendChart, searchesLaterNote } from './trend-chart.js';
import type { MessageBlock, SlackMessage } from './types.js';

/** Buttons of the rows: `health_fix_<kind>_<rank>` (unique in the message, as Slack wants action ids). */
export const HEALTH_FIX_ACTION_PREFIX = 'health_fix';
export const POST_HEALTH_ACTION = 'docs_health_post';
/** Page URLs longer than this are shown as text: 25 links must leave room for the rest of the report. */
const MAX_LINK_URL_CHARS = 300;

export interface HealthReportMessageOptions {
  /** DOCS_SITE_URL: paths become links when set. */
  siteUrl: string | undefined;
  /** A fix button per row (the ephemeral report and its channel copy; not the weekly post's buttons-free form). */
  fixButtons: boolean;
  /** Ephemeral reports only: "Post to channel", whose value asks for the same report (range and top N). */
  postValue?: string;
  requestedBy?: string;
}

// Not `toLocaleString`: a process's first call loads ICU's number data, one 20–40 ms task (issue 43, seen
// in §1's owed-answer burst); formatCount writes the same "1,234" without Intl.
const n = formatCount;
const pct = formatShare;
/** Reader text inside mrkdwn: no mentions, no links (bare URLs defused), no code spans breaking out. */
const quoted = (text: string, max: number) => untrustedMrkdwn(oneLine(text, max));

export function healthPageUrl(siteUrl: string | undefined, path: string): string | undefined {
  return /^https?:\/\//i.test(path) ? undefined : docsPageUrl(siteUrl, path, MAX_LINK_URL_CHARS);
}

/** "1 reader", "40 readers": a count and its noun, in readers' words. */
const counted = (value: number, one: string, many: string) =>
  `${n(value)} ${displayCount(value) === 1 ? one : many}`;

/** A row in readers' words: "40 searches with no useful result", "3 readers flagged this page". */
function rowLine(evidence: Evidence, rank: number, room: number, siteUrl: string | undefined): string {
  switch (evidence.kind) {
    case 'search': {
      const share = evidence.share === undefined ? '' : ` · ${pct(evidence.share)} of all searches`;
      return `*${rank}.* “${quoted(evidence.query, room)}”  *${counted(evidence.hits, 'search', 'searches')}* with no useful result${share}`;
    }
    case 'page': {
      const label = oneLine(evidence.path, room);
      // The URL counts toward Slack's total text too: when rows must shrink, long links become text.
      const url = healthPageUrl(siteUrl, evidence.path);
      // The link goes to the docs site; its label is reader text and is defused like any other.
      const path =
        url && url.length <= room * 2 ? mrkdwnLink(url, defuseLinks(label)) : `\`${quoted(label, room)}\``;
      const comments = evidence.comments
        .slice(0, room >= 100 ? 2 : 1)
        .map((c) => `\n>${quoted(c, room)}`)
        .join('');
      const helped =
        displayCount(evidence.thumbsUp) > 0 ? ` · ${n(evidence.thumbsUp)} found it useful 👍` : '';
      return `*${rank}.* ${path}  *${counted(evidence.thumbsDown, 'reader', 'readers')} flagged this page* 👎${helped}${comments}`;
    }
    case 'question':
      return `*${rank}.* “${quoted(evidence.question, room)}”  asked *${counted(evidence.asked, 'time', 'times')}*, no answer found`;
  }
}

const TITLES: Record<EvidenceKind, { title: string; empty: string }> = {
  search: { title: 'Searches that found nothing', empty: 'No search went without a result in this range.' },
  page: { title: 'Pages readers flag', empty: 'No page got a 👎 in this range.' },
  question: {
    title: 'Questions the assistant could not answer',
    empty: 'The assistant answered every question in this range.',
  },
};

/** Lines packed into as few section texts as fit Slack's 3000 characters each. */
function packLines(lines: string[]): string[] {
  const texts: string[] = [];
  let current = '';
  for (const line of lines) {
    const next = current ? `${current}\n${line}` : line;
    if (next.length > LIMITS.sectionText && current) {
      texts.push(current);
      current = line;
    } else current = next;
  }
  if (current) texts.push(current);
  return texts;
}

function sectionBlocks(
  section: HealthSection<Evidence>,
  kind: EvidenceKind,
  room: number,
  options: HealthReportMessageOptions,
  refs: string[] | undefined,
  perRow: boolean,
): KnownBlock[] {
  const { title, empty } = TITLES[kind];
  const shown = section.rows.length;
  const count = section.total > shown ? ` (top ${shown} of ${n(section.total)})` : '';
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*${title}*${count}` } }];
  if (shown === 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `_${empty}_` }] });
    return blocks;
  }
  const value = (row: Evidence, i: number) => refs?.[i] ?? encodeEvidenceRef(row);
  const actionId = (i: number) => `${HEALTH_FIX_ACTION_PREFIX}_${kind}_${i + 1}`;
  if (options.fixButtons && perRow) {
    // Each row its own section with its Fix button beside it, as people expect of a list of fixable items.
    section.rows.forEach((row, i) => {
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(rowLine(row, i + 1, room, options.siteUrl), LIMITS.sectionText),
        },
        accessory: {
          type: 'button',
          action_id: actionId(i),
          text: { type: 'plain_text', text: 'Fix' },
          // The evidence's id in the store; the evidence itself only when the report has no ids.
          value: value(row, i),
          accessibility_label: `Start a job to fix row ${i + 1}`,
        },
      });
    });
    return blocks;
  }
  const lines = section.rows.map((row, i) => rowLine(row, i + 1, room, options.siteUrl));
  for (const text of packLines(lines)) blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
  if (options.fixButtons) {
    // More rows than Slack's 50 blocks allow a section each (top 17 and more): numbered buttons under the list.
    const buttons: Button[] = section.rows.map((row, i) => ({
      type: 'button',
      action_id: actionId(i),
      text: { type: 'plain_text', text: `Fix #${i + 1}` },
      value: value(row, i),
    }));
    blocks.push({ type: 'actions', block_id: `health_fix_${kind}`, elements: buttons });
  }
  return blocks;
}

/**
 * The `/docs-health` report: three sections (each saying so when empty), a fix button per row and, when
 * ephemeral, "Post to channel". Texts shrink until the message fits Slack's total-text limit, so 25 rows
 * per section with long queries, paths and comments still post.
 */
export function healthReportMessage(report: HealthReport, options: HealthReportMessageOptions): SlackMessage {
  const range = formatDayRange(report.range.from, report.range.toExclusive);
  const period = reportPeriod(undefined, range, daysBetween(report.range.from, report.range.toExclusive));
  const partial =
    report.partial.length > 0
      ? ` · Some rows may be missing (the platform had more: ${report.partial.join(', ')}).`
      : '';
  const by = options.requestedBy ? ` · Requested by <@${options.requestedBy}>` : '';
  // The chart adds to the sections and never replaces them: its totals and peak are said in words too.
  const trend = report.trend ? healthTrendChart(report.trend) : undefined;
  // A section per row while the message stays within Slack's 50 blocks (header, headline, context, up to 3
  // chart blocks, 3 titles, 2 dividers and the Post button take at most 12).
  const rows = report.searches.rows.length + report.pages.rows.length + report.questions.rows.length;
  const perRow = rows + 12 <= LIMITS.blocks;
  for (let room = 300; ; room = Math.floor(room * 0.8)) {
    const blocks: MessageBlock[] = [
      {
        type: 'header',
        // Several projects configured: the report names the one it read.
        text: {
          type: 'plain_text',
          text: truncate(`Docs health${report.project ? ` · ${report.project}` : ''}`, LIMITS.headerText),
        },
      },
      {
        type: 'section',
        block_id: HEADLINE_BLOCK_ID,
        text: { type: 'mrkdwn', text: truncate(healthHeadline(report, period), LIMITS.sectionText) },
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `${range} · ${n(report.totalSearches)} searches${by}${partial}` }],
      },
      ...(trend
        ? [
            trend.chart,
            trend.note,
            ...(report.trend?.searchesLater ? [searchesLaterNote(report.trend.searchesLater)] : []),
          ]
        : report.chartMissing
          ? [chartMissingNote(report.chartMissing)]
          : []),
      ...sectionBlocks(report.searches, 'search', room, options, report.refs?.search, perRow),
      { type: 'divider' },
      ...sectionBlocks(report.pages, 'page', room, options, report.refs?.page, perRow),
      { type: 'divider' },
      ...sectionBlocks(report.questions, 'question', room, options, report.refs?.question, perRow),
    ];
    if (options.postValue !== undefined) {
      blocks.push({
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: POST_HEALTH_ACTION,
            text: { type: 'plain_text', text: 'Post to channel' },
            value: options.postValue.slice(0, LIMITS.buttonValue),
          },
        ],
      });
    }
    if (blockTextLength(blocks) <= TOTAL_BLOCK_TEXT || room <= 20) {
      const text = `Docs health${report.project ? ` (${report.project})` : ''} ${range}: ${report.searches.total} searches without result, ${report.pages.total} flagged pages, ${report.questions.total} unanswered questions${trend ? `. ${trend.peak}` : ''}`;
      return { text, blocks };
    }
  }
}
