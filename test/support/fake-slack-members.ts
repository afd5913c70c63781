type Json = Record<string, unknown>;

/** The parts of FakeSlack read here: channel membership of the bot and the bot's user id. */
export interface MembersHost {
  readonly notMemberOf: ReadonlySet<string>;
  readonly botUserId: string;
  /** users.info's `team_id` per user (default the home team T0TEAM). */
  readonly userTeams?: ReadonlyMap<string, string>;
}

/** People in a channel that no test configured: the conversation tests' three users. */
const DEFAULT_PEOPLE = ['U0ALICE', 'U0BOB', 'U0CAROL'];

/**
 * conversations.members as Slack answers it (https://api.slack.com/methods/conversations.members): pages of
 * `limit` ids (default 100, at most 1000) with `response_metadata.next_cursor` ('' on the last page); the
 * bot is listed when it is a member; a private channel the bot is not in is `channel_not_found`.
 */
export class FakeChannelMembers {
  /** People of a channel (the bot is added unless it is in `notMemberOf`); unset: DEFAULT_PEOPLE. */
  readonly people = new Map<string, string[]>();

  /**
   * Workspace roles users.info reports (`is_admin`, `is_owner`): users listed here are answered from here
   * (a member of their team in `userTeams`, else the home team, named by their id), everyone else by
   * FakeSlack as before.
   */
  readonly roles = new Map<
    string,
    { is_admin?: boolean; is_owner?: boolean; deleted?: boolean; tz?: string }
  >();

  constructor(private readonly host: MembersHost) {}

  answer(method: string, args: Json): Json | undefined {
    if (method === 'users.info') return this.userWithRole(String(args.user ?? ''));
    if (method !== 'conversations.members') return undefined;
    const channel = String(args.channel ?? '');
    if (!/^[CG][A-Z0-9]+$/.test(channel)) return { ok: false, error: 'channel_not_found' };
    const botIn = !this.host.notMemberOf.has(channel);
    if (!botIn && channel.startsWith('G')) return { ok: false, error: 'channel_not_found' };
    const all = [...(this.people.get(channel) ?? DEFAULT_PEOPLE), ...(botIn ? [this.host.botUserId] : [])];
    const limit = Math.min(1000, Math.max(1, Number(args.limit ?? 100) || 100));
    const cursor = String(args.cursor ?? '');
    const start = cursor === '' ? 0 : Number(Buffer.from(cursor, 'base64').toString().replace('offset:', ''));
    if (!Number.isInteger(start) || start < 0) return { ok: false, error: 'invalid_cursor' };
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? Buffer.from(`offset:${start + limit}`).toString('base64') : '';
    return { ok: true, members: page, response_metadata: { next_cursor: next } };
  }

  /** users.info for a user with a role; undefined: FakeSlack answers. */
  private userWithRole(id: string): Json | undefined {
    const role = this.roles.get(id);
    if (!role) return undefined;
    const team_id = this.host.userTeams?.get(id) ?? 'T0TEAM';
    const user = { id, name: id.toLowerCase(), team_id, is_restricted: false, profile: {} };
    return {
      ok: true,
      user: {
        ...user,
        is_admin: role.is_admin ?? false,
        is_owner: role.is_owner ?? false,
        tz: role.tz ?? 'America/Los_Angeles',
        ...(role.deleted ? { deleted: true } : {}),
      },
    };
  }
}
