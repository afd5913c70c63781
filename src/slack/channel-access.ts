import type { AccessPolicy } from '../common/access-policy.js';
import { type CacheView, ProcessLru } from '../common/process-lru.js';
import { accessDeniedMessage } from './command-text.js';
import {
  checkChannelMembership,
  MEMBER_PAGES_CAP,
  type MembershipCheck,
  type MembersReader,
} from './listeners/actions/channel-membership.js';
import { escapeMrkdwn } from './markup.js';

export interface ChannelAccessOptions {
  access: Pick<AccessPolicy, 'check'>;
  members: MembersReader;
  /** How long an answer is reused (default 5 minutes): membership changes rarely, a check costs pages. */
  ttlMs?: number;
  maxEntries?: number;
  /** The process's cache for this tenant (OAuth mode: one bound for every tenant's caches). */
  cache?: CacheView<CachedCheck> | undefined;
  now?: () => number;
}

type CachedCheck = { check: MembershipCheck; expires: number };

export type ChannelAccessDecision = { ok: true } | { ok: false; text: string };

/**
 * Whether a person may act on the channel open beside the assistant container, which chooses the docs
 * project of what they ask there: the allowlists, then both the person and the bot in that channel, as
 * Home's New job checks. Answers are cached per channel and person; a failed read is not cached.
 */
export class ChannelAccess {
  private readonly cache: CacheView<CachedCheck>;
  private readonly now: () => number;

  constructor(private readonly o: ChannelAccessOptions) {
    this.now = o.now ?? Date.now;
    this.cache = o.cache ?? new ProcessLru(o.maxEntries ?? 10_000).view('channel-access');
  }

  async check(
    userId: string,
    channelId: string,
    botUserId: string | undefined,
  ): Promise<ChannelAccessDecision> {
    const allowed = this.o.access.check(userId, channelId);
    if (!allowed.ok) return { ok: false, text: accessDeniedMessage(allowed.reason, allowed.ask) };
    const key = `${channelId}:${userId}`;
    const cached = this.cache.get(key);
    let check = cached && cached.expires > this.now() ? cached.check : undefined;
    if (!check) {
      check = await checkChannelMembership(this.o.members, channelId, userId, botUserId);
      if (check.ok || check.reason !== 'unreadable') this.remember(key, check);
    }
    return check.ok ? { ok: true } : { ok: false, text: contextProblem(channelId, check) };
  }

  private remember(key: string, check: MembershipCheck): void {
    this.cache.set(key, { check, expires: this.now() + (this.o.ttlMs ?? 5 * 60_000) });
  }
}

/** What happened and what to do, for the channel open beside the assistant. */
function contextProblem(channelId: string, check: Exclude<MembershipCheck, { ok: true }>): string {
  const channel = `<#${channelId}>`;
  switch (check.reason) {
    case 'not_member':
      return `You're not a member of ${channel}, the channel open beside me, so I can't use its docs project for you. Open a channel you're in (or none, for the default project) and ask again.`;
    case 'bot_not_member':
      return `I'm not in ${channel}, the channel open beside me. Invite me there (/invite @docs-agent) to use its docs project from here, or open another channel and ask again.`;
    case 'too_large':
      return `${channel} has more than ${(MEMBER_PAGES_CAP * 1000).toLocaleString('en-US')} members, too many to check that you're one of them. Use /docs-agent in that channel instead.`;
    default:
      return `I couldn't check who is in ${channel}${check.code ? ` (Slack: ${escapeMrkdwn(check.code)})` : ''}. Ask again in a moment.`;
  }
}
