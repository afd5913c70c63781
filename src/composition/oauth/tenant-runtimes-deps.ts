import type { Clock } from '../../common/clock.js';
import type { Config } from '../../common/config.js';
import type { Logger, SecretSet } from '../../common/logger.js';
import type { ProcessLru } from '../../common/process-lru.js';
import type { TenantMetrics } from '../../metrics/tenant-metrics.js';
import type { SharedRedisConnections } from '../../state/adapters.js';
import type { TenantDirectory } from '../../tenants/ports.js';

// What every tenant's runtime and the set of them are built from; its own module so that tenant-runtime.ts
// and tenant-runtimes.ts do not import each other.

export type TenantMetricsPort = Pick<TenantMetrics, 'forTenant' | 'drop'>;

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
  /** How often the directory is read (SYNC_INTERVAL_MS; tests lengthen it to hold a replica's view still). */
  syncIntervalMs?: number;
  /** Calls back whenever any replica writes to the directory (Redis); the periodic read stays as a net. */
  watch?: (listener: () => void) => Promise<void>;
  /** A tenant was suspended here; its first check is due at this time. */
  suspended?: (nextCheckAt: number) => void;
  /** The process's one bounded cache: every tenant's user names, managers, Home hashes and ETags. */
  caches?: ProcessLru;
}
