import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_STOP_INSTRUCT, AGENT_STOP_KEEP } from '../../src/slack/messages/agent-session.js';
import {
  ASSISTANT_DM,
  agentSessionStopped,
  assistantMessage,
  assistantThreadStarted,
  messagesCarrying,
  startFromCard,
} from '../support/assistant-events.js';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, nextMessageTs } from '../support/slack-events.js';
import { blockActionsPayload, postInteraction } from '../support/slack-interactions.js';
import { SIGNING_SECRET } from '../support/test-app.js';

/*
 * Issue 29 with real bot processes (`node --import tsx src/main.ts`) on one real redis-server: Stop pressed
 * while replica A streams a job, delivered to replica B; afterwards neither process shows anything more of
 * that job, and the two choices clicked on both processes at once act once.
 */

const PR = 'https://github.com/acme/docs/pull/91';
const cleanups: Array<() => Promise<unknown>> = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function send(p: BotProcess, event: Record<string, unknown>) {
  expect((await p.event(eventEnvelope(event))).status).toBe(200);
}

function click(p: BotProcess, slack: FakeSlack, actionId: string, value: string, messageTs: string) {
  const payload = blockActionsPayload({
    triggerId: `trigger-${Math.random()}`,
    action: { action_id: actionId, value },
    container: { type: 'message', channelId: ASSISTANT_DM, messageTs, responseUrl: slack.responseUrl() },
  });
  return postInteraction(`${p.url}/slack/events`, payload, SIGNING_SECRET);
}

describe('Stop across bot processes', () => {
  it('ends the stream at once, stops both replicas following the job, and acts on one choice', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    const redis = await startRedisServer();
    cleanups.push(
      () => slack.close(),
      () => docs.close(),
      () => redis.stop(),
    );
    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) => startBotProcess({ name, slack, docs, redisUrl: redis.url })),
    );
    cleanups.push(
      () => a!.kill(),
      () => b!.kill(),
    );

    const threadTs = nextMessageTs();
    await send(a!, assistantThreadStarted({ threadTs }));
    await waitFor(() => slack.assistant.prompts.find((p) => p.threadTs === threadTs), {
      what: 'prompts',
      timeoutMs: 10_000,
    });
    await send(a!, assistantMessage({ threadTs, text: 'Document the export API' }));
    await startFromCard(a!, slack, threadTs);
    const job = await waitFor(() => (docs.jobs.size === 1 ? docs.onlyJob : undefined), {
      what: 'job',
      timeoutMs: 10_000,
    });
    const stream = await waitFor(
      () => [...slack.assistant.streams.values()].find((s) => s.threadTs === threadTs),
      { what: 'stream' },
    );
    await waitFor(() => stream.steps.get('created')?.status === 'complete', {
      what: 'job tracked',
      timeoutMs: 10_000,
    });
    await waitFor(() => slack.assistant.sessionOf(ASSISTANT_DM, threadTs) === 'processing', {
      what: 'session processing',
    });
    const streams = slack.assistant.stopByUser(ASSISTANT_DM, threadTs);
    await send(b!, agentSessionStopped({ threadTs, streams }));
    const line = await waitFor(() => messagesCarrying(slack, threadTs, 'may still finish')[0], {
      what: 'the honest final line',
    });
    await waitFor(
      () =>
        slack.assistant.sessionOf(ASSISTANT_DM, threadTs) === 'active' &&
        slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '',
      { what: 'session idle, status cleared' },
    );

    // The platform goes on; neither process shows it.
    await sleep(300);
    const callsAfter = slack.calls.length;
    docs.setRef(job.id, 'docs/export-api');
    await sleep(800);
    docs.complete(job.id, PR);
    await sleep(2_000);
    const later = slack.calls.slice(callsAfter).map((c) => c.method);
    expect(later.filter((m) => m !== 'conversations.replies' && m !== 'auth.test')).toEqual([]);
    expect(messagesCarrying(slack, threadTs, PR)).toEqual([]);

    // Both choices at once on the two processes: one acts, once.
    const value = JSON.stringify(line.blocks).match(/"value":"([^"]+)"/)![1]!;
    await Promise.all([
      click(a!, slack, AGENT_STOP_KEEP, value, line.ts),
      click(b!, slack, AGENT_STOP_INSTRUCT, value, line.ts),
    ]);
    await waitFor(() => slack.callsOf('chat.update').some((c) => c.args.ts === line.ts), {
      what: 'the choice shown',
      timeoutMs: 5_000,
    });
    await sleep(2_000);
    const instructed = job.prompts.length === 2;
    const followed = messagesCarrying(slack, threadTs, PR).length === 1;
    expect([instructed, followed].filter(Boolean)).toHaveLength(1);
    expect(slack.callsOf('chat.update').filter((c) => c.args.ts === line.ts)).toHaveLength(1);
    expect(slack.responses.filter((r) => JSON.stringify(r.body).includes('already made'))).toHaveLength(1);
  }, 60_000);
});
