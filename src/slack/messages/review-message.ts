import type { KnownBlock } from '@slack/types';

/** The button that opens the reviewed job form for a message a reaction may not start a job from. */
export const REVIEW_MESSAGE_ACTION = 'review_reacted_message';

const REF = /^[A-Za-z0-9.]{1,40}$/;

/** The button's value: refs only (channel and message ts), never the message's text. */
export function encodeMessageRef(channelId: string, ts: string): string {
  return JSON.stringify({ c: channelId, t: ts });
}

export function decodeMessageRef(value: string | undefined): { channelId: string; ts: string } | undefined {
  try {
    const raw = JSON.parse(value ?? '') as { c?: unknown; t?: unknown };
    if (typeof raw.c === 'string' && typeof raw.t === 'string' && REF.test(raw.c) && REF.test(raw.t))
      return { channelId: raw.c, ts: raw.t };
  } catch {
    // Not ours or tampered with: the caller says so.
  }
  return undefined;
}

const TEXT =
  "That message was written by an app, a bot, a webhook or someone outside this workspace, so I don't send it to the docs agent unreviewed. Nothing was started.";

/**
 * Ephemeral answer to the reacting user: a reaction event carries no trigger_id, so the form cannot open
 * by itself; the button's click does carry one.
 */
export function reviewMessagePrompt(channelId: string, ts: string): { text: string; blocks: KnownBlock[] } {
  return {
    text: `${TEXT} Use "Review and send" to check it in the form first.`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: TEXT } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: REVIEW_MESSAGE_ACTION,
            text: { type: 'plain_text', text: 'Review and send' },
            value: encodeMessageRef(channelId, ts),
          },
        ],
      },
    ],
  };
}
