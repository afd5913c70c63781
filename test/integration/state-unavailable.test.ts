import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { JobStore } from '../../src/jobs/ports.js';
import { createMemoryJobStore, StateUnavailableError } from '../../src/state/keyv-job-store.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STATE_TEXT =
  "I can't reach my storage right now, so nothing was started or sent. Try again in a minute.";

/** The in-memory store, made to fail like an unreachable Redis (every call throws `state_unavailable`). */
class SwitchableStore implements JobStore {
  failing = false;
  private readonly inner = createMemoryJobStore(createLogger({ level: 'silent', secrets: [] }));

  private guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.failing) return Promise.reject(new StateUnavailableError(new Error('ECONNREFUSED')));
    return call();
  }
  getJob = (jobId: string) => this.guard(() => this.inner.getJob(jobId));
  saveJob = (record: Parameters<JobStore['saveJob']>[0]) => this.guard(() => this.inner.saveJob(record));
  linkThread = (channelId: string, threadTs: string, jobId: string) =>
    this.guard(() => this.inner.linkThread(channelId, threadTs, jobId));
  findJobByThread = (channelId: string, threadTs: string) =>
    this.guard(() => this.inner.findJobByThread(channelId, threadTs));
  listWatched = (channelId?: string) => this.guard(() => this.inner.listWatched(channelId));
  claim = (key: string, ttlMs: number) => this.guard(() => this.inner.claim(key, ttlMs));
  release = (key: string) => this.guard(() => this.inner.release(key));
  listByRequester = (teamId: string | null, userId: string, limit: number) =>
    this.guard(() => this.inner.listByRequester(teamId, userId, limit));
  setFollowing = (jobId: string, on: boolean) => this.guard(() => this.inner.setFollowing(jobId, on));
  listFollowing = () => this.guard(() => this.inner.listFollowing());
  mark = (key: string, ttlMs: number) => this.guard(() => this.inner.mark(key, ttlMs));
  isMarked = (key: string) => this.guard(() => this.inner.isMarked(key));
}

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function boot(): Promise<{ t: TestApp; store: SwitchableStore }> {
  const store = new SwitchableStore();
  app = await startTestApp({ agentOptions: { jobStore: store } });
  return { t: app, store };
}

function ephemeralsTo(t: TestApp, user: string) {
  return t.slack.callsOf('chat.postEphemeral').filter((call) => call.args.user === user);
}

async function send(t: TestApp, event: Record<string, unknown>) {
  const response = await t.event(eventEnvelope(event));
  // Slack is acknowledged whatever the store does.
  expect(response.status).toBe(200);
}

/** Lets the app finish whatever the last request started (listeners run after the ack). */
async function settle(t: TestApp) {
  await t.agent.stop();
}

describe('a state store that cannot be reached', () => {
  it('/docs-agent <instruction>: acknowledged, told to retry, no card and no job', async () => {
    const { t, store } = await boot();
    store.failing = true;
    const ack = await t.command({ text: 'Document the 429 response' });
    expect(ack.status).toBe(200);
    const answer = await waitFor(() => t.slack.responses[0], { what: 'response_url answer' });
    expect(answer.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(answer.body.text)).toContain(STATE_TEXT);
    await settle(t);
    expect(t.docs.jobs.size).toBe(0);
    expect(t.slack.callsOf('chat.postMessage')).toHaveLength(0);
    expect(t.logs.join('')).toContain('state_unavailable');
  });

  it('/docs-agent list: answers that the jobs cannot be listed now', async () => {
    const { t, store } = await boot();
    store.failing = true;
    const ack = await t.command({ text: 'list' });
    expect(ack.status).toBe(200);
    expect(ack.body).toBe('');
    const answer = await waitFor(() => t.slack.responses[0], { what: 'response_url answer' });
    expect(answer.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(answer.body.text)).toContain("I can't reach my storage right now");
  });

  it('a DM: the author is told privately, once, and nothing reaches the agent', async () => {
    const { t, store } = await boot();
    store.failing = true;
    await send(t, messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: 'Fix the quickstart typo' }));
    const told = await waitFor(() => ephemeralsTo(t, 'U0ALICE')[0], { what: 'ephemeral notice' });
    expect(told.args.channel).toBe('D0ALICE');
    expect(String(told.args.text)).toContain(STATE_TEXT);
    await settle(t);
    expect(t.docs.jobs.size).toBe(0);
    expect(t.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });

  it('a channel mention and its message twin: one notice, no job', async () => {
    const { t, store } = await boot();
    store.failing = true;
    const text = `<@${BOT_USER_ID}> document the webhook retries`;
    const mention = messageEvent({ type: 'app_mention', text });
    await send(t, mention);
    await send(t, messageEvent({ text, ts: String(mention.ts) }));
    await waitFor(() => ephemeralsTo(t, 'U0ALICE').length > 0, { what: 'ephemeral notice' });
    await settle(t);
    expect(ephemeralsTo(t, 'U0ALICE')).toHaveLength(1);
    expect(String(ephemeralsTo(t, 'U0ALICE')[0]!.args.text)).toContain(STATE_TEXT);
    expect(t.docs.jobs.size).toBe(0);
  });

  it("a reply in a job's thread: told that nothing was sent; a reply elsewhere stays silent", async () => {
    const { t, store } = await boot();
    await t.command({ text: 'Document the 429 response' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => t.slack.callsOf('chat.update').length > 0, { what: 'card tracked' });
    const card = t.slack.messages.find((m) => !m.thread_ts);
    if (!card) throw new Error('no card');

    store.failing = true;
    await send(
      t,
      messageEvent({
        user: 'U0BOB',
        thread_ts: card.ts,
        parent_user_id: BOT_USER_ID,
        text: 'Also mention the Retry-After header',
      }),
    );
    const told = await waitFor(() => ephemeralsTo(t, 'U0BOB')[0], { what: 'ephemeral notice' });
    expect(told.args.thread_ts).toBe(card.ts);
    expect(String(told.args.text)).toContain(STATE_TEXT);
    // Someone else's thread: without state it may be plain conversation, so nobody is interrupted.
    await send(
      t,
      messageEvent({
        user: 'U0CAROL',
        thread_ts: '1700000000.000100',
        parent_user_id: 'U0DAVE',
        text: 'lunch?',
      }),
    );
    await settle(t);
    expect(ephemeralsTo(t, 'U0CAROL')).toHaveLength(0);
    expect(t.docs.requestsTo('POST', new RegExp(`/job/${job.id}/message`))).toHaveLength(0);
  });

  it('recovers without a restart: the same kind of DM starts a job once the store answers', async () => {
    const { t, store } = await boot();
    store.failing = true;
    await send(t, messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: 'Fix the quickstart typo' }));
    await waitFor(() => ephemeralsTo(t, 'U0ALICE').length === 1, { what: 'notice' });
    store.failing = false;
    await send(t, messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: 'Fix the quickstart typo' }));
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.prompts).toEqual(['Fix the quickstart typo']);
  });
});
