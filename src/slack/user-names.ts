import { describeError } from '../common/errors.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import { type CacheView, ProcessLru } from '../common/process-lru.js';
import type { MessageText } from '../jobs/conversation-service.js';
import { slackToPlainText } from './markup.js';

/**
 * A user as users.info knows them: a name, their own team, their Enterprise Grid org (`enterprise_user`),
 * whether they are a guest or a stranger (`restricted`), and whether a workspace admin or owner.
 */
export interface SlackUser {
  name?: string;
  teamId?: string;
  enterpriseId?: string;
  restricted: boolean;
  admin: boolean;
  /** Enterprise Grid: an admin or owner of the whole org (`enterprise_user.is_admin`, `is_owner`). */
  orgAdmin?: boolean;
  /** A deactivated account (`deleted`). */
  deleted?: boolean;
}

/** users.info's `user` as the bot keeps it. */
export function slackUserOf(info: UsersInfoUser | undefined): SlackUser {
  const name = info?.profile?.display_name || info?.real_name || info?.name;
  const restricted = Boolean(info?.is_restricted || info?.is_ultra_restricted || info?.is_stranger);
  const admin = Boolean(info?.is_admin || info?.is_owner || info?.is_primary_owner);
  const org = info?.enterprise_user;
  const orgAdmin = Boolean(org?.is_admin || org?.is_owner || org?.is_primary_owner);
  const enterpriseId = org?.enterprise_id || undefined;
  const teamId = info?.team_id || undefined;
  return {
    name: name || undefined,
    teamId,
    enterpriseId,
    restricted,
    admin,
    orgAdmin,
    ...(info?.deleted === true ? { deleted: true } : {}),
  };
}

interface UsersInfoUser {
  name?: string;
  real_name?: string;
  team_id?: string;
  profile?: { display_name?: string };
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_stranger?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  deleted?: boolean;
  enterprise_user?: {
    enterprise_id?: string;
    is_admin?: boolean;
    is_owner?: boolean;
    is_primary_owner?: boolean;
  };
}

/** How Slack resolves a user id (users.info); undefined when unknown. */
export type UserLookup = (userId: string) => Promise<Partial<SlackUser> | undefined>;

/** What is remembered of a user: undefined fields are unknown (or could not be asked). */
interface KnownUser {
  name: string | undefined;
  teamId: string | undefined;
  /** Enterprise Grid: the org the user belongs to (users.info `enterprise_user.enterprise_id`). */
  enterpriseId?: string | undefined;
  restricted: boolean | undefined;
}

export interface UserNamesOptions {
  logger: Logger;
  /** How long a known name is reused (default 1 hour). */
  ttlMs?: number;
  /** How long an unknown user or a failed lookup is remembered (default 1 minute). */
  missTtlMs?: number;
  /** Entries kept at most (oldest dropped first), when no process-wide cache is given. */
  maxEntries?: number;
  /** The process's cache for this tenant (OAuth mode: one bound for every tenant's caches). */
  cache?: CacheView<CachedUser> | undefined;
  now?: () => number;
}

type CachedUser = KnownUser & { expires: number };

const USER_MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;

/**
 * Names looked up per message at most: each lookup is a paced users.info call shared by everyone, so one
 * message naming 3,000 people would queue half an hour of lookups ahead of every other user.
 */
export const MAX_NAMES_PER_MESSAGE = 25;

/** Names (and teams) for user ids, cached, and Slack markup to plain text with those names. */
export class UserNames implements MessageText {
  private readonly cache: CacheView<CachedUser>;
  private readonly pending = new LazyMap<string, Promise<KnownUser>>();
  private readonly ttlMs: number;
  private readonly missTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly lookup: UserLookup,
    private readonly options: UserNamesOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.missTtlMs = options.missTtlMs ?? 60 * 1000;
    this.cache = options.cache ?? new ProcessLru(options.maxEntries ?? 5000).view('user-names');
    this.now = options.now ?? Date.now;
  }

  /** The user's name, or undefined when Slack does not know it (or could not be asked). */
  async nameOf(userId: string): Promise<string | undefined> {
    return (await this.userOf(userId)).name;
  }

  /** The team the user belongs to (Slack Connect users: their own organisation's), or undefined if unknown. */
  async teamOf(userId: string): Promise<string | undefined> {
    return (await this.userOf(userId)).teamId;
  }

  /** The Enterprise Grid org the user belongs to, or undefined (no org, or unknown). */
  async enterpriseOf(userId: string): Promise<string | undefined> {
    return (await this.userOf(userId)).enterpriseId;
  }

  /**
   * Whether a user is a guest (single- or multi-channel), a stranger, or of another team than `homeTeam`.
   * Fails closed: a user Slack could not tell about counts as one.
   */
  async isGuestOrExternal(userId: string, homeTeam: string | undefined, homeOrg?: string): Promise<boolean> {
    const user = await this.userOf(userId);
    if (user.restricted === undefined) return true;
    // An org-wide install's people are at home in every workspace of the org.
    if (homeOrg !== undefined && user.enterpriseId === homeOrg) return user.restricted;
    return (
      user.restricted || (homeTeam !== undefined && user.teamId !== undefined && user.teamId !== homeTeam)
    );
  }

  private async userOf(userId: string): Promise<KnownUser> {
    const cached = this.cache.get(userId);
    if (cached && cached.expires > this.now()) return cached;
    const inFlight = this.pending.get(userId);
    if (inFlight) return inFlight;
    const request = this.fetch(userId).finally(() => this.pending.delete(userId));
    this.pending.set(userId, request);
    return request;
  }

  async displayName(userId: string): Promise<string> {
    return (await this.nameOf(userId)) ?? userId;
  }

  async toPlainText(markup: string): Promise<string> {
    const ids = new Set<string>();
    for (const match of markup.matchAll(USER_MENTION)) {
      ids.add(match[1]!);
      if (ids.size >= MAX_NAMES_PER_MESSAGE) break;
    }
    const names = new Map<string, string | undefined>();
    await Promise.all([...ids].map(async (id) => names.set(id, await this.nameOf(id))));
    return slackToPlainText(markup, (id) => names.get(id));
  }

  toPlainTextWithoutNames(markup: string): string {
    return slackToPlainText(markup, () => undefined);
  }

  private async fetch(userId: string): Promise<KnownUser> {
    const user: KnownUser = { name: undefined, teamId: undefined, restricted: undefined };
    let ttl = this.missTtlMs;
    try {
      const found = await this.lookup(userId);
      user.name = found?.name || undefined;
      user.teamId = found?.teamId || undefined;
      user.enterpriseId = found?.enterpriseId || undefined;
      user.restricted = found?.restricted;
      if (user.name !== undefined || user.teamId !== undefined) ttl = this.ttlMs;
    } catch (error) {
      this.options.logger.debug({ userId, error: describeError(error) }, 'could not look up a user');
    }
    this.cache.set(userId, { ...user, expires: this.now() + ttl });
    return user;
  }
}
