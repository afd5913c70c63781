import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent, retryHeaders } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** Starts a job with /docs-agent; resolves it and its card once tracked. */
async function startJob(t: TestApp) {
  await t.command({ text: 'Document the 429 response' });
  const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
  await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
    what: 'card tracked',
  });
  const card = t.slack.messages.find((m) => !m.thread_ts)!;
  return { job, card };
}

const followUpCalls = (t: TestApp) => t.docs.requestsTo('POST', /\/message$/).length;
const createCalls = (t: TestApp) => t.docs.requestsTo('POST', /\/job$/).length;
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('exactly once under at-least-once delivery', () => {
  it('a retry (X-Slack-Retry-Num) and a redelivery with a new event_id reach the docs API once', async () => {
    app = await startTestApp();
    const t = app;
    const { job, card } = await startJob(t);
    const event = messageEvent({ thread_ts: card.ts, text: 'Also cover the Retry-After header' });
    const envelope = eventEnvelope(event);

    expect((await t.event(envelope)).status).toBe(200);
    expect((await t.event(envelope, retryHeaders(1))).status).toBe(200);
    expect((await t.event(eventEnvelope(event))).status).toBe(200);
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up' });
    // Concurrent duplicates too.
    await Promise.all([t.event(envelope, retryHeaders(2)), t.event(eventEnvelope(event))]);
    await settle();

    expect(followUpCalls(t)).toBe(1);
    expect(job.prompts).toHaveLength(2);
    expect(t.slack.callsOf('reactions.add')).toHaveLength(1);
  });

  it('a retry whose original was never processed is processed', async () => {
    app = await startTestApp();
    const t = app;
    const { job, card } = await startJob(t);
    // Only the retry arrives (the bot was down for the first delivery).
    const event = messageEvent({ thread_ts: card.ts, text: 'Mention the limit is per project' });
    expect((await t.event(eventEnvelope(event), retryHeaders(3))).status).toBe(200);
    await waitFor(() => job.prompts.length === 2, { what: 'retried follow-up' });
    expect(job.prompts[1]).toContain('Mention the limit is per project');
  });

  it('a message whose processing failed before reaching the docs API is processed on redelivery', async () => {
    app = await startTestApp();
    const t = app;
    // The card cannot be posted the first time (Slack refuses), so nothing reaches the docs API.
    t.slack.inject('chat.postMessage', { kind: 'error', error: 'internal_error' });
    const event = messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> Document webhooks` });
    await t.event(eventEnvelope(event));
    await waitFor(() => t.slack.callsOf('chat.postMessage').length === 1, { what: 'failed card post' });
    await settle();
    expect(createCalls(t)).toBe(0);

    await t.event(eventEnvelope(event), retryHeaders(1));
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.prompts).toEqual(['Document webhooks']);
  });

  it('an @mention and its message twin start one job', async () => {
    app = await startTestApp();
    const t = app;
    const text = `<@${BOT_USER_ID}> Fix the broken links on the quickstart`;
    const mention = messageEvent({ type: 'app_mention', text });
    const twin = messageEvent({ type: 'message', text, ts: String(mention.ts) });

    await Promise.all([t.event(eventEnvelope(mention)), t.event(eventEnvelope(twin))]);
    await waitFor(() => t.docs.jobs.size === 1, { what: 'job' });
    // Delivered again, one after the other, after the job exists.
    await t.event(eventEnvelope(twin));
    await t.event(eventEnvelope(mention), retryHeaders(1));
    await settle();

    expect(createCalls(t)).toBe(1);
    expect(followUpCalls(t)).toBe(0);
    expect(t.slack.messages.filter((m) => m.thread_ts === mention.ts)).toHaveLength(1);
  });

  it('a mention in an ordinary thread and its twin: one job, never also a follow-up', async () => {
    app = await startTestApp();
    const t = app;
    const root = '1700000000.000100';
    t.slack.messages.push({ channel: 'C0DOCS', ts: root, text: 'The FAQ is outdated', user: 'U0BOB' });
    const text = `<@${BOT_USER_ID}> update the FAQ`;
    const mention = messageEvent({ type: 'app_mention', text, thread_ts: root });
    await t.event(eventEnvelope(mention));
    await waitFor(() => t.docs.jobs.size === 1, { what: 'job' });
    await waitFor(() => t.slack.callsOf('chat.update').length > 0, { what: 'job tracked' });
    // The twin arrives once the thread already belongs to the job.
    await t.event(
      eventEnvelope(messageEvent({ type: 'message', text, thread_ts: root, ts: String(mention.ts) })),
    );
    await settle();

    expect(createCalls(t)).toBe(1);
    expect(followUpCalls(t)).toBe(0);
  });

  it('a mention in a job thread, with its message twin, is one follow-up', async () => {
    app = await startTestApp();
    const t = app;
    const { job, card } = await startJob(t);
    const text = `<@${BOT_USER_ID}> please also update the changelog`;
    const mention = messageEvent({ type: 'app_mention', text, thread_ts: card.ts, user: 'U0BOB' });
    const twin = messageEvent({ text, thread_ts: card.ts, user: 'U0BOB', ts: String(mention.ts) });

    await t.event(eventEnvelope(mention));
    await t.event(eventEnvelope(twin));
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up' });
    await t.event(eventEnvelope(twin), retryHeaders(1));
    await settle();

    expect(followUpCalls(t)).toBe(1);
    expect(createCalls(t)).toBe(1);
    expect(job.prompts[1]).toContain('please also update the changelog');
    expect(job.prompts[1]).not.toContain(BOT_USER_ID);
  });
});
