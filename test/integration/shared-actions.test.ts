import { afterEach, describe, expect, it } from 'vitest';
import { startAlertingApp } from '../support/alerting-app.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 46 §1: what someone does on a shared alert changes the alert itself, for everyone, with who and
 * when (a chat.update owed through the outbox): Fix shows the job running on its row, Mute who muted it
 * until when. A second Fix on a gap being fixed is refused at the click, naming the running job's thread.
 */

const CHANNEL = 'C0ALERTS';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

type Element = { type: string; action_id?: string; value?: string; text?: { text: string } };
type Block = { type: string; elements?: Element[] };
type Shown = { ts: string; text: string; blocks?: unknown };

const actionsOf = (message: Shown) => (message.blocks as Block[]).find((b) => b.type === 'actions')!;

/** A click on `element` of the message as the channel sees it (its blocks come along, as Slack sends them). */
function click(t: TestApp, message: Shown, element: Element, userId: string, responseUrl: string) {
  const overflow = element.type === 'overflow' ? (element as unknown as { options: Element[] }) : undefined;
  return t.interaction(
    blockActionsPayload({
      userId,
      triggerId: t.slack.surfaces.mintTriggerId(userId),
      action: {
        action_id: element.action_id!,
        ...(overflow ? { selected: overflow.options[0]!.value! } : { value: element.value! }),
      },
      container: {
        type: 'message',
        channelId: CHANNEL,
        messageTs: message.ts,
        responseUrl,
        message: { text: message.text, blocks: message.blocks as unknown[] },
      },
    }),
  );
}

/** The chat.update of the alert whose blocks say `words`. */
const updateSaying = (t: TestApp, ts: string, words: string) =>
  waitFor(
    () =>
      t.slack
        .callsOf('chat.update')
        .find((c) => c.args.ts === ts && JSON.stringify(c.args.blocks).includes(words)),
    { what: `the alert updated with "${words}"` },
  );

describe('acting on a shared docs-health alert', () => {
  it('Fix marks the alert for everyone; a second Fix on the gap being fixed is refused naming its thread', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL]);
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const fix = actionsOf(alert).elements!.find((e) => e.type === 'button')!;
    await click(t, alert, fix, 'U0ALICE', t.slack.responseUrl());
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'the fix form' });
    await t.interaction(
      viewSubmissionPayload({
        view: modal.view,
        values: { health_instruction: { instruction: { type: 'plain_text_input', value: 'Document it' } } },
      }),
    );
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
    const card = await waitFor(
      () => t.slack.messages.find((m) => m.bot_id && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'the card' },
    );

    // The alert itself now says who is fixing it, since when, and where the job is; its button says so too.
    const update = await updateSaying(t, alert.ts, 'Fixing · started by <@U0ALICE>');
    const blocks = JSON.stringify(update.args.blocks);
    expect(blocks).toContain('<!date^');
    expect(blocks).toContain(`/p${card.ts.replace('.', '')}?thread_ts=${alert.ts}`);
    const shown = t.slack.messages.find((m) => m.ts === alert.ts)!;
    const button = actionsOf(shown).elements!.find((e) => e.action_id === fix.action_id)!;
    expect(button.text?.text).toBe('Fixing…');
    expect(JSON.stringify(shown.blocks)).toContain('webhook retries'); // the alert's own words stay

    // Bob clicks the row while the job runs: told privately where it is; no form, no second job.
    const responseUrl = t.slack.responseUrl();
    expect((await click(t, shown, button, 'U0BOB', responseUrl)).status).toBe(200);
    const told = await waitFor(
      () => t.slack.responses.find((r) => r.path === new URL(responseUrl).pathname),
      { what: 'the refusal' },
    );
    expect(String(told.body.text)).toContain("I didn't start a second fix");
    expect(String(told.body.text)).toContain(`/p${card.ts.replace('.', '')}?thread_ts=${alert.ts}`);
    expect(t.slack.surfaces.modals.size).toBe(1);
    expect(t.docs.jobs.size).toBe(1);
  }, 40_000);

  it('Mute says on the alert who muted it and until when, and its mute menu goes', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL]);
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const menu = actionsOf(alert).elements!.find((e) => e.type === 'overflow')!;
    expect((await click(t, alert, menu, 'U0BOB', t.slack.responseUrl())).status).toBe(200);

    const update = await updateSaying(t, alert.ts, '🔕 Muted by <@U0BOB> until <!date^');
    const shown = t.slack.messages.find((m) => m.ts === alert.ts)!;
    expect(JSON.stringify(shown.blocks)).toBe(JSON.stringify(update.args.blocks));
    expect(actionsOf(shown).elements!.map((e) => e.type)).toEqual(['button']); // Fix stays, the menu goes
    // Muted for 7 days: the date token names that instant (to the minute of the click).
    const until = Number(/<!date\^(\d+)\^/.exec(JSON.stringify(update.args.blocks))![1]) * 1000;
    expect(Math.abs(until - (Date.now() + 7 * 24 * 60 * 60 * 1000))).toBeLessThan(60_000);
  }, 40_000);
});
