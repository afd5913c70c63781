import { randomBytes } from 'node:crypto';
import type { TenantKey } from '../../tenants/tenant.js';
import { guardState } from '../keyv-job-store.js';
import type { RedisClient } from './redis-client.js';

/*
 * The directory's small index (issue 43 §5), in the directory's own slot: which tenants are installed, whose
 * token is due for a refresh, who is on hold, whose purge is due, and the stream of changes replicas follow.
 * No secret and no record is here: each install's record lives in its tenant's slot (./redis-tenant-
 * scripts.ts). The record decides; the index is brought up to it after each write of it, so:
 *   - a write first notes its intent here (`tenant-index-pending`), then writes the record, then brings the
 *     index up to the record's view and drops the intent, all three one step each on the server;
 *   - each index entry carries the record's seq it reflects, and a view older than the entry is ignored, so
 *     two replicas' updates landing out of order leave the newer;
 *   - a process that stops between the steps leaves its intent; `repair` (the upkeep's tick, any replica)
 *     brings those tenants' entries up to their records after PENDING_GRACE_MS;
 *   - readers ask the record: an index entry without a record is "not installed" (stamps(), the upkeep's
 *     re-reads), so a stale entry is never served.
 * Keys (under the directory's prefix):
 *   tenants              hash tenant → seq (installed tenants)
 *   tenant-removed       hash tenant → seq of its uninstall (until its purge is done or it is re-installed):
 *                        an older view arriving late cannot bring an uninstalled tenant back into the index
 *   tenant-holds         hash tenant → hold JSON
 *   tenant-refresh-due   zset tenant → when its rotating token expires
 *   tenant-purges        zset tenant → purgeAt
 *   tenant-changes       stream of `t` → tenant, capped (about CHANGES_KEPT)
 *   tenant-index-pending zset "<tenant>|<nonce>" → when the write began
 */

/** The keys the index script takes, in this order. */
export const INDEX_KEYS = [
  'tenants',
  'tenant-removed',
  'tenant-holds',
  'tenant-refresh-due',
  'tenant-purges',
  'tenant-changes',
  'tenant-index-pending',
] as const;

/** Entries the changes stream keeps (trimmed approximately): far more than a replica misses in a blip. */
export const CHANGES_KEPT = 10_000;

/** An intent older than this is taken for a write that stopped half-way; its tenant's entries are repaired. */
export const PENDING_GRACE_MS = 30_000;

/** A record's index view, as its scripts answer it: seq, stamp ('' = not installed), hold, due, purgeAt. */
export type IndexView = [seq: string, stamp: string, hold: string, due: string, purgeAt: string];

/** ARGV: tenant, seq, stamp, hold, due, purgeAt, intent member ('' = none). 1: applied; 0: older, ignored. */
export const APPLY_VIEW = `
local tenants, removed, holds, due, purges, changes, pending = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local tenant, seq = ARGV[1], tonumber(ARGV[2])
if ARGV[7] ~= '' then redis.call('ZREM', pending, ARGV[7]) end
local last = tonumber(redis.call('HGET', tenants, tenant) or redis.call('HGET', removed, tenant) or '0')
if seq <= last then return 0 end
if ARGV[3] ~= '' then
  redis.call('HSET', tenants, tenant, seq)
  redis.call('HDEL', removed, tenant)
else
  redis.call('HDEL', tenants, tenant)
  if ARGV[6] ~= '' then redis.call('HSET', removed, tenant, seq) else redis.call('HDEL', removed, tenant) end
end
if ARGV[4] ~= '' then redis.call('HSET', holds, tenant, ARGV[4]) else redis.call('HDEL', holds, tenant) end
if ARGV[5] ~= '' then redis.call('ZADD', due, ARGV[5], tenant) else redis.call('ZREM', due, tenant) end
if ARGV[6] ~= '' then redis.call('ZADD', purges, ARGV[6], tenant) else redis.call('ZREM', purges, tenant) end
redis.call('XADD', changes, 'MAXLEN', '~', ${CHANGES_KEPT}, '*', 't', tenant)
return 1
`;

/** The directory's index: intents, views applied in order, repair of what a stopped write left. */
export class DirectoryIndex {
  constructor(
    private readonly client: RedisClient,
    /** The directory's key prefix (ending in `:`). */
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  key(name: (typeof INDEX_KEYS)[number]): string {
    return this.prefix + name;
  }

  /** Notes that a write of this tenant's record begins; resolves the intent to pass to `apply`. */
  async intend(tenant: TenantKey): Promise<string> {
    const member = `${tenant}|${randomBytes(6).toString('hex')}`;
    await guardState(() =>
      this.client.zAdd(this.key('tenant-index-pending'), { score: this.now(), value: member }),
    );
    return member;
  }

  /** The write was refused (nothing changed): its intent goes. */
  async drop(intent: string): Promise<void> {
    await guardState(() => this.client.zRem(this.key('tenant-index-pending'), intent));
  }

  /** Brings the tenant's entries up to its record's view (unless a newer one is there); drops the intent. */
  async apply(tenant: TenantKey, view: IndexView, intent = ''): Promise<boolean> {
    const keys = INDEX_KEYS.map((name) => this.key(name));
    const reply = await guardState(() =>
      this.client.eval(APPLY_VIEW, { keys, arguments: [tenant, ...view, intent] }),
    );
    return Number(reply) === 1;
  }

  /**
   * Intents older than PENDING_GRACE_MS: their tenants' entries are brought up to their records as read now
   * (`read`), a write that stopped half-way repaired. Safe on every replica at once. Resolves how many.
   */
  async repair(read: (tenant: TenantKey) => Promise<IndexView>): Promise<number> {
    const stale = (await guardState(() =>
      this.client.zRangeByScore(this.key('tenant-index-pending'), '-inf', this.now() - PENDING_GRACE_MS, {
        LIMIT: { offset: 0, count: 200 },
      }),
    )) as string[];
    for (const intent of stale) {
      const tenant = intent.slice(0, intent.indexOf('|'));
      await this.apply(tenant, await read(tenant), intent);
    }
    return stale.length;
  }
}
