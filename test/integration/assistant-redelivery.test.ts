import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASSISTANT_DM, assistantMessage, startFromCard } from '../support/assistant-events.js';
import { assistantHarness } from '../support/assistant-harness.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, retryHeaders } from '../support/slack-events.js';

/*
 * Slack's AI app container when Slack delivers a message again, and when the job cannot be created (signed
 * requests, both state modes). The rest of the container: assistant.test.ts.
 */

let redis: RedisServer | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(['memory', 'Redis'] as const)(
  'the assistant container, redelivered or refused (%s state)',
  (mode) => {
    const { boot, send, openThread, botPosts, stop } = assistantHarness(mode, () => redis?.url);
    afterEach(stop);

    it('answers words once when Slack delivers the message again', async () => {
      const t = await boot();
      const threadTs = await openThread(t);
      const event = assistantMessage({ threadTs, text: 'list' });
      await send(t, event);
      await t.event(eventEnvelope(event), retryHeaders(1));
      await send(t, assistantMessage({ threadTs, text: 'help' }));
      await waitFor(() => botPosts(t, threadTs).length >= 2, { what: 'answers' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answers = botPosts(t, threadTs).map((c) => JSON.stringify(c.args));
      // One answer per message (the redelivery adds none); the two messages are handled concurrently.
      expect(answers).toHaveLength(2);
      expect(answers.filter((a) => a.includes("You haven't started any docs agent jobs yet"))).toHaveLength(
        1,
      );
      expect(answers.filter((a) => a.includes('*Ask me here*'))).toHaveLength(1);
    });

    it("keeps a running job's status line when Slack delivers its instruction again", async () => {
      const t = await boot();
      const threadTs = await openThread(t);
      const event = assistantMessage({ threadTs, text: 'Document the webhooks retries' });
      await send(t, event);
      await startFromCard(t, t.slack, threadTs);
      await waitFor(
        () => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === 'is waiting for the agent…',
        {
          what: 'waiting status',
        },
      );
      const before = t.slack.assistant.statuses.length;
      await t.event(eventEnvelope(event), retryHeaders(1));
      await waitFor(() => t.slack.assistant.statuses.length >= before + 2, { what: 'redelivery handled' });
      expect(t.slack.assistant.statusOf(ASSISTANT_DM, threadTs)).toBe('is waiting for the agent…');
      expect(t.docs.jobs.size).toBe(1);
    });

    it('ends the stream with the reason when the job cannot be created, and clears the status', async () => {
      const t = await boot();
      const threadTs = await openThread(t);
      t.docs.inject({ method: 'POST', path: '/v2/' }, { kind: 'status', status: 429, retryAfter: '600' });
      await send(t, assistantMessage({ threadTs, text: 'Document the pagination cursors' }));
      await startFromCard(t, t.slack, threadTs);
      const stream = await waitFor(
        () =>
          [...t.slack.assistant.streams.values()].find(
            (s) => s.threadTs === threadTs && s.state === 'stopped',
          ),
        { what: 'stream stopped' },
      );
      const created = stream.steps.get('created');
      expect(created?.status).toBe('error');
      expect(created?.details).toContain('hourly limit');
      await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
        what: 'status cleared',
      });
      expect(t.docs.jobs.size).toBe(0);
    });
  },
);
