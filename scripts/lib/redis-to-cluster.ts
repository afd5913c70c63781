import { createClient, RESP_TYPES } from '@redis/client';
import { redisAddress } from '../../src/state/redis/redis-client.js';
import {
  closeCluster,
  createClusterClient,
  type NodeRedisCluster,
} from '../../src/state/redis/redis-cluster.js';
import { directoryRecordPrefix } from '../../src/state/redis/redis-tenant-directory.js';
import { DIRECTORY_PREFIX, directoryPrefix, tenantNamespace } from '../../src/state/tenant-directories.js';

/*
 * npm run redis:to-cluster: a stopped deployment's keys, from the single Redis node it used to a Redis
 * Cluster, renamed to the cluster's layout (every tenant and the directory under a hash tag). The naming
 * rules are the product's own (tenantNamespace, directoryPrefix), so the two cannot drift apart.
 */

export type SkipReason = 'not-ours' | 'install-counter' | 'old-queue';
export type ClusterKey = { to: string } | { skip: SkipReason } | { unknown: true };

const OURS = 'docs-agent:';
const TENANTS = 'docs-agent:t:';
const TAGGED = 'docs-agent:{';
const INSTALL_COUNTERS = 'docs-agent:installs:';
const INSTALL_FAILURES = 'docs-agent:install-failures:';
/** A used install link's state (10 minutes): moved, so a link used before the move stays used. */
const INSTALL_STATES = 'docs-agent:install-state:';
const OLD_SHARED_QUEUES = 'docs-agent:bull:';
export const TENANT_ID = /^[TE][A-Z0-9]+$/;

/** Where a key of the single node goes on the cluster, or why it stays behind. */
export function clusterKeyOf(key: string, upgradedTenant?: string): ClusterKey {
  if (!key.startsWith(OURS)) return { skip: 'not-ours' };
  if (key.startsWith(TAGGED)) return { to: key };
  // One-minute windows: nothing is lost by starting them again.
  if (key.startsWith(INSTALL_COUNTERS) || key.startsWith(INSTALL_FAILURES))
    return { skip: 'install-counter' };
  if (key.startsWith(INSTALL_STATES)) return { to: `docs-agent:{installs}:${key.slice(OURS.length)}` };
  if (key.startsWith(OLD_SHARED_QUEUES)) return { skip: 'old-queue' };
  if (key.startsWith(DIRECTORY_PREFIX)) return directoryKeyOf(key);
  if (key.startsWith(TENANTS)) return tenantKeyOf(key);
  // The rest is the upgraded workspace's single-workspace names: they need to know whose they are.
  if (upgradedTenant === undefined) return { unknown: true };
  return { to: `${tenantNamespace(upgradedTenant, undefined, 0, true)}:${key.slice(OURS.length)}` };
}

/**
 * The directory's index goes to its slot; an install's record (`…:directory:tenant:<T>:<name>`) to its
 * tenant's (issue 43 §5), where the cluster's directory reads it.
 */
function directoryKeyOf(key: string): ClusterKey {
  const rest = key.slice(DIRECTORY_PREFIX.length);
  const record = /^tenant:([A-Za-z0-9_-]{1,64}):([a-z]+)$/.exec(rest);
  if (record) return { to: directoryRecordPrefix(directoryPrefix(true), record[1]!) + record[2]! };
  return { to: directoryPrefix(true) + rest };
}

/** `docs-agent:t:<T>[@<g>]<rest>`; anything else under `docs-agent:t:` is no key the product writes. */
function tenantKeyOf(key: string): ClusterKey {
  const start = TENANTS.length;
  const colon = key.indexOf(':', start);
  if (colon < 0) return { skip: 'not-ours' };
  const at = key.indexOf('@', start);
  const idEnd = at >= 0 && at < colon ? at : colon;
  const tenant = key.slice(start, idEnd);
  if (!TENANT_ID.test(tenant)) return { skip: 'not-ours' };
  let generation = 0;
  if (idEnd === at) {
    const text = key.slice(at + 1, colon);
    generation = Number(text);
    if (!Number.isSafeInteger(generation) || generation < 1 || String(generation) !== text)
      return { skip: 'not-ours' };
  }
  const rest = key.slice(colon);
  if (rest.startsWith(':bull:')) return { skip: 'old-queue' };
  return { to: tenantNamespace(tenant, undefined, generation, true) + rest };
}

export interface CopyOptions {
  from: string;
  to: string;
  upgradedTenant?: string;
  force?: boolean;
  log: (line: string) => void;
}

export interface CopyResult {
  copied: number;
  skipped: Record<string, number>;
}

// A one-shot tool: a lost connection fails the run (it can be run again) instead of waiting for Redis.
const sourceClient = (url: string) =>
  createClient({ url, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
type Source = ReturnType<typeof sourceClient>;
const PAGE = 500;
const EXAMPLES = 3;

export async function copyToCluster(o: CopyOptions): Promise<CopyResult> {
  if (o.upgradedTenant !== undefined && !TENANT_ID.test(o.upgradedTenant))
    throw new Error(
      `--upgraded-team ${o.upgradedTenant} is not a Slack team id (T… or E…): pass the value SLACK_UPGRADED_TEAM_ID had`,
    );
  const from = redisAddress(o.from);
  const to = redisAddress(o.to);
  const source = sourceClient(o.from);
  let sourceError: unknown;
  source.on('error', (error: unknown) => {
    sourceError = error;
  });
  const cluster = createClusterClient(o.to, { failFast: true, reconnectStrategy: () => 500 });
  let clusterError: unknown;
  cluster.on('error', (error: unknown) => {
    clusterError = error;
  });
  try {
    await source.connect().catch((error: unknown) => {
      throw new Error(`cannot reach the Redis at ${from} (${why(sourceError ?? error)}): check --from`);
    });
    if ((await source.info('cluster')).includes('cluster_enabled:1'))
      throw new Error(
        `${from} is a node of a Redis Cluster: --from must be the single Redis node the deployment used`,
      );
    await cluster.connect().catch((error: unknown) => {
      throw new Error(
        `cannot use ${to} as a Redis Cluster (${why(clusterError ?? error)}): --to must be a reachable node of a Redis Cluster`,
      );
    });
    await refuseWhileConnected(source, from, o.force === true);
    await refuseNonEmptyTarget(cluster, to, o.force === true);
    await refuseUnmovable(source, from, o.upgradedTenant);
    const result = await copy(source, cluster, o).catch((error: unknown) => {
      throw new Error(
        `the copy stopped part-way (${why(error)}): fix that, then run again with --force (it copies over the keys already there)`,
      );
    });
    const onTarget = await ourKeys(cluster);
    o.log(summary(result, onTarget, from, to));
    return result;
  } finally {
    if (source.isOpen) source.destroy();
    await closeCluster(cluster);
  }
}

function why(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

/** A replica still running would write to the source after its keys were read: those writes would be lost. */
async function refuseWhileConnected(source: Source, from: string, force: boolean): Promise<void> {
  if (force) return;
  const own = String(await source.clientId());
  const others = (await source.sendCommand<string>(['CLIENT', 'LIST']))
    .split('\n')
    .filter((line) => line.startsWith('id='))
    .filter((line) => !line.startsWith(`id=${own} `))
    // A Redis replica of the source (HA) is no bot: its link does not write.
    .filter((line) => !/ flags=[A-Za-z]*[SM]/.test(line));
  if (others.length > 0)
    throw new Error(
      `${others.length} other client${others.length === 1 ? ' is' : 's are'} connected to ${from}: stop every replica of the bot first (or pass --force)`,
    );
}

/** Keys of another deployment, or of an earlier run, would be mixed with these (or overwritten). */
async function refuseNonEmptyTarget(cluster: NodeRedisCluster, to: string, force: boolean): Promise<void> {
  if (force) return;
  for (const master of cluster.masters) {
    const node = await cluster.nodeClient(master);
    let cursor = '0';
    do {
      const page = await node.scan(cursor, { MATCH: `${OURS}*`, COUNT: 1_000 });
      cursor = String(page.cursor);
      const found = page.keys[0];
      if (found !== undefined)
        throw new Error(
          `the Redis Cluster at ${to} already holds docs-agent keys (${found} on ${master.host}:${master.port}): copy into an empty cluster, or pass --force to copy over what is there`,
        );
    } while (cursor !== '0');
  }
}

/** A first pass that only reads: nothing is written unless every key can be moved. */
async function refuseUnmovable(source: Source, from: string, upgradedTenant?: string): Promise<void> {
  const unknown: string[] = [];
  const oldQueues: string[] = [];
  const collisions: string[] = [];
  let unknownCount = 0;
  let oldCount = 0;
  // The upgraded workspace has no `docs-agent:t:<it>:` keys on one node: if some exist, the id is not its.
  const collides = upgradedTenant === undefined ? undefined : `${TENANTS}${upgradedTenant}:`;
  for await (const keys of source.scanIterator({ COUNT: PAGE })) {
    for (const key of keys) {
      const where = clusterKeyOf(key, upgradedTenant);
      if ('unknown' in where && unknownCount++ < EXAMPLES) unknown.push(key);
      if ('skip' in where && where.skip === 'old-queue' && oldCount++ < EXAMPLES) oldQueues.push(key);
      if (collides && key.startsWith(collides) && collisions.length < EXAMPLES) collisions.push(key);
    }
  }
  // A moved queue is obliterated, every key of it: any key left is a queue not moved yet, whose jobs would
  // be lost.
  if (oldCount > 0)
    throw new Error(
      `${from} holds ${oldCount} key(s) of old per-tenant queues (${oldQueues.join(', ')}): run \`npm run migrate\` against the single Redis first (REDIS_URL set to it; it moves them onto the shared queues), then copy`,
    );
  if (unknownCount > 0)
    throw new Error(
      `${from} holds ${unknownCount} key(s) with single-workspace names (${unknown.join(', ')}): they are the upgraded workspace's; pass --upgraded-team <SLACK_UPGRADED_TEAM_ID> to move them under that workspace`,
    );
  if (collisions.length > 0)
    throw new Error(
      `${from} already holds keys of ${upgradedTenant} as an OAuth tenant (${collisions.join(', ')}), so it is not the upgraded workspace: check --upgraded-team against SLACK_UPGRADED_TEAM_ID`,
    );
}

async function copy(source: Source, cluster: NodeRedisCluster, o: CopyOptions): Promise<CopyResult> {
  const raw = source.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  // SCAN may return a key twice: each is copied (and counted) once.
  const seen = new Set<string>();
  let copied = 0;
  let reported = 0;
  for await (const keys of source.scanIterator({ COUNT: PAGE })) {
    const moves: { from: string; to: string }[] = [];
    for (const key of keys) {
      if (seen.has(key)) continue;
      seen.add(key);
      const where = clusterKeyOf(key, o.upgradedTenant);
      if ('to' in where) moves.push({ from: key, to: where.to });
      else skip('skip' in where ? where.skip : 'unknown');
    }
    const done = await Promise.all(
      moves.map(async (move) => {
        const [ttl, payload] = await Promise.all([raw.pTTL(move.from), raw.dump(move.from)]);
        if (ttl === -2 || payload === null) return false;
        // PTTL -1: no expiry (RESTORE's 0). A key about to expire must not become one that never does.
        await cluster.restore(move.to, ttl === -1 ? 0 : Math.max(1, ttl), payload, { REPLACE: true });
        return true;
      }),
    );
    for (const ok of done) if (ok) copied++;
    for (const ok of done) if (!ok) skip('gone');
    if (copied - reported >= 10_000) {
      reported = copied;
      o.log(`… ${copied} keys copied`);
    }
  }
  return { copied, skipped };
}

/** How many docs-agent keys every master of the cluster holds together. */
async function ourKeys(cluster: NodeRedisCluster): Promise<number> {
  let count = 0;
  for (const master of cluster.masters) {
    const node = await cluster.nodeClient(master);
    const keys = new Set<string>();
    for await (const page of node.scanIterator({ MATCH: `${OURS}*`, COUNT: 1_000 }))
      for (const key of page) keys.add(key);
    count += keys.size;
  }
  return count;
}

const SKIPPED: Record<string, string> = {
  'not-ours': 'not docs-agent keys (left alone)',
  'install-counter': 'install counters (one-minute windows)',
  'old-queue': 'keys of old per-tenant queues',
  gone: 'keys gone between the scan and the copy (expired)',
};

function summary(result: CopyResult, onTarget: number, from: string, to: string): string {
  const skipped = Object.entries(result.skipped).map(([reason, n]) => `${SKIPPED[reason] ?? reason}: ${n}`);
  const check =
    onTarget === result.copied
      ? `the cluster holds exactly those ${onTarget} docs-agent keys`
      : `the cluster holds ${onTarget} docs-agent keys, not ${result.copied}: fewer if keys with a TTL expired since, more if it held keys before (--force); look before starting the bot`;
  return `Copied ${result.copied} keys from ${from} to the Redis Cluster at ${to}; ${check}.${
    skipped.length > 0 ? ` Not copied: ${skipped.join('; ')}.` : ''
  }`;
}
