import type { KnownBlock, ModalView } from '@slack/types';
import { healthReportCommandText } from '../../insights/health/health-reports.js';
import type { HealthReport } from '../../insights/health/report.js';
import { encodeReportRequest } from '../../insights/page-views/page-views-reports.js';
import type { PageViewsReport } from '../../insights/page-views/report.js';
import { withoutNewBlocks } from '../new-blocks.js';
import { healthReportMessage } from './health-report.js';
import { LIMITS, truncate } from './limits.js';
import { pageViewsReportMessage } from './page-views-report.js';
import type { MessageBlock } from './types.js';

/** Slack's block limit of a modal (a report message holds at most 50, plus the next step). */
const MODAL_BLOCKS = 100;

/** Which report a Home button opens. */
export type HomeReportKind = 'views' | 'health';

/** The report modal's Post to channel: its submission posts the same report where the person picks. */
export const HOME_REPORT_POST_CALLBACK = 'home_report_post';
export const HOME_POST_CHANNEL_BLOCK = 'home_post_channel';
export const HOME_POST_CHANNEL_ACTION = 'channel';

/** What the submission needs back: which report, and its request as the report's own buttons carry it. */
export interface HomeReportPostMetadata {
  kind: HomeReportKind;
  /** `encodeReportRequest` (page views) or `/docs-health` text of the report's own days and top N. */
  request: string;
}

const TITLES: Record<HomeReportKind, string> = { views: 'Page views', health: 'Docs health' };
const LOADING: Record<HomeReportKind, string> = {
  views: ":hourglass_flowing_sand: Reading this week's page views…",
  health: ':hourglass_flowing_sand: Reading where readers got stuck this week…',
};
/** The next step a report in a modal offers: the same report in a channel has the buttons to share it. */
const NEXT_STEP: Record<HomeReportKind, string> = {
  views:
    'For the CSV or a weekly post, run `/docs-views` in a channel: its report has *CSV* and *Schedule…*.',
  health:
    "To fix a gap, press *Fix* on Home's top gap, or run `/docs-health` in a channel for *Fix* on every row.",
};

/**
 * Blocks a modal takes: messages' `context_actions` (feedback buttons) and the `data_table` are left out
 * (the report's list says what the table would); a chart is kept, and `withoutCharts` drops it too for a
 * workspace that refuses it.
 */
function modalBlocks(blocks: readonly MessageBlock[]): KnownBlock[] {
  return blocks.filter((b) => b.type !== 'context_actions' && b.type !== 'data_table') as KnownBlock[];
}

function modal(kind: HomeReportKind, blocks: KnownBlock[]): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: TITLES[kind] },
    close: { type: 'plain_text', text: 'Close' },
    blocks: blocks.slice(0, MODAL_BLOCKS),
  };
}

/** Opened at once with the click's trigger_id; `views.update` replaces it with the report or a failure. */
export function homeReportLoadingModal(kind: HomeReportKind): ModalView {
  return modal(kind, [{ type: 'section', text: { type: 'mrkdwn', text: LOADING[kind] } }]);
}

/** A failure or refusal in words, with what to do (the texts the slash commands answer with). */
export function homeReportTextModal(kind: HomeReportKind, text: string): ModalView {
  return modal(kind, [
    { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } },
  ]);
}

const nextStep = (kind: HomeReportKind): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: NEXT_STEP[kind] }],
});

/** The report, then Post to channel: a channel picker the submit button posts the same report to. */
function reportModal(kind: HomeReportKind, blocks: readonly MessageBlock[], request: string): ModalView {
  const metadata: HomeReportPostMetadata = { kind, request };
  return {
    ...modal(kind, [
      ...modalBlocks(blocks).slice(0, MODAL_BLOCKS - 2),
      nextStep(kind),
      {
        type: 'input',
        block_id: HOME_POST_CHANNEL_BLOCK,
        label: { type: 'plain_text', text: 'Post it to a channel' },
        element: {
          type: 'conversations_select',
          action_id: HOME_POST_CHANNEL_ACTION,
          placeholder: { type: 'plain_text', text: 'Pick a channel' },
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
    ]),
    callback_id: HOME_REPORT_POST_CALLBACK,
    submit: { type: 'plain_text', text: 'Post to channel' },
    private_metadata: JSON.stringify(metadata),
  };
}

/** The `/docs-views` report (headline, totals, chart, top pages as a list) in a modal. */
export function homePageViewsModal(report: PageViewsReport, siteUrl: string | undefined): ModalView {
  const message = pageViewsReportMessage(report, { siteUrl, interactive: false });
  return reportModal('views', message.blocks, encodeReportRequest(report.request));
}

/** The `/docs-health` report (headline, chart, the three sections in readers' words) in a modal. */
export function homeHealthModal(report: HealthReport, siteUrl: string | undefined): ModalView {
  const message = healthReportMessage(report, { siteUrl, fixButtons: false });
  return reportModal('health', message.blocks, healthReportCommandText(report));
}

/** The same modal without the 2026 chart block: for a workspace or client that refuses it. */
export function withoutCharts(view: ModalView): ModalView {
  return { ...view, blocks: withoutNewBlocks(view.blocks) };
}
