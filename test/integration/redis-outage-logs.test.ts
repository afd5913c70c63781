import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../src/state/store-errors.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const TENANTS = ['T0LOGA', 'T0LOGB', 'T0LOGC', 'T0LOGD'];

/**
 * A Redis outage is said by the connection, a line per 5 s, not repeated by every store and queue of every
 * tenant on each reconnect attempt: with many tenants the repeats would bury the one line that matters.
 */
describe('logs during a Redis outage, OAuth mode with four tenants', () => {
  let redis: RedisServer;
  let app: OAuthTestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startOAuthApp({ env: { REDIS_URL: redis.url } });
    for (const teamId of TENANTS) await app.install({ teamId, teamName: teamId });
    // Every tenant's runtime started: its workers are waiting on Redis.
    await waitFor(() => TENANTS.every((t) => app.logs.some((l) => l.includes(`tenant ${t} is ready`))), {
      timeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  it('four seconds without Redis: a few error lines, not one per store, queue and tenant', async () => {
    const before = app.logs.length;
    await redis.stop();
    await new Promise((r) => setTimeout(r, 4_000));
    const errors = app.logs.slice(before).filter((l) => l.includes('"level":50'));
    // The process's connections say it (each at most once per 5 s), plus a failed read of the directory.
    expect(errors.length, errors.join('\n')).toBeLessThanOrEqual(6);
    expect(errors.some((l) => l.includes('redis connection error'))).toBe(true);
  });
});

describe('isConnectionLoss', () => {
  it('tells a lost or refused connection from a command the store refused', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    class SocketClosedUnexpectedlyError extends Error {}
    expect(isConnectionLoss(refused)).toBe(true);
    expect(isConnectionLoss(new SocketClosedUnexpectedlyError('Socket closed unexpectedly'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection is closed.'))).toBe(true);
    expect(isConnectionLoss(new Error('ERR max number of clients reached'))).toBe(false);
    expect(isConnectionLoss(new Error('OOM command not allowed when used memory > maxmemory'))).toBe(false);
    expect(isConnectionLoss('ECONNREFUSED')).toBe(false);
  });
});
