import { Queue } from 'bullmq';
import type { Logger } from '../../../common/logger.js';
import { directoryPrefix, tenantNamespace } from '../../tenant-directories.js';
import { cronerRepeatStrategy } from '../bullmq-weekly-scheduler.js';
import { migrateDirectoryLayout } from '../directory-migration.js';
import { shardPrefix } from '../plane-shards.js';
import { QueuePlane } from '../queue-plane.js';
import { bullConnectionOf, type RedisClient } from '../redis-client.js';
import { RedisDueIndex } from '../redis-due-index.js';
import { SINGLE_WORKSPACE_TENANT, singleWorkspacePlane } from '../single-plane.js';
import {
  type MovedCounts,
  moveOldQueues,
  moveQueue,
  type OldKeySpace,
  oldQueueExists,
} from './old-queues.js';
import type { MigrationStep } from './runner.js';

/** What the steps need to know of the deployment (read from the same settings as the app). */
export interface DeploymentLayout {
  /** OAuth mode: where the plane is and which workspace kept single-workspace mode's key names. */
  oauth?: { upgradedTenant: string | undefined; queueShards: number; cluster: boolean };
}

/** Tenants listed per page while looking for their key spaces. */
const PAGE = 200;

/**
 * Every key space that may hold queues of the layout before the plane: each installed tenant's (its
 * current generation's; the upgraded workspace's is single-workspace mode's `docs-agent`).
 */
async function* oauthKeySpaces(
  client: RedisClient,
  upgraded: string | undefined,
  cluster: boolean,
): AsyncGenerator<OldKeySpace> {
  const prefix = directoryPrefix(cluster);
  const tenants = Object.keys(await client.hGetAll(`${prefix}tenants`));
  for (let i = 0; i < tenants.length; i += PAGE) {
    const page = tenants.slice(i, i + PAGE);
    const generations = await client.hmGet(`${prefix}tenant-generations`, page);
    for (const [j, tenant] of page.entries()) {
      const generation = Number(generations[j] ?? 0) || 0;
      yield { tenant, namespace: tenantNamespace(tenant, upgraded, generation, cluster) ?? 'docs-agent' };
    }
  }
}

/** The step that moves every key space's old queues onto the plane (each queue's jobs and schedules). */
function oldQueuesOntoPlane(o: {
  name: string;
  describe: string;
  client: RedisClient;
  logger: Logger;
  spaces: () => AsyncIterable<OldKeySpace>;
  plane: () => QueuePlane;
  /** A key space whose queues moved (OAuth: its tenant is marked due, so its scope is built soon). */
  moved?: (space: OldKeySpace) => Promise<void>;
}): MigrationStep {
  return {
    name: o.name,
    describe: o.describe,
    async run(stillOwner) {
      const counts: MovedCounts = { keySpaces: 0, jobs: 0, schedulers: 0 };
      const plane = o.plane();
      try {
        for await (const space of o.spaces()) {
          await stillOwner();
          const moved = await moveOldQueues({ client: o.client, plane, logger: o.logger, space });
          if (!moved.found) continue;
          counts.keySpaces++;
          counts.jobs += moved.jobs;
          counts.schedulers += moved.schedulers;
          await o.moved?.(space);
        }
      } finally {
        await plane.close();
      }
      return counts;
    },
  };
}

/**
 * Single-workspace mode's migrations, in order (record and lease under its namespace). Each is named once
 * and never renamed (the record is by name); a new one goes at the end.
 */
export function singleWorkspaceMigrations(o: {
  client: RedisClient;
  logger: Logger;
  namespace: string;
}): MigrationStep[] {
  const { client, logger, namespace } = o;
  return [
    oldQueuesOntoPlane({
      name: '2026-12-own-queues-onto-plane',
      describe:
        'the workspace’s own queues (polls, PR follows, checks, schedules) moved onto the shared queues',
      client,
      logger,
      spaces: async function* () {
        yield { namespace, tenant: SINGLE_WORKSPACE_TENANT };
      },
      // Only written to: the Workers are the app's (nothing runs here).
      plane: () => singleWorkspacePlane({ client, logger, namespace, pollConcurrency: 1 }),
    }),
  ];
}

/**
 * OAuth mode's migrations, in order (record and lease under `docs-agent`). Each is named once and never
 * renamed (the record is by name); a new one goes at the end.
 */
export function oauthMigrations(o: {
  client: RedisClient;
  logger: Logger;
  oauth: NonNullable<DeploymentLayout['oauth']>;
}): MigrationStep[] {
  const { client, logger, oauth } = o;
  const due = new RedisDueIndex(client);
  return [
    {
      // Also checked at every start (the directory's `waitUntilReady`, one EXISTS once done): a replica of
      // the previous version may still install into the old layout during a rolling upgrade.
      name: '2026-12-directory-by-tenant-slot',
      describe: 'each install’s records moved into its workspace’s own slot; the directory keeps an index',
      async run() {
        const moved = await migrateDirectoryLayout(client, directoryPrefix(oauth.cluster), { logger });
        return { tenants: moved.tenants };
      },
    },
    oldQueuesOntoPlane({
      name: '2026-12-old-queues-onto-plane',
      describe: 'each workspace’s own queues (before the shared queues) moved onto the shared queues',
      client,
      logger,
      // A cluster is a deployment of the plane from its start: no old per-tenant queue is there.
      spaces: () => (oauth.cluster ? none() : oauthKeySpaces(client, oauth.upgradedTenant, oauth.cluster)),
      plane: () => new QueuePlane({ client, logger, shards: oauth.queueShards, wake: async () => 'gone' }),
      // Its scope is built soon (as `markOldLayoutTenants` did): its watched jobs' polls and its schedules
      // are checked against its own records by the start of the scope.
      moved: (space) => due.mark(space.tenant, Date.now()),
    }),
    upgradedWorkspaceJobs({ client, logger, oauth }),
    {
      name: '2026-12-legacy-markers',
      describe: 'the markers of the per-start moves (replaced by this record) removed',
      async run() {
        const deleted = await client.del(['docs-agent:{plane}:migrated', 'docs-agent:{plane}:migrating']);
        return { keys: Number(deleted) };
      },
    },
  ];
}

async function* none(): AsyncGenerator<OldKeySpace> {}

/** The plane's kinds and what their jobs are (the old queues' names, which `moveQueue` reads them by). */
const KINDS = [
  ['polls', 'polls'],
  ['pr-follow', 'pr-follow'],
  ['impact', 'health-impact'],
  ['weekly', 'weekly-reports'],
  ['alerts', 'health-alerts'],
] as const;

/**
 * A single-workspace deployment of this version queued its work on the plane for its one tenant
 * (`workspace`). Upgraded to OAuth mode, that work is the upgraded workspace's (SLACK_UPGRADED_TEAM_ID):
 * handed to it, due times and schedules kept. Without SLACK_UPGRADED_TEAM_ID nobody owns it (the plane
 * drops such a job when it comes due, as any uninstalled tenant's).
 */
function upgradedWorkspaceJobs(o: {
  client: RedisClient;
  logger: Logger;
  oauth: NonNullable<DeploymentLayout['oauth']>;
}): MigrationStep {
  const { client, logger, oauth } = o;
  return {
    name: '2026-12-workspace-jobs-to-upgraded-workspace',
    describe: 'the single-workspace deployment’s queued work handed to the upgraded workspace',
    async run(stillOwner) {
      const counts = { jobs: 0, schedulers: 0 };
      const tenant = oauth.upgradedTenant;
      if (!tenant || oauth.cluster) return counts;
      const plane = new QueuePlane({ client, logger, shards: oauth.queueShards, wake: async () => 'gone' });
      try {
        for (const [kind, oldName] of KINDS) {
          await stillOwner();
          // Single-workspace mode's one shard, under its key space.
          const prefix = shardPrefix('docs-agent', kind, 0);
          if (!(await oldQueueExists(client, prefix, kind))) continue;
          const queue = new Queue(kind, {
            connection: bullConnectionOf(client),
            prefix,
            settings: { repeatStrategy: cronerRepeatStrategy },
          });
          queue.on('error', () => undefined);
          try {
            const space = { namespace: 'docs-agent', tenant };
            const moved = await moveQueue({
              client,
              plane,
              logger,
              space,
              queue,
              kind: oldName,
              name: kind,
              prefix,
              from: SINGLE_WORKSPACE_TENANT,
            });
            counts.jobs += moved.jobs;
            counts.schedulers += moved.schedulers;
          } finally {
            await queue.close().catch(() => undefined);
          }
        }
      } finally {
        await plane.close();
      }
      return counts;
    },
  };
}
