import type { RedisClient } from './redis-client.js';

/** A tenant over its per-second ceiling is moved back at most this far (then counted again). */
const RATE_DEFER_MAX_MS = 30_000;

/**
 * The tenant's starts of a kind in the current second, counted in Redis under `keyPrefix` (its shard's tag)
 * so the ceiling holds across replicas (as BullMQ's queue-wide limiter did when each tenant had its own
 * queue). Over it: how long until the second this start fits in (the n-th over the ceiling waits n / max
 * seconds more), else 0.
 */
export async function rateDeferral(
  client: RedisClient,
  keyPrefix: string,
  tenant: string,
  max: number | undefined,
): Promise<number> {
  if (!max || max <= 0) return 0;
  const now = Date.now();
  const second = Math.floor(now / 1000);
  const key = `${keyPrefix}:rate:${encodeURIComponent(tenant)}:${second}`;
  const [count] = (await client.multi().incr(key).pExpire(key, 2_000).exec()) as [number, unknown];
  if (count <= max) return 0;
  const secondsLater = 1 + Math.floor((count - max - 1) / max);
  return Math.min(RATE_DEFER_MAX_MS, (second + secondsLater) * 1000 - now);
}

/**
 * How long a running job holds its slot of its tenant's deployment-wide cap should its replica die
 * without giving it back (a job running longer gives up its count meanwhile: one more may start).
 */
const RUN_SLOT_MS = 60_000;

/** Takes a slot if fewer than `cap` of the tenant's jobs of the kind run in the deployment: 1, else 0. */
const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The per-tenant cap across every replica (issue 43): the tenant's running jobs of a kind are members of a
 * sorted set under its shard's tag, scored by when their slot lapses. Resolves a function giving the slot
 * back, or undefined when the tenant is at its cap (the job is then moved back like a capped one).
 */
export async function takeRunSlot(
  client: RedisClient,
  keyPrefix: string,
  tenant: string,
  cap: number,
  member: string,
): Promise<(() => Promise<unknown>) | undefined> {
  const key = `${keyPrefix}:running:${encodeURIComponent(tenant)}`;
  const now = Date.now();
  const taken = await client.eval(TAKE_SLOT, {
    keys: [key],
    arguments: [String(now), String(cap), String(now + RUN_SLOT_MS), member, String(RUN_SLOT_MS * 2)],
  });
  return Number(taken) === 1 ? () => client.zRem(key, member) : undefined;
}

/**
 * The kinds BullMQ takes: the job's slot of its tenant's cap (Redis failing leaves only this replica's cap)
 * and its second under the ceiling; else 'cap', or how long until the second it fits in.
 */
export async function runSlotOrDeferral(
  client: RedisClient,
  shard: string,
  tenant: string,
  cap: number,
  member: string,
  maxPerSecond: number | undefined,
): Promise<(() => Promise<unknown>) | 'cap' | number> {
  const slot = await takeRunSlot(client, shard, tenant, cap, member).catch(() => noSlot);
  if (!slot) return 'cap';
  const overRate = await rateDeferral(client, shard, tenant, maxPerSecond).catch((e) => {
    void slot().catch(() => 0);
    throw e;
  });
  if (overRate <= 0) return slot;
  await slot().catch(() => 0);
  return overRate;
}

/** No slot taken (Redis failed, or the fair take holds it): nothing to give back here. */
export const noSlot = async () => 0;

/** A job of a tenant at its cap is moved back this long, more the longer that tenant's backlog. */
const DEFER_STEP_MS = 100;
const DEFER_MAX_MS = 5_000;

/** The kinds BullMQ takes (take-and-defer): how far back a capped tenant's job goes. */
export class CapDeferrals {
  private readonly recent = new Map<string, { count: number; since: number }>();

  constructor(private readonly cap: number) {}

  /** Further the more of the tenant's jobs were moved back in the last second. */
  delay(key: string): number {
    const now = Date.now();
    const seen = this.recent.get(key);
    const recent = seen && now - seen.since < 1_000 ? seen : { count: 0, since: now };
    recent.count++;
    this.recent.set(key, recent);
    return Math.min(DEFER_MAX_MS, DEFER_STEP_MS * (1 + Math.floor(recent.count / this.cap)));
  }

  /** None of the tenant's jobs run here any more. */
  forget(key: string): void {
    this.recent.delete(key);
  }
}
