import Keyv from 'keyv';
import type { Logger } from '../common/logger.js';
import { type ScheduleStore, scheduleKey, type WeeklySchedule } from '../insights/ports.js';
import type { KeyValues } from './key-values.js';
import { type AtomicOps, guardState, MemoryAtomicOps } from './keyv-job-store.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import { RedisAtomicOps } from './redis/redis-atomic-ops.js';
import type { RedisClient } from './redis/redis-client.js';
import { redisKeyv } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';

const SCHEDULES_SET = 'weekly-schedules';

/** Weekly report schedules (one per kind per channel, by `scheduleKey`) and their once-per-occurrence claims. */
export class KeyvScheduleStore implements ScheduleStore {
  constructor(
    private readonly keyv: KeyValues,
    private readonly atomics: AtomicOps,
  ) {}

  list(): Promise<WeeklySchedule[]> {
    return guardState(async () => {
      const keys = await this.atomics.members(SCHEDULES_SET);
      const schedules = await Promise.all(
        keys.map((key) => this.keyv.get<WeeklySchedule>(`schedule:${key}`)),
      );
      return schedules
        .filter((s): s is WeeklySchedule => s !== undefined && s !== null)
        .sort(
          (a, b) => a.channelId.localeCompare(b.channelId) || scheduleKey(a).localeCompare(scheduleKey(b)),
        );
    });
  }

  get(key: string): Promise<WeeklySchedule | undefined> {
    return guardState(async () => (await this.keyv.get<WeeklySchedule>(`schedule:${key}`)) ?? undefined);
  }

  put(schedule: WeeklySchedule): Promise<void> {
    return guardState(async () => {
      const key = scheduleKey(schedule);
      await this.keyv.set(`schedule:${key}`, { ...schedule });
      await this.atomics.addMember(SCHEDULES_SET, key);
    });
  }

  remove(key: string): Promise<boolean> {
    return guardState(async () => {
      const deleted = await this.keyv.delete(`schedule:${key}`);
      await this.atomics.removeMember(SCHEDULES_SET, key);
      return deleted;
    });
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return guardState(() => this.atomics.claim(`claim:${key}`, ttlMs));
  }

  release(key: string): Promise<void> {
    return guardState(() => this.atomics.release(`claim:${key}`));
  }

  mark(key: string, ttlMs: number): Promise<void> {
    return guardState(() => this.atomics.mark(`done:${key}`, ttlMs));
  }

  isMarked(key: string): Promise<boolean> {
    return guardState(() => this.atomics.isMarked(`done:${key}`));
  }
}

export function createMemoryScheduleStore(logger: Logger, now?: () => number): KeyvScheduleStore {
  const keyv = new Keyv({
    store: new BoundedMemoryStore({ maxEntries: 10_000 }),
    namespace: 'docs-agent-schedules',
  });
  keyv.on('error', storeErrorListener(logger, 'schedule store error'));
  return new KeyvScheduleStore(keyv, new MemoryAtomicOps(now));
}

/**
 * Schedules and occurrence claims in Redis, beside the job store: records `<ns>::schedule:<key>` (Keyv,
 * namespaced, `throwOnErrors`), the key set `<ns>:set:weekly-schedules`, claims `<ns>:claim:weekly:…`
 * (`SET NX PX`). Shared by replicas, kept across restarts; Redis errors become `state_unavailable`.
 */
export function createRedisScheduleStore(
  client: RedisClient,
  namespace: string,
  logger: Logger,
): KeyvScheduleStore {
  const keyv = redisKeyv(client, namespace, logger, 'schedule store');
  return new KeyvScheduleStore(keyv, new RedisAtomicOps(client, `${namespace}:`));
}
