import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function startJob(t: TestApp, text = 'Polling test') {
  await t.command({ text });
  const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
  const card = await waitFor(() => t.slack.messages.find((m) => !m.thread_ts), { what: 'card' });
  return { job, card };
}

describe('job polling', () => {
  it('stops watching after POLL_MAX_AGE_MS and says so in the thread', async () => {
    app = await startTestApp({ env: { POLL_MAX_AGE_MS: '1000' } });
    const { card } = await startJob(app);
    const notice = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], {
      timeoutMs: 5000,
      what: 'notice',
    });
    expect(JSON.stringify(notice.blocks)).toContain('stopped watching');
    const polls = app.docs.requestsTo('GET', /\/job\//).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.docs.requestsTo('GET', /\/job\//).length).toBe(polls);
    expect(JSON.stringify(app.slack.message(card.channel, card.ts)?.blocks)).toContain('stopped watching');
  });

  it('stops when the job disappears upstream (404), telling the thread once', async () => {
    app = await startTestApp();
    const { job, card } = await startJob(app);
    await waitFor(() => app!.docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });
    app.docs.remove(job.id);
    const notice = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], {
      what: 'gone notice',
    });
    expect(JSON.stringify(notice.blocks)).toContain('no longer knows');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  });

  it('rides out failing polls (5xx, resets, garbage, 429) and still replies exactly once', async () => {
    app = await startTestApp();
    const { job, card } = await startJob(app);
    await waitFor(() => app!.docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });
    const poll = { method: 'GET', path: /\/job\// };
    app.docs.inject(poll, { kind: 'status', status: 503 }, 3);
    app.docs.inject(poll, { kind: 'reset' }, 3);
    app.docs.inject(poll, { kind: 'garbage', body: '<html>oops</html>' }, 2);
    app.docs.inject(poll, { kind: 'status', status: 429, retryAfter: '0' }, 2);
    app.docs.inject(poll, { kind: 'garbage', body: '{"id":"x"}' }, 1);
    app.docs.complete(job.id);
    const reply = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], {
      timeoutMs: 15_000,
      what: 'reply',
    });
    expect(reply.text).toContain('pull');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
    expect(app.logs.some((line) => line.includes('poll failed'))).toBe(true);
  });

  it('retries a terminal reply Slack could not take, without posting it twice', async () => {
    // A short Slack timeout keeps the settle-before-retry wait (twice the timeout) short.
    app = await startTestApp({ env: { SLACK_API_TIMEOUT_MS: '300' } });
    const { job, card } = await startJob(app);
    await waitFor(() => app!.slack.callsOf('chat.update').length > 0, { what: 'card tracked' });
    app.slack.inject('chat.postMessage', { kind: 'status', status: 503 }, 6);
    app.docs.complete(job.id);
    // Six unknown outcomes: each retry waits (backoff up to 10 s) and looks before posting again.
    await waitFor(() => app!.slack.threadReplies(card.channel, card.ts).length === 1, {
      timeoutMs: 30_000,
      what: 'reply',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  }, 45_000);

  it('waits out Slack rate limits (429 with Retry-After) before posting', async () => {
    app = await startTestApp();
    const { job, card } = await startJob(app);
    await waitFor(() => app!.slack.callsOf('chat.update').length > 0, { what: 'card tracked' });
    app.slack.inject('chat.postMessage', { kind: 'status', status: 429, retryAfter: 1 });
    app.docs.complete(job.id);
    await waitFor(() => app!.slack.threadReplies(card.channel, card.ts).length === 1, {
      timeoutMs: 10_000,
      what: 'reply',
    });
    const posts = app.slack.callsOf('chat.postMessage');
    expect(posts.length).toBe(3); // the card, the rate-limited attempt, the reply
  });
});
