import { afterEach, describe, expect, it } from 'vitest';
import { startAlertingApp } from '../support/alerting-app.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * An alert's Fix button is /docs-health's: the same listener opens the same form for the alert's evidence,
 * and the job it starts names the gap on its card, in the alert's thread, and gets its PR there (and, later,
 * the impact post).
 */

const CHANNEL = 'C0ALERTS';
const PR = 'https://github.com/acme/docs/pull/314';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

describe('the Fix button of a docs-health alert', () => {
  it('opens the fix form naming the spike, and starts a job whose card names the gap', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL]);
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const blocks = alert.blocks as Array<{
      type: string;
      elements?: Array<{ action_id: string; value: string }>;
    }>;
    const fix = blocks.find((b) => b.type === 'actions')!.elements![0]!;
    const clicked = await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
        action: { action_id: fix.action_id, value: fix.value },
        container: {
          type: 'message',
          channelId: CHANNEL,
          messageTs: alert.ts,
          responseUrl: t.slack.responseUrl(),
        },
      }),
    );
    expect(clicked.status).toBe(200);
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'the fix form' });
    expect(JSON.stringify(modal.view)).toContain('webhook retries');

    await t.interaction(
      viewSubmissionPayload({
        view: modal.view,
        values: {
          health_instruction: {
            instruction: { type: 'plain_text_input', value: 'Document webhook retries' },
          },
        },
      }),
    );
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
    // The card goes in the alert's thread, where the channel sees who took the gap (issue 46).
    const card = await waitFor(
      () => t.slack.messages.find((m) => m.bot_id && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'the card' },
    );
    expect(card.channel).toBe(CHANNEL);
    expect(card.thread_ts).toBe(alert.ts);
    expect(JSON.stringify(card.blocks)).toContain('From /docs-health');
    expect(JSON.stringify(card.blocks)).toContain('webhook retries');
    t.docs.complete(job.id, PR);
    await waitFor(() => t.slack.threadReplies(CHANNEL, alert.ts).find((m) => m.text.includes(PR)), {
      what: 'the PR in the job thread',
    });
    // The job record kept the evidence: its "did it work?" check is queued for the thread.
    await waitFor(() => t.logs.some((l) => l.includes('impact check scheduled')), { what: 'impact check' });
  }, 40_000);

  it('two Fix submissions for the same gap at once start one job; a later one is refused naming its thread', async () => {
    const { t, alertIn } = await startAlertingApp([CHANNEL]);
    apps.push(t);
    const alert = await alertIn(CHANNEL);
    const view = await fixForm(t, alert);
    const submit = (userId: string) =>
      t.interaction(
        viewSubmissionPayload({
          userId,
          view,
          values: {
            health_instruction: { instruction: { type: 'plain_text_input', value: 'Document retries' } },
          },
        }),
      );
    const answers = await Promise.all([submit('U0ALICE'), submit('U0BOB')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    // The positive signs: one card in the alert's thread and one private refusal to whoever lost the race.
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
    const card = await waitFor(
      () => t.slack.messages.find((m) => m.bot_id && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'the card' },
    );
    expect(card.thread_ts).toBe(alert.ts);
    const refusals = () =>
      t.slack.callsOf('chat.postEphemeral').filter((c) => String(c.args.text).includes('second fix'));
    const [first] = await waitFor(() => refusals().at(0) && refusals(), { what: 'the refusal' });
    // It names the alert's thread, by its root (the card still on its way) or by the card in it.
    const named = String(first!.args.text);
    expect(named.includes(`/p${alert.ts.replace('.', '')}`) || named.includes(`thread_ts=${alert.ts}`)).toBe(
      true,
    );
    expect(t.docs.jobs.size).toBe(1);

    // A stale message or a later click: the running job is found and named, still no second job.
    await submit('U0CAROL');
    const later = await waitFor(() => refusals().find((c) => c.args.user === 'U0CAROL'), {
      what: 'the later refusal',
    });
    expect(String(later.args.text)).toContain(`/p${card.ts.replace('.', '')}?thread_ts=${alert.ts}`);
    expect(t.docs.jobs.size).toBe(1);
  }, 40_000);
});

/** Clicks the alert's Fix and returns the form it opened. */
async function fixForm(t: TestApp, alert: { ts: string; blocks?: unknown }) {
  const blocks = alert.blocks as Array<{
    type: string;
    elements?: Array<{ action_id: string; value: string }>;
  }>;
  const fix = blocks.find((b) => b.type === 'actions')!.elements![0]!;
  await t.interaction(
    blockActionsPayload({
      triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
      action: { action_id: fix.action_id, value: fix.value },
      container: {
        type: 'message',
        channelId: CHANNEL,
        messageTs: alert.ts,
        responseUrl: t.slack.responseUrl(),
      },
    }),
  );
  const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'the fix form' });
  return modal.view;
}
