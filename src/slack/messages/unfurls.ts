import type { Button, KnownBlock } from '@slack/types';
import { encodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import type { PageUnfurlData } from '../../insights/page-snapshot/page-snapshot.js';
import type {
  PullRequestStateOnly,
  PullRequestSummary,
} from '../../jobs/pull-requests/pull-request-index.js';
import { formatChange } from '../copy/changes.js';
import { formatShare } from '../copy/counts.js';
import { defuseLinks, escapeMrkdwn, stripInvisible, untrustedMrkdwn } from '../markup.js';
import { formatDayRange } from './dates.js';
import { displayCount, formatCount, mrkdwnLink, slackTime } from './format.js';
import { HEALTH_FIX_ACTION_PREFIX } from './health-report.js';
import { statusWords } from './job-card.js';
import { oneLine } from './limits.js';
import {
  pageEntity,
  pullRequestEntity,
  pullRequestStateEntity,
  type UnfurlEntity,
} from './unfurl-entities.js';

/** The Fix button of a page preview: the `/docs-health` listener's pattern, so the same flow opens. */
export const PAGE_FIX_ACTION = `${HEALTH_FIX_ACTION_PREFIX}_page_0`;

/** What one `chat.unfurl` sends: Block Kit previews by URL, their plain text, Work Object entities. */
export interface UnfurlPayload {
  unfurls: Record<string, { blocks: KnownBlock[]; fallback: string }>;
  /** Each link's preview as plain text (Slack refused the layout). */
  plain: Record<string, string>;
  entities?: UnfurlEntity[];
}

/** One link's preview: its blocks, its text, and its Work Object when it has one. */
export interface LinkPreview {
  url: string;
  blocks: KnownBlock[];
  text: string;
  entity?: UnfurlEntity;
}

export function unfurlPayload(previews: LinkPreview[]): UnfurlPayload {
  const entities = previews.flatMap((p) => (p.entity ? [p.entity] : []));
  return {
    unfurls: Object.fromEntries(previews.map((p) => [p.url, { blocks: p.blocks, fallback: p.text }])),
    plain: Object.fromEntries(previews.map((p) => [p.url, p.text])),
    ...(entities.length > 0 ? { entities } : {}),
  };
}

/** The job's state as the card shows it (the one emoji table). */
const jobState = (status: string, prLink: string) => {
  const { emoji, label } = statusWords(status, prLink);
  return `${emoji} ${label}`;
};
// Not `toLocaleString`: a process's first call loads ICU's number data, one 20–40 ms task (issue 43, seen
// in §1's owed-answer burst); formatCount writes the same "1,234" without Intl.
const n = formatCount;
/**
 * Reader text inside mrkdwn: one line, capped, no mentions or links (as in `/docs-health`, whose rows were
 * cleaned when the report was built, as the snapshot's are); invisible characters out once more here.
 */
const quoted = (text: string, max: number) => untrustedMrkdwn(oneLine(stripInvisible(text), max));
const pathLabel = (path: string) => `\`${quoted(path, 150)}\``;
const context = (text: string): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/** " (▲ 20%)" / " (▼ 5%)" / " (new)" / " (no change)": this week against last week (the copy system's words). */
export function trend(current: number, previous: number): string {
  const now = displayCount(current);
  const before = displayCount(previous);
  if (before === 0) return now === 0 ? '' : ' (new)';
  return ` (${formatChange(now, before)})`;
}

/**
 * A docs page in two lines, as a polished app previews a link: the page (with Fix this page, secondary, beside
 * it), then one context line with this week's views and their trend, the share read by AI, the readers' 👎,
 * the top search near it that found nothing and the last change of ours. The rest is in the Fix form.
 */
export function pagePreview(url: string, data: PageUnfurlData, siteName: string): LinkPreview {
  const s = data.snapshot;
  const { current, previous } = s.views;
  const total = (v: typeof current) => displayCount(v.human) + displayCount(v.ai);
  const views = total(current);
  const aiShare = views > 0 ? ` · ${formatShare(displayCount(current.ai) / views)} AI` : '';
  const top = s.nearbySearches[0];
  const gap = top ? ` · “${quoted(top.query, 60)}” found nothing ${n(top.hits)}×` : '';
  const change = data.change
    ? ` · last fixed ${slackTime(data.change.mergedAt)} (${mrkdwnLink(data.change.prLink, 'pull request')}${data.change.requesterId ? `, <@${data.change.requesterId}>` : ''})`
    : '';
  const line =
    `${n(views)} views, ${formatDayRange(s.range.from, s.range.toExclusive)}${trend(views, total(previous))}` +
    `${aiShare}${s.viewsPartial ? ' (partial)' : ''} · 👎 ${n(s.thumbsDown)}${gap}${change}`;
  const button: Button = {
    type: 'button',
    action_id: PAGE_FIX_ACTION,
    text: { type: 'plain_text', text: 'Fix this page' },
    value: data.evidenceId ?? encodeEvidenceRef(data.evidence),
  };
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      block_id: 'docs_page_fix',
      text: { type: 'mrkdwn', text: `*${escapeMrkdwn(siteName)}* ${pathLabel(s.path)}` },
      accessory: button,
    },
    context(line),
  ];
  const text = `${s.path}: ${n(views)} views in 7 days (people ${n(current.human)}, AI ${n(current.ai)}), 👎 ${n(s.thumbsDown)}`;
  return { url, blocks, text, entity: pageEntity(url, data) };
}

/**
 * A docs page without numbers: for guests and people of other organisations (unless
 * ALLOW_EXTERNAL_USERS), shared channels, or when the analytics budget or the platform could not answer.
 */
export function plainPagePreview(url: string, path: string, siteName: string, note?: string): LinkPreview {
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(siteName)}* ${pathLabel(path)}` } },
    ...(note ? [context(escapeMrkdwn(note))] : []),
  ];
  return { url, blocks, text: `${siteName}: ${oneLine(path, 150)}` };
}

const STATE_LABEL = { open: '🟢 Open', merged: '🟣 Merged', closed: '⚪ Closed' } as const;
const CHECKS_LABEL = {
  passing: '✅ passing',
  failing: '❌ failing',
  pending: '⏳ running',
  none: 'none',
} as const;
const REVIEW_LABEL = {
  approved: '✅ approved',
  changes_requested: '✏️ changes requested',
  none: 'no review yet',
} as const;

const stateOf = (pr: PullRequestSummary['pr']) =>
  pr ? `${STATE_LABEL[pr.state]}${pr.draft && pr.state === 'open' ? ' (draft)' : ''}` : 'Opened';

/**
 * A pull request of one of our jobs pasted outside the job's channel: its number and state only (no job,
 * instruction, requester or thread).
 */
export function pullRequestStatePreview(url: string, view: PullRequestStateOnly): LinkPreview {
  const pr = view.pr;
  const unread = view.followed ? 'not read yet' : 'not followed';
  const title = `${quoted(view.repo, 120)}#${view.number}`;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Pull request* ${title}\n${stateOf(pr)}` },
    },
    context(
      `${pr ? `Checks ${CHECKS_LABEL[pr.checks]} · as last read on GitHub` : `GitHub ${unread}`} · docs-agent`,
    ),
  ];
  const text = `Pull request ${oneLine(view.repo, 120)}#${view.number}: ${pr ? pr.state : 'opened'}`;
  return { url, blocks, text: defuseLinks(text), entity: pullRequestStateEntity(url, view) };
}

/** A pull request one of our jobs opened, in the job's own channel: its job, state, checks and who asked for it. */
export function pullRequestPreview(url: string, summary: PullRequestSummary): LinkPreview {
  const pr = summary.pr;
  const state = stateOf(pr);
  const unread = summary.followed ? 'not read yet' : 'not followed';
  const checks = pr ? CHECKS_LABEL[pr.checks] : unread;
  const fields = [
    `*State*\n${state}`,
    `*Checks*\n${checks}`,
    `*Review*\n${pr ? REVIEW_LABEL[pr.review] : unread}`,
    `*Requested by*\n<@${summary.requesterId}>`,
  ];
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Pull request of docs-agent job* \`${escapeMrkdwn(summary.jobId)}\`\n>${quoted(summary.prompt, 200)}`,
      },
    },
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
    context(
      `${jobState(summary.jobStatus, summary.prLink)} · ${
        pr
          ? 'as last read on GitHub'
          : summary.followed
            ? 'GitHub not read yet'
            : 'state, checks and review show once GitHub is connected'
      } · docs-agent`,
    ),
  ];
  const text = `Pull request of a docs-agent job: ${pr ? pr.state : 'opened'}, checks ${checks}`;
  return { url, blocks, text: defuseLinks(text), entity: pullRequestEntity(url, summary) };
}
