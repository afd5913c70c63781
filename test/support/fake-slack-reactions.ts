/**
 * Reactions as Slack keeps them: per message, per emoji, the users who reacted. `reactions.add` answers
 * `already_reacted` for a repeat and `reactions.remove` answers `no_reaction` when the caller has none,
 * as Slack does; both need the message's channel and timestamp.
 */
export class FakeSlackReactions {
  /** `channel:ts` → emoji → users. */
  private readonly byMessage = new Map<string, Map<string, Set<string>>>();
  /** Most emoji the bot had on one message at any moment, per message (to catch "two at once"). */
  readonly peak = new Map<string, number>();

  constructor(private readonly botUserId: string) {}

  /** The emoji on a message that `user` (default: the bot) has reacted with, sorted. */
  of(channel: string, ts: string, user = this.botUserId): string[] {
    const emoji = this.byMessage.get(`${channel}:${ts}`) ?? new Map<string, Set<string>>();
    return [...emoji]
      .filter(([, users]) => users.has(user))
      .map(([name]) => name)
      .sort();
  }

  /** A person's reaction (not the bot's), e.g. the emoji that starts a job. */
  addBy(user: string, channel: string, ts: string, name: string): void {
    this.users(channel, ts, name).add(user);
  }

  answer(method: string, args: Record<string, unknown>): Record<string, unknown> | undefined {
    if (method !== 'reactions.add' && method !== 'reactions.remove') return undefined;
    const channel = String(args.channel ?? '');
    const ts = String(args.timestamp ?? '');
    const name = String(args.name ?? '');
    if (!channel || !ts) return { ok: false, error: 'bad_timestamp' };
    if (!name) return { ok: false, error: 'invalid_name' };
    const users = this.users(channel, ts, name);
    if (method === 'reactions.add') {
      if (users.has(this.botUserId)) return { ok: false, error: 'already_reacted' };
      users.add(this.botUserId);
      const key = `${channel}:${ts}`;
      this.peak.set(key, Math.max(this.peak.get(key) ?? 0, this.of(channel, ts).length));
      return { ok: true };
    }
    if (!users.delete(this.botUserId)) return { ok: false, error: 'no_reaction' };
    return { ok: true };
  }

  private users(channel: string, ts: string, name: string): Set<string> {
    const key = `${channel}:${ts}`;
    const emoji = this.byMessage.get(key) ?? new Map<string, Set<string>>();
    this.byMessage.set(key, emoji);
    const users = emoji.get(name) ?? new Set<string>();
    emoji.set(name, users);
    return users;
  }
}
