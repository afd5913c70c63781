import { describe, expect, it } from 'vitest';
import { AGENT_STOP_INSTRUCT, AGENT_STOP_KEEP } from '../../src/slack/messages/agent-session.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import {
  ASSISTANT_DM,
  agentSessionStopped,
  assistantMessage,
  assistantThreadStarted,
  messagesCarrying,
  startFromCard,
} from '../support/assistant-events.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, nextMessageTs } from '../support/slack-events.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 29 through the real app (signed requests, fake Slack and docs, a real redis-server): Slack's Stop on
 * an agent session, across two replicas on one Redis, with its two choices acting once; and jobs that run
 * longer than Slack lets a stream live, still ending with exactly one result message.
 */

const PR = 'https://github.com/acme/docs/pull/77';
const apps = appsOnRedis();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(t: TestApp, event: Record<string, unknown>) {
  const response = await t.event(eventEnvelope(event));
  expect(response.status).toBe(200);
}

/** A thread with a running job streamed into it; resolves the thread, the job and its stream. */
async function runningJob(t: TestApp, text = 'Document the webhook retries') {
  const threadTs = nextMessageTs();
  await send(t, assistantThreadStarted({ threadTs }));
  await waitFor(() => t.slack.assistant.prompts.find((p) => p.threadTs === threadTs), { what: 'prompts' });
  await send(t, assistantMessage({ threadTs, text }));
  const card = await startFromCard(t, t.slack, threadTs);
  const job = await waitFor(() => [...t.docs.jobs.values()].find((j) => j.prompts[0]?.includes(text)), {
    what: 'job',
  });
  const stream = await waitFor(
    () => [...t.slack.assistant.streams.values()].find((s) => s.threadTs === threadTs),
    { what: 'stream' },
  );
  await waitFor(() => stream.steps.get('created')?.status === 'complete', { what: 'job tracked' });
  return { threadTs, job, stream, card };
}

/** Everything the bot did to a job's stream and thread (to see that nothing more happens after Stop). */
function activity(slack: FakeSlack, threadTs: string, streamTs: string) {
  return {
    stream: slack.calls.filter(
      (c) => ['chat.appendStream', 'chat.stopStream'].includes(c.method) && c.args.ts === streamTs,
    ).length,
    updates: slack.callsOf('chat.update').filter((c) => c.args.ts === streamTs).length,
    posts: slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === threadTs).length,
    working: slack.assistant.statuses.filter((s) => s.threadTs === threadTs && s.status !== '').length,
    processing: slack.assistant.sessions.filter((s) => s.threadTs === threadTs && s.status === 'processing')
      .length,
  };
}

function click(t: TestApp, actionId: string, value: string, messageTs: string, userId = 'U0ALICE') {
  return t.interaction(
    blockActionsPayload({
      userId,
      triggerId: `trigger-${Math.random()}`,
      action: { action_id: actionId, value },
      container: { type: 'message', channelId: ASSISTANT_DM, messageTs, responseUrl: t.slack.responseUrl() },
    }),
  );
}

describe('Stop on an agent session', () => {
  it('stops following on every replica at once: one honest line, two choices that act once', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    try {
      const env = { REDIS_URL: `${apps.redisUrl()}/1` };
      const a = await apps.start({ env, slack, docs });
      const b = await apps.start({ env, slack, docs });
      const { threadTs, job, stream } = await runningJob(a);
      expect(slack.assistant.sessionOf(ASSISTANT_DM, threadTs)).toBe('processing');

      // The person presses Stop: Slack stops the stream itself and tells the app (here: replica B).
      const streams = slack.assistant.stopByUser(ASSISTANT_DM, threadTs);
      expect(streams).toEqual([stream.ts]);
      await send(b, agentSessionStopped({ threadTs, streams }));
      const line = await waitFor(() => messagesCarrying(slack, threadTs, 'may still finish')[0], {
        what: 'the honest final line',
      });
      await waitFor(() => slack.assistant.sessionOf(ASSISTANT_DM, threadTs) === 'active', {
        what: 'session idle',
      });
      await waitFor(() => slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
        what: 'status cleared',
      });
      expect(JSON.stringify(line.blocks)).toContain(AGENT_STOP_INSTRUCT);
      expect(JSON.stringify(line.blocks)).toContain(AGENT_STOP_KEEP);

      // The platform carries on (a branch, then a PR): neither replica shows any of it any more.
      await sleep(300);
      const quiet = activity(slack, threadTs, stream.ts);
      docs.setRef(job.id, 'docs/webhook-retries');
      await sleep(800);
      docs.complete(job.id, PR);
      await sleep(1_500);
      expect(activity(slack, threadTs, stream.ts)).toEqual(quiet);
      expect(messagesCarrying(slack, threadTs, PR)).toEqual([]);
      expect(messagesCarrying(slack, threadTs, 'may still finish')).toHaveLength(1);

      // Both choices clicked at once on the two replicas, and again: exactly one acts.
      const value = (line.blocks as Array<{ elements?: Array<{ value?: string }> }>)
        .flatMap((block) => block.elements ?? [])
        .find((element) => element.value)!.value!;
      await Promise.all([
        click(a, AGENT_STOP_INSTRUCT, value, line.ts),
        click(b, AGENT_STOP_KEEP, value, line.ts),
      ]);
      await click(a, AGENT_STOP_KEEP, value, line.ts);
      const replaced = () =>
        slack
          .callsOf('chat.update')
          .filter(
            (c) => c.args.ts === line.ts && /stop instruction|keep following/.test(String(c.args.text)),
          );
      await waitFor(() => replaced().length > 0, { what: 'the buttons replaced by the choice' });
      await sleep(1_000);
      const instructed = job.prompts.length === 2;
      const followed = messagesCarrying(slack, threadTs, PR).length > 0;
      expect([instructed, followed].filter(Boolean)).toHaveLength(1);
      if (instructed) expect(job.prompts[1]).toContain('Do not open a pull request');
      // Kept following: the finished job's result is posted once, as a reply with its feedback buttons.
      if (followed) expect(messagesCarrying(slack, threadTs, PR)).toHaveLength(1);
      expect(new Set(replaced().map((c) => c.args.text)).size).toBe(1);
      const told = slack.responses.map((r) => JSON.stringify(r.body));
      expect(told.filter((text) => text.includes('already made'))).toHaveLength(2);
    } finally {
      await slack.close();
      await docs.close();
    }
  }, 30_000);

  it('ends a stream Slack did not stop with the honest line at once, and only the requester may choose', async () => {
    const t = await apps.start();
    const { threadTs, stream, card } = await runningJob(t);
    await send(t, agentSessionStopped({ threadTs, streams: [] }));
    await waitFor(() => stream.state === 'stopped', { what: 'stream stopped', timeoutMs: 2_000 });
    const line = messagesCarrying(t.slack, threadTs, 'may still finish');
    expect(line.map((m) => m.ts)).toEqual([stream.ts]);
    expect(stream.steps.get('stopped')?.title).toContain('Stopped following');
    await waitFor(() => t.slack.assistant.sessionOf(ASSISTANT_DM, threadTs) === 'active', {
      what: 'session idle',
    });
    const value = JSON.stringify(line[0]!.blocks).match(/"value":"([^"]+)"/)![1]!;
    await click(t, AGENT_STOP_KEEP, value, stream.ts, 'U0MALLORY');
    await waitFor(() => t.slack.responses.some((r) => JSON.stringify(r.body).includes('Only <@U0ALICE>')), {
      what: 'refusal',
    });
    // Nothing replaced but the confirmation card the job was started from (issue 44).
    expect(t.slack.callsOf('chat.update').filter((c) => c.args.ts !== card.ts)).toHaveLength(0);
  });
});

describe.each(['memory', 'Redis'] as const)('jobs longer than a stream lives (%s state)', (mode) => {
  let db = 1;
  const start = (env: Record<string, string> = {}) => {
    db += 1;
    return apps.start({
      env: { ...(mode === 'Redis' ? { REDIS_URL: `${apps.redisUrl()}/${db}` } : {}), ...env },
    });
  };

  it('a stream Slack cut after N seconds: still exactly one result message, the status cleared', async () => {
    const t = await start();
    t.slack.assistant.streamLifetimeMs = 1_500;
    const { threadTs, job, stream } = await runningJob(t);
    await sleep(1_700);
    t.docs.setRef(job.id, 'docs/long-run');
    await sleep(500);
    t.docs.complete(job.id, PR);
    const result = await waitFor(() => messagesCarrying(t.slack, threadTs, PR)[0], { what: 'result' });
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
    });
    await sleep(500);
    expect(messagesCarrying(t.slack, threadTs, PR)).toEqual([result]);
    expect(result.ts).not.toBe(stream.ts);
    expect(JSON.stringify(result.blocks)).toContain('feedback_buttons');
    expect(t.slack.assistant.sessionOf(ASSISTANT_DM, threadTs)).toBe('active');
  });

  it('hands the stream over ("still working…") before Slack cuts it, then delivers the result once', async () => {
    const t = await start({ SLACK_STREAM_HANDOVER_MS: '1000' });
    t.slack.assistant.streamLifetimeMs = 4_000;
    const { threadTs, job, stream } = await runningJob(t);
    await waitFor(() => stream.state === 'stopped', { what: 'handover', timeoutMs: 3_000 });
    expect(stream.steps.get('handover')?.title).toBe('Still working…');
    t.docs.setRef(job.id, 'docs/long-run');
    await waitFor(
      () =>
        t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) ===
        'is still working: the agent is editing the docs…',
      { what: 'status line carries on' },
    );
    t.docs.complete(job.id, PR);
    const result = await waitFor(() => messagesCarrying(t.slack, threadTs, PR)[0], { what: 'result' });
    await waitFor(() => t.slack.assistant.statusOf(ASSISTANT_DM, threadTs) === '', {
      what: 'status cleared',
    });
    await sleep(500);
    expect(messagesCarrying(t.slack, threadTs, PR)).toEqual([result]);
    expect(JSON.stringify(result.blocks)).toContain('feedback_buttons');
    // Stopped cleanly: Slack never had to refuse an update of a stream it had closed.
    expect(t.slack.assistant.refusedOver).toEqual([]);
  });

  it('a stop whose answer was lost but which landed is found again: no second result message', async () => {
    const t = await start();
    const { threadTs, job, stream } = await runningJob(t);
    // Slack ends the stream with the result but answers after the app gave up (SLACK_API_TIMEOUT_MS 2 s).
    t.slack.inject('chat.stopStream', { kind: 'delay', ms: 2_500, thenSucceed: true });
    t.docs.complete(job.id, PR);
    await waitFor(() => stream.state === 'stopped', { what: 'stream stopped' });
    await waitFor(() => t.slack.callsOf('chat.stopStream').length >= 2, {
      what: 'the uncertain stop tried again',
      timeoutMs: 15_000,
    });
    await sleep(1_500);
    expect(messagesCarrying(t.slack, threadTs, PR).map((m) => m.ts)).toEqual([stream.ts]);
  }, 30_000);
});
