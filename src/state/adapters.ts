import type { Config } from '../common/config.js';
import type { AdapterOptions, AdapterSet } from './adapter-set.js';
import { memoryAdapters } from './memory-adapters.js';
import { redisAdapters } from './redis-adapters.js';

export type { AdapterOptions, AdapterSet, StateBackend } from './adapter-set.js';
export type { SchedulerTimers } from './memory/weekly-cron-scheduler.js';
export type { DirectoryChange } from './redis/directory-changes.js';
export type { QueuePlane, WakeResult } from './redis/queue-plane.js';
export type { DueMarker, RedisDueIndex } from './redis/redis-due-index.js';
export type { SharedRedisConnections } from './redis/redis-job-store.js';

/** The one place that chooses the state backend: Redis when REDIS_URL is set, else this process's memory. */
export function createAdapters(config: Config, options: AdapterOptions): AdapterSet {
  const { redisUrl } = config;
  return redisUrl ? redisAdapters({ ...config, redisUrl }, options) : memoryAdapters(config, options);
}

export {
  DIRECTORY_PREFIX,
  type TenantDirectoryHandle,
  tenantDirectoryFor,
  tenantNamespace,
} from './tenant-directories.js';
