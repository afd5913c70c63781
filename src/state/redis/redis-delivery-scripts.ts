/*
 * One hash per delivery (`<prefix>delivery:<key>`) and one sorted set of due keys per priority
 * (`<prefix>deliveries:due:<priority>`, scored by when the key is next due: its retry time, or when its
 * lease expires). Every transition is one Lua script, on Redis's clock (`TIME`), so two replicas can never
 * both hold a live lease and skewed replica clocks cannot shorten one. The payload is stored as the caller's
 * JSON and never decoded here.
 *
 * Redis losing data (issue 35, D3) is told by the epoch (`<prefix>deliveries:epoch`): an id written once,
 * which vanishes with the data, and the run id of the Redis server that holds it. A missing epoch that a
 * replica knew (the last script argument, `<id>/<generation>`), or another id than the one it knew, means
 * every key was lost (restarted empty, flushed, failed over to an empty replica); another run id means
 * Redis restarted, and may have lost its last second of writes (`appendfsync everysec`, a lagging replica).
 * Either opens a look-up window: a post recorded in it is looked up before its first attempt (it may be an
 * owed message recorded again after its record was lost), and a post recorded before it (another
 * generation) is looked up at its next attempt (its attempt may be among the writes lost).
 */
export const LOSS_LOOKUP_MS = 180_000;

const EPOCH = `
local knownEpoch = string.match(ARGV[#ARGV], '^[^/]*')
local function epoch()
  local ek = epochKey
  local info = redis.pcall('INFO', 'server')
  local run = type(info) == 'string' and (string.match(info, 'run_id:(%x+)') or '') or ''
  local e = redis.call('HMGET', ek, 'id', 'runId', 'generation', 'lookupUntil')
  local id, gen, lookupUntil = e[1], tonumber(e[3] or 0), tonumber(e[4] or 0)
  if not id then
    -- A first start, or a Redis that lost every key: only a replica that knew the epoch can tell.
    id, gen = tostring(now) .. '-' .. t[2], 1
    if knownEpoch ~= '' then lookupUntil = now + ${LOSS_LOOKUP_MS} end
    redis.call('HSET', ek, 'id', id, 'runId', run, 'generation', gen, 'lookupUntil', lookupUntil)
  elseif e[2] ~= run or (knownEpoch ~= '' and knownEpoch ~= id) then
    gen, lookupUntil = gen + 1, now + ${LOSS_LOOKUP_MS}
    redis.call('HSET', ek, 'runId', run, 'generation', gen, 'lookupUntil', lookupUntil)
  end
  return { tag = id .. '/' .. gen, lookupUntil = lookupUntil }
end
`;

const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = KEYS[1]
local key = ARGV[1]
-- Every key a script touches is declared (issue 34, Redis Cluster): the due sets, then the epoch.
local dues = { reply = KEYS[2], final = KEYS[3], intermediate = KEYS[4] }
local epochKey = KEYS[5]
local function dueKey(p) return dues[p] end
local function reindex(score)
  local p = redis.call('HGET', h, 'priority')
  redis.call('ZADD', dueKey(p), score, key)
end
local function unindex()
  for _, p in ipairs({'reply', 'final', 'intermediate'}) do redis.call('ZREM', dueKey(p), key) end
end
local function num(field) return tonumber(redis.call('HGET', h, field) or 0) end
local function mine(holder, token)
  return redis.call('HGET', h, 'holder') == holder and redis.call('HGET', h, 'attempts') == token
    and redis.call('HEXISTS', h, 'leaseUntil') == 1
end
local function dueAt()
  if redis.call('HEXISTS', h, 'leaseUntil') == 1 then return num('leaseUntil') end
  return math.max(num('notBefore'), num('graceUntil'))
end
local function uncertain()
  if redis.call('HEXISTS', h, 'uncertainSince') == 0 then redis.call('HSET', h, 'uncertainSince', now) end
end
${EPOCH}`;

export const RECORD = `${COMMON}
local keep = tonumber(ARGV[3])
local target, payload, priority, seq, owner, grace = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9])
-- Owed later (a mute's end): not due before now + delay.
local delay = tonumber(ARGV[10]) or 0
local function own()
  if owner ~= '' then redis.call('HSET', h, 'owner', owner, 'graceUntil', now + grace) end
end
local ep = epoch()
if redis.call('EXISTS', h) == 0 then
  redis.call('HSET', h, 'target', target, 'payload', payload, 'priority', priority, 'state', 'pending',
    'notBefore', now + delay, 'attempts', 0, 'revision', 0, 'createdAt', now + delay, 'keepMs', keep, 'epoch', ep.tag)
  if seq ~= '' then redis.call('HSET', h, 'seq', seq) end
  -- Recorded again after a loss? Its message may already be in Slack: looked up before it is posted.
  if now < ep.lookupUntil and cjson.decode(target).kind == 'post' then uncertain() end
  own()
  redis.call('PEXPIRE', h, keep)
  reindex(math.max(now + delay, owner ~= '' and now + grace or now))
elseif seq ~= '' then
  local old = redis.call('HGET', h, 'seq')
  if not old or tonumber(seq) > tonumber(old) then
    unindex()
    redis.call('HSET', h, 'payload', payload, 'seq', seq, 'priority', priority, 'target', target)
    redis.call('HINCRBY', h, 'revision', 1)
    local state = redis.call('HGET', h, 'state')
    if state == 'posted' or state == 'abandoned' then
      -- Re-opened while an older write may still land: the newer state is checked again after it too.
      if num('sweepUntil') > now and redis.call('HEXISTS', h, 'uncertainSince') == 0 then
        redis.call('HSET', h, 'uncertainSince', now)
      end
      redis.call('HSET', h, 'state', 'pending', 'notBefore', now, 'createdAt', now)
      redis.call('HDEL', h, 'reason', 'sweepUntil', 'holder', 'leaseUntil')
      own()
      redis.call('PEXPIRE', h, keep)
    end
    reindex(dueAt())
  end
end
return redis.call('HGETALL', h)
`;

export const ACQUIRE = `${COMMON}
local holder, lease = ARGV[3], tonumber(ARGV[4])
local ep = epoch()
if redis.call('EXISTS', h) == 0 then unindex() return {'missing'} end
local state = redis.call('HGET', h, 'state')
if state == 'abandoned' then return {state} end
if state == 'posted' then
  -- A sweep lease: due, and not held by a live sweep.
  if redis.call('HEXISTS', h, 'sweepUntil') == 0 or num('notBefore') > now or num('leaseUntil') > now then
    return {'posted'}
  end
elseif state == 'pending' then
  if num('notBefore') > now then return {'not_due'} end
  if num('graceUntil') > now and redis.call('HGET', h, 'owner') ~= holder then return {'not_due'} end
else
  if num('leaseUntil') > now then return {'held'} end
  uncertain()
  -- Taking over an expired lease: its holder may have been cut off mid-call.
end
if state ~= 'posted' then
  -- Last written before Redis restarted or lost data: an attempt may be among the writes lost.
  local target = cjson.decode(redis.call('HGET', h, 'target')).kind
  if redis.call('HGET', h, 'epoch') ~= ep.tag and target == 'post' then uncertain() end
  redis.call('HSET', h, 'state', 'in_flight', 'epoch', ep.tag)
end
redis.call('HSET', h, 'holder', holder, 'leaseUntil', now + lease)
redis.call('HINCRBY', h, 'attempts', 1)
reindex(now + lease)
local all = redis.call('HGETALL', h)
table.insert(all, 1, 'ok')
return all
`;

export const RENEW = `${COMMON}
if redis.call('EXISTS', h) == 0 then return {'missing'} end
if not mine(ARGV[3], ARGV[4]) then return {} end
redis.call('HSET', h, 'leaseUntil', now + tonumber(ARGV[5]))
reindex(now + tonumber(ARGV[5]))
return redis.call('HGETALL', h)
`;

/*
 * ARGV: holder, token, kind, then per kind: posted (ts, revision, uncertain, afterMs, forMs), retry (delay,
 * uncertain, afterMs, forMs: both '' without a recheck), released (delay, uncertain), abandoned (reason),
 * checked (delay); the epoch last (COMMON), so no argument is optional.
 */
export const SETTLE = `${COMMON}
local holder, token, kind = ARGV[3], ARGV[4], ARGV[5]
if redis.call('EXISTS', h) == 0 then return -1 end
local state = redis.call('HGET', h, 'state')
local target = cjson.decode(redis.call('HGET', h, 'target')).kind
local function pending(at)
  redis.call('HSET', h, 'state', 'pending', 'notBefore', at)
  reindex(at)
end
if not mine(holder, token) then
  -- A stale holder: nothing changes, unless a write it made may have landed after the live one's.
  local landed = kind == 'posted' or (kind == 'retry' and ARGV[7] == '1')
  if not landed then return 0 end
  if target == 'update' or target == 'reactions' then
    -- The latest state is sent again, and checked once more after the window (a late write may follow).
    if redis.call('HEXISTS', h, 'uncertainSince') == 0 then redis.call('HSET', h, 'uncertainSince', now) end
    if state == 'posted' then pending(now)
    elseif state == 'in_flight' then redis.call('HSET', h, 'reopen', '1') end
  elseif target == 'post' or (target == 'assistant' and redis.call('HEXISTS', h, 'postedTs') == 1) then
    -- A copy it reported, or one its timed-out call may have made (retry: ARGV 8, 9), is swept too.
    local after, sweep
    if kind == 'posted' and ARGV[6] ~= (redis.call('HGET', h, 'postedTs') or '') then after, sweep = ARGV[9], ARGV[10]
    elseif kind == 'retry' and ARGV[8] ~= '' then after, sweep = ARGV[8], ARGV[9] end
    if state ~= 'posted' then
      if redis.call('HEXISTS', h, 'uncertainSince') == 0 then redis.call('HSET', h, 'uncertainSince', now) end
    elseif after then
      redis.call('HSET', h, 'sweepUntil', math.max(num('sweepUntil'), now + tonumber(sweep)),
        'notBefore', now + tonumber(after))
      if num('leaseUntil') <= now then reindex(now + tonumber(after)) end
    end
  end
  return 0
end
redis.call('HDEL', h, 'holder', 'leaseUntil')
if state == 'posted' then
  -- A sweep pass: the next one, until the look-up window has passed.
  if redis.call('HEXISTS', h, 'sweepUntil') == 0 or now >= num('sweepUntil') then
    redis.call('HDEL', h, 'sweepUntil')
    unindex()
  else
    local at = now + (kind == 'checked' and tonumber(ARGV[6]) or 0)
    redis.call('HSET', h, 'notBefore', at)
    reindex(at)
  end
  return 1
end
if kind == 'posted' then
  if tonumber(ARGV[7]) < num('revision') or redis.call('HEXISTS', h, 'reopen') == 1 then
    -- A newer payload arrived while this one was on its way, or a stale write may have landed after it. A
    -- post made meanwhile keeps its ts: the newer payload edits it in place.
    redis.call('HDEL', h, 'reopen')
    if target == 'post' and ARGV[6] ~= '' then redis.call('HSET', h, 'postedTs', ARGV[6]) end
    pending(now)
  else
    -- A post keeps only that it was (and its ts); an assistant's result posted as a reply keeps its
    -- payload (the sweep reads the thread from it), an update its latest state.
    redis.call('HSET', h, 'state', 'posted')
    if target == 'post' then redis.call('HSET', h, 'payload', 'null') end
    if ARGV[6] ~= '' then redis.call('HSET', h, 'postedTs', ARGV[6]) end
    local checked = target == 'post' or target == 'update' or target == 'reactions'
      or (target == 'assistant' and ARGV[6] ~= '')
    if ARGV[8] == '1' and checked then
      -- An earlier write may still land: until the look-up window has passed, a post's other copies are
      -- swept and an update's latest state is sent again.
      redis.call('HDEL', h, 'uncertainSince')
      local at = now + tonumber(ARGV[9])
      redis.call('HSET', h, 'sweepUntil', now + tonumber(ARGV[10]), 'notBefore', at)
      reindex(at)
    else unindex() end
  end
  return 1
end
if kind == 'abandoned' then
  redis.call('HSET', h, 'state', 'abandoned', 'reason', ARGV[6])
  unindex()
  return 1
end
if kind == 'checked' then return 1 end
if ARGV[7] == '1' and redis.call('HEXISTS', h, 'uncertainSince') == 0 then
  redis.call('HSET', h, 'uncertainSince', now)
end
pending(now + tonumber(ARGV[6]))
return 1
`;

/* The due keys, after the epoch (`<id>/<generation>`, which the replica remembers). */
export const DUE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local epochKey = KEYS[4]
${EPOCH}
local tag = epoch().tag
local out = {}
for i = 1, 3 do
  local zkey = KEYS[i]
  if #out >= limit then break end
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', zkey, '-inf', now, 'LIMIT', 0, limit - #out)) do
    if redis.call('EXISTS', prefix .. 'delivery:' .. key) == 1 then table.insert(out, key)
    else redis.call('ZREM', zkey, key) end
  end
end
table.insert(out, 1, tag)
return out
`;
