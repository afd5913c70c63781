type Json = Record<string, unknown>;

/** The parts of FakeSlack read here: the stored messages and the channels the bot is not in. */
export interface HistoryHost {
  readonly messages: ReadonlyArray<{ channel: string; ts: string; thread_ts?: string }>;
  readonly notMemberOf: ReadonlySet<string>;
  /** The rate tiers, when on: a distributed app's pages hold at most `historyPageLimit` messages. */
  readonly rateTiers?: { readonly historyPageLimit: number | undefined } | undefined;
}

/** Slack's largest page for both methods; larger limits are refused here rather than silently cut. */
const MAX_LIMIT = 999;

/**
 * conversations.history and conversations.replies as Slack pages them: at most `limit` messages a page
 * (history newest first, default 100; a thread's replies oldest first, default 1000, its parent at the top
 * of every page and counted in `limit`), within [oldest, latest] (bounds exclusive unless `inclusive`),
 * with `has_more` and `response_metadata.next_cursor` ('' on the last page) and `cursor` to go on. A
 * cursor Slack never handed out is `invalid_cursor`; a channel the bot is not in cannot be read. With the
 * distributed limits on (`rateTiers`), a page holds 15 messages at most.
 */
export class FakeSlackHistory {
  constructor(private readonly host: HistoryHost) {}

  answer(method: string, args: Json): Json | undefined {
    if (method !== 'conversations.history' && method !== 'conversations.replies') return undefined;
    const channel = String(args.channel ?? '');
    if (this.host.notMemberOf.has(channel))
      return { ok: false, error: channel.startsWith('C') ? 'not_in_channel' : 'channel_not_found' };
    const asked = args.limit === undefined ? undefined : Number(args.limit);
    if (asked !== undefined && (!Number.isInteger(asked) || asked < 1 || asked > MAX_LIMIT))
      return { ok: false, error: 'invalid_limit' };
    // A distributed app's page holds 15 at most, whatever it asks (the default too).
    const cap = this.host.rateTiers?.historyPageLimit;
    const limit = cap === undefined ? asked : Math.min(asked ?? cap, cap);
    const start = offsetOf(args.cursor);
    if (start === undefined) return { ok: false, error: 'invalid_cursor' };
    return method === 'conversations.history'
      ? this.history(channel, args, limit ?? 100, start)
      : this.replies(channel, args, limit ?? 1000, start);
  }

  private history(channel: string, args: Json, limit: number, start: number): Json {
    const inRange = window(args);
    const all = this.host.messages
      .filter((m) => m.channel === channel && (!m.thread_ts || m.thread_ts === m.ts) && inRange(m.ts))
      .sort((a, b) => Number(b.ts) - Number(a.ts));
    return { ok: true, ...page(all, start, limit), pin_count: 0 };
  }

  /** `ts` may be the parent or any reply; roots the fake never stored (a person's message) still have replies. */
  private replies(channel: string, args: Json, limit: number, start: number): Json {
    const target = this.host.messages.find((m) => m.channel === channel && m.ts === String(args.ts));
    const rootTs = target?.thread_ts ?? String(args.ts);
    const root = this.host.messages.filter((m) => m.channel === channel && m.ts === rootTs);
    const inRange = window(args);
    const replies = this.host.messages
      .filter((m) => m.channel === channel && m.thread_ts === rootTs && m.ts !== rootTs && inRange(m.ts))
      .sort((a, b) => Number(a.ts) - Number(b.ts));
    const { messages, has_more, response_metadata } = page(replies, start, Math.max(1, limit - root.length));
    return { ok: true, messages: [...root, ...messages], has_more, response_metadata };
  }
}

function page<T>(all: readonly T[], start: number, size: number) {
  const end = start + size;
  const more = end < all.length;
  return {
    messages: all.slice(start, end),
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`offset:${end}`).toString('base64') : '' },
  };
}

/** The offset a cursor stands for (0 without one), or undefined for a cursor never handed out. */
function offsetOf(cursor: unknown): number | undefined {
  if (cursor === undefined || cursor === '') return 0;
  const decoded = Buffer.from(String(cursor), 'base64').toString();
  const match = /^offset:(\d+)$/.exec(decoded);
  return match ? Number(match[1]) : undefined;
}

function window(args: Json): (ts: string) => boolean {
  const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1';
  const oldest = args.oldest === undefined ? undefined : Number(args.oldest);
  const latest = args.latest === undefined ? undefined : Number(args.latest);
  return (ts) => {
    const t = Number(ts);
    if (oldest !== undefined && (inclusive ? t < oldest : t <= oldest)) return false;
    if (latest !== undefined && (inclusive ? t > latest : t >= latest)) return false;
    return true;
  };
}
