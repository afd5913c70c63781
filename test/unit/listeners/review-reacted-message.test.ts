import { describe, expect, it, vi } from 'vitest';
import { reviewReactedMessage } from '../../../src/slack/listeners/actions/review-reacted-message.js';
import { encodeMessageRef, REVIEW_MESSAGE_ACTION } from '../../../src/slack/messages/review-message.js';
import { access, answers, buttonClick, CHANNEL, only, recordingLogger } from './fakes.js';

/*
 * Issue 44: "Review and send" reads the message its button names only when that message is in the channel
 * the button was clicked in; a value naming another channel (forged, or copied) reads nothing.
 */

const TS = '1700000000.000010';

function setup() {
  const { logger, lines } = recordingLogger();
  const history = vi.fn(async (args: { channel: string }) => ({
    ok: true,
    messages: [{ type: 'message', ts: TS, user: 'U0BOB', text: `Secret plans of ${args.channel}` }],
  }));
  const open = vi.fn(async () => ({ ok: true }));
  const client = {
    conversations: { history, replies: history, info: vi.fn(async () => ({ ok: true, channel: {} })) },
    users: { info: vi.fn(async () => ({ ok: true, user: { id: 'U0BOB', name: 'bob' } })) },
    views: { open },
  };
  const handle = reviewReactedMessage({ access: access(), logger });
  return { handle, client, history, open, lines };
}

describe('reviewReactedMessage ("Review and send")', () => {
  it('opens the form for a message of the channel the button was clicked in', async () => {
    const { handle, client, history, open } = setup();
    const { ack, respond } = answers();
    const { body } = buttonClick(REVIEW_MESSAGE_ACTION, encodeMessageRef(CHANNEL, TS));
    await handle({ ack, respond, client, body } as never);
    expect(history).toHaveBeenCalled();
    expect(history.mock.calls.every(([args]) => args.channel === CHANNEL)).toBe(true);
    expect(open).toHaveBeenCalledTimes(1);
    expect(respond).not.toHaveBeenCalled();
  });

  it('a value naming another channel: refused in private, nothing read, nothing opened', async () => {
    const { handle, client, history, open, lines } = setup();
    const { ack, respond } = answers();
    const { body } = buttonClick(REVIEW_MESSAGE_ACTION, encodeMessageRef('C0PRIVATE', TS));
    await handle({ ack, respond, client, body } as never);
    expect(ack).toHaveBeenCalledTimes(1);
    const told = only(respond);
    expect(told).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(told.text).toMatch(/^I didn't open that: .*another channel/);
    expect(history).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
    expect(lines.some((l) => l.includes('named another channel'))).toBe(true);
  });

  it('a click that says no channel at all: refused the same way', async () => {
    const { handle, client, history, open } = setup();
    const { ack, respond } = answers();
    const { body } = buttonClick(REVIEW_MESSAGE_ACTION, encodeMessageRef(CHANNEL, TS));
    const { container: _c, channel: _ch, ...bare } = body as unknown as Record<string, unknown>;
    await handle({ ack, respond, client, body: bare } as never);
    expect(only(respond).text).toMatch(/^I didn't open that/);
    expect(history).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });
});
