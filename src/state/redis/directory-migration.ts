import { randomBytes } from 'node:crypto';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { TenantKey } from '../../tenants/tenant.js';
import type { RedisClient } from './redis-client.js';
import { DirectoryIndex, type IndexView } from './redis-directory-index.js';
import { directoryRecordPrefix } from './redis-tenant-directory.js';
import { INDEX_VIEW, RECORD_KEYS } from './redis-tenant-scripts.js';

/*
 * Issue 43 §5: the directory kept each install's lifecycle in its own hashes (`tenant-installs`, `-holds`,
 * `-generations`, `-purging`, `-removals`, stamps from one `tenant-stamp` counter) and, on a Redis Cluster,
 * the sealed records in its own slot too. This moves every tenant to its record (`tenant:<key>:state` and,
 * on a cluster, the sealed values into the tenant's slot) and leaves the directory its small index. It runs
 * before the directory serves (tenantDirectoryFor's waitUntilReady), one replica at a time under a lease;
 * the others wait for its marker. Each tenant is moved in order record → index → old fields deleted, each
 * step idempotent, so a migration stopped anywhere is finished by the next, and running it twice changes
 * nothing.
 */

/** Set once every tenant is in the layout of tenant slots. */
export const LAYOUT_MARKER = 'directory-layout';
export const LAYOUT = 'tenant-slots';
const LEASE = 'directory-layout-lease';
const LEASE_MS = 60_000;
const BATCH = 100;

/** The old layout's per-tenant hashes, gone once moved. */
const OLD_HASHES = ['tenant-installs', 'tenant-generations', 'tenant-purging', 'tenant-removals'] as const;

/**
 * KEYS: the tenant's record (RECORD_KEYS). ARGV: tenant, old counter, stamp ('' = not installed), install,
 * hold, generation, purging, removals, due, purgeAt, sealed installation, sealed tokens, settings version,
 * sealed settings ('' = none of it: on one node the sealed values are already where records live). A record
 * that has a seq is moved already: left as it is. Answers the record's index view.
 */
const MOVE_RECORD = `
local state, installationKey, tokensKey, settingsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
${INDEX_VIEW}
if redis.call('HEXISTS', state, 'seq') == 1 then return view(0) end
-- Above every stamp the old counter gave: this tenant's next stamps and install ids never repeat one.
redis.call('HSET', state, 'seq', tonumber(ARGV[2]) + 1)
local fields = {'stamp', 'install', 'hold', 'generation', 'purging', 'removals', 'due', 'purgeAt'}
for i, field in ipairs(fields) do
  if ARGV[i + 2] ~= '' then redis.call('HSET', state, field, ARGV[i + 2]) end
end
if ARGV[11] ~= '' then redis.call('SET', installationKey, ARGV[11]) end
if ARGV[12] ~= '' then redis.call('SET', tokensKey, ARGV[12]) end
if ARGV[14] ~= '' then redis.call('HSET', settingsKey, 'version', ARGV[13], 'value', ARGV[14]) end
return view(1)
`;

export interface MigrationResult {
  /** Tenants looked at by this call (0: the marker said done, or another replica migrated). */
  tenants: number;
  /** False when `signal` ended the wait first. */
  done: boolean;
}

/**
 * Brings the directory under `prefix` to the layout of tenant slots, once; safe to call from every replica
 * at once and again later. Resolves when the marker says it is done (by this call or another replica's).
 */
export async function migrateDirectoryLayout(
  client: RedisClient,
  prefix: string,
  options: { logger?: Logger; signal?: AbortSignal; waitMs?: number } = {},
): Promise<MigrationResult> {
  const marker = `${prefix}${LAYOUT_MARKER}`;
  const lease = `${prefix}${LEASE}`;
  const token = randomBytes(8).toString('hex');
  const wait = () => new Promise((resolve) => setTimeout(resolve, options.waitMs ?? 250));
  while (!options.signal?.aborted) {
    try {
      if (!(await oldLayoutLeft(client, prefix))) return { tenants: 0, done: true };
      if ((await client.set(lease, token, { NX: true, PX: LEASE_MS })) === 'OK') {
        try {
          // Looked at again under the lease: a replica that held it a moment ago may have finished.
          if (!(await oldLayoutLeft(client, prefix))) return { tenants: 0, done: true };
          const tenants = await moveAll(client, prefix, options.logger);
          await client.set(marker, LAYOUT);
          return { tenants, done: true };
        } finally {
          await client.eval(RELEASE, { keys: [lease], arguments: [token] }).catch(() => undefined);
        }
      }
    } catch (error) {
      // Redis refused half-way: what was moved stays moved; the next pass finishes the rest.
      const what = 'could not finish moving the directory’s records into their tenants’ slots; trying again';
      options.logger?.warn({ error: describeError(error) }, what);
    }
    // Another replica is migrating (its marker, or its lease running out, is waited for), or Redis refused.
    await wait();
  }
  return { tenants: 0, done: false };
}

/**
 * Whether there is anything of the old layout to move. Only the old code counts stamps in `tenant-stamp`, so
 * a deployment that never ran it has nothing to move (and gets no marker). Once moved, a replica of the
 * previous version still running during a rolling upgrade may install into the old layout (every old install
 * writes `tenant-installs`): a replica that starts later moves those too.
 */
async function oldLayoutLeft(client: RedisClient, prefix: string): Promise<boolean> {
  if ((await client.exists(`${prefix}tenant-stamp`)) === 0) return false;
  if ((await client.get(`${prefix}${LAYOUT_MARKER}`)) !== LAYOUT) return true;
  return (await client.hLen(`${prefix}tenant-installs`)) > 0;
}

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

async function moveAll(client: RedisClient, prefix: string, logger: Logger | undefined): Promise<number> {
  const key = (name: string) => prefix + name;
  const listed = await Promise.all([
    ...['tenants', 'tenant-holds', ...OLD_HASHES].map((name) => client.hKeys(key(name))),
    client.zRange(key('tenant-purges'), 0, -1),
    client.zRange(key('tenant-refresh-due'), 0, -1),
  ]);
  const tenants = [...new Set(listed.flat())];
  if (tenants.length === 0) return 0;
  // The old counter is above every stamp it gave; the stamps are read too, in case it was lost.
  const stamps = [...(await client.hVals(key('tenants'))), (await client.get(key('tenant-stamp'))) ?? '0'];
  const counter = String(Math.max(0, ...stamps.map(Number).filter(Number.isFinite)));
  const index = new DirectoryIndex(client, prefix);
  for (let i = 0; i < tenants.length; i += BATCH)
    await Promise.all(tenants.slice(i, i + BATCH).map((t) => moveTenant(client, prefix, index, t, counter)));
  logger?.info({ tenants: tenants.length }, 'moved the directory’s records into their tenants’ slots');
  return tenants.length;
}

/** One tenant: its record written (unless moved already), its index entries, then its old fields deleted. */
async function moveTenant(
  client: RedisClient,
  prefix: string,
  index: DirectoryIndex,
  tenant: TenantKey,
  counter: string,
): Promise<void> {
  const key = (name: string) => prefix + name;
  const oldRecord = `${prefix}tenant:${tenant}:`;
  const newRecord = directoryRecordPrefix(prefix, tenant);
  const moved = oldRecord !== newRecord;
  const [stamp, install, hold, generation, purging, removals] = await Promise.all(
    ['tenants', 'tenant-installs', 'tenant-holds', ...OLD_HASHES.slice(1)].map((name) =>
      client.hGet(key(name), tenant),
    ),
  );
  const [due, purgeAt] = await Promise.all([
    client.zScore(key('tenant-refresh-due'), tenant),
    client.zScore(key('tenant-purges'), tenant),
  ]);
  const [installation, tokens, settings] = moved
    ? await Promise.all([
        client.get(`${oldRecord}installation`),
        client.get(`${oldRecord}tokens`),
        client.hGetAll(`${oldRecord}settings`) as Promise<Record<string, string>>,
      ])
    : [null, null, {} as Record<string, string>];
  const text = (value: string | number | null | undefined) => (value == null ? '' : String(value));
  const reply = (await client.eval(MOVE_RECORD, {
    keys: RECORD_KEYS.map((name) => newRecord + name),
    arguments: [
      tenant,
      counter,
      ...[stamp, install, hold, generation, purging, removals, due, purgeAt].map(text),
      text(installation),
      text(tokens),
      text(settings.version),
      text(settings.value),
    ],
  })) as unknown[];
  await index.apply(tenant, reply.slice(1).map(String) as IndexView);
  await Promise.all(OLD_HASHES.map((name) => client.hDel(key(name), tenant)));
  if (moved) await client.del([`${oldRecord}installation`, `${oldRecord}tokens`, `${oldRecord}settings`]);
}
