import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import type { StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { appHomeOpenedEnvelope, feedbackClickPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/**
 * Slack's feedback buttons on a job's PR reply: one vote per person per job (a second click replaces it),
 * counted in /metrics and shown in App Home, in both state modes, through signed requests to the real app.
 */
type Json = Record<string, unknown>;

const lab = appsOnRedis();

async function boot(mode: 'memory' | 'redis', env: Record<string, string> = {}): Promise<TestApp> {
  if (mode === 'redis') {
    const client = await connectRedis(lab.redisUrl(), createLogger({ level: 'silent', secrets: [] }), {
      failFast: true,
    });
    await client.flushDb();
    await closeRedis(client);
  }
  const app = await lab.start({
    env: { ...env, ...(mode === 'redis' ? { REDIS_URL: lab.redisUrl() } : {}) },
  });
  return app;
}

/** A mention job through to its PR reply; resolves the reply (validated by the fake's Block Kit rules). */
async function jobWithPullRequest(t: TestApp, pr: string): Promise<{ reply: StoredMessage; thread: string }> {
  const event = messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> Document ${pr}` });
  await t.event(eventEnvelope(event));
  const thread = String(event.ts);
  const job = await waitFor(() => [...t.docs.jobs.values()].find((j) => j.prompts[0]?.includes(pr)), {
    what: 'job created',
  });
  await waitFor(() => t.slack.callsOf('chat.update').length > 0 || undefined, { what: 'card tracked' });
  t.docs.complete(job.id, `https://github.com/acme/docs/pull/${pr}`);
  const reply = await waitFor(
    () => t.slack.threadReplies('C0DOCS', thread).find((m) => m.text.includes(`pull/${pr}`)),
    { what: 'PR reply' },
  );
  return { reply, thread };
}

function feedbackValues(reply: StoredMessage): { useful: string; notUseful: string } {
  const block = (reply.blocks as Json[]).find((b) => b.type === 'context_actions') as Json | undefined;
  const buttons = (block?.elements as Json[] | undefined)?.[0] as Json | undefined;
  const value = (side: string) => String((buttons?.[side] as Json | undefined)?.value);
  expect(buttons?.type).toBe('feedback_buttons');
  return { useful: value('positive_button'), notUseful: value('negative_button') };
}

async function click(t: TestApp, userId: string, value: string, reply: StoredMessage, thread: string) {
  const responseUrl = t.slack.responseUrl();
  const response = await t.interaction(
    feedbackClickPayload({ userId, value, messageTs: reply.ts, threadTs: thread, responseUrl }),
  );
  expect(response.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  const answer = await waitFor(() => t.slack.responses.find((r) => r.path === path), { what: 'answer' });
  return String(answer.body.text);
}

async function metric(t: TestApp): Promise<string> {
  return (await fetch(`${t.metricsUrl}/metrics`)).text();
}

async function home(t: TestApp, userId: string): Promise<string> {
  const before = t.slack.callsOf('views.publish').length;
  await t.event(appHomeOpenedEnvelope({ userId }));
  await waitFor(() => t.slack.callsOf('views.publish').length > before || undefined, { what: 'Home' });
  return JSON.stringify(t.slack.surfaces.homeOf(userId));
}

describe.each(['memory', 'redis'] as const)('feedback on a job’s result (%s)', (mode) => {
  it('one vote per person per job: a second click replaces it, another person adds; Home and /metrics count it', async () => {
    const t = await boot(mode);
    const first = await jobWithPullRequest(t, '41');
    const second = await jobWithPullRequest(t, '42');
    expect(t.slack.blockKit.refusals).toEqual([]);
    const a = feedbackValues(first.reply);
    const b = feedbackValues(second.reply);

    expect(await click(t, 'U0ALICE', a.useful, first.reply, first.thread)).toContain('useful');
    expect(await click(t, 'U0ALICE', a.useful, first.reply, first.thread)).toContain('Thanks');
    // Alice changes her mind: her vote is replaced (1 👎), not added to (it would be 1 👍 + 1 👎).
    expect(await click(t, 'U0ALICE', a.notUseful, first.reply, first.thread)).toContain('replaces');
    await click(t, 'U0BOB', a.useful, first.reply, first.thread);
    await click(t, 'U0CAROL', a.useful, first.reply, first.thread);
    // Job 42: one 👎 only.
    await click(t, 'U0BOB', b.notUseful, second.reply, second.thread);

    const text = await metric(t);
    expect(text).toMatch(/docs_agent_job_feedback_total\{vote="useful",change="new"\} 3$/m);
    expect(text).toMatch(/docs_agent_job_feedback_total\{vote="useful",change="same"\} 1$/m);
    expect(text).toMatch(/docs_agent_job_feedback_total\{vote="not_useful",change="changed"\} 1$/m);
    expect(text).toMatch(/docs_agent_pull_requests_rated_this_month\{rating="useful"\} 1$/m);
    expect(text).toMatch(/docs_agent_pull_requests_rated_this_month\{rating="not_useful"\} 1$/m);

    const view = await home(t, 'U0DANA');
    expect(view).toContain('PRs rated useful this month');
    expect(view).toContain('*1* of 2 rated');

    // Bob turns job 42 around: 👍 now outnumber 👎 there too (his 👎 replaced, not kept).
    await click(t, 'U0BOB', b.useful, second.reply, second.thread);
    expect(await metric(t)).toMatch(/docs_agent_pull_requests_rated_this_month\{rating="useful"\} 2$/m);
    expect(await home(t, 'U0DANA')).toContain('*2* of 2 rated');
  }, 40_000);

  it('a click naming a job the bot does not know records nothing and says so', async () => {
    const t = await boot(mode);
    const { reply, thread } = await jobWithPullRequest(t, '43');
    const answer = await click(t, 'U0ALICE', 'useful:job_missing', reply, thread);
    expect(answer).toContain("wasn't recorded");
    expect(await metric(t)).not.toMatch(/docs_agent_job_feedback_total\{/);
  }, 30_000);

  it('someone the access rules leave out is told, and their click is not counted', async () => {
    const t = await boot(mode, { ALLOWED_USER_IDS: 'U0ALICE' });
    const { reply, thread } = await jobWithPullRequest(t, '44');
    const { useful } = feedbackValues(reply);
    expect(await click(t, 'U0MALLORY', useful, reply, thread)).toContain("wasn't recorded");
    expect(await click(t, 'U0ALICE', useful, reply, thread)).toContain('Thanks');
    const text = await metric(t);
    expect(text).toMatch(/docs_agent_job_feedback_total\{vote="useful",change="new"\} 1$/m);
    expect(text).toMatch(/docs_agent_pull_requests_rated_this_month\{rating="useful"\} 1$/m);
  }, 30_000);
});
