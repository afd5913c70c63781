import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** Issue 16 item 3: Slack work never holds a docs poll, and the reply goes before the final card. */
describe('job card refreshes', () => {
  it('a slow chat.update neither delays the terminal reply nor goes before it', async () => {
    app = await startTestApp();
    const t = app;
    await t.command({ text: 'Tidy the quickstart' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), {
      what: 'job created',
    });
    await waitFor(() => t.slack.callsOf('chat.update').length > 0, { what: 'card tracking the job' });
    // Every card update from now on takes 1.5 s to answer (still within the client's 2 s timeout).
    t.slack.inject('chat.update', { kind: 'delay', ms: 1_500, thenSucceed: true }, 5);
    const card = t.slack.messages.find((m) => !m.thread_ts)!;

    // A slow update on its way when the job ends: the agent names its branch, the card shows it.
    const slowFrom = t.slack.calls.length;
    t.docs.setRef(job.id, 'docs-agent/tidy-quickstart');
    const slow = await waitFor(
      () => t.slack.calls.findIndex((c, i) => i >= slowFrom && c.method === 'chat.update') + 1,
      { what: 'a slow card update on its way' },
    );
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    await waitFor(() => t.slack.threadReplies(card.channel, card.ts)[0], { what: 'terminal reply' });
    const replyAt = t.slack.calls.findIndex(
      (c) => c.method === 'chat.postMessage' && String(JSON.stringify(c.args.metadata)).includes('terminal:'),
    );
    // The reply reached Slack before that update was answered: it did not wait for it.
    const answered = await waitFor(() => t.slack.delayedAnswers.find((a) => a.call === slow - 1), {
      what: 'the slow update answered',
    });
    expect(replyAt).toBeGreaterThan(slow - 1);
    expect(replyAt).toBeLessThan(answered.callsBeforeAnswer);

    await waitFor(
      () => JSON.stringify(t.slack.message(card.channel, card.ts)?.blocks).includes('pull request opened'),
      {
        timeoutMs: 10_000,
        what: 'final card',
      },
    );
    const reply = t.slack.calls.findIndex(
      (c) => c.method === 'chat.postMessage' && String(JSON.stringify(c.args.metadata)).includes('terminal:'),
    );
    const finalCard = t.slack.calls.findIndex(
      (c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('pull request opened'),
    );
    expect(reply).toBeGreaterThan(-1);
    expect(finalCard).toBeGreaterThan(reply);
    // No thread look-up before the reply: the claim covers it.
    expect(t.slack.callsOf('conversations.replies')).toHaveLength(0);
  });
});
