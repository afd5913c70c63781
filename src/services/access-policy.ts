export type AccessDecision = { ok: true } | { ok: false; reason: 'user' | 'channel' };

/** Channel and user allowlists (ALLOWED_CHANNEL_IDS, ALLOWED_USER_IDS); an empty list allows everyone. */
export class AccessPolicy {
  private readonly channels: ReadonlySet<string>;
  private readonly users: ReadonlySet<string>;

  constructor(allowed: { channelIds: readonly string[]; userIds: readonly string[] }) {
    this.channels = new Set(allowed.channelIds);
    this.users = new Set(allowed.userIds);
  }

  check(userId: string, channelId: string): AccessDecision {
    if (this.users.size > 0 && !this.users.has(userId)) return { ok: false, reason: 'user' };
    if (this.channels.size > 0 && !this.channels.has(channelId)) return { ok: false, reason: 'channel' };
    return { ok: true };
  }
}
