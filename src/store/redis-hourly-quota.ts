import type { HourlyQuota } from '../services/hourly-quota.js';
import type { RedisClient } from './redis-client.js';

const HOUR_MS = 60 * 60 * 1000;

/*
 * A sliding-window log: one sorted-set member per unit taken, scored by when. Each script runs atomically on
 * the server, so replicas sharing the key can never take more than `limit` units in any rolling window.
 * (rate-limiter-flexible's RateLimiterRedis was considered: it counts fixed windows, which lets up to twice
 * the limit through around a window boundary, while the platform counts a rolling hour.)
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if oldest[2] == nil then return {0, tonumber(ARGV[2])} end
  return {0, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1])}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, 0}
`;

const COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])
`;

export interface RedisHourlyQuotaOptions {
  client: RedisClient;
  /** The Redis key of this budget, e.g. `docs-agent:quota:agent-jobs:<project>`. */
  key: string;
  limit: number;
  /** Replicas should agree on the time: it comes from their clocks, which NTP keeps within far less than the window. */
  now?: () => number;
  windowMs?: number;
}

/** `HourlyQuota` shared by every replica through one Redis key; same rolling-window rules as the in-memory one. */
export class RedisHourlyQuota implements HourlyQuota {
  private readonly client: RedisClient;
  private readonly key: string;
  private readonly limit: number;
  private readonly now: () => number;
  private readonly windowMs: number;
  private sequence = 0;

  constructor(options: RedisHourlyQuotaOptions) {
    this.client = options.client;
    this.key = options.key;
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? HOUR_MS;
  }

  async take(): Promise<{ ok: true } | { ok: false; retryAfterMs: number }> {
    const now = Math.floor(this.now());
    // Unique member per unit, or two takes in the same millisecond would count once.
    this.sequence = (this.sequence + 1) % 1_000_000;
    const member = `${now}:${process.pid}:${this.sequence}:${Math.random().toString(36).slice(2, 10)}`;
    const reply = (await this.client.eval(TAKE, {
      keys: [this.key],
      arguments: [String(now), String(this.windowMs), String(this.limit), member],
    })) as [number, number];
    return reply[0] === 1 ? { ok: true } : { ok: false, retryAfterMs: Math.max(0, Number(reply[1])) };
  }

  /** Gives back the most recent unit (the in-memory quota does the same). */
  async refund(): Promise<void> {
    await this.client.zPopMax(this.key);
  }

  async remaining(): Promise<number> {
    const used = await this.client.eval(COUNT, {
      keys: [this.key],
      arguments: [String(Math.floor(this.now())), String(this.windowMs)],
    });
    return Math.max(0, this.limit - Number(used));
  }
}
