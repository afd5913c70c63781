import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { botReplies } from '../support/conversation-helpers.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import { reactionAddedEnvelope } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/**
 * The emoji on the message that started a job follows the job (👀 → ✅ / ⚠️), one at a time, in both state
 * modes, driven by signed events through the real app.
 */
const SIGNALS = ['eyes', 'warning', 'white_check_mark'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lab = appsOnRedis();

async function boot(mode: 'memory' | 'redis'): Promise<TestApp> {
  if (mode === 'redis') {
    const client = await connectRedis(lab.redisUrl(), createLogger({ level: 'silent', secrets: [] }), {
      failFast: true,
    });
    await client.flushDb();
    await closeRedis(client);
  }
  const app = await lab.start({ env: mode === 'redis' ? { REDIS_URL: lab.redisUrl() } : {} });
  app.slack.users.set('U0BOB', { name: 'bob', display_name: 'Bob' });
  return app;
}

async function mention(t: TestApp, text: string) {
  const event = messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> ${text}` });
  expect((await t.event(eventEnvelope(event))).status).toBe(200);
  const ts = String(event.ts);
  const job = await waitFor(() => [...t.docs.jobs.values()].at(-1), { what: 'job created' });
  return { ts, job };
}

/** The bot's signal emoji on a message (its other reactions left out). */
const signalsOn = (t: TestApp, ts: string) =>
  t.slack.reactions.of('C0DOCS', ts).filter((e) => SIGNALS.includes(e));

describe.each(['memory', 'redis'] as const)('the emoji that follows a job (%s)', (mode) => {
  it('👀 while a mention job runs, ✅ once its PR is open; a follow-up keeps its own 👀', async () => {
    const t = await boot(mode);
    const { ts, job } = await mention(t, 'Document the 429 response');
    await waitFor(() => signalsOn(t, ts).join() === 'eyes' || undefined, { what: '👀 on the mention' });

    // A follow-up: marked 👀 "forwarded" on its own message; the source message stays 👀 (running again).
    const followUp = messageEvent({ user: 'U0BOB', thread_ts: ts, text: 'and the FAQ' });
    await t.event(eventEnvelope(followUp));
    await waitFor(() => job.prompts.length === 2 || undefined, { what: 'follow-up sent' });
    const polls = () => t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    const seen = polls();
    await waitFor(() => polls() >= seen + 2 || undefined, { what: 'the job seen running again' });

    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    await waitFor(() => signalsOn(t, ts).join() === 'white_check_mark' || undefined, {
      what: '✅ on the mention',
    });
    await waitFor(() => botReplies(t, 'C0DOCS', ts).some((m) => m.text.includes('pull/7')) || undefined, {
      what: 'PR reply',
    });
    await sleep(300);
    expect(signalsOn(t, ts)).toEqual(['white_check_mark']);
    expect(t.slack.reactions.peak.get(`C0DOCS:${ts}`)).toBe(1);
    expect(t.slack.reactions.of('C0DOCS', String(followUp.ts))).toEqual(['eyes']);
  }, 30_000);

  it('👀 then ⚠️ when the job fails, never two at once', async () => {
    const t = await boot(mode);
    const { ts, job } = await mention(t, 'Fix the broken links');
    await waitFor(() => signalsOn(t, ts).join() === 'eyes' || undefined, { what: '👀 on the mention' });
    t.docs.fail(job.id);
    await waitFor(() => signalsOn(t, ts).join() === 'warning' || undefined, { what: '⚠️ on the mention' });
    await sleep(300);
    expect(signalsOn(t, ts)).toEqual(['warning']);
    expect(t.slack.reactions.peak.get(`C0DOCS:${ts}`)).toBe(1);
  }, 30_000);

  it('⚠️ when the agent changed nothing; a slash command job (the card is the bot’s own) gets no emoji', async () => {
    const t = await boot(mode);
    const { ts, job } = await mention(t, 'Check the changelog');
    await waitFor(() => signalsOn(t, ts).join() === 'eyes' || undefined, { what: '👀 on the mention' });
    t.docs.complete(job.id, null);
    // Owed while the 👀 attempt may still be under way: taken by one more attempt as soon as that one ends
    // (it waited for the reconciler after the new record's grace, ~4.8 s, before).
    await waitFor(() => signalsOn(t, ts).join() === 'warning' || undefined, {
      what: '⚠️ on the mention',
      timeoutMs: 2_000,
    });

    const before = t.slack.callsOf('reactions.add').length;
    await t.command({ text: 'Rewrite the quickstart' });
    const second = await waitFor(() => (t.docs.jobs.size === 2 ? [...t.docs.jobs.values()][1] : undefined), {
      what: 'second job',
    });
    t.docs.complete(second.id, 'https://github.com/acme/docs/pull/8');
    await waitFor(() => t.slack.messages.some((m) => m.text.includes('pull/8')) || undefined, {
      what: 'PR reply',
    });
    await sleep(300);
    expect(t.slack.callsOf('reactions.add').length).toBe(before);
  }, 30_000);

  it('a reacted message follows its job too; the person’s own reactions are left alone', async () => {
    const t = await boot(mode);
    const ts = nextMessageTs();
    t.slack.messages.push({ channel: 'C0DOCS', ts, text: 'Document the retry settings', user: 'U0BOB' });
    t.slack.reactions.addBy('U0ALICE', 'C0DOCS', ts, 'memo');
    t.slack.reactions.addBy('U0ALICE', 'C0DOCS', ts, 'eyes');
    await t.event(reactionAddedEnvelope({ ts, userId: 'U0ALICE', itemUser: 'U0BOB' }));
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
    await waitFor(() => signalsOn(t, ts).join() === 'eyes' || undefined, {
      what: '👀 on the reacted message',
    });
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/9');
    await waitFor(() => signalsOn(t, ts).join() === 'white_check_mark' || undefined, { what: '✅' });
    expect(t.slack.reactions.of('C0DOCS', ts, 'U0ALICE')).toEqual(['eyes', 'memo']);
  }, 30_000);
});
