import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASSISTANT_PROMPTS } from '../../src/slack/messages/assistant-replies.js';
import {
  ASSISTANT_DM,
  assistantContextChanged,
  assistantMessage,
  messagesCarrying,
  startFromCard,
} from '../support/assistant-events.js';
import { assistantHarness } from '../support/assistant-harness.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { messageEvent } from '../support/slack-events.js';

/*
 * Slack's AI app container end to end (signed requests, both state modes): prompts, reports in words, a job
 * through to its one result message (steps, status line, title), a follow-up, the context channel's project,
 * the card when Slack refuses to stream. Slack's redeliveries and a job that cannot be created:
 * assistant-redelivery.test.ts. Stop and long runs: agent-sessions.test.ts.
 */

const CHANNEL_A = 'C0PROJA';
const PR = 'https://github.com/acme/docs/pull/42';

let redis: RedisServer | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(['memory', 'Redis'] as const)('the assistant container (%s state)', (mode) => {
  const { boot, send, openThread, streamOf, botPosts, stop } = assistantHarness(mode, () => redis?.url);
  afterEach(stop);

  it('offers four prompts on a new thread, each answered at once without starting a job', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    const offered = t.slack.assistant.prompts.find((p) => p.threadTs === threadTs)!;
    expect(offered.prompts).toEqual(ASSISTANT_PROMPTS.map((p) => ({ ...p })));
    for (const [i, prompt] of ASSISTANT_PROMPTS.entries()) {
      await send(t, assistantMessage({ threadTs, text: prompt.message }));
      await waitFor(() => botPosts(t, threadTs).length > i, { what: `answer to ${prompt.message}` });
    }
    expect(t.docs.jobs.size).toBe(0);
    const answers = botPosts(t, threadTs).map((c) => JSON.stringify(c.args));
    expect(answers[2]).toContain("You haven't started any docs agent jobs yet");
    expect(answers[3]).toContain('Anything else is an instruction');
  });

  it('answers a report asked for in words in the thread, and bad words with what to type', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'views 30d top 5' }));
    const report = await waitFor(() => botPosts(t, threadTs)[0], { what: 'page-view report' });
    expect(JSON.stringify(report.args)).toContain('Page views · Last 30 days');
    expect(t.docs.requestsTo('GET', /\/v1\/analytics\/[^/]+\/views$/).length).toBeGreaterThan(0);
    // The status line said the bot was reading, then was cleared.
    expect(t.slack.assistant.statuses.map((s) => s.status)).toContain('is reading the docs analytics…');
    expect(t.slack.assistant.statusOf(ASSISTANT_DM, threadTs)).toBe('');

    await send(t, assistantMessage({ threadTs, text: 'views 12x' }));
    const refused = await waitFor(() => botPosts(t, threadTs)[1], { what: 'answer to a bad range' });
    expect(JSON.stringify(refused.args)).toContain('12x');
    expect(t.docs.jobs.size).toBe(0);
  });

  it('takes an instruction through streamed steps to one message carrying the PR link, status set then cleared', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Document the <!channel> 429 response' }));
    await startFromCard(t, t.slack, threadTs);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    const stream = await streamOf(t, threadTs);
    expect(stream.recipientUserId).toBe('U0ALICE');
    await waitFor(() => stream.steps.get('created')?.status === 'complete', { what: 'created step' });
    // Honest steps, in people's words: no placeholders, and no job id (issue 46).
    expect(JSON.stringify([...stream.steps.values()])).not.toContain(job.id);
    expect([...stream.steps.values()].filter((s) => s.status === 'pending')).toEqual([]);
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === 'is waiting for the agent…', {
      what: 'waiting status',
    });
    expect(t.slack.assistant.statuses.map((s) => s.status)).toContain('is starting the agent…');
    const title = await waitFor(() => t.slack.assistant.titles.find((x) => x.threadTs === threadTs), {
      what: 'title',
    });
    expect(title.title).toBe('Document the @channel 429 response'.replace(/[<>]/g, ''));
    expect(title.title).not.toMatch(/[<>]/);
    expect(botPosts(t, threadTs)).toHaveLength(0); // no card: the stream is the job's message

    t.docs.complete(job.id, PR);
    await waitFor(() => stream.state === 'stopped', { what: 'stream stopped' });
    expect(stream.steps.get('pr')).toMatchObject({ status: 'complete', title: 'Pull request opened' });
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One result, one message: the stream ends with the result and its feedback buttons.
    const carrying = messagesCarrying(t.slack, threadTs, PR);
    expect(carrying.map((m) => m.ts)).toEqual([stream.ts]);
    expect(JSON.stringify(carrying[0]!.blocks)).toContain('feedback_buttons');
    expect(botPosts(t, threadTs)).toHaveLength(0);
    expect(t.slack.assistant.sessionOf(ASSISTANT_DM, threadTs)).toBe('active');
  });

  it('owes the stream its last steps and the thread its cleared status: five 503s in a row are retried', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Document the retries' }));
    await startFromCard(t, t.slack, threadTs);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    const stream = await streamOf(t, threadTs);
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === 'is waiting for the agent…', {
      what: 'waiting status',
    });
    // More failures than a call's own retries would ride out: only a delivery that stays owed gets there.
    t.slack.inject('chat.stopStream', { kind: 'status', status: 503 }, 5);
    t.slack.inject('assistant.threads.setStatus', { kind: 'status', status: 503 }, 5);
    t.docs.complete(job.id, PR);
    await waitFor(() => stream.state === 'stopped', { what: 'stream stopped', timeoutMs: 30_000 });
    expect(stream.steps.get('pr')).toMatchObject({ status: 'complete' });
    expect(messagesCarrying(t.slack, threadTs, PR).map((m) => m.ts)).toEqual([stream.ts]);
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
      timeoutMs: 30_000,
    });
  }, 45_000);

  it('sends a later message in the thread to the job as a follow-up', async () => {
    const t = await boot();
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Fix the broken links on the quickstart' }));
    await startFromCard(t, t.slack, threadTs);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === 'is waiting for the agent…', {
      what: 'job tracked',
    });
    await send(t, assistantMessage({ threadTs, text: 'Also the one in the FAQ' }));
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up' });
    expect(job.prompts[1]).toContain('Also the one in the FAQ');
    expect(t.docs.jobs.size).toBe(1);
    // The status goes out paced, beside the stream's own calls: waited for, not assumed already there.
    await waitFor(
      () => t.slack.assistant.statuses.some((s) => s.status === 'is sending your follow-up to the agent…'),
      { what: 'the follow-up status' },
    );
  });

  it('acts on the docs project of the channel the user is looking at, as it changes', async () => {
    const t = await boot({ DOCS_CHANNEL_PROJECTS: `${CHANNEL_A}=proj_a` });
    t.docs.projects.add('proj_a');
    const threadTs = await openThread(t, 'C0ELSE');
    await send(t, assistantContextChanged({ threadTs, contextChannel: CHANNEL_A }));
    // The context is saved after the acknowledgement: a report shows when it is in use.
    await waitFor(
      async () => {
        await send(t, assistantMessage({ threadTs, text: 'views 7d' }));
        return t.docs.requestsTo('GET', /^\/v1\/analytics\/proj_a\/views$/).length > 0 || undefined;
      },
      { what: 'report in proj_a' },
    );
    await send(t, assistantMessage({ threadTs, text: 'Add a Python example to the auth guide' }));
    await startFromCard(t, t.slack, threadTs);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.project).toBe('proj_a');
  });

  it('falls back to the job card in the thread when Slack refuses to stream', async () => {
    const t = await boot();
    t.slack.assistant.refuseStreaming = 'feature_not_enabled';
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'Document the rate limits' }));
    await startFromCard(t, t.slack, threadTs);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    const card = await waitFor(() => botPosts(t, threadTs)[0], { what: 'card' });
    await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
      what: 'card tracked',
    });
    expect(t.slack.assistant.streams.size).toBe(0);
    t.docs.complete(job.id, PR);
    await waitFor(() => botPosts(t, threadTs).length === 2, { what: 'terminal reply' });
    expect(JSON.stringify(botPosts(t, threadTs)[1]!.args)).toContain(PR);
    expect(card.args.thread_ts).toBe(threadTs);
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
    });
  });

  it('leaves ordinary DM threads (not assistant threads) to the conversation service', async () => {
    const t = await boot();
    const root = await send(
      t,
      messageEvent({ channel: ASSISTANT_DM, channel_type: 'im', text: 'Rewrite the glossary' }),
    );
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), {
      what: 'DM job',
    });
    await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
      what: 'card tracked',
    });
    // A reply in the DM job's thread reaches Bolt's Assistant (a DM thread) and is routed back.
    await send(t, assistantMessage({ threadTs: String(root.ts), text: 'and the index page' }));
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up in a DM thread' });
    expect(t.slack.assistant.statuses).toHaveLength(0);
    expect(t.slack.assistant.streams.size).toBe(0);
  });

  it('applies the access rules: words and instructions from someone not allowed get a clear no', async () => {
    const t = await boot({ ALLOWED_USER_IDS: 'U0BOB' });
    const threadTs = await openThread(t);
    await send(t, assistantMessage({ threadTs, text: 'health 7d' }));
    const refused = await waitFor(() => botPosts(t, threadTs)[0], { what: 'refusal' });
    expect(JSON.stringify(refused.args)).toContain('allowed users');
    await send(t, assistantMessage({ threadTs, text: 'Rewrite the whole docs site' }));
    // Refused before any confirmation card: nothing to start.
    const told = await waitFor(() => botPosts(t, threadTs)[1], { what: 'second refusal' });
    expect(JSON.stringify(told.args)).toContain('allowed users');
    expect(t.docs.jobs.size).toBe(0);
    expect(t.docs.requestsTo('GET', /\/v1\/analytics\//)).toHaveLength(0);
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
    });
  });
});
