import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/**
 * Issue 34: evicting a scope frees memory only. A job whose scope is evicted while it runs still gets its
 * PR link, once: its next poll, on the shared plane, builds the scope again.
 */
describe('OAuth mode on Redis: a job outlives the eviction of its scope', () => {
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

  const logged = (what: string) =>
    app.logs.filter((l) => l.includes(ALPHA.teamId) && l.includes(what)).length;

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
