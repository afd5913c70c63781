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
});
