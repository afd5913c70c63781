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

    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    const endedAt = Date.now();
    await waitFor(() => t.slack.threadReplies(card.channel, card.ts)[0], { what: 'terminal reply' });
    // Polls every 25 ms here: a reply that waited for the card update would take over 1.5 s.
    expect(Date.now() - endedAt).toBeLessThan(1_200);

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
