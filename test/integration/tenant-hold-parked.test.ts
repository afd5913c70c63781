import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { secretBoxFromSettings } from '../../src/common/secret-box.js';
import { suspension } from '../../src/composition/oauth/token-refusals.js';
import { tenantDirectoryFor } from '../../src/state/adapters.js';
import { parkedFromMember } from '../../src/state/parked-jobs.js';
import { waitFor } from '../support/http.js';
import { ENCRYPTION_KEY, type OAuthTestApp, oauthEnv, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/**
 * Issue 43: a tenant on hold costs nothing. Its poll is parked (no docs call, no scope built for it) until the
 * hold lifts (here: an admin installs it again); then the poll runs at once and the PR link is posted once.
 */
describe('OAuth mode on Redis: a held tenant’s poll waits parked until the hold lifts', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;
  let directory: ReturnType<typeof tenantDirectoryFor>;

  beforeAll(async () => {
    const env = {
      REDIS_URL: redis.url(),
      LOG_LEVEL: 'debug',
      POLL_INTERVAL_MS: '300',
      POLL_MAX_INTERVAL_MS: '600',
    };
    app = await startOAuthApp({ env, scopeIdleMs: 200, syncIntervalMs: 100 });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
    const config = loadConfig(oauthEnv(app.slack, app.docs, env));
    const box = secretBoxFromSettings(ENCRYPTION_KEY, undefined);
    directory = tenantDirectoryFor(config, box, createLogger({ level: 'silent', secrets: [] }));
    expect(await directory.waitUntilReady(new AbortController().signal)).toBe(true);
  });

  afterAll(async () => {
    await app?.stop();
    await directory?.close();
  });

  const logged = (what: string) =>
    app.logs.filter((l) => l.includes(ALPHA.teamId) && l.includes(what)).length;

  it('parks the poll with no docs call and no build, then runs it once when the hold lifts', async () => {
    const id = await startJob(app, app.docs, ALPHA, 'document the parked polls');
    const evictions = logged('idle; evicted');
    await waitFor(() => logged('idle; evicted') > evictions, {
      what: 'the scope evicted',
      timeoutMs: 10_000,
    });
    const lifecycle = await directory.directory.lifecycle(ALPHA.teamId);
    const hold = suspension(Date.now(), 'token_revoked', 3_600_000);
    expect(await directory.directory.hold(ALPHA.teamId, hold, lifecycle!.installId)).toBe(true);

    const path = new RegExp(`/job/${id}$`);
    const parks = logged('parked until the hold lifts');
    await waitFor(() => logged('parked until the hold lifts') > parks, {
      what: 'the poll parked',
      timeoutMs: 10_000,
    });
    // Counted once the park is seen: a poll the plane took before the hold was written may still have been
    // on its way to the docs API then (CI saw one land after), and its follow-up is the one parked.
    const polls = app.docs.requestsTo('GET', path).length;
    const builds = logged('tenant runtime started');

    // Where it waits: the tenant's parked set in Redis holds its poll, read back from a client of our own.
    const probe = createClient({ url: redis.url() });
    await probe.connect();
    try {
      const parked = await probe.sMembers(`docs-agent:t:{${ALPHA.teamId}}:parked-jobs`);
      expect(parked.map((member) => parkedFromMember(member).kind)).toEqual(['polls']);
    } finally {
      probe.destroy();
    }

    const pr = 'https://github.com/acme/docs/pull/4344';
    app.docs.complete(id, pr);
    // Parked: no docs call and no scope built for it until the hold lifts.
    expect(app.docs.requestsTo('GET', path).length).toBe(polls);
    expect(logged('tenant runtime started')).toBe(builds);
    await app.install(ALPHA.install); // installed again: the hold lifts
    const replies = () => prLinkReplies(app.slack, pr);
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    const after = logged('idle; evicted');
    await waitFor(() => logged('idle; evicted') > after, { what: 'the scope idle again', timeoutMs: 10_000 });
    expect(replies()).toHaveLength(1);
  });
});
