import { afterEach, describe, expect, it } from 'vitest';
import { startAlertingApp } from '../support/alerting-app.js';
import { makeFeedback, makeSearches } from '../support/fake-docs-health.js';
import { waitFor } from '../support/http.js';
import { messageButtons } from '../support/message-buttons.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

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
  it('Fix marks the alert for everyone; a second Fix while the job runs is refused naming its thread; its end gives Fix back', async () => {
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

    // The job ends: the row is Fix again (as it was) and its line says whose fix ended; Bob may fix it now.
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/46');
    const ended = await updateSaying(t, alert.ts, "🛠 <@U0ALICE>'s fix ended <!date^");
    expect(JSON.stringify(ended.args.blocks)).toContain(
      `/p${card.ts.replace('.', '')}?thread_ts=${alert.ts}`,
    );
    const again = t.slack.messages.find((m) => m.ts === alert.ts)!;
    const back = actionsOf(again).elements!.find((e) => e.action_id === fix.action_id)!;
    expect(back).toMatchObject({ text: { text: 'Fix' }, style: 'primary' });
    await click(t, again, back, 'U0BOB', t.slack.responseUrl());
    await waitFor(() => t.slack.surfaces.modals.size === 2 || undefined, { what: "Bob's fix form" });
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
    // Fix and I'll look stay, the menu goes.
    expect(actionsOf(shown).elements!.map((e) => e.type)).toEqual(['button', 'button']);
    // Muted for 7 days: the date token names that instant (to the minute of the click).
    const until = Number(/<!date\^(\d+)\^/.exec(JSON.stringify(update.args.blocks))![1]) * 1000;
    expect(Math.abs(until - (Date.now() + 7 * 24 * 60 * 60 * 1000))).toBeLessThan(60_000);
  }, 40_000);
});

describe('a shared message Slack refuses to redraw', () => {
  it('keeps its blocks: the update is abandoned, never sent as bare text', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL]);
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const before = JSON.stringify(alert.blocks);
    t.slack.inject('chat.update', { kind: 'error', error: 'invalid_blocks' }, 3);
    const menu = actionsOf(alert).elements!.find((e) => e.type === 'overflow')!;
    await click(t, alert, menu, 'U0BOB', t.slack.responseUrl());
    await waitFor(() => t.logs.find((l) => l.includes('Slack refused a message the bot owed')), {
      what: 'the update abandoned',
    });
    const updates = t.slack.callsOf('chat.update').filter((c) => c.args.ts === alert.ts);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((c) => Array.isArray(c.args.blocks) && c.args.blocks.length > 0)).toBe(true);
    expect(JSON.stringify(t.slack.messages.find((m) => m.ts === alert.ts)!.blocks)).toBe(before);
  }, 40_000);
});

describe('Fix on the rows of a report posted to the channel', () => {
  it('two rows fixed by two people: each row shows its own job, the second (from a stale copy) kept the first', async () => {
    const t = await startTestApp();
    apps.push(t);
    t.docs.health.defaults = {
      searches: makeSearches(6),
      pages: [{ path: '/guides/auth', thumbsUp: 2, thumbsDown: 9, code: 0, total: 11 }],
      feedback: makeFeedback('/guides/auth', ['The token example is wrong']),
      conversations: [],
    };
    const CH = 'C0DOCS';
    expect((await t.command({ command: '/docs-health', text: 'top 3', channel_id: CH })).status).toBe(200);
    const ephemeral = await waitFor(() => t.slack.responses[0]?.body, { what: 'the report' });
    const post = messageButtons(ephemeral.blocks).find((b) => b.action_id === 'docs_health_post')!;
    await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
        action: { action_id: post.action_id, value: post.value! },
        container: {
          type: 'message',
          channelId: CH,
          messageTs: '1700000000.000100',
          responseUrl: t.slack.responseUrl(),
          ephemeral: true,
        },
      }),
    );
    const posted = await waitFor(
      () => t.slack.messages.find((m) => m.bot_id && m.channel === CH && m.text.startsWith('Docs health')),
      { what: 'the report in the channel' },
    );
    const rows = messageButtons(posted.blocks).filter((b) => b.action_id.startsWith('health_fix_'));
    const original = { text: posted.text, blocks: structuredClone(posted.blocks) };
    const fixRow = async (actionId: string, userId: string, instruction: string) => {
      // Bob's client has not redrawn the report yet: his click carries it as first posted.
      const shown = userId === 'U0BOB' ? original : t.slack.messages.find((m) => m.ts === posted.ts)!;
      const button = messageButtons(shown.blocks).find((b) => b.action_id === actionId)!;
      const before = t.slack.surfaces.modals.size;
      await t.interaction(
        blockActionsPayload({
          userId,
          triggerId: t.slack.surfaces.mintTriggerId(userId),
          action: { action_id: actionId, value: button.value! },
          container: {
            type: 'message',
            ...{ channelId: CH, messageTs: posted.ts, responseUrl: t.slack.responseUrl() },
            message: { text: shown.text, blocks: shown.blocks as unknown[] },
          },
        }),
      );
      const modal = await waitFor(
        () => t.slack.surfaces.modals.size > before && [...t.slack.surfaces.modals.values()].at(-1),
        { what: 'the fix form' },
      );
      await t.interaction(
        viewSubmissionPayload({
          userId,
          view: (modal as { view: Record<string, unknown> }).view,
          values: { health_instruction: { instruction: { type: 'plain_text_input', value: instruction } } },
        }),
      );
      return updateSaying(t, posted.ts, `started by <@${userId}>`);
    };
    await fixRow(rows[0]!.action_id, 'U0ALICE', 'Fix the first gap');
    const last = await fixRow(rows[1]!.action_id, 'U0BOB', 'Fix the second gap');

    // Each row's button reads "Fixing…" and the line right under it names who started its job.
    const blocks = last.args.blocks as Array<{
      type: string;
      accessory?: Element;
      elements?: Array<{ text: string }>;
    }>;
    for (const [row, userId] of [
      [rows[0]!, 'U0ALICE'],
      [rows[1]!, 'U0BOB'],
    ] as const) {
      const i = blocks.findIndex((b) => b.accessory?.action_id === row.action_id);
      expect(blocks[i]!.accessory!.text?.text).toBe('Fixing…');
      expect(blocks[i + 1]!.type).toBe('context');
      expect(blocks[i + 1]!.elements![0]!.text).toContain(`🛠 Fixing · started by <@${userId}> <!date^`);
    }
    expect(
      rows.slice(2).every((r) => JSON.stringify(last.args.blocks).includes(`"action_id":"${r.action_id}"`)),
    ).toBe(true);
    expect(messageButtons(last.args.blocks).filter((b) => b.text?.text === 'Fix')).toHaveLength(
      rows.length - 2,
    );
    expect(t.docs.jobs.size).toBe(2);
  }, 40_000);
});
