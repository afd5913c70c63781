import type { Button, KnownBlock } from '@slack/types';
import type { PageEvidence, SearchEvidence } from '../../insights/health/evidence.js';
import type { PageViewsTotals } from '../../insights/ports.js';
import type { JobRecord } from '../../jobs/domain/job.js';
import { formatPercentChange, percentChange } from '../copy/changes.js';
import { displayCount, formatCount, formatShare } from '../copy/counts.js';
import { cardLink } from '../health-fix-claims.js';
import { untrustedMrkdwn } from '../markup.js';
import { LIMITS, oneLine, truncate } from './limits.js';

/** Home's top buttons that open this week's `/docs-views` and `/docs-health` reports in a modal. */
export const HOME_VIEWS_ACTION = 'home_views';
export const HOME_HEALTH_ACTION = 'home_health';
/** Fix on Home's top gap: the `/docs-health` fix form, with a channel for the job's card. */
export const HOME_FIX_ACTION = 'home_health_fix';

/** "This week in your docs", from what the analytics cache holds (never read for Home itself). */
export interface HomeThisWeek {
  /** This week's page views and the week before's (absent: not read yet). */
  views?: { current: PageViewsTotals; previous?: PageViewsTotals };
  /** Absent: this week's health is not read yet; `gap` absent: readers found what they looked for. */
  health?: {
    gap?: {
      evidence: SearchEvidence | PageEvidence;
      /** The Fix button's value: the evidence's id in the evidence store (or the evidence itself). */
      value: string;
      /** The job already fixing this gap, shown instead of Fix. */
      running?: Pick<JobRecord, 'channelId' | 'threadTs' | 'cardTs'>;
    };
  };
  /** Nothing was cached and a read started in the background: the next open shows it. */
  filling?: boolean;
}

/** [Views] [Health], beside [New job] and [Settings]. */
export function homeReportButtons(): Button[] {
  return [
    {
      type: 'button',
      action_id: HOME_VIEWS_ACTION,
      text: { type: 'plain_text', text: 'Views' },
      accessibility_label: "Open this week's page views",
    },
    {
      type: 'button',
      action_id: HOME_HEALTH_ACTION,
      text: { type: 'plain_text', text: 'Health' },
      accessibility_label: 'Open where readers got stuck this week',
    },
  ];
}

const section = (text: string): KnownBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) },
});
const note = (text: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }],
});

const counted = (value: number, one: string, many: string) =>
  `${formatCount(value)} ${displayCount(value) === 1 ? one : many}`;

/** "*1,234 views* this week, ▲ 8% on the week before: 900 by people, 334 by AI (27%)." */
export function thisWeekHeadline(views: NonNullable<HomeThisWeek['views']>): string {
  const { current, previous } = views;
  const total = displayCount(current.total);
  const pct = percentChange(total, previous ? displayCount(previous.total) : undefined);
  const change = pct === undefined ? '' : `, ${formatPercentChange(pct)} on the week before`;
  const share = formatShare(total > 0 ? displayCount(current.ai) / total : 0);
  return `*${counted(total, 'view', 'views')}* in the last 7 days${change}: ${formatCount(current.human)} by people, ${formatCount(current.ai)} by AI (${share}).`;
}

/** The top gap in readers' words: "“sso setup”: 40 searches with no useful result". */
export function gapLine(evidence: SearchEvidence | PageEvidence): string {
  if (evidence.kind === 'search')
    return `“${untrustedMrkdwn(oneLine(evidence.query, 120))}”: *${counted(evidence.hits, 'search', 'searches')}* with no useful result`;
  return `\`${untrustedMrkdwn(oneLine(evidence.path, 120))}\`: *${counted(evidence.thumbsDown, 'reader', 'readers')} flagged this page* 👎`;
}

/** At most 4 blocks and a divider: the week's headline, the top gap (Fix, or its job), and a note. */
export function homeThisWeekBlocks(input: HomeThisWeek | undefined): KnownBlock[] {
  if (!input) return [];
  return [...thisWeekBlocks(input), { type: 'divider' }];
}

function thisWeekBlocks(input: HomeThisWeek): KnownBlock[] {
  const title = '*This week in your docs*';
  if (!input.views && !input.health) {
    const later = input.filling
      ? " I'm reading this week's numbers now; they show here next time you open Home."
      : '';
    return [
      section(title),
      note(`Nothing read yet this week. Press *Health* above for this week's report.${later}`),
    ];
  }
  const blocks: KnownBlock[] = [section(input.views ? `${title}\n${thisWeekHeadline(input.views)}` : title)];
  const gap = input.health?.gap;
  if (gap?.running) {
    blocks.push(
      section(`Top gap: ${gapLine(gap.evidence)}\n🛠 Being fixed · <${cardLink(gap.running)}|its thread>`),
    );
  } else if (gap) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(`Top gap: ${gapLine(gap.evidence)}`, LIMITS.sectionText) },
      accessory: {
        type: 'button',
        action_id: HOME_FIX_ACTION,
        text: { type: 'plain_text', text: 'Fix' },
        value: gap.value.slice(0, LIMITS.buttonValue),
        accessibility_label: 'Start a job to fix this gap',
      },
    });
  } else if (input.health) {
    blocks.push(note('Readers found what they looked for: no gaps to fix this week.'));
  }
  if (!input.views) blocks.push(note("This week's page views are not read yet: press *Views* above."));
  else if (!input.health) blocks.push(note('Where readers got stuck is not read yet: press *Health* above.'));
  return blocks;
}
