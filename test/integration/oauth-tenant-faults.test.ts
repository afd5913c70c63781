import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { answersPing } from '../support/redis-server.js';
import { eventEnvelope, messageEvent, nextMessageTs, retryHeaders } from '../support/slack-events.js';
import { botUserOf } from '../support/tenant-actions.js';
import { ALPHA, asTenant, BETA, registerTenants, type TestTenant } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/*
 * Issue 43, "Bad input and faults": the faults of a many-tenant deployment, each through signed requests to
 * the real OAuth-mode app on a real redis-server. (A token Slack refuses mid-request suspending its tenant is
 * processes-tenants-lifecycle.test.ts › "3 s of invalid_auth …".)
 */

/** One inline command on a connection of its own (CLIENT PAUSE pauses every client, the test's too). */
function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().trim());
    });
    socket.once('error', reject);
  });
}

const linesOf = (app: OAuthTestApp, t: TestTenant, text: string) =>
  app.logs.filter((l) => l.includes(`"${t.key}"`) && l.includes(text));

/** The tenant's scope is not resident: its last build or eviction logged was an eviction. */
const evicted = (app: OAuthTestApp, t: TestTenant) =>
  app.logs
    .filter((l) => l.includes(`"${t.key}"`) && /tenant runtime started|idle; evicted/.test(l))
    .at(-1)
    ?.includes('idle; evicted') === true;

/** ALPHA's signed mention of the bot in its second channel (one event id: Slack's retries send it again). */
const alphaMention = (app: OAuthTestApp, text: string) =>
  asTenant(
    eventEnvelope(
      messageEvent({
        type: 'app_mention',
        user: ALPHA.user,
        channel: ALPHA.channel(2),
        ts: nextMessageTs(),
        text: `<@${botUserOf(app.slack, ALPHA)}> ${text}`,
      }),
      undefined,
      ALPHA.teamId,
    ),
    ALPHA,
  );

/** ALPHA's /docs-agent in its first channel. */
const alphaCommand = (app: OAuthTestApp, text: string) =>
  app.command({ text, user_id: ALPHA.user, team_id: ALPHA.teamId, channel_id: ALPHA.channel(1) });

describe('the directory not answering while a request of a tenant not resident arrives', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;

  beforeAll(async () => {
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'debug' },
      scopeIdleMs: 300,
      syncIntervalMs: 100,
    });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('a command is told what happened and to try again; a mention is refused (503) and runs at Slack’s retry', async () => {
    await waitFor(() => evicted(app, ALPHA), { what: 'ALPHA not resident', timeoutMs: 10_000 });
    const port = Number(new URL(redis.url()).port);
    const jobsBefore = app.docs.jobs.size;
    const mentioned = 'ALPHA: document the pause flags';
    const mention = alphaMention(app, mentioned);

    // Redis answers nobody for 5 s: the directory's read of ALPHA's stamp waits past the request's deadline.
    expect(await redisCommand(port, 'CLIENT PAUSE 5000 ALL')).toBe('+OK');
    const [command, first] = await Promise.all([
      alphaCommand(app, 'document the retry header'),
      app.event(mention),
    ]);
    // The person is answered in the acknowledgement, in the first person, with what to do; no code.
    expect(command.status).toBe(200);
    const answer = JSON.parse(command.body) as { response_type?: string; text?: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain("I can't reach my storage right now");
    expect(answer.text).toContain('Try it again in a minute');
    expect(answer.text).not.toMatch(/directory_unreadable|state_unavailable/);
    // The event is not acknowledged: Slack delivers it again.
    expect(first.status).toBe(503);

    // Redis answers again; Slack's retry of the same event (same event_id) is processed, once.
    await waitFor(() => answersPing(port), { what: 'Redis answering', timeoutMs: 10_000 });
    const retried = await app.event(mention, retryHeaders(1, 'http_error'));
    expect(retried.status).toBe(200);
    const job = await waitFor(
      () => [...app.docs.jobs.values()].find((j) => j.prompts[0]?.includes(mentioned)),
      { what: 'the mention’s job', timeoutMs: 10_000 },
    );
    // The command started nothing (its person was told so); the mention started one job.
    expect(app.docs.jobs.size).toBe(jobsBefore + 1);
    // It ends, so that nothing of ALPHA's runs any more (no poll builds its scope again).
    const pr = 'https://github.com/acme/docs/pull/4300';
    app.docs.complete(job.id, pr);
    await waitFor(() => prLinkReplies(app.slack, pr).length > 0, { what: 'its PR reply', timeoutMs: 15_000 });
  }, 60_000);

  it('Redis refusing connections: the same answers, at once, and the mention runs at the first retry after', async () => {
    await waitFor(() => evicted(app, ALPHA), { what: 'ALPHA not resident again', timeoutMs: 10_000 });
    const admin = await redis.replica();
    const jobsBefore = app.docs.jobs.size;
    const mentioned = 'ALPHA: document the refused connections';
    const mention = alphaMention(app, mentioned);
    // Every connection of the app cut, and new ones refused (only the test's own is let in).
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', '1']);
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub', 'SKIPME', 'yes']);
    const sent = Date.now();
    const [command, first] = await Promise.all([
      alphaCommand(app, 'document the refusal'),
      app.event(mention),
    ]);
    expect(command.status).toBe(200);
    expect((JSON.parse(command.body) as { text?: string }).text).toContain(
      "I can't reach my storage right now",
    );
    expect(first.status).toBe(503);
    // Refused reads fail at once (fail-fast clients): no wait for the 2 s deadline.
    expect(Date.now() - sent).toBeLessThan(1_500);

    // Redis takes connections again; Slack's retries come until one is acknowledged.
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', '10000']);
    let retry = 0;
    await waitFor(
      async () => (await app.event(mention, retryHeaders(++retry, 'http_error'))).status === 200,
      {
        what: 'a retry acknowledged',
        timeoutMs: 15_000,
      },
    );
    await waitFor(() => [...app.docs.jobs.values()].find((j) => j.prompts[0]?.includes(mentioned)), {
      what: 'the mention’s job',
      timeoutMs: 10_000,
    });
    expect(app.docs.jobs.size).toBe(jobsBefore + 1);
  }, 60_000);
});

describe('a tenant uninstalled while a job of it is in flight', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;

  beforeAll(async () => {
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url(), POLL_INTERVAL_MS: '300', POLL_MAX_INTERVAL_MS: '600' },
    });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
    expect((await installAndConnect(app, app.slack, BETA)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('its job is dropped once and nothing is posted with its token; the other tenant’s job ends as usual', async () => {
    const alphaToken = app.slack.oauth.liveToken(ALPHA.key);
    const alphaJob = await startJob(app, app.docs, ALPHA, 'ALPHA: document the uninstall');
    const betaJob = await startJob(app, app.docs, BETA, 'BETA: document the uninstall');
    const alphaPolls = () => app.docs.requestsTo('GET', new RegExp(`/job/${alphaJob}$`)).length;
    // ALPHA's job is followed: its card is posted and its poll has run once at least.
    await waitFor(
      () =>
        app.slack
          .callsOf('chat.postMessage')
          .some((c) => c.authorization === `Bearer ${alphaToken}` && c.args.channel === ALPHA.channel(1)),
      { what: 'ALPHA’s card', timeoutMs: 10_000 },
    );
    await waitFor(() => alphaPolls() > 0, { what: 'ALPHA’s job polled', timeoutMs: 10_000 });

    await app.event(asTenant(eventEnvelope({ type: 'app_uninstalled' }, undefined, ALPHA.teamId), ALPHA));
    await waitFor(() => linesOf(app, ALPHA, 'its calls, polls, schedules').length > 0, {
      what: 'ALPHA uninstalled',
      timeoutMs: 10_000,
    });
    const uninstalledAt = app.slack.calls.length;

    // Both jobs end at the platform; BETA's reply comes, ALPHA's queued poll is dropped, once.
    const alphaPr = 'https://github.com/acme/docs/pull/4301';
    const betaPr = 'https://github.com/acme/docs/pull/4302';
    app.docs.complete(alphaJob, alphaPr);
    app.docs.complete(betaJob, betaPr);
    await waitFor(() => prLinkReplies(app.slack, betaPr).length > 0, {
      what: 'BETA’s PR reply',
      timeoutMs: 15_000,
    });
    const dropped = () => linesOf(app, ALPHA, 'a queued job of a tenant that is not installed; dropped');
    await waitFor(() => dropped().length > 0, { what: 'ALPHA’s poll dropped', timeoutMs: 15_000 });
    const pollsAtDrop = alphaPolls();

    // The plane runs on: a new BETA job is polled to its end after the drop (a positive sign), and by then
    // nothing more of ALPHA's job ran.
    const later = await startJob(app, app.docs, BETA, 'BETA: document the next thing');
    const laterPr = 'https://github.com/acme/docs/pull/4303';
    app.docs.complete(later, laterPr);
    await waitFor(() => prLinkReplies(app.slack, laterPr).length > 0, {
      what: 'BETA’s second PR reply',
      timeoutMs: 15_000,
    });
    expect(dropped()).toHaveLength(1);
    expect(alphaPolls()).toBe(pollsAtDrop);
    const alphaPosts = app.slack.calls
      .slice(uninstalledAt)
      .filter((c) => c.authorization === `Bearer ${alphaToken}`)
      .map((c) => c.method);
    expect(alphaPosts).toEqual([]);
    expect(prLinkReplies(app.slack, alphaPr)).toEqual([]);
    expect(prLinkReplies(app.slack, betaPr)).toHaveLength(1);
  }, 90_000);
});
