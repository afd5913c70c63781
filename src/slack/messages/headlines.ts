import type { HealthReport } from '../../insights/health/report.js';
import type { PageViewsReport } from '../../insights/page-views/report.js';
import { formatPercentChange, percentChange } from '../copy/changes.js';
import { formatCount, formatShare } from '../copy/counts.js';
import { untrustedMrkdwn } from '../markup.js';
import { displayCount } from './format.js';
import { oneLine } from './limits.js';

/** The block_id of a report's headline section: a weekly post puts its own words in its place. */
export const HEADLINE_BLOCK_ID = 'report_headline';

/** Which period a headline speaks of: "This week" and "the week before", "Last 7 days" and "the 7 days before". */
export interface HeadlinePeriod {
  now: string;
  before: string;
  /** How a sentence about the period starts ("This week"); `now` and a colon unless told. */
  lead?: string;
}

export const WEEK: HeadlinePeriod = { now: 'This week', before: 'the week before', lead: 'This week' };

/** A report's period for its headline: its range's name ("Last 7 days"), else its dates. */
export function reportPeriod(label: string | undefined, dates: string, days: number): HeadlinePeriod {
  const now = label && label !== 'Custom range' ? label.replace(/ \(to date\)$/, '') : dates;
  return { now, before: `the ${days === 1 ? 'day' : `${days} days`} before` };
}

const n = formatCount;

/** ", ▲ 8% on the week before" / ", no change on …" / "" when there is nothing to compare with. */
function change(now: number, before: number | undefined, period: string): string {
  const pct = percentChange(now, before);
  return pct === undefined ? '' : `, ${formatPercentChange(pct)} on ${period}`;
}

/** The period's page views in one sentence: the total, its change, the AI share and the most read page. */
export function pageViewsHeadline(report: PageViewsReport, period: HeadlinePeriod = WEEK): string {
  const total = displayCount(report.totals.total);
  const ai = formatShare(total > 0 ? displayCount(report.totals.ai) / total : 0);
  const top = report.top[0];
  const most = top
    ? `; most read: \`${untrustedMrkdwn(oneLine(top.path, 80))}\` (${n(top.total)} views)`
    : '';
  const views = total === 1 ? 'view' : 'views';
  return `*${period.now}: ${n(total)} ${views}*${change(total, report.previousTotals?.total, period.before)}, ${ai} of them by AI${most}.`;
}

/** The period's docs health in one sentence: its biggest gap first, in readers' words, then the others. */
export function healthHeadline(report: HealthReport, period: HeadlinePeriod = WEEK): string {
  const lead = period.lead ?? `${period.now}:`;
  const search = report.searches.rows[0];
  const page = report.pages.rows[0];
  const questions = report.questions.total;
  if (!search && !page && questions === 0)
    return `*${lead} readers found what they looked for*: no gaps to fix.`;
  const times = (count: number) => `${n(count)} time${displayCount(count) === 1 ? '' : 's'}`;
  const readers = (count: number) => `${n(count)} reader${displayCount(count) === 1 ? '' : 's'} flagged`;
  const parts = [
    search
      ? `searches for “${untrustedMrkdwn(oneLine(search.query, 60))}” found nothing useful ${times(search.hits)}`
      : undefined,
    page ? `${readers(page.thumbsDown)} \`${untrustedMrkdwn(oneLine(page.path, 60))}\`` : undefined,
    questions > 0 ? `${n(questions)} question${questions === 1 ? '' : 's'} went unanswered` : undefined,
  ].filter((p): p is string => p !== undefined);
  const [first, ...rest] = parts;
  return `*${lead} ${first}*${rest.length > 0 ? `; ${rest.join('; ')}` : ''}.`;
}
