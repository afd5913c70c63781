import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/**
 * Issue 34: evicting a scope frees memory only; a job whose scope is evicted while it runs still gets its PR
 * link, once, from the scope its next poll builds again.
 * Issue 43: eviction never cuts work in progress. A scope whose poll is running on the plane (its docs answer
 * held open here) is idle long past its time-out, yet it is not stopped: the poll ends, its PR link is posted
 * once by the scope that took it (no delivery handed back), and only then is the scope evicted.
 */
describe('OAuth mode on Redis: eviction frees memory and never cuts work', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;

  beforeAll(async () => {
    app = await startOAuthApp({
      env: {
        REDIS_URL: redis.url(),
        LOG_LEVEL: 'debug',
        POLL_INTERVAL_MS: '300',
        POLL_MAX_INTERVAL_MS: '600',
      },
      scopeIdleMs: 200,
      syncIntervalMs: 100,
    });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
  });

  afterAll(async () => {
    await app?.stop();
  });

  const slackPosts = (text: string) =>
    app.slack.callsOf('chat.postMessage').filter((c) => JSON.stringify(c.args).includes(text)).length;
  const logged = (what: string) =>
    app.logs.filter((l) => l.includes(ALPHA.teamId) && l.includes(what)).length;

  it('keeps the scope through a poll held open, then evicts it after the PR link is posted once', async () => {
    const id = await startJob(app, app.docs, ALPHA, 'document the busy scopes');
    const pr = 'https://github.com/acme/docs/pull/4343';
    let release: () => void = () => undefined;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const path = new RegExp(`/job/${id}$`);
    const polls = () => app.docs.requestsTo('GET', path).length;
    const before = polls();
    app.docs.inject({ method: 'GET', path }, { kind: 'gate', until });
    app.docs.complete(id, pr);
    await waitFor(() => polls() > before, { what: 'a poll held open', timeoutMs: 10_000 });

    const evictions = logged('idle; evicted');
    const stops = logged('tenant runtime stopping');
    const waits = logged('eviction waits');
    // Either sign that an eviction pass judged this idle scope while its poll ran.
    await waitFor(() => logged('eviction waits') > waits || logged('idle; evicted') > evictions, {
      what: 'an eviction pass over the busy scope',
      timeoutMs: 10_000,
    });
    expect(logged('idle; evicted')).toBe(evictions);
    expect(logged('tenant runtime stopping')).toBe(stops);

    release();
    const replies = () => prLinkReplies(app.slack, pr);
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await waitFor(() => logged('idle; evicted') > evictions, {
      what: 'the scope evicted',
      timeoutMs: 10_000,
    });
    expect(replies()).toHaveLength(1);
    expect(
      app.logs.filter((l) => l.includes('handing deliveries back') || l.includes('handed back')),
    ).toEqual([]);
  });

  it("keeps the scope through its listener's work after the ack (one Bolt app for all: tracked as this tenant's)", async () => {
    let release: () => void = () => undefined;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const creates = () => app.docs.requestsTo('POST', /\/job$/).length;
    const before = creates();
    // The job's create is the command's after-ack work: held open, nothing of it is in the outbox yet.
    app.docs.inject({ method: 'POST', path: /\/job$/ }, { kind: 'gate', until });
    const jobs = app.docs.jobs.size;
    const ack = await app.command({
      text: 'document the in-flight listeners',
      user_id: ALPHA.user,
      team_id: ALPHA.teamId,
      channel_id: ALPHA.channel(1),
    });
    expect(ack.status).toBe(200);
    await waitFor(() => creates() > before, { what: 'the create held open', timeoutMs: 10_000 });

    const evictions = logged('idle; evicted');
    const waits = logged('eviction waits');
    await waitFor(() => logged('eviction waits') > waits || logged('idle; evicted') > evictions, {
      what: 'an eviction pass over the scope while its listener works',
      timeoutMs: 10_000,
    });
    expect(logged('idle; evicted')).toBe(evictions);

    release();
    // The work the scope kept goes on to its end there: the job is created and its card posted.
    await waitFor(() => app.docs.jobs.size > jobs, { what: 'the job created', timeoutMs: 10_000 });
    await waitFor(() => slackPosts('document the in-flight listeners') > 0, { what: 'its card' });
  });

  it('the PR link reply arrives once, from a scope built again by the poll', async () => {
    const id = await startJob(app, app.docs, ALPHA, 'document the eviction flags');
    const evictions = logged('idle; evicted');
    await waitFor(() => logged('idle; evicted') > evictions, {
      what: 'the scope evicted',
      timeoutMs: 10_000,
    });
    const builds = logged('tenant runtime started');
    const pr = 'https://github.com/acme/docs/pull/3434';
    app.docs.complete(id, pr);
    const replies = () => prLinkReplies(app.slack, pr);
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(replies()).toHaveLength(1);
    expect(logged('tenant runtime started')).toBeGreaterThan(builds);
  });
});
