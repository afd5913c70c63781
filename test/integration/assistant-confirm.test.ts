import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import {
  ASSISTANT_DM,
  assistantMessage,
  assistantThreadStarted,
  clickConfirmation,
  confirmationCard,
} from '../support/assistant-events.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, nextMessageTs } from '../support/slack-events.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 44: in an assistant thread with no job, a question is answered and an instruction is shown back on
 * a confirmation card; the job starts only on its [Start job], once however often it is clicked. Signed
 * requests, both state modes (the pending instruction is kept in the state store).
 */

const lab = appsOnRedis();

describe.each(['memory', 'Redis'] as const)('asking before starting in the assistant (%s state)', (mode) => {
  const boot = (env: Record<string, string> = {}): Promise<TestApp> =>
    lab.start({ env: { ...(mode === 'Redis' ? { REDIS_URL: lab.freshRedisUrl() } : {}), ...env } });

  async function send(t: TestApp, event: Record<string, unknown>) {
    const response = await t.event(eventEnvelope(event));
    expect(response.status).toBe(200);
    return event;
  }

  async function openThread(t: TestApp): Promise<string> {
    const threadTs = nextMessageTs();
    await send(t, assistantThreadStarted({ threadTs, contextChannel: 'C0DOCS' }));
    await waitFor(() => t.slack.assistant.prompts.find((p) => p.threadTs === threadTs), { what: 'prompts' });
    return threadTs;
  }

  const botPosts = (t: TestApp, threadTs: string) =>
    t.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === threadTs);

  it('answers questions (the page-view report, an offer) and starts no job', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: "What's our most-read page?" }));
    const report = await waitFor(() => botPosts(t, threadTs)[0], { what: 'the page-view report' });
    expect(JSON.stringify(report.args)).toContain('Page views');
    expect(t.docs.requestsTo('GET', /\/v1\/analytics\/[^/]+\/views$/).length).toBeGreaterThan(0);

    await send(t, assistantMessage({ threadTs, text: 'Does the quickstart explain rate limits?' }));
    const { card } = await confirmationCard(t.slack, threadTs);
    expect(JSON.stringify(card.blocks)).toContain("I can't answer that from the reports");
    expect(t.docs.jobs.size).toBe(0);
    expect(t.docs.requestsTo('POST', /\/job$/)).toHaveLength(0);
  });

  it('shows an instruction back with [Start job] [Edit] [Cancel]; the job starts on [Start job], once for two clicks', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Add a Python example to the authentication guide' }));
    const { card, value, buttons } = await confirmationCard(t.slack, threadTs);
    expect(buttons.map((b) => b.text?.text)).toEqual(['Start job', 'Edit', 'Cancel']);
    // The button carries an id, never the instruction; the card names the project.
    expect(value).not.toContain('Python');
    expect(JSON.stringify(card.blocks)).toContain('docs project `proj_acme_docs`');
    expect(JSON.stringify(card.blocks)).toContain('Add a Python example to the authentication guide');
    expect(t.docs.jobs.size).toBe(0);

    const clicks = await Promise.all([
      clickConfirmation(t, t.slack, card, value, 'start'),
      clickConfirmation(t, t.slack, card, value, 'start'),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    const job = await waitFor(() => (t.docs.jobs.size > 0 ? t.docs.onlyJob : undefined), { what: 'the job' });
    expect(job.prompts[0]).toContain('Add a Python example to the authentication guide');
    await waitFor(
      () => JSON.stringify(t.slack.message(ASSISTANT_DM, card.ts)?.blocks).includes('Job started'),
      {
        what: 'the card says started',
      },
    );
    // A third click after the card was decided: told privately (the positive sign), nothing new.
    const lateUrl = t.slack.responseUrl('late-start');
    await t.interaction(
      blockActionsPayload({
        triggerId: 'trigger-late',
        action: { action_id: 'assistant_confirm_start', value },
        container: { type: 'message', channelId: ASSISTANT_DM, messageTs: card.ts, responseUrl: lateUrl },
      }),
    );
    const late = await waitFor(() => t.slack.responses.find((r) => lateUrl.endsWith(r.path)), {
      what: 'the late click answered',
    });
    expect(String(late.body.text)).toContain('I no longer have this instruction');
    expect(t.docs.requestsTo('POST', /\/job$/)).toHaveLength(1);
    expect(t.docs.jobs.size).toBe(1);
  });

  it('[Edit] opens the job form prefilled with the instruction, and starts nothing itself', async () => {
    const t = await boot({ DOCS_CHANNEL_PROJECTS: 'C0DOCS=proj_b' });
    t.docs.projects.add('proj_b');
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Document the &lt;retry&gt; header for <@U0BOB>' }));
    const { card, value } = await confirmationCard(t.slack, threadTs);
    expect(JSON.stringify(card.blocks)).toContain('docs project `proj_b`');
    const triggerId = t.slack.surfaces.mintTriggerId('U0ALICE');
    await t.interaction(
      blockActionsPayload({
        triggerId,
        action: { action_id: 'assistant_confirm_edit', value },
        container: {
          type: 'message',
          channelId: ASSISTANT_DM,
          messageTs: card.ts,
          responseUrl: t.slack.responseUrl(),
        },
      }),
    );
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'the job form' });
    expect(JSON.stringify(modal.view)).toContain('Document the <retry> header');
    // The form starts the job in this thread (its refs; never the text).
    // …and on the docs project of the channel open beside the container, as the card said.
    expect(JSON.parse(String(modal.view.private_metadata))).toMatchObject({
      c: ASSISTANT_DM,
      t: threadTs,
      p: 'C0DOCS',
    });
    expect(t.docs.jobs.size).toBe(0);
    await t.interaction(
      viewSubmissionPayload({
        view: modal.view,
        values: {
          instruction: {
            instruction_input: { type: 'plain_text_input', value: 'Document the Retry-After header' },
          },
        },
      }),
    );
    const job = await waitFor(() => (t.docs.jobs.size > 0 ? t.docs.onlyJob : undefined), {
      what: 'the edited job',
    });
    expect(job.prompts[0]).toContain('Document the Retry-After header');
    expect(job.project).toBe('proj_b');
  });

  it('[Cancel] replaces the card with "Cancelled" and starts nothing; a later [Start job] starts nothing', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Rewrite the FAQ' }));
    const { card, value } = await confirmationCard(t.slack, threadTs);
    await clickConfirmation(t, t.slack, card, value, 'cancel');
    await waitFor(
      () => JSON.stringify(t.slack.message(ASSISTANT_DM, card.ts)?.blocks).includes('Cancelled'),
      {
        what: 'the card says cancelled',
      },
    );
    const lateUrl = t.slack.responseUrl('start-after-cancel');
    await t.interaction(
      blockActionsPayload({
        triggerId: 'trigger-late',
        action: { action_id: 'assistant_confirm_start', value },
        container: { type: 'message', channelId: ASSISTANT_DM, messageTs: card.ts, responseUrl: lateUrl },
      }),
    );
    await waitFor(() => t.slack.responses.find((r) => lateUrl.endsWith(r.path)), {
      what: 'the click answered',
    });
    expect(t.docs.jobs.size).toBe(0);
    expect(t.docs.requestsTo('POST', /\/job$/)).toHaveLength(0);
  });
});
