import type { WindowCounter } from '../../common/window-counter.js';
import type { RedisClient } from './redis-client.js';

/** Fixed-window counts shared by every replica: INCR, and the key's expiry set by its first count; GET to read. */
export class RedisWindowCounter implements WindowCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async increment(key: string, ttlMs: number): Promise<number> {
    const name = `${this.prefix}${key}`;
    const [count] = (await this.client.multi().incr(name).pExpire(name, ttlMs, 'NX').exec()) as [
      number,
      unknown,
    ];
    return count;
  }

  async count(key: string): Promise<number> {
    const value = await this.client.get(`${this.prefix}${key}`);
    return value === null ? 0 : Number(value) || 0;
  }
}
