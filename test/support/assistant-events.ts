import type { FakeSlack } from './fake-slack.js';
import { waitFor } from './http.js';
import { messageButtons } from './message-buttons.js';
import { messageEvent, nextMessageTs, TEAM_ID } from './slack-events.js';
import { blockActionsPayload } from './slack-interactions.js';

/** The DM between U0ALICE and the app that holds her assistant threads. */
export const ASSISTANT_DM = 'D0ALICEAPP';

interface ThreadFields {
  threadTs: string;
  channel?: string;
  user?: string;
  /** The channel open beside the container; absent: none. */
  contextChannel?: string;
}

function assistantThread(fields: ThreadFields) {
  return {
    user_id: fields.user ?? 'U0ALICE',
    channel_id: fields.channel ?? ASSISTANT_DM,
    thread_ts: fields.threadTs,
    context: fields.contextChannel
      ? { channel_id: fields.contextChannel, team_id: TEAM_ID, enterprise_id: null }
      : {},
  };
}

/** `assistant_thread_started`, as Slack sends it when the user opens a new thread in the container. */
export function assistantThreadStarted(fields: ThreadFields): Record<string, unknown> {
  const ts = nextMessageTs();
  return { type: 'assistant_thread_started', assistant_thread: assistantThread(fields), event_ts: ts };
}

/** `assistant_thread_context_changed`: the user opened another channel beside the container. */
export function assistantContextChanged(fields: ThreadFields): Record<string, unknown> {
  const ts = nextMessageTs();
  return {
    type: 'assistant_thread_context_changed',
    assistant_thread: assistantThread(fields),
    event_ts: ts,
  };
}

/** A message the user types in an assistant thread (a `message.im` event with the thread's ts). */
export function assistantMessage(fields: {
  threadTs: string;
  text: string;
  user?: string;
  channel?: string;
}) {
  return messageEvent({
    channel: fields.channel ?? ASSISTANT_DM,
    channel_type: 'im',
    user: fields.user ?? 'U0ALICE',
    thread_ts: fields.threadTs,
    text: fields.text,
  });
}

/**
 * The bot's messages in an assistant thread that carry `text` anywhere a person sees it: a message's text
 * and blocks, and for a streamed message every chunk it streamed. One result, one message: the PR link
 * must be in exactly one.
 */
export function messagesCarrying(slack: FakeSlack, threadTs: string, text: string, channel = ASSISTANT_DM) {
  return slack.threadReplies(channel, threadTs).filter((m) => {
    const stream = slack.assistant.streams.get(`${m.channel}:${m.ts}`);
    return JSON.stringify([m.text, m.blocks ?? [], stream?.chunks ?? []]).includes(text);
  });
}

/** `agent_session_stopped`: the person pressed Stop; Slack lists the streams it stopped itself. */
export function agentSessionStopped(fields: {
  threadTs: string;
  streams: string[];
  channel?: string;
  user?: string;
}): Record<string, unknown> {
  return {
    type: 'agent_session_stopped',
    channel: fields.channel ?? ASSISTANT_DM,
    thread_ts: fields.threadTs,
    user: fields.user ?? 'U0ALICE',
    streaming_message_ts: fields.streams,
    event_ts: nextMessageTs(),
  };
}

/** The confirmation card the bot posts for an instruction in an assistant thread with no job yet. */
export async function confirmationCard(slack: FakeSlack, threadTs: string, channel = ASSISTANT_DM) {
  return waitFor(
    () => {
      const card = slack
        .threadReplies(channel, threadTs)
        .find((m) => messageButtons(m.blocks).some((b) => b.action_id === 'assistant_confirm_start'));
      if (!card) return undefined;
      const buttons = messageButtons(card.blocks);
      const value = buttons[0]?.value ?? '';
      return { card, value, buttons };
    },
    { what: 'confirmation card' },
  );
}

/** Clicks a confirmation card's button ('start', 'edit' or 'cancel') as its user. */
export function clickConfirmation(
  bot: { interaction(payload: unknown): Promise<{ status: number }> },
  slack: FakeSlack,
  card: { ts: string },
  value: string,
  which: 'start' | 'edit' | 'cancel',
  userId = 'U0ALICE',
  channel = ASSISTANT_DM,
) {
  return bot.interaction(
    blockActionsPayload({
      userId,
      triggerId: `trigger-${Math.random()}`,
      action: { action_id: `assistant_confirm_${which}`, value },
      container: {
        type: 'message',
        channelId: channel,
        messageTs: card.ts,
        responseUrl: slack.responseUrl(),
      },
    }),
  );
}

/** Waits for the confirmation card in the thread and presses its [Start job] (what a person does). */
export async function startFromCard(
  bot: { interaction(payload: unknown): Promise<{ status: number }> },
  slack: FakeSlack,
  threadTs: string,
  channel = ASSISTANT_DM,
) {
  const { card, value } = await confirmationCard(slack, threadTs, channel);
  const response = await clickConfirmation(bot, slack, card, value, 'start', 'U0ALICE', channel);
  if (response.status !== 200) throw new Error(`[Start job] answered ${response.status}`);
  return card;
}
