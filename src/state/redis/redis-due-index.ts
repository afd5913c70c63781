import { AFFINITY_LUA, affinityArgs, type HoldsView } from './plane-affinity.js';
import type { RedisClient } from './redis-client.js';

/**
 * The deployment's one index of tenants with work nobody may hold (issue 34: O(due), not O(tenants)): a
 * sorted set, member = tenant, score = the earliest time it may have such work (an owed delivery, a lapsed
 * lease, a start handed over by a stopping replica, a job watched or a PR followed: issue 43). Writers only lower a score (`ZADD LT`), so a score is
 * never later than the work it stands for; a score too early costs one look that finds nothing.
 *
 * Its own key with its own hash tag, written in its own call: in a Redis Cluster it lives in one slot,
 * apart from every tenant's keys.
 */
export const DUE_INDEX_KEY = 'docs-agent:{due}:tenants';

/** Due tenants left to their holders that one claim looks past, at most (its scan stays bounded). */
const SKIPS = 64;

/**
 * Takes the due tenants: each one's score moves past the claim, so one replica looks at it at a time. One
 * whose scope another live replica holds is left to it until it has been due a while (issue 43 "no
 * thrash": a watched job's tenant is due every few seconds; `plane-affinity.ts`). KEYS: 1 index, 2 held,
 * 3 replicas. ARGV: 1 limit, 2 claim ms, 3… this replica's holds (`affinityArgs`).
 */
const CLAIM = `
local rcall = redis.call
local t = rcall('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, claim = tonumber(ARGV[1]), tonumber(ARGV[2])
local held, replicas = KEYS[2], KEYS[3]
local at = 3
${AFFINITY_LUA}
local out = {}
local due = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit + ${SKIPS})
for i = 1, #due, 2 do
  if #out >= limit * 2 then break end
  if not leftToHolder(due[i], function() return tonumber(due[i + 1]) end) then
    rcall('ZADD', KEYS[1], now + claim, due[i])
    table.insert(out, due[i])
    table.insert(out, tostring(now + claim))
  end
end
return out
`;

/**
 * Ends a claim: the tenant's next due time, or out of the index when it has none. Only if the score is
 * still the claim's: a writer that marked it meanwhile (a lower score) keeps its mark.
 */
const SETTLE = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
`;

export interface DueClaim {
  tenant: string;
  /** The score the claim set: settling compares it. */
  claimedAt: number;
}

export class RedisDueIndex {
  constructor(
    private readonly client: RedisClient,
    private readonly key = DUE_INDEX_KEY,
  ) {}

  /** The tenant may have work nobody holds from `atMs` on (keeps an earlier mark). */
  async mark(tenant: string, atMs: number): Promise<void> {
    await this.client.zAdd(this.key, { score: Math.floor(atMs), value: tenant }, { comparison: 'LT' });
  }

  /**
   * Up to `limit` tenants due now, each claimed for `claimMs` (a replica that dies leaves it due again);
   * `holds`: this replica's, written with the claim, and those of other live replicas left to them a while.
   */
  async claim(limit: number, claimMs: number, holds?: HoldsView): Promise<DueClaim[]> {
    const affinity = holds?.batch(Date.now());
    const flat = (await this.client
      .eval(CLAIM, {
        keys: [this.key, `${this.key}:held`, `${this.key}:replicas`],
        arguments: [String(limit), String(Math.max(1, Math.round(claimMs))), ...affinityArgs(affinity)],
      })
      .catch((error: unknown) => {
        if (affinity) holds?.failed(affinity);
        throw error;
      })) as string[];
    const out: DueClaim[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      out.push({ tenant: flat[i]!, claimedAt: Number(flat[i + 1]) });
    return out;
  }

  /** After a look at the tenant: its next due time, or none (leaves the index). */
  async settle(claim: DueClaim, nextAt: number | undefined): Promise<boolean> {
    const reply = await this.client.eval(SETTLE, {
      keys: [this.key],
      arguments: [
        claim.tenant,
        String(claim.claimedAt),
        nextAt === undefined ? '' : String(Math.floor(nextAt)),
      ],
    });
    return reply === 1;
  }

  /** Tenants in the index (tests, /metrics). */
  size(): Promise<number> {
    return this.client.zCard(this.key);
  }

  /** A tenant purged or uninstalled for good: nothing of it is due any more. */
  async forget(tenant: string): Promise<void> {
    await this.client.zRem(this.key, tenant);
  }
}

/** One tenant's side of the index: what its stores mark (a view per scope, holding nothing). */
export interface DueMarker {
  mark(atMs: number): Promise<void>;
}
