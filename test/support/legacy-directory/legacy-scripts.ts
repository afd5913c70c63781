/* The old layout's scripts, verbatim (issue 43 §5's migration tests seed with them). Not product code. */
/*
 * The tenant directory's writes, each one step on the server (Lua), so replicas racing an install, a refresh,
 * an uninstall or a purge see one order. Keys (under the directory's prefix):
 *   tenants            hash tenant → stamp (changes with every write: replicas re-read what changed)
 *   tenant-stamp       counter (stamps never repeat, not even after a re-install)
 *   tenant-installs    hash tenant → install id (the stamp of its install; refreshes and settings keep it)
 *   tenant-holds       hash tenant → hold (JSON: suspended or needs re-install; no secret in it)
 *   tenant-generations hash tenant → key-space generation installs write under
 *   tenant-purging     hash tenant → "<generation>:<removals>" of the purge under way
 *   tenant-removals    hash tenant → uninstalls so far (a purge done for an earlier one leaves a later one due)
 *   tenant-purges      zset tenant → purgeAt
 *   tenant-refresh-due zset tenant → when its rotating token expires
 *   tenant-changes     stream of `t` → tenant, one entry per stamp change or uninstall, capped (about
 *                      CHANGES_KEPT): each replica tails it to re-read just the tenants that changed
 *   tenant:<key>:installation / :tokens (one sealed value each), :settings (hash: version, sealed value)
 */

/** The keys every script below takes, in this order. */
export const DIRECTORY_KEYS = [
  'tenants',
  'tenant-stamp',
  'tenant-installs',
  'tenant-holds',
  'tenant-generations',
  'tenant-purging',
  'tenant-removals',
  'tenant-purges',
  'tenant-refresh-due',
  'tenant-changes',
] as const;

/** Entries the changes stream keeps (trimmed approximately): far more than a replica misses in a blip. */
export const CHANGES_KEPT = 10_000;

/** KEYS[1..10]: DIRECTORY_KEYS; KEYS[11..13]: the tenant's installation, tokens and settings. */
const NAMES = `
local tenants, stampKey, installs, holds, generations = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local purging, removals, purges, due, changes = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local installationKey, tokensKey, settingsKey = KEYS[11], KEYS[12], KEYS[13]
local tenant = ARGV[1]
local function changed()
  redis.call('XADD', changes, 'MAXLEN', '~', ${CHANGES_KEPT}, '*', 't', tenant)
end
local function bump()
  local stamp = redis.call('INCR', stampKey)
  redis.call('HSET', tenants, tenant, stamp)
  changed()
  return stamp
end
-- Installs from before install ids were kept count as install '0'.
local function installOf()
  if redis.call('HEXISTS', tenants, tenant) == 0 then return nil end
  return redis.call('HGET', installs, tenant) or '0'
end
local function dueAt(at)
  if at == '' then redis.call('ZREM', due, tenant) else redis.call('ZADD', due, at, tenant) end
end
`;

/**
 * ARGV: tenant, sealed installation, expected stamp ('' = an install), expiresAt ('' = none).
 * An install gets a new install id, drops the earlier install's refreshed tokens and any hold, and calls off
 * a pending purge that has not begun (its data is live again; one under way finishes on its own generation).
 */
export const SAVE_INSTALLATION = `${NAMES}
if ARGV[3] ~= '' and redis.call('HGET', tenants, tenant) ~= ARGV[3] then return 0 end
redis.call('SET', installationKey, ARGV[2])
local stamp = bump()
if ARGV[3] == '' then
  redis.call('HSET', installs, tenant, stamp)
  redis.call('HDEL', holds, tenant)
  redis.call('DEL', tokensKey)
end
if redis.call('HEXISTS', purging, tenant) == 0 then redis.call('ZREM', purges, tenant) end
dueAt(ARGV[4])
return stamp
`;

/**
 * ARGV: tenant, sealed tokens, install id, expiresAt ('' = none). Only for the install the refresh read.
 * Fresh tokens can be renewed again: a "needs re-install" set meanwhile (another replica's refresh with the
 * refresh token these replaced) is lifted.
 */
export const SAVE_TOKENS = `${NAMES}
if installOf() ~= ARGV[3] then return 0 end
redis.call('SET', tokensKey, ARGV[2])
dueAt(ARGV[4])
local hold = redis.call('HGET', holds, tenant)
if hold and string.find(hold, '"needs_reinstall"', 1, true) then redis.call('HDEL', holds, tenant) end
return bump()
`;

/**
 * ARGV: tenant, hold JSON ('' = lift it), install id, '1' when its token can no longer be refreshed (it
 * leaves the refresh index until an install puts it back).
 */
export const SET_HOLD = `${NAMES}
if installOf() ~= ARGV[3] then return 0 end
if ARGV[2] == '' then redis.call('HDEL', holds, tenant) else redis.call('HSET', holds, tenant, ARGV[2]) end
if ARGV[4] == '1' then redis.call('ZREM', due, tenant) end
return bump()
`;

/**
 * The version check and the write in one step, so of two replicas saving over the same version exactly one
 * wins. An uninstalled tenant takes no settings (its secrets would outlive the uninstall).
 * ARGV: tenant, expected version, new version, sealed settings.
 */
export const SAVE_SETTINGS = `${NAMES}
if redis.call('HEXISTS', tenants, tenant) == 0 then return 0 end
local current = tonumber(redis.call('HGET', settingsKey, 'version') or '0')
if current ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', settingsKey, 'version', ARGV[3], 'value', ARGV[4])
bump()
return 1
`;

/**
 * Uninstall: every secret, the stamp and the hold go, and the purge is due, together. ARGV: tenant, purgeAt,
 * install id ('' = whichever install): a signal about an earlier install never removes a re-install.
 */
export const REMOVE_TENANT = `${NAMES}
if ARGV[3] ~= '' and installOf() ~= ARGV[3] then return 0 end
redis.call('DEL', installationKey, tokensKey, settingsKey)
redis.call('HDEL', tenants, tenant)
redis.call('HDEL', installs, tenant)
redis.call('HDEL', holds, tenant)
redis.call('ZREM', due, tenant)
redis.call('HINCRBY', removals, tenant, 1)
redis.call('ZADD', purges, ARGV[2], tenant)
changed()
return 1
`;

/**
 * A due purge begins (or resumes): the generation it deletes; installs from then on write under the next.
 * -1: installed again before it began, so the purge is called off. ARGV: tenant.
 */
export const BEGIN_PURGE = `${NAMES}
local under = redis.call('HGET', purging, tenant)
if under then return tonumber(string.match(under, '^(%d+)')) end
if redis.call('HEXISTS', tenants, tenant) == 1 then
  redis.call('ZREM', purges, tenant)
  return -1
end
local generation = tonumber(redis.call('HGET', generations, tenant) or '0')
redis.call('HSET', generations, tenant, generation + 1)
redis.call('HSET', purging, tenant, generation .. ':' .. (redis.call('HGET', removals, tenant) or '0'))
return generation
`;

/** ARGV: tenant, generation purged. An uninstall since the purge began leaves its own purge due. */
export const PURGED = `${NAMES}
local under = redis.call('HGET', purging, tenant)
if not under then return 0 end
local generation, removed = string.match(under, '^(%d+):(%d+)$')
if generation ~= ARGV[2] then return 0 end
redis.call('HDEL', purging, tenant)
if (redis.call('HGET', removals, tenant) or '0') == removed then redis.call('ZREM', purges, tenant) end
return 1
`;

/** Re-sealing (key rotation) only replaces the exact value that was read: a save in between wins. */
export const RESEAL_VALUE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

export const RESEAL_SETTINGS = `
if redis.call('HGET', KEYS[1], 'value') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'value', ARGV[2])
return 1
`;
