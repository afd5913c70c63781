/**
 * What the Keyv-backed stores use of Keyv: get, set and delete in their own key space. A store in memory is
 * handed a Keyv; on Redis, a tenant's view of the process's one Keyv (src/state/redis/redis-keyv.ts).
 */
export interface KeyValues {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttl?: number): Promise<boolean>;
  delete(key: string): Promise<boolean>;
}
