import type { Clock } from '../../common/clock.js';
import type { Config } from '../../common/config.js';
import type { Logger, SecretSet } from '../../common/logger.js';
import type { ProcessLru } from '../../common/process-lru.js';
import type { PeriodicRuns } from '../../delivery/reconciler.js';
import type { TenantMetrics } from '../../metrics/tenant-metrics.js';
import type {
  DirectoryChange,
  QueuePlane,
  RedisDueIndex,
  SharedRedisConnections,
} from '../../state/adapters.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { ProcessEdge } from '../process-edge.js';

// What every tenant's runtime and the set of them are built from; its own module so that tenant-runtime.ts
// and tenant-runtimes.ts do not import each other.

export type TenantMetricsPort = Pick<TenantMetrics, 'forTenant' | 'drop' | 'loaded'>;

export interface TenantRuntimesDeps {
  config: Config;
  directory: TenantDirectory;
  logger: Logger;
  secrets: SecretSet;
  metrics: TenantMetricsPort;
  clock: Clock;
  /** Redis: the process's command connections, shared by every tenant's state. */
  sharedRedis: SharedRedisConnections | undefined;
  /** How long an uninstalled tenant's data is kept (PURGE_DELAY_MS; tests shorten it). */
  purgeDelayMs?: number;
  /** How often held scopes' stamps are re-read (SYNC_INTERVAL_MS; tests lengthen it to hold a view still). */
  syncIntervalMs?: number;
  /** Calls back with the tenants any replica's directory writes changed (Redis); see DirectoryFollower. */
  watch?: (listener: (change: DirectoryChange) => void) => Promise<void>;
  /** A tenant was suspended here; its first check is due at this time. */
  suspended?: (nextCheckAt: number) => void;
  /** The process's one bounded cache: every tenant's user names, managers, Home hashes and ETags. */
  caches?: ProcessLru;
  /** The replica's one timer: every scope's periodic work runs on it. */
  periodic?: PeriodicRuns;
  /** Redis: the replica's shared queue plane; each scope's queues are views of it. */
  plane?: QueuePlane;
  /** Redis: the deployment's due index, which each scope's outbox and hand-overs mark. */
  dueIndex?: Pick<RedisDueIndex, 'mark'>;
  /** A scope unused this long is evicted; unset: never (memory mode, whose state lives in its scopes). */
  scopeIdleMs?: number;
  /** A scope that served no request, only background work, is evicted after this (at most `scopeIdleMs`). */
  backgroundIdleMs?: number;
  /** Redis mode: at most this many scopes resident (TENANT_SCOPES_MAX; MAX_RESIDENT_SCOPES by default). */
  maxResidentScopes?: number;
  /** The process's clients of the outside and its one Bolt app, shared by every scope. */
  edge: ProcessEdge;
}
