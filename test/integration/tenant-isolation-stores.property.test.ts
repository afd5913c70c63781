import { createClient } from '@redis/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { adapterOptions } from '../../src/composition/app-steps.js';
import { tenantNamespace } from '../../src/composition/oauth/tenant-config.js';
import {
  type AdapterSet,
  createAdapters,
  tenantNamespace as purgedNamespace,
} from '../../src/state/adapters.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { interleaving, type OpResult, runOp, type StoreOp } from '../support/tenant-store-ops.js';

/**
 * Issue 27: "for any interleaving of two tenants' events, no record read under one tenant was written under
 * the other". Each tenant's adapter set is built as its runtime builds it (createAdapters with the tenant's
 * namespace, `adapterOptions`); the upgraded workspace (SLACK_UPGRADED_TEAM_ID, default key space) sits
 * beside an org-wide install (its own key space). Two checks per interleaving: every read under a tenant
 * saw only its own tag, and every answer equals what the tenant's events alone (no other tenant) answer.
 */
const UPGRADED = 'T0ACME';
const TENANTS = [UPGRADED, 'E0GRID'] as const;
const logger = createLogger({ level: 'silent', secrets: [] });
const NOW = Date.now();
const clock = { now: () => NOW };
const env = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-secret',
  DOCS_API_KEY: 'svc_abcdefghijklmnopqrstuvwxyz',
  DOCS_PROJECT_ID: 'proj_shared',
  // Small budgets, so both tenants run theirs out within one interleaving.
  AGENT_JOBS_PER_HOUR: '3',
  ANALYTICS_HOURLY_BUDGET: '2',
};

/** A tenant's adapters as its runtime gets them (namespace from `tenantNamespace`). */
function tenantAdapters(tenant: string, extraEnv: Record<string, string> = {}): AdapterSet {
  const config = loadConfig({ ...env, ...extraEnv });
  const namespace = tenantNamespace(tenant, UPGRADED);
  return createAdapters(config, adapterOptions(namespace ? { namespace } : {}, logger, clock));
}

type Events = Array<{ tenant: number; op: StoreOp }>;

async function run(sets: AdapterSet[], events: Events): Promise<OpResult[]> {
  const results: OpResult[] = [];
  for (const { tenant, op } of events) results.push(await runOp(sets[tenant]!, TENANTS[tenant]!, op, NOW));
  return results;
}

/** Both checks: own tags only, and the same answers as the tenant's events alone. */
function expectSealed(events: Events, together: OpResult[], alone: OpResult[][]): void {
  events.forEach(({ tenant, op }, index) => {
    const seen = together[index]!.tags;
    expect(
      seen.filter((tag) => tag !== TENANTS[tenant]),
      `${TENANTS[tenant]} ${op.kind}`,
    ).toEqual([]);
  });
  for (const tenant of [0, 1]) {
    const mine = together.filter((_, index) => events[index]!.tenant === tenant).map((r) => r.answer);
    expect(mine).toEqual(alone[tenant]!.map((r) => r.answer));
  }
}

const onlyOf = (events: Events, tenant: number) => events.filter((e) => e.tenant === tenant);

it('the key space a tenant writes is the one its purge deletes', () => {
  for (const tenant of [...TENANTS, 'T0OTHER']) {
    expect(purgedNamespace(tenant, UPGRADED)).toBe(tenantNamespace(tenant, UPGRADED));
  }
});

describe('two tenants on the memory backend (a separate adapter set each)', () => {
  it('no read under one tenant returns what the other wrote, in any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(interleaving, async (events) => {
        const together = await run([tenantAdapters(TENANTS[0]), tenantAdapters(TENANTS[1])], events);
        const alone = await Promise.all(
          [0, 1].map((tenant) => {
            const sets = [tenantAdapters(TENANTS[0]), tenantAdapters(TENANTS[1])];
            return run(sets, onlyOf(events, tenant));
          }),
        );
        expectSealed(events, together, alone);
      }),
      { numRuns: 200 },
    );
  });
});

describe('two tenants on one Redis (a key space each)', () => {
  let redis: RedisServer;
  let sets: AdapterSet[];
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = createClient({ url: redis.url });
    await admin.connect();
    sets = TENANTS.map((tenant) => tenantAdapters(tenant, { REDIS_URL: redis.url }));
    for (const set of sets) expect(await set.waitUntilReady(new AbortController().signal)).toBe(true);
  });
  afterAll(async () => {
    for (const set of sets ?? []) {
      await set.pollQueue.close();
      await set.pullRequestQueue.close();
      await set.close();
    }
    await admin?.quit();
    await redis?.stop();
  });

  it('no read under one tenant returns what the other wrote, in any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(interleaving, async (events) => {
        await admin.flushAll();
        const together = await run(sets, events);
        const keys = await admin.keys('*');
        const alone: OpResult[][] = [];
        for (const tenant of [0, 1]) {
          await admin.flushAll();
          alone.push(await run(sets, onlyOf(events, tenant)));
        }
        expectSealed(events, together, alone);
        // The org's keys are all in its key space; the upgraded workspace's keys are never in a tenant's.
        const grid = keys.filter((key) => key.startsWith('docs-agent:t:'));
        expect(grid.every((key) => key.startsWith('docs-agent:t:E0GRID:'))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
