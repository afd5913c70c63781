import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/common/clock.js';
import { loadConfig } from '../../src/common/config.js';
import { createLogger, SecretSet } from '../../src/common/logger.js';
import { secretBoxFromSettings } from '../../src/common/secret-box.js';
import { TenantRuntimes } from '../../src/composition/oauth/tenant-runtimes.js';
import { suspension } from '../../src/composition/oauth/token-refusals.js';
import { createProcessEdge, type ProcessEdge } from '../../src/composition/process-edge.js';
import { TenantMetrics } from '../../src/metrics/tenant-metrics.js';
import { MemoryTenantDirectory } from '../../src/state/memory/memory-tenant-directory.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { TEST_TENANT, testTenant } from '../support/map-tenant-directory.js';
import { ENCRYPTION_KEY, oauthEnv } from '../support/oauth-app.js';

/**
 * `wake(tenant)` (issue 34's contract for the shared queue plane and reconciler): "served" once the tenant's
 * scope is resident and started, "gone" when the tenant is not installed, "held" while it is on hold. A tenant installed
 * after this replica's last look at the directory is brought in by the wake itself.
 */
describe('OAuth mode: waking a tenant', () => {
  let slack: FakeSlack;
  let docs: FakeDocs;
  let directory: MemoryTenantDirectory;
  let runtimes: TenantRuntimes;
  let edge: ProcessEdge;

  beforeAll(async () => {
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    const config = loadConfig(oauthEnv(slack, docs));
    directory = new MemoryTenantDirectory(secretBoxFromSettings(ENCRYPTION_KEY, undefined));
    const logger = createLogger({ level: 'silent', secrets: [] });
    edge = createProcessEdge(config, logger);
    runtimes = new TenantRuntimes({
      config,
      directory,
      logger,
      edge,
      secrets: new SecretSet([]),
      metrics: new TenantMetrics(),
      clock: systemClock,
      sharedRedis: undefined,
      // Held still: only the wake itself may bring a new install in.
      syncIntervalMs: 3_600_000,
    });
    await runtimes.start();
  });

  afterAll(async () => {
    await runtimes?.stop();
    await edge?.close();
    await slack?.close();
    await docs?.close();
  });

  it('is false for a tenant that is not installed, and builds nothing', async () => {
    expect(await runtimes.wake('T0NOBODY')).toBe('gone');
    expect(runtimes.tenants()).toEqual([]);
  });

  it('brings in a tenant installed after the last look, started, then is false while it is on hold', async () => {
    await directory.saveInstallation(testTenant().scope.installation);
    expect(runtimes.tenants()).toEqual([]);
    expect(await runtimes.wake(TEST_TENANT)).toBe('served');
    expect(runtimes.tenants()).toEqual([TEST_TENANT]);

    const lifecycle = await directory.lifecycle(TEST_TENANT);
    await directory.hold(TEST_TENANT, suspension(Date.now(), 'token_revoked', 60_000), lifecycle!.installId);
    await runtimes.sync();
    expect(await runtimes.wake(TEST_TENANT)).toBe('held');
  });

  it('builds nothing for a tenant on hold that is not resident (issue 43): its record says held', async () => {
    await directory.saveInstallation({
      ...testTenant().scope.installation,
      tenant: 'T0PAUSED',
      teamId: 'T0PAUSED',
    });
    const lifecycle = await directory.lifecycle('T0PAUSED');
    await directory.hold('T0PAUSED', suspension(Date.now(), 'token_revoked', 60_000), lifecycle!.installId);
    expect(await runtimes.wake('T0PAUSED')).toBe('held');
    expect(runtimes.tenants()).not.toContain('T0PAUSED');
  });
});
