import type { InboundMessage } from '../domain/inbound-message.js';
import { labelledContext, quote } from '../domain/message-text.js';
import type { ConversationNotifier, MessageText } from '../ports.js';

/** Budget for quoted thread context in a prompt; the most recent messages are kept. */
const MAX_CONTEXT_CHARS = 6000;
const MAX_CONTEXT_MESSAGES = 50;

/** Earlier messages of an ordinary thread, quoted and labelled as conversation, newest kept. */
export async function threadContext(
  deps: { notifier: Pick<ConversationNotifier, 'threadMessages'>; text: MessageText },
  message: InboundMessage,
  threadTs: string,
): Promise<string | undefined> {
  const messages = await deps.notifier.threadMessages(message.channelId, threadTs);
  const earlier = messages
    .filter((m) => Number(m.ts) < Number(message.ts))
    .filter((m) => !m.subtype || m.subtype === 'bot_message' || m.subtype === 'thread_broadcast')
    .filter((m) => !(message.botUserId && m.userId === message.botUserId))
    .slice(-MAX_CONTEXT_MESSAGES);
  const quoted: string[] = [];
  let budget = MAX_CONTEXT_CHARS;
  for (const m of earlier.reverse()) {
    const who = m.userId ? `@${await deps.text.displayName(m.userId)}` : 'a bot';
    const text = (await deps.text.toPlainText(m.text)).trim();
    if (text === '') continue;
    const entry = `${who} wrote:\n${quote(text)}`;
    if (entry.length > budget) break;
    budget -= entry.length;
    quoted.unshift(entry);
  }
  return labelledContext(quoted);
}
