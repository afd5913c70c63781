import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { secretBoxFromSettings } from '../../src/common/secret-box.js';
import { TenantUpkeep } from '../../src/composition/oauth/tenant-upkeep.js';
import { tenantDirectoryFor, tenantNamespace } from '../../src/state/adapters.js';
import { installation } from '../contract/tenant-directory.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** A purge deletes one tenant's key space and nothing else, the upgraded workspace's included. */
describe('purging an uninstalled tenant’s data', () => {
  let redis: RedisServer;
  let keys: ReturnType<typeof createClient>;
  const env = (upgraded?: string) => ({
    SLACK_CLIENT_ID: '1.2',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'test-state-secret-0123456789abcdef0123',
    SLACK_SIGNING_SECRET: 'signing-secret',
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...(upgraded ? { SLACK_UPGRADED_TEAM_ID: upgraded } : {}),
  });

  beforeAll(async () => {
    redis = await startRedisServer();
    keys = createClient({ url: redis.url });
    await keys.connect();
  });
  afterAll(async () => {
    await keys?.close();
    await redis?.stop();
  });

  async function seed(): Promise<void> {
    await keys.flushAll();
    for (const key of [
      'docs-agent::job:1', // single-workspace mode's (the upgraded workspace's) Keyv records
      'docs-agent:bull:poll:1',
      'docs-agent:t:T0BETA:job:1',
      'docs-agent:t:T0BETA::job:2',
      'docs-agent:t:T0BETA@1:job:1', // Beta installed again after this purge began: its new key space
      'docs-agent:t:T0ACME@1:job:1', // the same for the upgraded workspace
      'docs-agent:t:T0BETAX:job:1', // another tenant whose id starts the same
      'docs-agent:t:T0GAMMA:job:1',
      'docs-agent:directory:tenants',
      'someone-else:key',
    ])
      await keys.set(key, 'x');
    // Parked jobs are the tenant's, whatever the generation (issue 43): a set under its hash tag.
    await keys.sAdd('docs-agent:t:{T0BETA}:parked-jobs', 'polls\njob-1');
    await keys.sAdd('docs-agent:t:{T0GAMMA}:parked-jobs', 'polls\njob-2');
  }

  async function purge(tenant: string, upgraded?: string, generation = 0): Promise<string[]> {
    const config = { ...loadConfig(env(upgraded)), redisUrl: redis.url };
    const box = secretBoxFromSettings(config.oauth!.encryptionKey, undefined);
    const handle = tenantDirectoryFor(config, box, createLogger({ level: 'silent', secrets: [] }));
    await handle.waitUntilReady(new AbortController().signal);
    await handle.purge(tenant, generation);
    await handle.close();
    return (await keys.keys('*')).sort();
  }

  it('a namespaced tenant: only its own keys', async () => {
    await seed();
    expect(await purge('T0BETA')).toEqual([
      'docs-agent::job:1',
      'docs-agent:bull:poll:1',
      'docs-agent:directory:tenants',
      'docs-agent:t:T0ACME@1:job:1',
      'docs-agent:t:T0BETA@1:job:1',
      'docs-agent:t:T0BETAX:job:1',
      'docs-agent:t:T0GAMMA:job:1',
      'docs-agent:t:{T0GAMMA}:parked-jobs',
      'someone-else:key',
    ]);
  });

  it('a later generation (installed again after a purge began): only its keys, never the one purged before', async () => {
    await seed();
    const left = await purge('T0BETA', undefined, 1);
    expect(left).not.toContain('docs-agent:t:T0BETA@1:job:1');
    expect(left).toContain('docs-agent:t:T0BETA:job:1');
    expect(left).toContain('docs-agent:t:T0BETA::job:2');
    expect(left).not.toContain('docs-agent:t:{T0BETA}:parked-jobs');
    expect(left).toHaveLength(10);
  });

  it('the upgraded workspace: its single-workspace keys, never another tenant’s or the directory', async () => {
    await seed();
    expect(await purge('T0ACME', 'T0ACME')).toEqual([
      'docs-agent:directory:tenants',
      'docs-agent:t:T0ACME@1:job:1',
      'docs-agent:t:T0BETA::job:2',
      'docs-agent:t:T0BETA:job:1',
      'docs-agent:t:T0BETA@1:job:1',
      'docs-agent:t:T0BETAX:job:1',
      'docs-agent:t:T0GAMMA:job:1',
      'docs-agent:t:{T0BETA}:parked-jobs',
      'docs-agent:t:{T0GAMMA}:parked-jobs',
      'someone-else:key',
    ]);
  });

  it('a re-install while the purge runs: the purge never deletes what the new install writes (issue 36, finding 8)', async () => {
    await keys.flushAll();
    const config = { ...loadConfig(env()), redisUrl: redis.url };
    const box = secretBoxFromSettings(config.oauth!.encryptionKey, undefined);
    const logger = createLogger({ level: 'silent', secrets: [] });
    const handle = tenantDirectoryFor(config, box, logger);
    await handle.waitUntilReady(new AbortController().signal);
    const { directory } = handle;
    await directory.saveInstallation(installation('T0BETA'));
    await keys.set('docs-agent:t:T0BETA:job:old', 'x');
    await directory.removeTenant('T0BETA', 0);
    let written = '';
    const upkeep = new TenantUpkeep({
      oauth: config.oauth!,
      directory,
      tenants: () => [],
      // The workspace installs the app again while its purge runs, and its new runtime writes a record.
      purge: async (tenant, generation) => {
        await directory.saveInstallation(installation('T0BETA'));
        const { generation: now } = (await directory.lifecycle(tenant))!;
        written = `${tenantNamespace(tenant, undefined, now)}:job:new`;
        await keys.set(written, 'x');
        return handle.purge(tenant, generation);
      },
      uninstall: async () => undefined,
      changed: () => undefined,
      slackApiUrl: undefined,
      timeoutMs: 1_000,
      clock: { now: () => Date.now() },
      logger,
    });
    await upkeep.runOnce();
    upkeep.stop();
    expect(await keys.exists('docs-agent:t:T0BETA:job:old')).toBe(0);
    expect(written).not.toBe('');
    expect(await keys.exists(written)).toBe(1);
    expect(await directory.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
    await handle.close();
  });
});
