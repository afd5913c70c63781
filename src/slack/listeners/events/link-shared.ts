import { createHash } from 'node:crypto';
import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { NewDelivery } from '../../../delivery/domain.js';
import { AnalyticsBudgetError } from '../../../insights/analytics-source.js';
import { changeSeenFrom } from '../../../insights/page-snapshot/page-snapshot.js';
import {
  type LinkPreview,
  pagePreview,
  plainPagePreview,
  pullRequestPreview,
  pullRequestStatePreview,
  unfurlPayload,
} from '../../messages/unfurls.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type LinkSharedDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'outbox' | 'users'> & {
  unfurls?: SlackDeps['unfurls'];
};

/** The parts of a `link_shared` delivery read here (Slack's documented fields; all may be absent). */
export interface LinkSharedArgs {
  event: {
    channel?: string;
    user?: string;
    message_ts?: string;
    unfurl_id?: string;
    source?: string;
    is_bot_user_member?: boolean;
    user_team?: string;
    links?: Array<{ url?: string; domain?: string }>;
  };
  body: { team_id?: string; is_ext_shared_channel?: boolean };
  context?: { teamId?: string; orgWideEnterpriseId?: unknown };
}

/** Links previewed per message at most (Slack sends a handful; a pasted list must not fan out reads). */
export const MAX_LINKS_PER_MESSAGE = 5;
const BUDGET_NOTE = 'Numbers are paused: the hourly analytics budget is used up. Paste the link again later.';
const UNAVAILABLE_NOTE = 'Numbers are unavailable right now (the docs platform did not answer).';

export function registerLinkShared(app: App, deps: RequestDeps<LinkSharedDeps>): void {
  app.event('link_shared', deps.each(linkShared) as never);
}

/**
 * A docs-site link or a PR of one of our jobs pasted where the app is: one `chat.unfurl` owed through
 * the outbox (deterministic key per message, so a redelivered event unfurls once). Nothing for people
 * or channels the access rules exclude; guests, other organisations and shared channels get previews
 * without numbers (unless external users are allowed: the tenant's setting, else ALLOW_EXTERNAL_USERS).
 * A PR's job (instruction, requester) shows only in the job's own channel; elsewhere the PR's state.
 */
export function linkShared(deps: LinkSharedDeps) {
  return async ({ event, body, context }: LinkSharedArgs): Promise<void> => {
    const sources = deps.unfurls;
    const { channel, user } = event;
    const ts = event.message_ts;
    if (!sources || !channel || !user || !ts || event.is_bot_user_member === false) return;
    if (!deps.access.check(user, channel).ok) {
      deps.logger.info({ channel }, 'link not unfurled: the access rules exclude this user or channel');
      return;
    }
    const links = [...new Set((event.links ?? []).map((l) => l.url).filter((u) => typeof u === 'string'))]
      .filter((url) => url.length <= 2000)
      .slice(0, MAX_LINKS_PER_MESSAGE);
    if (links.length === 0) return;
    const homeTeam = context?.teamId ?? body.team_id;
    // An org-wide install (Enterprise Grid): its org's people, from any of its workspaces, are at home.
    const homeOrg =
      typeof context?.orgWideEnterpriseId === 'string' ? context.orgWideEnterpriseId : undefined;
    deps.afterAck(async () => {
      const userOrg = homeOrg ? await deps.users?.enterpriseOf?.(user) : undefined;
      // The tenant's own setting (OAuth mode: its managers' choice), else ALLOW_EXTERNAL_USERS.
      const restricted =
        !deps.access.externalUsersAllowed &&
        (body.is_ext_shared_channel === true ||
          !deps.access.checkTeam(event.user_team, homeTeam, { install: homeOrg, user: userOrg }).ok ||
          // Fails closed: without a way to check, no numbers.
          (await (deps.users?.isGuestOrExternal(user, homeTeam, homeOrg) ?? true)));
      const previews = (
        await Promise.all(links.map((url) => previewOf(deps, sources, url, channel, homeTeam, restricted)))
      ).filter((p): p is LinkPreview => p !== undefined);
      if (previews.length === 0) return;
      const source: 'composer' | 'conversations_history' | undefined =
        event.source === 'composer' || event.source === 'conversations_history' ? event.source : undefined;
      const address = event.unfurl_id && source ? { unfurlId: event.unfurl_id, source } : {};
      const key = `unfurl:${digest(event.unfurl_id ?? `${channel}:${ts}`)}`;
      const delivery: NewDelivery = {
        key,
        target: { kind: 'unfurl', channel, ts, ...address },
        payload: unfurlPayload(previews),
        priority: 'reply',
        keepMs: 24 * 60 * 60 * 1000,
      };
      if (!deps.outbox) {
        deps.logger.warn({ channel }, 'link previews not sent: no outbox wired');
        return;
      }
      await deps.outbox.owe(delivery).catch((error: unknown) => {
        deps.logger.warn({ channel, error: describeError(error) }, 'could not owe the link previews');
      });
    });
  };
}

async function previewOf(
  deps: LinkSharedDeps,
  sources: NonNullable<SlackDeps['unfurls']>,
  url: string,
  channel: string,
  homeTeam: string | undefined,
  restricted: boolean,
): Promise<LinkPreview | undefined> {
  const path = sources.pagePath(url);
  if (path !== undefined) {
    if (restricted) return plainPagePreview(url, path, sources.siteName);
    try {
      const data = await sources.pages.forUnfurl(sources.projectFor(channel), path);
      // Who asked for the page's last change: only in that job's own channel.
      const change = data.change ? { change: changeSeenFrom(data.change, channel) } : {};
      return pagePreview(url, { ...data, ...change }, sources.siteName);
    } catch (error) {
      const budget = error instanceof AnalyticsBudgetError;
      deps.logger[budget ? 'info' : 'warn'](
        { channel, error: describeError(error) },
        'page numbers not read',
      );
      return plainPagePreview(url, path, sources.siteName, budget ? BUDGET_NOTE : UNAVAILABLE_NOTE);
    }
  }
  if (!sources.pullRequests) return undefined;
  try {
    // As seen from this channel: the job's instruction and requester only in the job's own channel.
    const view = await sources.pullRequests.describe(url, { channelId: channel });
    // A job of another workspace is not shown here.
    if (!view || (view.teamId && homeTeam && view.teamId !== homeTeam)) return undefined;
    if (restricted) return plainPagePreview(url, 'Pull request of a docs-agent job', 'docs-agent');
    return view.kind === 'job' ? pullRequestPreview(url, view) : pullRequestStatePreview(url, view);
  } catch (error) {
    deps.logger.warn({ channel, error: describeError(error) }, 'could not look up the pull request');
    return undefined;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);
