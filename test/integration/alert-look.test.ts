import { afterEach, describe, expect, it } from 'vitest';
import { startAlertingApp } from '../support/alerting-app.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 46 §1: "I'll look" on a docs-health alert says on the alert, for everyone, who is looking and since
 * when (the shared message's change, as Mute's, with Mute's permission); the same person again changes
 * nothing. The real app over signed HTTP.
 */

const CHANNEL = 'C0ALERTS';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

type Element = { type: string; action_id?: string; value?: string };
type Shown = { ts: string; text: string; blocks?: unknown };

const lookOf = (message: Shown) =>
  (message.blocks as Array<{ type: string; elements?: Element[] }>)
    .find((b) => b.type === 'actions')!
    .elements!.find((e) => e.action_id === 'health_alert_look')!;

/** Clicks "I'll look" on the alert as the channel shows it now; resolves the private answer's text. */
async function look(t: TestApp, ts: string, userId: string): Promise<string> {
  const message = t.slack.messages.find((m) => m.ts === ts)!;
  const responseUrl = t.slack.responseUrl();
  const button = lookOf(message);
  const sent = await t.interaction(
    blockActionsPayload({
      userId,
      triggerId: t.slack.surfaces.mintTriggerId(userId),
      action: { action_id: button.action_id!, value: button.value! },
      container: {
        type: 'message',
        ...{ channelId: CHANNEL, messageTs: ts, responseUrl },
        message: { text: message.text, blocks: message.blocks as unknown[] },
      },
    }),
  );
  expect(sent.status).toBe(200);
  const told = await waitFor(() => t.slack.responses.find((r) => r.path === new URL(responseUrl).pathname), {
    what: `the answer to ${userId}`,
  });
  return String(told.body.text);
}

describe("I'll look on a docs-health alert", () => {
  it('names who is looking on the alert for everyone; again by the same person changes nothing; Mute’s permission', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL], { ALLOWED_USER_IDS: 'U0ALICE,U0BOB,U0CAROL' });
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const updates = () => t.slack.callsOf('chat.update').filter((c) => c.args.ts === alert.ts);

    expect(await look(t, alert.ts, 'U0BOB')).toContain('I marked the alert');
    const bob = await waitFor(
      () => updates().find((c) => JSON.stringify(c.args.blocks).includes('👀 <@U0BOB> is looking · <!date^')),
      { what: "the alert saying Bob's looking" },
    );
    await waitFor(
      () =>
        JSON.stringify(t.slack.messages.find((m) => m.ts === alert.ts)!.blocks) ===
          JSON.stringify(bob.args.blocks) || undefined,
      { what: 'the alert redrawn' },
    );
    expect(JSON.stringify(bob.args.blocks)).toContain('webhook retries'); // the alert's own words stay

    // Bob again: answered, and the alert is left as it is (no second line, no new date).
    const before = updates().length;
    expect(await look(t, alert.ts, 'U0BOB')).toContain('I left the alert as it is');
    expect(updates()).toHaveLength(before);
    expect(JSON.stringify(t.slack.messages.find((m) => m.ts === alert.ts)!.blocks)).toBe(
      JSON.stringify(bob.args.blocks),
    );

    // Someone who may not mute this channel's alerts may not say so either.
    expect(await look(t, alert.ts, 'U0MALLORY')).toContain("can't");
    expect(updates()).toHaveLength(before);

    // Carol too: one line names both.
    expect(await look(t, alert.ts, 'U0CAROL')).toContain('I marked the alert');
    const both = await waitFor(
      () => updates().find((c) => JSON.stringify(c.args.blocks).includes('<@U0CAROL> is looking')),
      { what: "the alert saying Carol's looking too" },
    );
    const line = (both.args.blocks as Array<{ block_id?: string; elements?: unknown[] }>).filter(
      (b) => b.block_id === 'shared_looking',
    );
    expect(line).toHaveLength(1);
    expect(JSON.stringify(line[0])).toContain('<@U0BOB> is looking');
    expect(line[0]!.elements).toHaveLength(2);
  }, 40_000);
});
