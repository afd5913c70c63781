import type { Delivery } from '../delivery/domain.js';
import type { Outbox } from '../delivery/ports.js';
import { escapeMrkdwn } from './markup.js';
import type { SlackMessage } from './messages/types.js';

/**
 * Slack refused for good a post the bot owed someone (the bot removed from the channel, the channel or the
 * thread gone, a scope missing): the person it was for (`forUser`) gets it by direct message instead, with
 * where it should have gone and Slack's code, owed like any other message. Nothing else has a person to tell.
 */
export function tellRefused(outbox: Pick<Outbox, 'owe'>) {
  return async (delivery: Delivery, code: string): Promise<void> => {
    const { target } = delivery;
    if (target.kind !== 'post' || !target.forUser) return;
    await outbox.owe({
      key: `refused:${delivery.key}`,
      target: { kind: 'post', channel: target.forUser, threadTs: null },
      payload: refusedMessage(target.channel, code, delivery.payload),
      priority: 'reply',
    });
  };
}

function refusedMessage(channel: string, code: string, payload: unknown): SlackMessage {
  const original = payload as Partial<SlackMessage> | null;
  const why =
    code === 'not_in_channel' || code === 'channel_not_found'
      ? 'I am no longer a member there'
      : code === 'thread_not_found' || code === 'message_not_found'
        ? 'its thread was deleted'
        : `Slack refused it (\`${escapeMrkdwn(code.slice(0, 60))}\`)`;
  const notice = `I could not post this in <#${channel}>: ${why}. Here it is instead.`;
  const text = typeof original?.text === 'string' ? `${notice}\n${original.text}` : notice;
  const blocks = [
    { type: 'section', text: { type: 'mrkdwn', text: notice } },
    ...(Array.isArray(original?.blocks) ? original.blocks : []),
  ] as SlackMessage['blocks'];
  return { text, blocks };
}
