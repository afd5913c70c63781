import type { HandedOverStart, StartHandovers } from '../../jobs/ports.js';
import type { RedisClient } from './redis-client.js';
import type { DueMarker } from './redis-due-index.js';

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
    /** OAuth mode: the replica-wide due index (see RedisDeliveryStore), marked before each write. */
    private readonly dueIndex?: DueMarker,
  ) {}

  async handOver(start: HandedOverStart): Promise<void> {
    await this.dueIndex?.mark(Date.now());
    await this.client
      .multi()
      .set(this.key(start.id), JSON.stringify(start), { PX: KEEP_MS })
      .zAdd(this.dueKey(), { score: 0, value: start.id })
      .exec();
  }

  async take(limit: number, leaseMs: number): Promise<HandedOverStart[]> {
    // A taker that dies leaves what it took due again when its lease lapses: the index says when. Only
    // when something is due, or every look would mark another look a lease later.
    if (this.dueIndex) {
      const first = await this.nextDueAt();
      if (first === undefined || first > Date.now()) return [];
    }
    const [, answer] = await Promise.all([
      this.dueIndex?.mark(Date.now() + leaseMs),
      this.client.eval(TAKE, {
        keys: [this.dueKey()],
        arguments: [this.prefix, String(limit), String(Math.max(1, Math.round(leaseMs)))],
      }),
    ]);
    const reply = answer as string[];
    return reply.map((json) => JSON.parse(json) as HandedOverStart);
  }

  async done(id: string): Promise<void> {
    await this.client.multi().del(this.key(id)).zRem(this.dueKey(), id).exec();
  }

  /** When the earliest start left here falls due, if any. */
  async nextDueAt(): Promise<number | undefined> {
    const [first] = await this.client.zRangeWithScores(this.dueKey(), 0, 0);
    return first?.score;
  }

  private key(id: string): string {
    return `${this.prefix}start-handover:${id}`;
  }

  private dueKey(): string {
    return `${this.prefix}start-handovers`;
  }
}
