import { createClient } from '@redis/client';
import { RedisProbe } from './deployment-redis.js';
import { createLogger, loadConfig, secretBoxFromSettings, tenantDirectoryFor } from './product.js';
import { sized } from './smoke.js';

/** The uninstalled tenant whose key space is purged, and what it and the busy tenants hold (both purge runs). */
export const PURGED = 'T0PURGED';
export const PURGED_KEYS = sized(2_000, 50);
export const BUSY_TENANTS = sized(1_000, 10);
export const KEYS_PER_BUSY_TENANT = 20;

export interface PurgeCost {
  /** Keys in Redis when the purge ran (the seeded installs' directory, busy tenants, the purged one). */
  keysInRedis: number;
  deleted: number;
  wallMs: number;
  scanCalls: number;
  /** Redis's own time for the purge's SCANs (the part that grows with everyone's keys), in ms. */
  scanMs: number;
  /** Redis's own time for its UNLINKs (the part that grows with the tenant's own keys), in ms. */
  unlinkMs: number;
  /** Other tenants' keys left as they were (they must all be). */
  othersKept: boolean;
}

/**
 * What a purge costs in a Redis that already holds many installs (issue 34): the product's own purge
 * (`tenantDirectoryFor(…).purge`, a SCAN MATCH of the tenant's prefix) on one uninstalled tenant's keys,
 * among busy tenants' keys and every seeded install's directory entry.
 */
export async function measurePurge(redisUrl: string, env: Record<string, string>): Promise<PurgeCost> {
  const keys = createClient({ url: redisUrl });
  await keys.connect();
  const probe = await RedisProbe.open(redisUrl);
  const config = { ...loadConfig(env), redisUrl };
  const handle = tenantDirectoryFor(
    config,
    secretBoxFromSettings(config.oauth!.encryptionKey, undefined),
    createLogger({ level: 'silent', secrets: [] }),
  );
  try {
    for (let t = 0; t < BUSY_TENANTS; t++) {
      const batch = keys.multi();
      for (let k = 0; k < KEYS_PER_BUSY_TENANT; k++) batch.set(`docs-agent:t:T0BUSY${t}:job:${k}`, 'x');
      await batch.exec();
    }
    for (let k = 0; k < PURGED_KEYS; k += 500) {
      const batch = keys.multi();
      for (let j = k; j < Math.min(PURGED_KEYS, k + 500); j++)
        batch.hSet(`docs-agent:t:${PURGED}:delivery:${j}`, { state: 'posted', payload: 'null' });
      await batch.exec();
    }
    await handle.waitUntilReady(new AbortController().signal);
    const keysInRedis = await keys.dbSize();
    const before = await commandUsec(probe);
    const started = performance.now();
    const deleted = await handle.purge(PURGED, 0);
    const wallMs = performance.now() - started;
    const after = await commandUsec(probe);
    const othersKept = (await keys.dbSize()) === keysInRedis - PURGED_KEYS;
    return {
      keysInRedis,
      deleted,
      wallMs,
      scanCalls: after.scanCalls - before.scanCalls,
      scanMs: (after.scanUsec - before.scanUsec) / 1000,
      unlinkMs: (after.unlinkUsec - before.unlinkUsec) / 1000,
      othersKept,
    };
  } finally {
    await handle.close();
    await probe.close();
    await keys.close();
  }
}

/** SCAN's calls, and SCAN's and UNLINK's time (µs), from INFO commandstats. */
async function commandUsec(
  probe: RedisProbe,
): Promise<{ scanCalls: number; scanUsec: number; unlinkUsec: number }> {
  const stats = await probe.commandStats();
  return {
    scanCalls: stats.get('scan')?.calls ?? 0,
    scanUsec: stats.get('scan')?.usec ?? 0,
    unlinkUsec: stats.get('unlink')?.usec ?? 0,
  };
}
