import type { AtomicOps } from '../keyv-job-store.js';
import type { RedisClient } from './redis-client.js';

/**
 * `AtomicOps` on Redis: claims are `SET key 1 NX PX ttl` (set-if-absent with expiry, atomic on the server),
 * sets are Redis sets. Every key lives under `prefix`, so nothing outside the bot's namespace is touched.
 * Errors propagate: the store turns them into `state_unavailable`.
 */
export class RedisAtomicOps implements AtomicOps {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const reply = await this.client.set(this.prefix + key, '1', {
      condition: 'NX',
      expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
    });
    return reply === 'OK';
  }

  async release(key: string): Promise<void> {
    await this.client.del(this.prefix + key);
  }

  async addMember(set: string, member: string): Promise<void> {
    await this.client.sAdd(this.setKey(set), member);
  }

  async removeMember(set: string, member: string): Promise<void> {
    await this.client.sRem(this.setKey(set), member);
  }

  async members(set: string): Promise<string[]> {
    return this.client.sMembers(this.setKey(set));
  }

  async index(index: string, member: string, score: number, max: number, ttlMs: number): Promise<void> {
    const key = this.setKey(index);
    await this.client
      .multi()
      .zAdd(key, { score, value: member })
      .zRemRangeByRank(key, 0, -(max + 1))
      .pExpire(key, Math.max(1, Math.ceil(ttlMs)))
      .exec();
  }

  async indexed(index: string, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    return this.client.zRange(this.setKey(index), 0, limit - 1, { REV: true });
  }

  async mark(key: string, ttlMs: number): Promise<void> {
    await this.client.set(this.prefix + key, '1', {
      expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
    });
  }

  async isMarked(key: string): Promise<boolean> {
    return (await this.client.exists(this.prefix + key)) === 1;
  }

  /** The Redis key of a named set (sorted sets too). */
  setKey(set: string): string {
    return `${this.prefix}set:${set}`;
  }
}
