import type { PullRequestNotice } from '../../jobs/pull-requests/ports.js';
import type { PullRequestFollow } from '../../jobs/pull-requests/pull-request.js';
import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { mrkdwnLink, slackTime } from './format.js';
import { fitLink, LIMITS, oneLine, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** GitHub logins: letters, digits, hyphens (and `[bot]` for apps); anything else is not shown as a name. */
const LOGIN = /^[A-Za-z0-9-]{1,39}(\[bot\])?$/;

function who(login: string | null): string {
  return login && LOGIN.test(login) ? `*${escapeMrkdwn(login)}*` : 'someone';
}

/** The PR's number from its link's path (`…/pull/123`), or undefined. Nothing past 2,000 characters is parsed. */
export function pullRequestNumber(url: string): number | undefined {
  if (url.length > 2000) return undefined;
  let parts: string[];
  try {
    parts = new URL(url).pathname.split('/');
  } catch {
    return undefined;
  }
  const at = parts.lastIndexOf('pull');
  const number = at >= 0 ? parts[at + 1] : undefined;
  return number && /^[1-9][0-9]{0,9}$/.test(number) ? Number(number) : undefined;
}

/**
 * What the PR is, in mrkdwn: "#123 · its title" (linked when the link fits `maxLink`), then "(3 files,
 * +10 −2)" when GitHub said. Title and size come from the followed state of this same link, when read.
 */
export function pullRequestName(url: string, follow: PullRequestFollow | undefined, maxLink: number): string {
  const pr = follow?.url === url ? follow.last : null;
  const number = pullRequestNumber(url);
  const name = [number ? `#${number}` : 'the pull request'];
  if (pr?.title) name.push(untrustedMrkdwn(oneLine(pr.title, 200)));
  const label = name.join(' · ');
  const linked = url.length <= maxLink ? fitLink(url, label, maxLink + 250) : label;
  const size = pullRequestSize(pr);
  return size ? `${linked} (${size})` : linked;
}

/** "3 files, +10 −2" from what GitHub said; undefined when it said nothing. */
export function pullRequestSize(
  pr: { additions?: number; deletions?: number; changedFiles?: number } | null | undefined,
): string | undefined {
  if (!pr) return undefined;
  const parts: string[] = [];
  if (pr.changedFiles !== undefined)
    parts.push(`${pr.changedFiles.toLocaleString('en-US')} ${pr.changedFiles === 1 ? 'file' : 'files'}`);
  if (pr.additions !== undefined && pr.deletions !== undefined)
    parts.push(`+${pr.additions.toLocaleString('en-US')} −${pr.deletions.toLocaleString('en-US')}`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * The PR's state on GitHub in one line, from the record (card and App Home); undefined when the PR is not
 * followed. It says what was last read, so it stays true after following stops (merged, closed).
 */
export function pullRequestStateLine(follow: PullRequestFollow | undefined): string | undefined {
  if (!follow) return undefined;
  const pr = follow.last;
  if (follow.unreadable) return ':grey_question: Pull request: GitHub does not let the bot read it';
  if (!pr) return ':hourglass_flowing_sand: Pull request: checking GitHub…';
  if (pr.state === 'merged')
    return `:large_purple_circle: Pull request *merged*${pr.mergedBy ? ` by ${who(pr.mergedBy)}` : ''}${pr.mergedAt ? ` ${slackTime(pr.mergedAt)}` : ''}`;
  if (pr.state === 'closed') return ':red_circle: Pull request *closed* without merging';
  const parts = [pr.draft ? '*draft*' : '*open*'];
  if (pr.review === 'approved') parts.push('approved');
  if (pr.review === 'changes_requested') parts.push('changes requested');
  if (pr.checks === 'passing') parts.push('checks passing');
  if (pr.checks === 'failing') parts.push('checks failing');
  if (pr.checks === 'pending') parts.push('checks running');
  const emoji =
    pr.checks === 'failing' || pr.review === 'changes_requested' ? ':warning:' : ':large_green_circle:';
  const stale = follow.ended === 'expired' ? ' (as last seen; no longer followed)' : '';
  return `${emoji} Pull request ${parts.join(' · ')}${stale}`;
}

/** The one thread message for how a followed PR ended. */
export function pullRequestNoticeMessage(url: string, notice: PullRequestNotice): SlackMessage {
  const pr = mrkdwnLink(url, 'The pull request');
  let text: string;
  switch (notice.kind) {
    case 'merged':
      text = `:large_purple_circle: ${pr} was merged by ${who(notice.pr.mergedBy)}${notice.pr.mergedAt ? ` ${slackTime(notice.pr.mergedAt)}` : ''}: the change is live once the docs deploy.`;
      break;
    case 'closed':
      text = `:red_circle: ${pr} was closed without merging.${notice.impactCancelled ? ' Nothing changed, so there will be no "did it work?" comparison for this fix.' : ''} Reply here to ask the agent for another attempt.`;
      break;
    case 'still_open':
      text = `:hourglass: ${pr} is still open after ${notice.days} days; the bot stopped following it.${notice.impactCancelled ? ' No "did it work?" comparison will be posted, as it never went live while followed.' : ''}`;
      break;
  }
  const plain = oneLine(text.replace(/<[^|>]*\|([^>]*)>/g, '$1').replace(/[*:]/g, ''), 150);
  return {
    text: truncate(plain, LIMITS.fallbackText),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}
