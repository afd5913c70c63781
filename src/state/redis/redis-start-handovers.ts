import type { HandedOverStart, StartHandovers } from '../../jobs/ports.js';
import type { RedisClient } from './redis-client.js';

/** A handed-over start nobody finished within a day is dropped (the person asked long ago). */
const KEEP_MS = 24 * 60 * 60 * 1000;

/*
 * Each start is one key (`<prefix>start-handover:<id>`, JSON) and a member of one sorted set scored by when it
 * is next due (`<prefix>start-handovers`): taking one moves its score past the lease, in one script, so two
 * replicas never take it at once, and a taker that dies leaves it due again once the lease lapses.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local prefix, limit, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit)) do
  local start = redis.call('GET', prefix .. 'start-handover:' .. id)
  if start then
    redis.call('ZADD', KEYS[1], now + lease, id)
    table.insert(out, start)
  else redis.call('ZREM', KEYS[1], id) end
end
return out
`;

/** Starts handed over by a stopping replica, for the replicas that stay (one reconcile task takes them). */
export class RedisStartHandovers implements StartHandovers {
  constructor(
    private readonly client: RedisClient,
    /** Key prefix ending in `:` (the bot's namespace). */
    private readonly prefix: string,
  ) {}

  async handOver(start: HandedOverStart): Promise<void> {
    await this.client
      .multi()
      .set(this.key(start.id), JSON.stringify(start), { PX: KEEP_MS })
      .zAdd(this.dueKey(), { score: 0, value: start.id })
      .exec();
  }

  async take(limit: number, leaseMs: number): Promise<HandedOverStart[]> {
    const reply = (await this.client.eval(TAKE, {
      keys: [this.dueKey()],
      arguments: [this.prefix, String(limit), String(Math.max(1, Math.round(leaseMs)))],
    })) as string[];
    return reply.map((json) => JSON.parse(json) as HandedOverStart);
  }

  async done(id: string): Promise<void> {
    await this.client.multi().del(this.key(id)).zRem(this.dueKey(), id).exec();
  }

  private key(id: string): string {
    return `${this.prefix}start-handover:${id}`;
  }

  private dueKey(): string {
    return `${this.prefix}start-handovers`;
  }
}
