/*
 * The tenant directory's writes to one install's record, each one step on the server (Lua), so replicas
 * racing an install, a refresh, an uninstall or a purge see one order (issue 43 §5). A tenant's record lives
 * in its own key space (on a Redis Cluster under its hash tag, in the slot of its other keys):
 *   tenant:<key>:state        hash: seq (counter, every write adds one; never reset, so stamps and install
 *                             ids never repeat, not even after a re-install), stamp (only while installed),
 *                             install (id: the stamp of its install), hold (JSON, no secret), generation
 *                             (the key-space generation installs write under), purging ("<generation>:
 *                             <removals>" of a purge under way), removals (uninstalls so far), due (when its
 *                             rotating token expires), purgeAt (a purge is due)
 *   tenant:<key>:installation / :tokens (one sealed value each), :settings (hash: version, sealed value)
 * Every script that wrote answers the record's index view (see INDEX_VIEW); the directory's small index is
 * brought up to it next (./redis-directory-index.ts). A refused write answers {0} and changes nothing.
 * ARGV[1] of each is the tenant (a stamp is "<seq>.<tenant>": no two tenants' stamps are alike); the
 * arguments each script names follow it.
 */

/** The keys every record script takes, in this order (under the tenant's record prefix). */
export const RECORD_KEYS = ['state', 'installation', 'tokens', 'settings'] as const;

const NAMES = `
local state, installationKey, tokensKey, settingsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local tenant = ARGV[1]
local function installed() return redis.call('HEXISTS', state, 'stamp') == 1 end
-- Installs from before install ids were kept count as install '0'.
local function installOf()
  if not installed() then return nil end
  return redis.call('HGET', state, 'install') or '0'
end
-- Every write: a new seq (the index's version); a change readers see (visible) is a new stamp too.
local function bump(visible)
  local seq = redis.call('HINCRBY', state, 'seq', 1)
  if visible and installed() then redis.call('HSET', state, 'stamp', seq .. '.' .. tenant) end
  return seq
end
local function put(field, value)
  if value == '' then redis.call('HDEL', state, field) else redis.call('HSET', state, field, value) end
end
`;

/** What the index is brought up to: {result, seq, stamp ('' = not installed), hold, due, purgeAt}. */
export const INDEX_VIEW = `
local function view(result)
  local f = redis.call('HMGET', state, 'seq', 'stamp', 'hold', 'due', 'purgeAt')
  return {result, f[1] or '0', f[2] or '', f[3] or '', f[4] or '', f[5] or ''}
end
`;

const PRELUDE = NAMES + INDEX_VIEW;

/**
 * ARGV: sealed installation, expected stamp ('' = an install), expiresAt ('' = none).
 * An install gets a new install id, drops the earlier install's refreshed tokens and any hold, and calls off
 * a pending purge that has not begun (its data is live again; one under way finishes on its own generation).
 */
export const SAVE_INSTALLATION = `${PRELUDE}
if ARGV[3] ~= '' and redis.call('HGET', state, 'stamp') ~= ARGV[3] then return {0} end
redis.call('SET', installationKey, ARGV[2])
local stamp = redis.call('HINCRBY', state, 'seq', 1) .. '.' .. tenant
redis.call('HSET', state, 'stamp', stamp)
if ARGV[3] == '' then
  redis.call('HSET', state, 'install', stamp)
  redis.call('HDEL', state, 'hold')
  redis.call('DEL', tokensKey)
end
if redis.call('HEXISTS', state, 'purging') == 0 then redis.call('HDEL', state, 'purgeAt') end
put('due', ARGV[4])
return view(1)
`;

/**
 * ARGV: sealed tokens, install id, expiresAt ('' = none). Only for the install the refresh read. Fresh
 * tokens can be renewed again: a "needs re-install" set meanwhile (another replica's refresh with the
 * refresh token these replaced) is lifted.
 */
export const SAVE_TOKENS = `${PRELUDE}
if installOf() ~= ARGV[3] then return {0} end
redis.call('SET', tokensKey, ARGV[2])
put('due', ARGV[4])
local hold = redis.call('HGET', state, 'hold')
if hold and string.find(hold, '"needs_reinstall"', 1, true) then redis.call('HDEL', state, 'hold') end
bump(true)
return view(1)
`;

/**
 * ARGV: hold JSON ('' = lift it), install id, '1' when its token can no longer be refreshed (it leaves the
 * refresh index until an install puts it back).
 */
export const SET_HOLD = `${PRELUDE}
if installOf() ~= ARGV[3] then return {0} end
put('hold', ARGV[2])
if ARGV[4] == '1' then redis.call('HDEL', state, 'due') end
bump(true)
return view(1)
`;

/**
 * The version check and the write in one step, so of two replicas saving over the same version exactly one
 * wins. An uninstalled tenant takes no settings (its secrets would outlive the uninstall).
 * ARGV: expected version, new version, sealed settings.
 */
export const SAVE_SETTINGS = `${PRELUDE}
if not installed() then return {0} end
local current = tonumber(redis.call('HGET', settingsKey, 'version') or '0')
if current ~= tonumber(ARGV[2]) then return {0} end
redis.call('HSET', settingsKey, 'version', ARGV[3], 'value', ARGV[4])
bump(true)
return view(1)
`;

/**
 * Uninstall: every secret, the stamp and the hold go, and the purge is due, together. ARGV: purgeAt,
 * install id ('' = whichever install): a signal about an earlier install never removes a re-install.
 */
export const REMOVE_TENANT = `${PRELUDE}
if ARGV[3] ~= '' and installOf() ~= ARGV[3] then return {0} end
redis.call('DEL', installationKey, tokensKey, settingsKey)
redis.call('HDEL', state, 'stamp', 'install', 'hold', 'due')
redis.call('HINCRBY', state, 'removals', 1)
redis.call('HSET', state, 'purgeAt', ARGV[2])
bump(false)
return view(1)
`;

/**
 * A due purge begins (or resumes): {generation}; installs from then on write under the next. Installed
 * again before it began: the purge is called off, {-1, …view}. No argument.
 */
export const BEGIN_PURGE = `${PRELUDE}
local under = redis.call('HGET', state, 'purging')
if under then return {tonumber(string.match(under, '^(%d+)'))} end
if installed() then
  redis.call('HDEL', state, 'purgeAt')
  bump(false)
  return view(-1)
end
local generation = tonumber(redis.call('HGET', state, 'generation') or '0')
redis.call('HSET', state, 'generation', generation + 1)
redis.call('HSET', state, 'purging', generation .. ':' .. (redis.call('HGET', state, 'removals') or '0'))
return {generation}
`;

/** ARGV: generation purged. An uninstall since the purge began leaves its own purge due. */
export const PURGED = `${PRELUDE}
local under = redis.call('HGET', state, 'purging')
if not under then return {0} end
local generation, removed = string.match(under, '^(%d+):(%d+)$')
if generation ~= ARGV[2] then return {0} end
redis.call('HDEL', state, 'purging')
if (redis.call('HGET', state, 'removals') or '0') == removed then redis.call('HDEL', state, 'purgeAt') end
bump(false)
return view(1)
`;

/** The record's index view as it is now (the index's repair reads it). ARGV: tenant. */
export const READ_VIEW = `${PRELUDE}
return view(1)
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
