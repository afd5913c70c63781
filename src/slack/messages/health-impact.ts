import type { KnownBlock } from '@slack/types';
import { isSafeHttpUrl } from '../../common/untrusted-text.js';
import type { ImpactMetric, ImpactMetricName, ImpactModel } from '../../insights/health/impact.js';
import { formatFractionChange } from '../copy/changes.js';
import { formatCount, formatShare } from '../copy/counts.js';
import { untrustedMrkdwn } from '../markup.js';
import { formatDayRange } from './dates.js';
import { oneLine } from './limits.js';
import type { SlackMessage } from './types.js';

const LABELS: Record<ImpactMetricName, string> = {
  hits: 'Searches',
  ctr: 'Click-through',
  thumbsDown: '👎',
  thumbsUp: '👍',
  pageViews: 'Page views',
  asked: 'Times asked',
};

const value = (m: ImpactMetric, v: number) => (m.name === 'ctr' ? formatShare(v) : formatCount(v));

function line(m: ImpactMetric): string {
  const change =
    m.change === undefined ? (m.delta === 0 ? 'no change' : 'new') : formatFractionChange(m.change);
  const verdict = m.improved === true ? ' ✅' : m.improved === false ? ' ⚠️' : '';
  return `*${LABELS[m.name]}:* ${value(m, m.before)} → ${value(m, m.after)} (${change})${verdict}`;
}

function subject(model: ImpactModel): string {
  const e = model.evidence;
  const text = e.kind === 'search' ? e.query : e.kind === 'page' ? e.path : e.question;
  const label = { search: 'The search', page: 'The page', question: 'The question' }[e.kind];
  return `${label} “${untrustedMrkdwn(oneLine(text, 300))}”`;
}

/** The thread post `HEALTH_IMPACT_DAYS` after the pull request: the evidence measured after vs before. */
export function healthImpactMessage(
  model: ImpactModel,
  context: { prLink?: string; countedFrom?: 'pr' | 'merge' } = {},
): SlackMessage {
  const period = (w: { from: string; toExclusive: string }) => formatDayRange(w.from, w.toExclusive);
  // Only an http(s) link becomes a Slack link: `<`, `>` and `|` would break out of the mrkdwn link syntax.
  const pr =
    context.prLink && isSafeHttpUrl(context.prLink)
      ? `<${context.prLink}|the pull request>`
      : 'the pull request';
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Did it work?* ${subject(model)}, since ${pr} (${period(model.after)}) against as long before it (${period(model.before)}):`,
      },
    },
    { type: 'section', text: { type: 'mrkdwn', text: model.metrics.map(line).join('\n') } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `From readers' data in the docs analytics (UTC days). ${countedFromNote(context.countedFrom)}`,
        },
      ],
    },
  ];
  const text = `Did it work? ${model.metrics.map((m) => `${LABELS[m.name]} ${value(m, m.before)} → ${value(m, m.after)}`).join(', ')}`;
  return { text, blocks };
}

/** Which day "after" starts from: the merge (GitHub access), else the day the bot saw the pull request. */
function countedFromNote(countedFrom: 'pr' | 'merge' | undefined): string {
  return countedFrom === 'merge'
    ? 'Counted from the day the pull request was merged, against the days before it was opened.'
    : "Counted from the pull request's day (it may have been merged later: a manager can connect GitHub with `/docs-agent settings github` to count from the merge).";
}
