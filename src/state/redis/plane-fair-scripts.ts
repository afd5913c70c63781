import { AFFINITY_LUA, type AffinityBatch, affinityArgs } from './plane-affinity.js';
import type { RedisClient } from './redis-client.js';

/**
 * Issue 43 §4: the fair take of a poll-like kind's shard, one script per call, every key under the shard's
 * hash tag. Jobs stay BullMQ jobs (their hash, lock, `moveToDelayed`, retries and stalled check are
 * BullMQ's), but no BullMQ Worker takes them: due ones are swept from BullMQ's delayed set and wait list
 * into their tenant's ready list, and a round-robin ring of tenants with ready jobs hands out the oldest
 * job of the next tenant that has a free slot of its deployment-wide cap (and room in its per-second
 * ceiling). A tenant at its cap leaves the ring for the `capped` set until a slot is given back or lapses;
 * so no job is ever taken and put back for its tenant's cap or rate.
 *
 * KEYS: 1 wait, 2 active, 3 prioritized, 4 delayed, 5 marker, 6 ring, 7 capped, 8 ceilings (tenant →
 * per-second ceiling), 9 held, 10 replicas (`plane-affinity.ts`). A ready job is a member of BullMQ's
 * prioritized set scored by its due time (no BullMQ Worker takes from it here): BullMQ sees it as waiting
 * (`getState`, counts), `remove` takes it out (its tenant's list entry is then skipped), and the set's
 * first is the oldest waiting. So a fair kind has no job priorities.
 * ARGV: 1 BullMQ job key prefix, 2 fair key prefix, 3 jobs wanted, 4 cap, 5 lock token base,
 * 6 lock duration, 7 slot lease ms, 8 sweep limit, 9… this replica's holds (`affinityArgs`), then slots
 * given back (tenant, job id pairs): the next take carries them, so neither a hold nor giving a slot back
 * costs a round trip of its own. A tenant held by another live replica is left to it for a while.
 * Returns { next due ms or -1, jobId, fields, jobId, fields, … }.
 */

/** Tenants left to their holders that one take looks at, at most (its scan stays bounded). */
const SKIPS = 64;

const TAKE = `
local rcall = redis.call
local t = rcall('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait, active, ready, delayed = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local marker, ring, capped, ceilings = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local held, replicas = KEYS[9], KEYS[10]
local bull, fair = ARGV[1], ARGV[2]
local wanted, cap, limit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[8])
-- This replica's holds (ARGV 9…), and leftToHolder.
local at = 9
${AFFINITY_LUA}
local function enqueue(id, dueAt)
  if string.sub(id, 1, 2) == '0:' or rcall('ZSCORE', ready, id) then return end
  local data = rcall('HGET', bull .. id, 'data')
  if not data then return end
  local ok, decoded = pcall(cjson.decode, data)
  local tenant = ''
  if ok and type(decoded) == 'table' and type(decoded['tenant']) == 'string' then tenant = decoded['tenant'] end
  rcall('ZADD', ready, dueAt, id)
  if rcall('RPUSH', fair .. 'ready:' .. tenant, id) == 1 and not rcall('ZSCORE', capped, tenant) then
    rcall('RPUSH', ring, tenant)
  end
end

-- Slots given back by this replica's jobs that ended since its last take (tenant, job id pairs): a tenant
-- that was at its cap rejoins the ring.
for i = at, #ARGV, 2 do
  rcall('ZREM', fair .. 'running:' .. ARGV[i], ARGV[i + 1])
  if rcall('ZREM', capped, ARGV[i]) == 1 and rcall('LLEN', fair .. 'ready:' .. ARGV[i]) > 0 then
    rcall('RPUSH', ring, ARGV[i])
  end
end

-- Sweep: due delayed jobs (score = due ms * 4096 + counter), then the wait list (jobs added without a
-- delay, promoted, retried or found stalled by BullMQ).
local due = rcall('ZRANGEBYSCORE', delayed, 0, (now + 1) * 4096 - 1, 'WITHSCORES', 'LIMIT', 0, limit)
for i = 1, #due, 2 do
  rcall('ZREM', delayed, due[i])
  enqueue(due[i], math.floor(tonumber(due[i + 1]) / 4096))
end
for _ = 1, limit do
  local id = rcall('RPOP', wait)
  if not id then break end
  enqueue(id, now)
end
-- Tenants whose slot lapsed (its replica died) or whose next second began are back in the ring.
for _, tenant in ipairs(rcall('ZRANGEBYSCORE', capped, '-inf', now)) do
  rcall('ZREM', capped, tenant)
  if rcall('LLEN', fair .. 'ready:' .. tenant) > 0 then rcall('RPUSH', ring, tenant) end
end

local out = { -1 }
local taken = 0
local visits = rcall('LLEN', ring) + wanted
-- Tenants left to their holders stay in the ring (rotated: no job moved); at most SKIPS a take, so a ring
-- of other replicas' tenants costs a bounded scan, and the answer says when the first may be taken here.
local skipped, skips, takeAt = {}, 0, nil
while taken < wanted and visits > 0 and skips < ${SKIPS} do
  visits = visits - 1
  local tenant = rcall('LPOP', ring)
  if not tenant then break end
  local list, running = fair .. 'ready:' .. tenant, fair .. 'running:' .. tenant
  rcall('ZREMRANGEBYSCORE', running, '-inf', now)
  local ceiling = tonumber(rcall('HGET', ceilings, tenant) or '0') or 0
  local second = math.floor(now / 1000)
  local rate = fair .. 'rate:' .. tenant .. ':' .. second
  local holderUntil = leftToHolder(tenant, function()
    local first = rcall('LINDEX', list, 0)
    return first and tonumber(rcall('ZSCORE', ready, first))
  end)
  if holderUntil then
    rcall('RPUSH', ring, tenant)
    if not skipped[tenant] then
      skipped[tenant] = true
      skips = skips + 1
    end
    if not takeAt or holderUntil < takeAt then takeAt = holderUntil end
  elseif rcall('ZCARD', running) >= cap then
    rcall('ZADD', capped, tonumber(rcall('ZRANGE', running, 0, 0, 'WITHSCORES')[2]), tenant)
  elseif ceiling > 0 and tonumber(rcall('GET', rate) or '0') >= ceiling then
    rcall('ZADD', capped, (second + 1) * 1000, tenant)
  else
    local id = rcall('LPOP', list)
    -- Skipped: an entry whose job was removed, or added anew to BullMQ's delayed set since it was swept.
    while id and (rcall('ZREM', ready, id) == 0 or rcall('EXISTS', bull .. id) == 0 or rcall('ZSCORE', delayed, id)) do
      id = rcall('LPOP', list)
    end
    if id then
      taken = taken + 1
      local token = ARGV[5] .. ':' .. taken
      rcall('LPUSH', active, id)
      rcall('SET', bull .. id .. ':lock', token, 'PX', ARGV[6])
      rcall('HSET', bull .. id, 'processedOn', now)
      rcall('HINCRBY', bull .. id, 'ats', 1)
      rcall('ZADD', running, now + tonumber(ARGV[7]), id)
      rcall('PEXPIRE', running, tonumber(ARGV[7]) * 2)
      if ceiling > 0 then
        rcall('INCR', rate)
        rcall('PEXPIRE', rate, 2000)
      end
      out[#out + 1] = id
      out[#out + 1] = token
      out[#out + 1] = rcall('HGETALL', bull .. id)
    end
    if rcall('LLEN', list) > 0 then rcall('RPUSH', ring, tenant) end
  end
end

-- When to look again: now if tenants still wait (other than those left to their holders), else the
-- earliest due job, capped tenant or tenant left to its holder.
if rcall('LLEN', ring) > skips then
  out[1] = 0
else
  local nextDue = rcall('ZRANGE', delayed, 0, 0, 'WITHSCORES')[2]
  local nextCapped = rcall('ZRANGE', capped, 0, 0, 'WITHSCORES')[2]
  local soonest = takeAt or -1
  if nextDue and (soonest < 0 or math.floor(tonumber(nextDue) / 4096) < soonest) then
    soonest = math.floor(tonumber(nextDue) / 4096)
  end
  if nextCapped and (soonest < 0 or tonumber(nextCapped) < soonest) then soonest = tonumber(nextCapped) end
  if soonest >= 0 then out[1] = math.max(0, soonest - now) end
end
if taken > 0 then rcall('ZADD', marker, 0, '0') end
return out`;

/** A job the fair take handed out: its id, lock token and BullMQ hash (as HGETALL answers it). */
export interface FairTaken {
  id: string;
  token: string;
  raw: string[];
}

export interface FairShardKeys {
  /** The shard's BullMQ prefix (`<prefix>:{plane-<kind>-<n>}`). */
  shardPrefix: string;
  /** BullMQ's queue name (the kind). */
  queueName: string;
}

/** Jobs swept per list per take: bounds one script's run (a 10,000-job flood is swept over a few takes). */
const SWEEP_LIMIT = 500;

function keysOf(shard: FairShardKeys) {
  const bull = `${shard.shardPrefix}:${shard.queueName}:`;
  const fair = `${shard.shardPrefix}:fair:`;
  return { bull, fair };
}

/** The shard's ready jobs, all tenants, by due time (for /metrics: the oldest waiting). */
export function fairReadyKey(shard: FairShardKeys): string {
  return `${keysOf(shard).bull}prioritized`;
}

/** A tenant's per-second ceiling, where every replica's take reads it (set when its scope registers). */
export function shareCeiling(
  client: RedisClient,
  shard: FairShardKeys,
  tenant: string,
  max: number | undefined,
): Promise<unknown> {
  const key = `${keysOf(shard).fair}ceilings`;
  return max && max > 0 ? client.hSet(key, tenant, String(max)) : client.hDel(key, tenant);
}

export async function fairTake(
  client: RedisClient,
  shard: FairShardKeys,
  o: {
    wanted: number;
    cap: number;
    tokenBase: string;
    lockMs: number;
    slotMs: number;
    released: ReadonlyArray<{ tenant: string; id: string }>;
    /** This replica's holds to write and let go (none: it prefers no tenant, and none is left to another). */
    affinity?: AffinityBatch;
  },
): Promise<{ taken: FairTaken[]; nextInMs: number }> {
  const { bull, fair } = keysOf(shard);
  const reply = (await client.eval(TAKE, {
    keys: [
      `${bull}wait`,
      `${bull}active`,
      `${bull}prioritized`,
      `${bull}delayed`,
      `${bull}marker`,
      `${fair}ring`,
      `${fair}capped`,
      `${fair}ceilings`,
      `${fair}held`,
      `${fair}replicas`,
    ],
    arguments: [
      bull,
      fair,
      String(o.wanted),
      String(o.cap),
      o.tokenBase,
      String(o.lockMs),
      String(o.slotMs),
      String(SWEEP_LIMIT),
      ...affinityArgs(o.affinity),
      ...o.released.flatMap(({ tenant, id }) => [tenant, id]),
    ],
  })) as unknown[];
  const taken: FairTaken[] = [];
  for (let i = 1; i + 2 < reply.length; i += 3)
    taken.push({ id: String(reply[i]), token: String(reply[i + 1]), raw: reply[i + 2] as string[] });
  return { taken, nextInMs: Number(reply[0]) };
}
