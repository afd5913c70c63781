import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs, makeViewRows } from '../support/fake-docs.js';
import { makeFeedback, makeSearches } from '../support/fake-docs-health.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 14, "Weekly": `/docs-health schedule|schedules|unschedule` beside `/docs-views`'s, in one schedule
 * store. Memory mode on a manual clock (the in-process scheduler); Redis mode through the start-up catch-up
 * of two replicas on one redis-server (one post of each kind, once).
 */

// Monday 2025-03-24, 08:59 in Berlin (CET, +01:00).
const BEFORE = Date.parse('2025-03-24T07:59:00Z');
const OCCURRENCE = Date.parse('2025-03-24T08:00:00Z');
const FROM = '2025-03-17T00:00:00+01:00';
const TO = '2025-03-24T00:00:00+01:00';
const CHANNEL = 'C0DOCS';

let redis: RedisServer | undefined;
const stops: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
afterAll(async () => {
  await redis?.stop();
});

function seed(docs: FakeDocs): void {
  docs.viewsByRange.set(`${FROM}..${TO}`, makeViewRows(30));
  docs.health.byRange.set(`${FROM}..${TO}`, {
    searches: makeSearches(9),
    pages: [{ path: '/guides/auth', thumbsUp: 1, thumbsDown: 6, code: 0, total: 7 }],
    feedback: makeFeedback('/guides/auth', ['Step 3 fails']),
    conversations: [],
  });
}

async function app(options: Parameters<typeof startTestApp>[0]): Promise<TestApp> {
  const started = await startTestApp(options);
  stops.push(() => started.stop());
  return started;
}

async function answer(t: TestApp, command: '/docs-views' | '/docs-health', text: string): Promise<string> {
  const before = t.slack.responses.length;
  expect((await t.command({ command, text, channel_id: CHANNEL })).status).toBe(200);
  const response = await waitFor(() => t.slack.responses[before], { what: `${command} ${text}` });
  return String(response.body.text);
}

const healthPosts = (slack: FakeSlack) =>
  slack.callsOf('chat.postMessage').filter((c) => String(c.args.text).startsWith('Docs health'));
const pageViewPosts = (slack: FakeSlack) =>
  slack.callsOf('chat.postMessage').filter((c) => !String(c.args.text).startsWith('Docs health'));

describe('/docs-health weekly posts (memory)', () => {
  it('posts a docs-health report of the last 7 local days with fix buttons, once, beside the page-view post', async () => {
    const timers = new ManualTimers(BEFORE);
    const t = await app({ agentOptions: { clock: { now: timers.now }, schedulerTimers: timers } });
    seed(t.docs);
    expect(await answer(t, '/docs-health', 'schedule monday 09:00 Europe/Berlin')).toContain(
      'a docs-health report of the last 7 full days',
    );
    expect(await answer(t, '/docs-views', 'schedule monday 09:00 Europe/Berlin')).toContain('page views');
    expect(await answer(t, '/docs-health', 'schedules')).toContain('*Weekly docs-health posts*');

    await timers.advanceTo(OCCURRENCE);
    const [health] = await waitFor(() => (healthPosts(t.slack).length ? healthPosts(t.slack) : undefined), {
      what: 'the weekly docs-health post',
    });
    await waitFor(() => pageViewPosts(t.slack)[0], { what: 'the weekly page-view post' });
    expect(health!.args.channel).toBe(CHANNEL);
    const blocks = JSON.stringify(health!.args.blocks);
    expect(blocks).toContain('/guides/auth');
    expect(blocks).toContain('health_fix_page_1');
    expect(blocks).not.toContain('docs_health_post');
    // The schedule's local midnights, as for page views.
    const searches = t.docs.requestsTo('GET', /\/searches$/);
    expect(searches.map((r) => [r.query.get('dateFrom'), r.query.get('dateTo')])).toEqual([[FROM, TO]]);

    await timers.advanceTo(OCCURRENCE + 60 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(healthPosts(t.slack)).toHaveLength(1);
    expect(pageViewPosts(t.slack)).toHaveLength(1);

    // Issue 38: each post opens with its week in a sentence and ends with who set it up, how to manage
    // it and Stop (the same rule as `unschedule`, checked again on the click).
    const views = JSON.stringify(pageViewPosts(t.slack)[0]!.args.blocks);
    expect(views).toContain('*This week: ');
    expect(blocks).toContain('*This week searches for');
    for (const post of [views, blocks]) {
      expect(post).toContain('Weekly post set up by <@U0ALICE>');
      expect(post).toContain('"action_id":"weekly_stop"');
    }
    const posted = t.slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs health'))!;
    const responseUrl = t.slack.responseUrl();
    const stop = await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
        action: { action_id: 'weekly_stop', value: 'health' },
        container: { type: 'message', channelId: CHANNEL, messageTs: posted.ts, responseUrl },
      }),
    );
    expect(stop.status).toBe(200);
    const told = await waitFor(
      () => t.slack.responses.find((r) => r.path === new URL(responseUrl).pathname),
      {
        what: 'the answer to Stop',
      },
    );
    expect(String(told.body.text)).toContain('no longer get the weekly docs-health post');
    expect(await answer(t, '/docs-health', 'schedules')).toContain(
      'This channel has no weekly docs-health post',
    );
    expect(await answer(t, '/docs-views', 'schedules')).toContain('<#C0DOCS> (this channel)');
  });

  it('unscheduling one kind leaves the other', async () => {
    const timers = new ManualTimers(BEFORE);
    const t = await app({ agentOptions: { clock: { now: timers.now }, schedulerTimers: timers } });
    seed(t.docs);
    await answer(t, '/docs-health', 'schedule monday 09:00 Europe/Berlin');
    await answer(t, '/docs-views', 'schedule monday 09:00 Europe/Berlin');
    expect(await answer(t, '/docs-views', 'unschedule')).toContain('no longer get the weekly page-view post');
    expect(await answer(t, '/docs-views', 'schedules')).toContain(
      'This channel has no weekly page-view post',
    );
    expect(await answer(t, '/docs-health', 'schedules')).toContain('<#C0DOCS> (this channel)');

    await timers.advanceTo(OCCURRENCE);
    await waitFor(() => healthPosts(t.slack)[0], { what: 'the weekly docs-health post' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pageViewPosts(t.slack)).toHaveLength(0);
    expect(await answer(t, '/docs-health', 'unschedule')).toContain(
      'no longer get the weekly docs-health post',
    );
    expect(await answer(t, '/docs-health', 'unschedule')).toContain(
      'This channel has no weekly docs-health post',
    );
  });
});

describe('/docs-health weekly posts (Redis, two replicas)', () => {
  it('a missed occurrence is caught up by two replicas at once: one post of each kind, once', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    stops.push(
      () => slack.close(),
      () => docs.close(),
    );
    seed(docs);
    const env = { REDIS_URL: redis!.url };
    const first = await app({ slack, docs, env, agentOptions: { clock: { now: () => BEFORE } } });
    await answer(first, '/docs-health', 'schedule monday 09:00 Europe/Berlin');
    await answer(first, '/docs-views', 'schedule monday 09:00 Europe/Berlin');
    await first.stop();
    stops.splice(stops.length - 1, 1);

    // Both replicas start five minutes after the occurrence (within the catch-up grace).
    const late = { now: () => OCCURRENCE + 5 * 60_000 };
    await Promise.all([
      app({ slack, docs, env, agentOptions: { clock: late } }),
      app({ slack, docs, env, agentOptions: { clock: late } }),
    ]);
    await waitFor(() => healthPosts(slack)[0], { what: 'the caught-up docs-health post' });
    await waitFor(() => pageViewPosts(slack)[0], { what: 'the caught-up page-view post' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(healthPosts(slack)).toHaveLength(1);
    expect(pageViewPosts(slack)).toHaveLength(1);
  });
});
