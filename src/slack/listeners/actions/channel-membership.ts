/** The one Web API read of the membership check, narrowed so unit tests fake exactly it. */
export interface MembersReader {
  conversations: {
    members(args: { channel: string; cursor?: string; limit?: number }): Promise<{
      members?: string[];
      response_metadata?: { next_cursor?: string };
    }>;
  };
}

/** Pages read at most (of 1000 members each): a view_submission has 3 s to be answered. */
export const MEMBER_PAGES_CAP = 5;
const PAGE_SIZE = 1000;

export type MembershipCheck =
  | { ok: true }
  | { ok: false; reason: 'not_member' | 'bot_not_member' | 'too_large' | 'unreadable'; code?: string };

/**
 * Whether the user and the bot are both in the channel a job from Home would go to: Home can pick any
 * channel of the workspace, and a job there acts on that channel's docs project and posts in it. Reads
 * conversations.members page by page, stopping once both are found or after MEMBER_PAGES_CAP pages.
 */
export async function checkChannelMembership(
  client: MembersReader,
  channelId: string,
  userId: string,
  botUserId: string | undefined,
): Promise<MembershipCheck> {
  let userFound = false;
  let botFound = botUserId === undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MEMBER_PAGES_CAP; page++) {
    let answer: Awaited<ReturnType<MembersReader['conversations']['members']>>;
    try {
      answer = await client.conversations.members({
        channel: channelId,
        limit: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      // A private channel the bot is not in does not exist for the bot.
      if (code === 'channel_not_found' || code === 'not_in_channel')
        return { ok: false, reason: 'bot_not_member' };
      return { ok: false, reason: 'unreadable', ...(typeof code === 'string' ? { code } : {}) };
    }
    for (const member of answer.members ?? []) {
      if (member === userId) userFound = true;
      if (member === botUserId) botFound = true;
    }
    if (userFound && botFound) return { ok: true };
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor) return { ok: false, reason: userFound ? 'bot_not_member' : 'not_member' };
  }
  return { ok: false, reason: 'too_large' };
}

/** The field error under the channel picker for a failed check: what happened and what to do. */
export function membershipProblem(check: Exclude<MembershipCheck, { ok: true }>): string {
  switch (check.reason) {
    case 'not_member':
      return "You're not a member of that channel. Pick a channel you're in: the job's card and thread go there, and it acts on that channel's docs project.";
    case 'bot_not_member':
      return "I'm not in that channel, and a job from Home never adds me by itself. Invite me there first (/invite @docs-agent), then submit again.";
    case 'too_large':
      return `That channel has more than ${(MEMBER_PAGES_CAP * PAGE_SIZE).toLocaleString('en-US')} members, too many to check that you're one of them here. Use /docs-agent &lt;instruction&gt; in the channel instead.`;
    default:
      return `I couldn't check who is in that channel${check.code ? ` (Slack: ${check.code})` : ''}. Submit again in a moment.`;
  }
}
