import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import {
  ASSISTANT_DM,
  assistantMessage,
  assistantThreadStarted,
  startFromCard,
} from '../support/assistant-events.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, nextMessageTs } from '../support/slack-events.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 37: a job started from an assistant thread's first message, sent right after
 * `assistant_thread_started`, ran as a plain DM job (no stream, no status): the message was handled before
 * the thread's start was recorded. Here the first message is handled first, and its thread's start comes
 * after (on another replica in Redis mode); the job still streams and sets its status like any other.
 */
const apps = appsOnRedis();

async function send(t: TestApp, event: Record<string, unknown>) {
  expect((await t.event(eventEnvelope(event))).status).toBe(200);
}

describe.each(['memory', 'Redis'] as const)('an assistant thread first message (%s state)', (mode) => {
  it('handled before its thread start is recorded, still gets the thread: stream and status', async () => {
    const env: Record<string, string> = mode === 'Redis' ? { REDIS_URL: `${apps.redisUrl()}/3` } : {};
    const first = await apps.start({ env });
    // In Redis mode the start and the message reach different replicas.
    const second = mode === 'Redis' ? await apps.start({ env, slack: first.slack, docs: first.docs }) : first;
    const threadTs = nextMessageTs();
    await send(second, assistantMessage({ threadTs, text: 'Document the 429 response' }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await send(first, assistantThreadStarted({ threadTs, contextChannel: 'C0DOCS' }));
    // Asked first (issue 44): the job starts on the card's [Start job].
    await startFromCard(second, first.slack, threadTs);

    const stream = await waitFor(
      () => [...first.slack.assistant.streams.values()].find((s) => s.threadTs === threadTs),
      { what: 'the job streamed in the thread' },
    );
    expect(stream.recipientUserId).toBe('U0ALICE');
    await waitFor(
      () => first.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === 'is waiting for the agent…',
      {
        what: 'the status line',
      },
    );
    expect(first.slack.assistant.statuses.map((s) => s.status)).toContain('is starting the agent…');
    // No job card: the job is the thread's, not a plain DM job.
    const posts = first.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === threadTs);
    expect(posts.filter((c) => !JSON.stringify(c.args).includes('assistant_confirm_'))).toEqual([]);
    expect(first.docs.jobs.size).toBe(1);
  });
});
