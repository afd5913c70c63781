import { afterEach, describe, expect, it } from 'vitest';
import { startAlertingApp } from '../support/alerting-app.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 38: an alert's overflow menu mutes its signal in its channel for 7 days. The real app over signed
 * HTTP: two channels get the same alert; after a mute in one, the signal keeps rising and only the other
 * channel gets the follow-up.
 */
const MUTED = 'C0ALERTS';
const OTHER = 'C0OTHER';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

describe('"Mute this signal for 7 days" on a docs-health alert', () => {
  it('silences that signal in that channel only, and says so to the person who chose it', async () => {
    const { t, feed, alertIn } = await startAlertingApp([MUTED, OTHER]);
    apps.push(t);
    const muted = await alertIn(MUTED);
    const other = await alertIn(OTHER);

    const actions = (muted.blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>).find(
      (b) => b.type === 'actions',
    )!;
    const menu = actions.elements!.find((e) => e.type === 'overflow') as {
      action_id: string;
      options: Array<{ value: string }>;
    };
    const responseUrl = t.slack.responseUrl();
    const chosen = await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
        action: {
          action_id: menu.action_id,
          selected: menu.options[0]!.value,
          text: 'Mute this signal for 7 days',
        },
        container: { type: 'message', channelId: MUTED, messageTs: muted.ts, responseUrl },
      }),
    );
    expect(chosen.status).toBe(200);
    const told = await waitFor(
      () => t.slack.responses.find((r) => r.path === new URL(responseUrl).pathname),
      {
        what: 'the answer',
      },
    );
    expect(String(told.body.text)).toContain(`won't alert in <#${MUTED}> for 7 days`);

    // It keeps rising: the other channel gets its follow-up; the muted one hears nothing more.
    feed.spike.searches = { 'webhook retries': 60 };
    feed.drawToday();
    await waitFor(() => t.slack.threadReplies(OTHER, other.ts).length > 0, {
      what: 'the follow-up in the other channel',
      timeoutMs: 15_000,
    });
    const checksSince = t.logs.length;
    await waitFor(() => t.logs.slice(checksSince).filter((l) => l.includes('alert check')).length >= 2, {
      what: 'two more checks',
      timeoutMs: 15_000,
    });
    expect(t.slack.threadReplies(MUTED, muted.ts)).toEqual([]);
    expect(
      t.slack.messages.filter((m) => m.channel === MUTED && m.text.startsWith('Docs-health alert')),
    ).toHaveLength(1);
  }, 60_000);
});
