import type { HistoryAnswers, SharedAnswer } from '../../common/history-answers.js';
import type { RedisClient } from './redis-client.js';

const NOW = `
local t = redis.call('TIME')
return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/* The first ask stands (SET NX); either way the stored time is returned. */
const FIRST_ASKED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], tostring(now), 'NX', 'PX', ARGV[1])
return redis.call('GET', KEYS[1])
`;

/* Only a read that started later replaces the kept one (ARGV[1]: its start, ARGV[2]: the JSON). */
const PUT = `
local kept = redis.call('GET', KEYS[1])
if kept then
  local started = tonumber(string.match(kept, '"startedAt":(%d+)'))
  if started and started >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

/** A question not answered within an hour is asked afresh (its record long settled some other way). */
const ASKED_TTL_MS = 60 * 60 * 1000;
/** A read older than this answers nobody still waiting (they asked later); kept a little for stragglers. */
const ANSWER_TTL_MS = 10 * 60 * 1000;
/** A read of a very busy window is not shared (it stays this replica's): the store keeps small values. */
const MAX_SHARED_BYTES = 256 * 1024;

/** `HistoryAnswers` in Redis: `<prefix>history-asked:<conversation>|<key>`, `<prefix>history-read:<conversation>`. */
export class RedisHistoryAnswers implements HistoryAnswers {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async now(): Promise<number> {
    return Number(await this.client.eval(NOW, { keys: [], arguments: [] }));
  }

  async firstAsked(conversation: string, key: string): Promise<number> {
    const asked = await this.client.eval(FIRST_ASKED, {
      keys: [this.askedKey(conversation, key)],
      arguments: [String(ASKED_TTL_MS)],
    });
    return Number(asked);
  }

  async answered(conversation: string, key: string): Promise<void> {
    await this.client.del(this.askedKey(conversation, key));
  }

  async latest(conversation: string): Promise<SharedAnswer | undefined> {
    const raw = await this.client.get(this.readKey(conversation));
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<SharedAnswer>;
    if (typeof parsed.startedAt !== 'number' || typeof parsed.sinceMs !== 'number') return undefined;
    if (typeof parsed.copies !== 'object' || parsed.copies === null) return undefined;
    return { startedAt: parsed.startedAt, sinceMs: parsed.sinceMs, copies: parsed.copies };
  }

  async put(conversation: string, answer: SharedAnswer): Promise<void> {
    // startedAt first, so the script finds it whatever the copies hold.
    const json = JSON.stringify({
      startedAt: Math.floor(answer.startedAt),
      sinceMs: answer.sinceMs,
      copies: answer.copies,
    });
    if (json.length > MAX_SHARED_BYTES) return;
    await this.client.eval(PUT, {
      keys: [this.readKey(conversation)],
      arguments: [String(Math.floor(answer.startedAt)), json, String(ANSWER_TTL_MS)],
    });
  }

  private askedKey(conversation: string, key: string): string {
    return `${this.prefix}history-asked:${conversation}|${key}`;
  }

  private readKey(conversation: string): string {
    return `${this.prefix}history-read:${conversation}`;
  }
}
