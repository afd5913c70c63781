import {
  type Acquired,
  type AcquireRefusal,
  DEFAULT_KEEP_MS,
  DELIVERY_PRIORITIES,
  type Delivery,
  type NewDelivery,
  type Settlement,
} from '../../delivery/domain.js';
import type { DeliveryStore } from '../../delivery/ports.js';
import type { RedisClient } from './redis-client.js';

/*
 * One hash per delivery (`<prefix>delivery:<key>`) and one sorted set of due keys per priority
 * (`<prefix>deliveries:due:<priority>`, scored by when the key is next due: its retry time, or when its
 * lease expires). Every transition is one Lua script, on Redis's clock (`TIME`), so two replicas can never
 * both hold a live lease and skewed replica clocks cannot shorten one. The payload is stored as the caller's
 * JSON and never decoded here.
 */
const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = KEYS[1]
local key = ARGV[1]
local prefix = ARGV[2]
local function dueKey(p) return prefix .. 'deliveries:due:' .. p end
local function reindex(score)
  local p = redis.call('HGET', h, 'priority')
  redis.call('ZADD', dueKey(p), score, key)
end
local function unindex()
  for _, p in ipairs({'reply', 'final', 'intermediate'}) do redis.call('ZREM', dueKey(p), key) end
end
`;

const RECORD = `${COMMON}
local keep = tonumber(ARGV[3])
local target, payload, priority, seq = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
if redis.call('EXISTS', h) == 0 then
  redis.call('HSET', h, 'target', target, 'payload', payload, 'priority', priority, 'state', 'pending',
    'notBefore', now, 'attempts', 0, 'revision', 0, 'createdAt', now, 'keepMs', keep)
  if seq ~= '' then redis.call('HSET', h, 'seq', seq) end
  redis.call('PEXPIRE', h, keep)
  reindex(now)
elseif seq ~= '' then
  local old = redis.call('HGET', h, 'seq')
  if not old or tonumber(seq) > tonumber(old) then
    unindex()
    redis.call('HSET', h, 'payload', payload, 'seq', seq, 'priority', priority, 'target', target)
    redis.call('HINCRBY', h, 'revision', 1)
    local state = redis.call('HGET', h, 'state')
    if state == 'posted' or state == 'abandoned' then
      redis.call('HSET', h, 'state', 'pending', 'notBefore', now, 'createdAt', now)
      redis.call('HDEL', h, 'reason')
      redis.call('PEXPIRE', h, keep)
      state = 'pending'
    end
    if state == 'pending' then reindex(tonumber(redis.call('HGET', h, 'notBefore')))
    else reindex(tonumber(redis.call('HGET', h, 'leaseUntil') or now)) end
  end
end
return redis.call('HGETALL', h)
`;

const ACQUIRE = `${COMMON}
local holder, lease = ARGV[3], tonumber(ARGV[4])
if redis.call('EXISTS', h) == 0 then unindex() return {'missing'} end
local state = redis.call('HGET', h, 'state')
if state == 'posted' or state == 'abandoned' then return {state} end
if state == 'pending' and tonumber(redis.call('HGET', h, 'notBefore')) > now then return {'not_due'} end
if state == 'in_flight' then
  if tonumber(redis.call('HGET', h, 'leaseUntil') or 0) > now then return {'held'} end
  if redis.call('HEXISTS', h, 'uncertainSince') == 0 then redis.call('HSET', h, 'uncertainSince', now) end
end
redis.call('HSET', h, 'state', 'in_flight', 'holder', holder, 'leaseUntil', now + lease)
redis.call('HINCRBY', h, 'attempts', 1)
reindex(now + lease)
local all = redis.call('HGETALL', h)
table.insert(all, 1, 'ok')
return all
`;

const SETTLE = `${COMMON}
local holder, kind = ARGV[3], ARGV[4]
if redis.call('EXISTS', h) == 0 then return 0 end
local state = redis.call('HGET', h, 'state')
if state == 'posted' or state == 'abandoned' then return 0 end
if kind == 'posted' then
  redis.call('HDEL', h, 'holder', 'leaseUntil')
  if tonumber(ARGV[6]) < tonumber(redis.call('HGET', h, 'revision')) then
    redis.call('HSET', h, 'state', 'pending', 'notBefore', now)
    reindex(now)
  else
    redis.call('HSET', h, 'state', 'posted', 'payload', 'null')
    if ARGV[5] ~= '' then redis.call('HSET', h, 'postedTs', ARGV[5]) end
    unindex()
  end
  return 1
end
local mine = state == 'pending' or redis.call('HGET', h, 'holder') == holder
  or (state == 'in_flight' and tonumber(redis.call('HGET', h, 'leaseUntil') or 0) <= now)
if not mine then return 0 end
redis.call('HDEL', h, 'holder', 'leaseUntil')
if kind == 'abandoned' then
  redis.call('HSET', h, 'state', 'abandoned', 'reason', ARGV[5])
  unindex()
  return 1
end
if ARGV[6] == '1' and redis.call('HEXISTS', h, 'uncertainSince') == 0 then
  redis.call('HSET', h, 'uncertainSince', now)
end
local at = now + tonumber(ARGV[5])
redis.call('HSET', h, 'state', 'pending', 'notBefore', at)
reindex(at)
return 1
`;

const DUE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local out = {}
for _, p in ipairs({'reply', 'final', 'intermediate'}) do
  if #out >= limit then break end
  local zkey = prefix .. 'deliveries:due:' .. p
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', zkey, '-inf', now, 'LIMIT', 0, limit - #out)) do
    if redis.call('EXISTS', prefix .. 'delivery:' .. key) == 1 then table.insert(out, key)
    else redis.call('ZREM', zkey, key) end
  end
end
return out
`;

/** The outbox in Redis, shared by every replica and kept across restarts. */
export class RedisDeliveryStore implements DeliveryStore {
  constructor(
    private readonly client: RedisClient,
    /** Key prefix ending in `:` (the bot's namespace). */
    private readonly prefix: string,
  ) {}

  async record(input: NewDelivery, _now: number): Promise<Delivery> {
    const reply = await this.run(RECORD, input.key, [
      String(Math.max(1, Math.round(input.keepMs ?? DEFAULT_KEEP_MS))),
      JSON.stringify(input.target),
      JSON.stringify(input.payload ?? null),
      input.priority,
      input.seq === undefined ? '' : String(input.seq),
    ]);
    return parse(input.key, reply as string[]);
  }

  async get(key: string): Promise<Delivery | undefined> {
    const fields = await this.client.hGetAll(this.hashKey(key));
    if (!fields || Object.keys(fields).length === 0) return undefined;
    return fromFields(key, fields as Record<string, string>);
  }

  async acquire(key: string, holder: string, leaseMs: number, _now: number): Promise<Acquired> {
    const reply = (await this.run(ACQUIRE, key, [
      holder,
      String(Math.max(1, Math.round(leaseMs))),
    ])) as string[];
    if (reply[0] !== 'ok') return { ok: false, why: reply[0] as AcquireRefusal };
    return { ok: true, delivery: parse(key, reply.slice(1)) };
  }

  async settle(key: string, holder: string, settlement: Settlement, now: number): Promise<void> {
    const args: string[] = [holder, settlement.kind];
    if (settlement.kind === 'posted') args.push(settlement.ts ?? '', String(settlement.revision));
    else if (settlement.kind === 'abandoned') args.push(settlement.reason, '');
    else {
      // Relative on the caller's clock, absolute on Redis's: replicas' clock skew does not matter.
      const delay = settlement.kind === 'retry' ? Math.max(0, Math.round(settlement.notBefore - now)) : 0;
      args.push(String(delay), settlement.uncertain ? '1' : '0');
    }
    await this.run(SETTLE, key, args);
  }

  async due(_now: number, limit: number): Promise<string[]> {
    const reply = await this.client.eval(DUE, { keys: [], arguments: [this.prefix, String(limit)] });
    return reply as string[];
  }

  private run(script: string, key: string, args: string[]) {
    return this.client.eval(script, { keys: [this.hashKey(key)], arguments: [key, this.prefix, ...args] });
  }

  private hashKey(key: string): string {
    return `${this.prefix}delivery:${key}`;
  }
}

function parse(key: string, flat: string[]): Delivery {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fromFields(key, fields);
}

function fromFields(key: string, f: Record<string, string>): Delivery {
  const num = (name: string) => (f[name] === undefined ? undefined : Number(f[name]));
  const priority = DELIVERY_PRIORITIES.includes(f.priority as never)
    ? (f.priority as Delivery['priority'])
    : 'intermediate';
  return {
    key,
    target: JSON.parse(f.target ?? 'null'),
    payload: JSON.parse(f.payload ?? 'null'),
    priority,
    state: (f.state ?? 'pending') as Delivery['state'],
    notBefore: num('notBefore') ?? 0,
    attempts: num('attempts') ?? 0,
    revision: num('revision') ?? 0,
    createdAt: num('createdAt') ?? 0,
    ...(f.seq === undefined ? {} : { seq: Number(f.seq) }),
    ...(f.keepMs === undefined ? {} : { keepMs: Number(f.keepMs) }),
    ...(f.holder === undefined ? {} : { holder: f.holder }),
    ...(f.leaseUntil === undefined ? {} : { leaseUntil: Number(f.leaseUntil) }),
    ...(f.uncertainSince === undefined ? {} : { uncertainSince: Number(f.uncertainSince) }),
    ...(f.postedTs === undefined ? {} : { postedTs: f.postedTs }),
    ...(f.reason === undefined ? {} : { reason: f.reason }),
  };
}
