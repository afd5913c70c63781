import type { SlackAppTier } from '../../../common/config.js';
import { labelledContext, quote } from '../../../jobs/domain/message-text.js';
import { slackToPlainText } from '../../markup.js';
import { isForeignAuthor, type SourceMessage } from '../../message-source.js';

/** The one Web API read these surfaces make, narrowed so unit tests fake exactly it. */
export interface ThreadReader {
  conversations: {
    replies(args: {
      channel: string;
      ts: string;
      latest?: string;
      inclusive?: boolean;
      limit?: number;
    }): Promise<{
      messages?: Array<{
        ts?: string;
        user?: string;
        text?: string;
        subtype?: string;
        bot_id?: string;
        app_id?: string;
        team?: string;
        user_team?: string;
      }>;
      has_more?: boolean;
    }>;
  };
}

const MAX_EARLIER = 50;
export const MAX_CONTEXT_CHARS = 6000;

export interface EarlierMessage {
  author: string;
  text: string;
}

/**
 * The thread's messages before `messageTs`, oldest first, as plain text: people of `homeTeam` only (a bot's,
 * an app's or a Slack Connect outsider's message is left out, as a reaction on one needs a review). Empty
 * when the message is not a reply or the bot cannot read the thread (not a member): the job still starts.
 */
export async function earlierMessages(
  client: ThreadReader,
  channelId: string,
  threadTs: string,
  messageTs: string,
  homeTeam?: string,
): Promise<EarlierMessage[]> {
  return readEarlierMessages(client, channelId, threadTs, messageTs, homeTeam).then(
    (read) => read.messages,
    () => [],
  );
}

/**
 * What one read of a thread found before a message. `firstPage`: the thread has more messages before it
 * than one page holds (15 for a distributed app), so these are the thread's first ones, not its last.
 */
export interface ThreadRead {
  messages: EarlierMessage[];
  firstPage: boolean;
}

/** `earlierMessages`, but a failed read rejects (the caller tells "not now" from "nothing there"). */
export async function readEarlierMessages(
  client: ThreadReader,
  channelId: string,
  threadTs: string,
  messageTs: string,
  homeTeam?: string,
): Promise<ThreadRead> {
  if (threadTs === messageTs) return { messages: [], firstPage: false };
  const answer = await client.conversations.replies({
    channel: channelId,
    ts: threadTs,
    latest: messageTs,
    inclusive: false,
    limit: MAX_EARLIER,
  });
  const messages = (answer.messages ?? [])
    .filter((m) => m.ts !== undefined && Number(m.ts) < Number(messageTs))
    .filter((m) => !m.subtype || m.subtype === 'thread_broadcast')
    .filter((m) => !isForeignAuthor({ ...m, ts: m.ts ?? '' }, homeTeam))
    .map((m) => ({
      author: `@${m.user}`,
      text: slackToPlainText(m.text ?? '').trim(),
    }))
    .filter((m) => m.text !== '');
  return { messages, firstPage: answer.has_more === true };
}

/**
 * A thread's earlier messages read within the workspace's history budget (SlackDeps.threads), which a
 * distributed app gets once a minute: what one read found serves the form and then the job it starts.
 */
export interface ThreadContext {
  /** SLACK_APP_TIER: how often reads come, for the words of a refusal (undefined: internal). */
  readonly appTier?: SlackAppTier;
  /**
   * For a form that must open within 3 s: what was read already, else a read if its slot is free now;
   * undefined when the thread cannot be read now (the form opens without it).
   */
  now(
    channelId: string,
    threadTs: string,
    messageTs: string,
    homeTeam?: string,
  ): Promise<ThreadRead | undefined>;
  /** For a job being started: what was read already, else a read in its turn; empty if it fails. */
  inTurn(
    channelId: string,
    threadTs: string,
    messageTs: string,
    homeTeam?: string,
  ): Promise<EarlierMessage[]>;
  /**
   * The message at `ts` (a reaction's), read in its turn (it may wait for the minute's read), or with
   * `now` only if the read is free now (else `slack_budget_spent`). Rejects when it cannot be read.
   */
  message(channelId: string, ts: string, options?: { now: boolean }): Promise<SourceMessage | undefined>;
}

/** What `contextOf` sends of `messages`: the newest that fit MAX_CONTEXT_CHARS, oldest first. */
export function sentContext(messages: EarlierMessage[]): { entries: string[]; chars: number } {
  const entries: string[] = [];
  let budget = MAX_CONTEXT_CHARS;
  for (const m of [...messages].reverse()) {
    const entry = `${m.author} wrote:\n${quote(m.text)}`;
    if (entry.length > budget) break;
    budget -= entry.length;
    entries.unshift(entry);
  }
  return { entries, chars: MAX_CONTEXT_CHARS - budget };
}

/** Earlier messages quoted and labelled as conversation (as for a mention in a thread), newest kept. */
export function contextOf(messages: EarlierMessage[]): string | undefined {
  return labelledContext(sentContext(messages).entries);
}

/** The preview's account of what checking "Include the thread's earlier messages" sends. */
export function contextSummary(
  messages: EarlierMessage[],
  firstPage = false,
): { sent: number; chars: number; leftOut: number; firstPage: boolean } {
  const { entries, chars } = sentContext(messages);
  return { sent: entries.length, chars, leftOut: messages.length - entries.length, firstPage };
}

/** A message inside a job's thread is answered by that job: a second job there would take the thread over. */
export function alreadyJobThreadText(jobId: string): string {
  return `This thread already follows docs agent job \`${jobId}\`, so I started nothing. Reply in the thread to send that job a follow-up, or use the shortcut on a message outside it.`;
}

type ReadArgs = {
  channel: string;
  ts?: string;
  latest: string;
  oldest?: string;
  inclusive: boolean;
  limit: number;
};
type Read = (args: ReadArgs) => Promise<{ messages?: SourceMessage[] }>;

/** The reads `readMessage` makes. */
export interface MessageReader {
  conversations: { history: Read; replies: (args: ReadArgs & { ts: string }) => ReturnType<Read> };
}

/** The message at `ts`: top-level from the history, else a reply read from its thread. */
export async function readMessage(
  client: MessageReader,
  channel: string,
  ts: string,
): Promise<SourceMessage | undefined> {
  const window = { channel, latest: ts, inclusive: true, limit: 1 };
  const top = await client.conversations.history(window);
  const found = top.messages?.find((m) => m.ts === ts);
  if (found) return found;
  // A reply: conversations.replies with the reply's ts answers its thread (parent first).
  const thread = await client.conversations.replies({ ...window, ts, oldest: ts, limit: 2 });
  return thread.messages?.find((m) => m.ts === ts);
}
