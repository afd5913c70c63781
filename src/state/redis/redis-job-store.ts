import type { Logger } from '../../common/logger.js';
import { FOLLOWING_SET, KeyvJobStore, WATCHED_SET, type WatchMarker } from '../keyv-job-store.js';
import { RedisVersionedWrite } from '../versioned-save.js';
import { RedisAtomicOps } from './redis-atomic-ops.js';
import { closeRedis, createRedisClient, type RedisClient } from './redis-client.js';
import { redisKeyv } from './redis-keyv.js';

/** Every key the bot writes starts with this (Keyv's records as `docs-agent::…`, the rest as `docs-agent:…`). */
export const DEFAULT_REDIS_NAMESPACE = 'docs-agent';

export interface RedisState {
  namespace: string;
  store: KeyvJobStore;
  /** Fail-fast connection (no offline queue) of the store, for other state adapters (quotas) to share. */
  client: RedisClient;
  /** A second connection that queues commands while reconnecting, as BullMQ expects. */
  queueClient: RedisClient;
  /** Whether any job is watched or any PR followed (two SCARDs): the due index keeps such a tenant due. */
  /** Whether any job is watched (polled now) and whether any PR is followed (read every 5–60 minutes). */
  watchedWork(): Promise<{ watched: boolean; following: boolean }>;
  /** Opens both connections; nothing is sent to Redis before. */
  connect(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The production state: job records and thread links through Keyv on `@keyv/redis`, claims and the watched
 * set through `RedisAtomicOps`. The records are a namespace's view of the connection's Keyv (`redisKeyv`: no
 * `clear()` to reach) and `throwOnErrors` is on, so a Redis failure rejects and the store reports
 * `state_unavailable` instead of an empty read ("no job for this thread", which would start a duplicate).
 */
export function createRedisState(
  redisUrl: string,
  logger: Logger,
  options: {
    namespace?: string;
    shared?: SharedRedisConnections;
    cluster?: boolean;
    /** OAuth mode: the tenant's side of the due index, marked when a job is watched or a PR followed. */
    dueIndex?: WatchMarker;
  } = {},
): RedisState {
  const namespace = options.namespace ?? DEFAULT_REDIS_NAMESPACE;
  const log = logger.child({ component: 'redis' });
  const { shared } = options;
  const cluster = options.cluster === true;
  const client = shared?.client ?? createRedisClient(redisUrl, log, { failFast: true, cluster });
  const queueClient =
    shared?.queueClient ??
    createRedisClient(redisUrl, log.child({ connection: 'queue' }), { failFast: false, cluster });
  const keyv = redisKeyv(client, namespace, log, 'state store');
  const atomics = new RedisAtomicOps(client, `${namespace}:`);
  const writes = new RedisVersionedWrite(client, keyv, (set) => atomics.setKey(set));
  const store = new KeyvJobStore(keyv, atomics, writes, options.dueIndex);
  return {
    namespace,
    store,
    client,
    queueClient,
    async watchedWork() {
      const [watched, following] = await Promise.all(
        [WATCHED_SET, FOLLOWING_SET].map((set) => client.sCard(atomics.setKey(set))),
      );
      return { watched: (watched ?? 0) > 0, following: (following ?? 0) > 0 };
    },
    async connect() {
      if (shared) return shared.connect();
      await Promise.all([client, queueClient].map((c) => (c.isOpen ? undefined : c.connect())));
    },
    async close() {
      // Shared connections belong to the process (OAuth mode): one tenant's stop never closes them.
      if (shared) return;
      await Promise.all([closeRedis(client), closeRedis(queueClient)]);
    },
  };
}

/**
 * OAuth mode: the two command connections every tenant's state shares (each tenant keeps its own key space
 * and its BullMQ workers' blocking connections), opened once and closed once, by the process.
 */
export interface SharedRedisConnections {
  client: RedisClient;
  queueClient: RedisClient;
  /** Opens both (once, however many tenants ask). */
  connect(): Promise<void>;
  close(): Promise<void>;
}

export function createSharedRedisConnections(
  redisUrl: string,
  logger: Logger,
  options: { cluster?: boolean } = {},
): SharedRedisConnections {
  const log = logger.child({ component: 'redis', connection: 'shared' });
  const cluster = options.cluster === true;
  const client = createRedisClient(redisUrl, log, { failFast: true, cluster });
  const queueClient = createRedisClient(redisUrl, log.child({ connection: 'queue' }), {
    failFast: false,
    cluster,
  });
  // Every tenant's stores and queues listen on these: no warning at the 11th tenant.
  client.setMaxListeners(0);
  queueClient.setMaxListeners(0);
  let opened: Promise<void> | undefined;
  return {
    client,
    queueClient,
    connect() {
      opened ??= Promise.all([client, queueClient].map((c) => (c.isOpen ? undefined : c.connect()))).then(
        () => undefined,
        (error: unknown) => {
          opened = undefined;
          throw error;
        },
      );
      return opened;
    },
    close: async () => {
      await Promise.all([closeRedis(client), closeRedis(queueClient)]);
    },
  };
}

/** A connected store alone (tests, tools). */
export async function createRedisJobStore(
  redisUrl: string,
  logger: Logger,
  options: { namespace?: string; cluster?: boolean; dueIndex?: WatchMarker } = {},
): Promise<RedisState> {
  const state = createRedisState(redisUrl, logger, options);
  await state.connect();
  return state;
}
