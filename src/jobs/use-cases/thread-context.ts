import type { InboundMessage } from '../domain/inbound-message.js';
import { labelledContext, quote } from '../domain/message-text.js';
import type { ConversationNotifier, MessageText, ThreadMessage } from '../ports.js';

/** Budget for quoted thread context in a prompt; the most recent messages are kept. */
const MAX_CONTEXT_CHARS = 6000;
const MAX_CONTEXT_MESSAGES = 50;

/**
 * Whether a thread message may reach the agent unreviewed: a person's, of this workspace. A bot's or an
 * app's (a webhook, a workflow, another integration) or a Slack Connect outsider's is left out, as a
 * reaction on one starts nothing without the reacting person reviewing it in the form.
 */
export function isHomePersonMessage(m: ThreadMessage, homeTeam: string | null): boolean {
  if (!m.userId || m.botId || m.appId || m.subtype === 'bot_message') return false;
  return m.team === undefined || homeTeam === null || m.team === homeTeam;
}

/** Earlier messages of an ordinary thread, quoted and labelled as conversation, newest kept. */
export async function threadContext(
  deps: { notifier: Pick<ConversationNotifier, 'threadMessages'>; text: MessageText },
  message: InboundMessage,
  threadTs: string,
): Promise<string | undefined> {
  const messages = await deps.notifier.threadMessages(message.channelId, threadTs);
  const earlier = messages
    .filter((m) => Number(m.ts) < Number(message.ts))
    .filter((m) => !m.subtype || m.subtype === 'thread_broadcast')
    .filter((m) => !(message.botUserId && m.userId === message.botUserId))
    .filter((m) => isHomePersonMessage(m, message.teamId))
    .slice(-MAX_CONTEXT_MESSAGES);
  const quoted: string[] = [];
  let budget = MAX_CONTEXT_CHARS;
  for (const m of earlier.reverse()) {
    const who = `@${await deps.text.displayName(m.userId ?? '')}`;
    const text = (await deps.text.toPlainText(m.text)).trim();
    if (text === '') continue;
    const entry = `${who} wrote:\n${quote(text)}`;
    if (entry.length > budget) break;
    budget -= entry.length;
    quoted.unshift(entry);
  }
  return labelledContext(quoted);
}
