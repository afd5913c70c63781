import { parseArgs } from 'node:util';
import { copyToCluster, TENANT_ID } from './lib/redis-to-cluster.js';

/* npm run redis:to-cluster: copies a stopped deployment's keys from its single Redis node to a Redis Cluster. */

const USAGE = `Usage: npm run redis:to-cluster -- --from redis://old:6379 --to redis://node1:7000 [--upgraded-team T…] [--force]

Moves a deployment (OAuth mode) from one Redis node to a Redis Cluster. Stop every replica of the bot first,
then run this: it copies every docs-agent key, with its TTL, under the cluster's hash-tagged names. Then set
REDIS_URL to a node of the cluster and REDIS_CLUSTER=true, remove SLACK_UPGRADED_TEAM_ID, and start the bot.
The single node is left as it was (a way back until the cluster has taken new writes).

  --from            the single Redis node the deployment used (its REDIS_URL)
  --to              any node of the Redis Cluster (an empty one)
  --upgraded-team   SLACK_UPGRADED_TEAM_ID, if the deployment was single-workspace before
  --force           copy even while other clients are connected to --from, or into a cluster with docs-agent keys
`;

function usageError(problem: string): never {
  process.stderr.write(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

let values: { from?: string; to?: string; 'upgraded-team'?: string; force?: boolean; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'upgraded-team': { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  usageError(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const isRedisUrl = (url: string | undefined) => url !== undefined && /^rediss?:\/\/[^/]/.test(url);
if (!isRedisUrl(values.from)) usageError('--from must be the single Redis node, e.g. redis://old:6379');
if (!isRedisUrl(values.to)) usageError('--to must be a node of the Redis Cluster, e.g. redis://node1:7000');
const upgraded = values['upgraded-team'];
if (upgraded !== undefined && !TENANT_ID.test(upgraded))
  usageError(`--upgraded-team must be a Slack team id (T… or E…), the value SLACK_UPGRADED_TEAM_ID had`);

try {
  await copyToCluster({
    from: values.from!,
    to: values.to!,
    ...(upgraded !== undefined ? { upgradedTenant: upgraded } : {}),
    force: values.force === true,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.exit(0);
} catch (error) {
  // Each message says what to do; refusals come before anything is written.
  process.stderr.write(`Not copied: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
