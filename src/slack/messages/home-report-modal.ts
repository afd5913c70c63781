import type { KnownBlock, ModalView } from '@slack/types';
import type { HealthReport } from '../../insights/health/report.js';
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

const TITLES: Record<HomeReportKind, string> = { views: 'Page views', health: 'Docs health' };
const LOADING: Record<HomeReportKind, string> = {
  views: ":hourglass_flowing_sand: Reading this week's page views…",
  health: ':hourglass_flowing_sand: Reading where readers got stuck this week…',
};
/** The next step a report in a modal offers: the same report in a channel has the buttons to share it. */
const NEXT_STEP: Record<HomeReportKind, string> = {
  views:
    'To share it, run `/docs-views` in a channel: its report has *Post to channel*, *CSV* and *Schedule…*.',
  health:
    "To fix a gap, press *Fix* on Home's top gap, or run `/docs-health` in a channel for *Fix* on every row and *Post to channel*.",
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

/** The `/docs-views` report (headline, totals, chart, top pages as a list) in a modal. */
export function homePageViewsModal(report: PageViewsReport, siteUrl: string | undefined): ModalView {
  const message = pageViewsReportMessage(report, { siteUrl, interactive: false });
  return modal('views', [...modalBlocks(message.blocks), nextStep('views')]);
}

/** The `/docs-health` report (headline, chart, the three sections in readers' words) in a modal. */
export function homeHealthModal(report: HealthReport, siteUrl: string | undefined): ModalView {
  const message = healthReportMessage(report, { siteUrl, fixButtons: false });
  return modal('health', [...modalBlocks(message.blocks), nextStep('health')]);
}

/** The same modal without the 2026 chart block: for a workspace or client that refuses it. */
export function withoutCharts(view: ModalView): ModalView {
  return { ...view, blocks: withoutNewBlocks(view.blocks) };
}
