import type { Context } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import type { ConversationOutcome, InboundMessage } from '../../../src/jobs/conversation-service.js';
import { messageEvent } from '../../../src/slack/listeners/events/message.js';
import {
  BOT_USER_ID,
  eventEnvelope,
  messageEvent as slackMessage,
  TEAM_ID,
} from '../../support/slack-events.js';
import { deferredWork, recordingLogger } from './fakes.js';

function setup() {
  const work = deferredWork();
  const { logger, lines } = recordingLogger();
  const handled: InboundMessage[] = [];
  const conversations = {
    handle: vi.fn(async (message: InboundMessage): Promise<ConversationOutcome> => {
      handled.push(message);
      return { kind: 'ignored', why: 'not_addressed' };
    }),
  };
  const callback = messageEvent({ conversations, logger, afterAck: work.afterAck });
  /** Delivers an event as Bolt would: the event, its envelope, and the context Bolt built. */
  const deliver = (event: Record<string, unknown>, context: Context = { isEnterpriseInstall: false }) =>
    callback({ event: event as { type: string }, body: eventEnvelope(event), context });
  return { deliver, work, handled, conversations, lines };
}

describe('messageEvent', () => {
  it('hands a thread reply to the conversations only after the acknowledgement', async () => {
    const t = setup();
    const event = slackMessage({ text: 'Also cover the 503 case', thread_ts: '1700000000.000100' });
    await t.deliver(event);
    expect(t.conversations.handle).not.toHaveBeenCalled();
    expect(t.work.queued).toHaveLength(1);
    await t.work.run();
    expect(t.handled).toEqual([
      {
        kind: 'message',
        teamId: TEAM_ID,
        channelId: 'C0DOCS',
        channelType: 'channel',
        userId: 'U0ALICE',
        botId: undefined,
        subtype: undefined,
        ts: event.ts,
        threadTs: '1700000000.000100',
        text: 'Also cover the 503 case',
        // Bolt's context did not name the bot: the envelope's authorizations do.
        botUserId: BOT_USER_ID,
        parentUserId: undefined,
      },
    ]);
  });

  it('routes a mention as `app_mention`, with the bot id from Bolt’s context', async () => {
    const t = setup();
    await t.deliver(slackMessage({ type: 'app_mention', text: `<@${BOT_USER_ID}> fix the quickstart` }), {
      isEnterpriseInstall: false,
      botUserId: 'U0FROMCONTEXT',
    });
    await t.work.run();
    expect(t.handled).toHaveLength(1);
    expect(t.handled[0]).toMatchObject({
      kind: 'app_mention',
      text: `<@${BOT_USER_ID}> fix the quickstart`,
      botUserId: 'U0FROMCONTEXT',
    });
  });

  it('passes bot messages and edits on unfiltered (the conversations filter them), and DMs as `im`', async () => {
    const t = setup();
    await t.deliver(slackMessage({ text: 'card', bot_id: 'B0OTHER' }));
    await t.deliver(slackMessage({ text: 'edited', subtype: 'message_changed' }));
    await t.deliver(slackMessage({ text: 'hello', channel: 'D0ALICE', channel_type: undefined }));
    await t.work.run();
    expect(t.handled.map((m) => [m.botId, m.subtype, m.channelType])).toEqual([
      ['B0OTHER', undefined, 'channel'],
      [undefined, 'message_changed', 'channel'],
      [undefined, undefined, 'im'],
    ]);
  });

  it('ignores an event without a channel or ts', async () => {
    const t = setup();
    await t.deliver({ type: 'message', text: 'no channel', ts: '1700000000.000200' });
    await t.deliver({ type: 'message', text: 'no ts', channel: 'C0DOCS' });
    // A well-formed message after them is the sign both were processed.
    await t.deliver(slackMessage({ text: 'well formed' }));
    await t.work.run();
    expect(t.handled.map((m) => m.text)).toEqual(['well formed']);
  });

  it('logs a failure of the conversations instead of rejecting (no Slack retry is coming)', async () => {
    const t = setup();
    t.conversations.handle.mockRejectedValueOnce(new Error('store down'));
    await t.deliver(slackMessage({ text: 'Also cover the 503 case', thread_ts: '1700000000.000100' }));
    await expect(t.work.run()).resolves.toBeUndefined();
    expect(t.lines.join('')).toContain('could not handle a message event');
  });
});
