import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 44: a "Review and send" value names its channel and message; a click whose value names another
 * channel than the one it was clicked in (a forged value) reads nothing of that channel and says so.
 */
describe('"Review and send" with a value naming another channel (signed request)', () => {
  let t: TestApp | undefined;
  afterEach(async () => t?.stop());

  it('answers privately, reads no message of the named channel, opens no form', async () => {
    t = await startTestApp();
    const ts = '1700000000.000777';
    t.slack.messages.push({ channel: 'C0SECRET', ts, text: 'The acquisition closes Friday', user: 'U0CEO' });
    const responseUrl = t.slack.responseUrl('review');
    const forged = JSON.stringify({ c: 'C0SECRET', t: ts });
    const response = await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
        action: { action_id: 'review_reacted_message', value: forged },
        container: { type: 'message', channelId: 'C0DOCS', messageTs: '1700000000.000800', responseUrl },
      }),
    );
    expect(response.status).toBe(200);
    const told = await waitFor(() => t?.slack.responses.find((r) => r.path.endsWith('/review')), {
      what: 'the private answer',
    });
    expect(String(told.body.text)).toMatch(/^I didn't open that: .*another channel/);
    expect(told.body.response_type).toBe('ephemeral');
    const reads = t.slack.calls.filter((c) => c.method.startsWith('conversations.'));
    expect(reads.filter((c) => c.args.channel === 'C0SECRET')).toEqual([]);
    expect(t.slack.surfaces.modals.size).toBe(0);
    expect(t.slack.everythingSent()).not.toContain('acquisition');
  });
});
