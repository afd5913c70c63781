export type AccessDecision = { ok: true } | { ok: false; reason: 'user' | 'channel' };

/** Channel and user allowlists (ALLOWED_CHANNEL_IDS, ALLOWED_USER_IDS); an empty list allows everyone. */
export class AccessPolicy {
  private readonly channels: ReadonlySet<string>;
  private readonly users: ReadonlySet<string>;
  private readonly admins: ReadonlySet<string>;

  constructor(allowed: {
    channelIds: readonly string[];
    userIds: readonly string[];
    adminUserIds?: readonly string[];
  }) {
    this.channels = new Set(allowed.channelIds);
    this.users = new Set(allowed.userIds);
    this.admins = new Set(allowed.adminUserIds ?? []);
  }

  /** ADMIN_USER_IDS: may see workspace-wide listings; an empty list means nobody. */
  isAdmin(userId: string): boolean {
    return this.admins.has(userId);
  }

  check(userId: string, channelId: string): AccessDecision {
    if (this.users.size > 0 && !this.users.has(userId)) return { ok: false, reason: 'user' };
    if (this.channels.size > 0 && !this.channels.has(channelId)) return { ok: false, reason: 'channel' };
    return { ok: true };
  }
}
