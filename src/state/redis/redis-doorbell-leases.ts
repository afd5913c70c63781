import type { DoorbellLeases, DoorbellState } from '../../jobs/doorbell/ports.js';
import { parseTurns } from '../../jobs/doorbell/ring-turns.js';
import { guardState } from '../keyv-job-store.js';
import type { RedisClient } from './redis-client.js';

/** A repository's ETag and newest PR number outlive a quiet day (the next read is then still a 304). */
const STATE_TTL_MS = 24 * 60 * 60 * 1000;

/*
 * The lease is one key, `<token>|<holder>`, with an expiry; the fencing token comes from a counter that only
 * grows (INCR), so a later taking always has a higher token. Renewal by the holder keeps its token.
 */
const ACQUIRE = `
local lease = redis.call('GET', KEYS[1])
if lease then
  local sep = string.find(lease, '|', 1, true)
  if string.sub(lease, sep + 1) ~= ARGV[1] then return false end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(string.sub(lease, 1, sep - 1))
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
return token
`;

/** The fencing check: the state is written only while the given token is the lease's current one. */
const SAVE = `
local lease = redis.call('GET', KEYS[1])
if not lease then return 0 end
if string.sub(lease, 1, string.find(lease, '|', 1, true) - 1) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`;

const RELEASE = `
local lease = redis.call('GET', KEYS[1])
if lease and string.sub(lease, 1, string.find(lease, '|', 1, true) - 1) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 1
`;

/** `DoorbellLeases` in Redis, shared by replicas: keys `<prefix>doorbell:<owner/repo>:{lease,fence,state}`. */
export class RedisDoorbellLeases implements DoorbellLeases {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  acquire(repoKey: string, holder: string, ttlMs: number): Promise<number | null> {
    return guardState(async () => {
      const token = await this.client.eval(ACQUIRE, {
        keys: [this.key(repoKey, 'lease'), this.key(repoKey, 'fence')],
        arguments: [holder, String(Math.max(1, Math.ceil(ttlMs)))],
      });
      return typeof token === 'number' ? token : null;
    });
  }

  state(repoKey: string): Promise<DoorbellState | undefined> {
    return guardState(async () => {
      const raw = await this.client.get(this.key(repoKey, 'state'));
      return raw ? parseState(raw) : undefined;
    });
  }

  save(repoKey: string, token: number, state: DoorbellState): Promise<boolean> {
    return guardState(async () => {
      const saved = await this.client.eval(SAVE, {
        keys: [this.key(repoKey, 'lease'), this.key(repoKey, 'state')],
        arguments: [String(token), JSON.stringify(state), String(STATE_TTL_MS)],
      });
      return saved === 1;
    });
  }

  async release(repoKey: string, token: number): Promise<void> {
    await guardState(() =>
      this.client.eval(RELEASE, { keys: [this.key(repoKey, 'lease')], arguments: [String(token)] }),
    );
  }

  private key(repoKey: string, part: 'lease' | 'fence' | 'state'): string {
    return `${this.prefix}doorbell:${repoKey}:${part}`;
  }
}

/** A stored state, or undefined when it is not one (read again from scratch: one full answer). */
function parseState(raw: string): DoorbellState | undefined {
  try {
    const value = JSON.parse(raw) as Partial<DoorbellState>;
    if (typeof value.newestNumber !== 'number' || typeof value.notBefore !== 'number') return undefined;
    return {
      etag: typeof value.etag === 'string' ? value.etag : null,
      newestNumber: value.newestNumber,
      notBefore: value.notBefore,
      ...(value.turns === undefined ? {} : { turns: parseTurns(value.turns) }),
    };
  } catch {
    return undefined;
  }
}
