import { randomUUID } from 'node:crypto';
import { HOUR_MS, type HourlyQuota, type QuotaTake } from '../../common/hourly-quota.js';
import { guardState } from '../keyv-job-store.js';
import type { RedisClient } from './redis-client.js';

/*
 * A sliding-window log: one sorted-set member per unit taken, scored by when. Each script runs atomically on
 * the server, so replicas sharing the key can never take more than `limit` units in any rolling window.
 * (rate-limiter-flexible's RateLimiterRedis was considered: it counts fixed windows, which lets up to twice
 * the limit through around a window boundary, while the platform counts a rolling hour.)
 *
 * KEYS[1] the log; ARGV: now, window, limit, count, member prefix (TAKE only).
 * The wait for `count` units (capped at the limit): the (used + count - limit)-th oldest unit must leave.
 */
const WAIT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local count = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local function wait()
  local needed = math.min(math.max(count, 0), limit)
  local index = used + needed - limit - 1
  if index < 0 then return 0 end
  local unit = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
  if unit[2] == nil then return window end
  return math.max(0, tonumber(unit[2]) + window - now)
end
`;

const TAKE = `${WAIT}
if count > limit or used + count > limit then return {0, wait()} end
for i = 1, count do
  redis.call('ZADD', KEYS[1], now, ARGV[5] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], window)
return {1, 0}
`;

const WAIT_TIME = `${WAIT}
return wait()
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

  constructor(options: RedisHourlyQuotaOptions) {
    this.client = options.client;
    this.key = options.key;
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? HOUR_MS;
  }

  async take(count = 1): Promise<QuotaTake> {
    const now = Math.floor(this.now());
    // Unique members per unit, or two takes in the same millisecond would count once: a random UUID, since a
    // user's quota is made per use (redis-adapters.ts), so no counter of the object's own could tell them apart.
    const member = `${now}:${randomUUID()}`;
    // Redis away: `state_unavailable`, so the user is told the store is unreachable, not "something went wrong".
    const reply = (await guardState(() =>
      this.client.eval(TAKE, { keys: [this.key], arguments: [...this.args(now, count), member] }),
    )) as [number, number];
    return reply[0] === 1 ? { ok: true } : { ok: false, retryAfterMs: Math.max(0, Number(reply[1])) };
  }

  async waitTime(count = 1): Promise<number> {
    const reply = await guardState(() =>
      this.client.eval(WAIT_TIME, { keys: [this.key], arguments: this.args(Math.floor(this.now()), count) }),
    );
    return Math.max(0, Number(reply));
  }

  /** Gives back the most recent unit (the in-memory quota does the same). */
  async refund(): Promise<void> {
    await guardState(() => this.client.zPopMax(this.key));
  }

  async remaining(): Promise<number> {
    const used = await guardState(() =>
      this.client.eval(COUNT, {
        keys: [this.key],
        arguments: [String(Math.floor(this.now())), String(this.windowMs)],
      }),
    );
    return Math.max(0, this.limit - Number(used));
  }

  private args(now: number, count: number): string[] {
    return [String(now), String(this.windowMs), String(this.limit), String(Math.max(0, Math.floor(count)))];
  }
}
