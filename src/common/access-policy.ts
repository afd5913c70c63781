/** A refusal names who to ask (`ask`: the admins, ADMIN_USER_IDS, a few at most) when there are any. */
export type AccessDecision =
  | { ok: true }
  | { ok: false; reason: 'user' | 'channel'; ask?: readonly string[] };
export type TeamDecision = { ok: true } | { ok: false; reason: 'external' };

/**
 * Who may use the bot: channel and user allowlists (ALLOWED_CHANNEL_IDS, ALLOWED_USER_IDS; an empty list
 * allows everyone), and whether users of other organisations (Slack Connect) may (ALLOW_EXTERNAL_USERS).
 */
export class AccessPolicy {
  private readonly channels: ReadonlySet<string>;
  private readonly users: ReadonlySet<string>;
  private readonly admins: ReadonlySet<string>;
  private readonly allowExternal: () => boolean;

  constructor(allowed: {
    channelIds: readonly string[];
    userIds: readonly string[];
    adminUserIds?: readonly string[];
    /** A function: read on every check (OAuth mode: the tenant's own setting, chosen by its managers). */
    allowExternalUsers?: boolean | (() => boolean);
  }) {
    this.channels = setOf(allowed.channelIds);
    this.users = setOf(allowed.userIds);
    this.admins = setOf(allowed.adminUserIds ?? []);
    const allow = allowed.allowExternalUsers ?? false;
    this.allowExternal = typeof allow === 'function' ? allow : () => allow;
  }

  /** ADMIN_USER_IDS: may see workspace-wide listings and any job's status; an empty list means nobody. */
  isAdmin(userId: string): boolean {
    return this.admins.has(userId);
  }

  check(userId: string, channelId: string): AccessDecision {
    const ask = this.admins.size > 0 ? { ask: [...this.admins].slice(0, 3) } : {};
    if (this.users.size > 0 && !this.users.has(userId)) return { ok: false, reason: 'user', ...ask };
    if (this.channels.size > 0 && !this.channels.has(channelId))
      return { ok: false, reason: 'channel', ...ask };
    return { ok: true };
  }

  /** ALLOW_EXTERNAL_USERS: nobody's team needs to be known (or looked up) to let them in. */
  get externalUsersAllowed(): boolean {
    return this.allowExternal();
  }

  /**
   * Whether a user whose team is `userTeamId` may use a bot installed in `homeTeamId`. A team not known
   * on either side (a payload without it) is not taken for external: Slack names it on every Connect payload.
   * An org-wide install (Enterprise Grid) serves every workspace of its org: a user whose own org
   * (`org.user`, from users.info) is the install's (`org.install`) is not external, whatever their workspace.
   */
  checkTeam(
    userTeamId: string | undefined,
    homeTeamId: string | undefined,
    org: { install?: string | undefined; user?: string | undefined } = {},
  ): TeamDecision {
    if (this.allowExternal() || !userTeamId || !homeTeamId || userTeamId === homeTeamId) return { ok: true };
    if (org.install && org.user === org.install) return { ok: true };
    return { ok: false, reason: 'external' };
  }
}

/** No ids: the process's one empty set, since each new Set has its hash table (issue 43 §2: per scope). */
const NO_IDS: ReadonlySet<string> = new Set();

function setOf(ids: readonly string[]): ReadonlySet<string> {
  return ids.length > 0 ? new Set(ids) : NO_IDS;
}
