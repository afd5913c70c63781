import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 35, D13: memory mode keeps what the bot owes in this process only. Stopping it drops those messages,
 * and the operator is told how many and of which kind instead of losing them without a word.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop().catch(() => undefined);
  app = undefined;
});

const logLines = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('memory mode on stop', () => {
  it('warns how many owed messages it drops and of which kind', async () => {
    app = await startTestApp({ env: { LOG_LEVEL: 'info' } });
    // Slack refuses every post for now (nothing sent): the job card stays owed.
    app.slack.inject('chat.postMessage', { kind: 'status', status: 429, retryAfter: 30 }, 1_000);
    const ack = await app.command({ text: 'Document the retry budget', channel_id: 'C0MEMSTOP' });
    expect(ack.status).toBe(200);
    await waitFor(() => app!.slack.calls.some((c) => c.method === 'chat.postMessage'), {
      what: 'a first card attempt',
    });
    const { logs } = app;
    await app.stop();
    app = undefined;

    const dropped = logLines(logs).find((l) => String(l.msg).startsWith('memory mode:'));
    expect(dropped).toMatchObject({ level: 40, dropped: 1, byKind: { post: 1 } });
    expect(String(dropped?.msg)).toContain('1 posts (job cards, replies, notices)');
  });

  it('says nothing when nothing is owed', async () => {
    app = await startTestApp({ env: { LOG_LEVEL: 'info' } });
    const ack = await app.command({ text: 'Document the happy path', channel_id: 'C0MEMSTOP' });
    expect(ack.status).toBe(200);
    await waitFor(() => app!.slack.messages.some((m) => m.channel === 'C0MEMSTOP'), { what: 'the card' });
    const { logs } = app;
    await app.stop();
    app = undefined;
    expect(logLines(logs).filter((l) => String(l.msg).startsWith('memory mode:'))).toEqual([]);
  });
});
