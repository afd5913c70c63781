import type { SharedSlots } from '../../common/shared-slots.js';
import type { RedisClient } from './redis-client.js';
import { RedisHistoryAnswers } from './redis-history-answers.js';

/*
 * GCRA on the server's clock (`TIME`, so replicas' clock skew does not matter): `tat` is when the key's
 * bucket is empty again. A reservation starts at max(now, tat - (burst - 1) × interval) and moves `tat` on by
 * one interval; the same rule as the in-process KeyedPacer, counted once for every replica. With a maximum
 * wait (ARGV[3]), a start further away reserves nothing (-1).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local start = tat - (burst - 1) * interval
if start < now then start = now end
if ARGV[3] ~= '' and start - now > tonumber(ARGV[3]) then return -1 end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil(tat + interval - now) + 1000)
return math.ceil(start - now)
`;

const HOLD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local held = now + tonumber(ARGV[3]) + (burst - 1) * interval
local tat = tonumber(redis.call('GET', KEYS[1]) or 0)
if held > tat then redis.call('SET', KEYS[1], tostring(held), 'PX', math.ceil(held - now) + 1000) end
return 1
`;

/** `SharedSlots` in Redis: one key per paced method (or channel), `<prefix>slack-slots:<key>`. */
export class RedisSharedSlots implements SharedSlots {
  readonly historyAnswers: RedisHistoryAnswers;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    this.historyAnswers = new RedisHistoryAnswers(client, prefix);
  }

  async reserve(key: string, intervalMs: number, burst: number, maxWaitMs?: number): Promise<number> {
    const wait = Number(
      await this.client.eval(RESERVE, {
        keys: [this.key(key)],
        arguments: [String(intervalMs), String(burst), maxWaitMs === undefined ? '' : String(maxWaitMs)],
      }),
    );
    return wait < 0 ? -1 : wait;
  }

  async holdOff(key: string, intervalMs: number, burst: number, retryAfterMs: number): Promise<void> {
    await this.client.eval(HOLD, {
      keys: [this.key(key)],
      arguments: [String(intervalMs), String(burst), String(Math.max(0, Math.ceil(retryAfterMs)))],
    });
  }

  private key(key: string): string {
    return `${this.prefix}slack-slots:${key}`;
  }
}
