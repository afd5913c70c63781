import { parseArgs } from 'node:util';
import { SecretIndex, scrubShapes } from '../src/common/secret-scrubber.js';
import { copyToCluster, TENANT_ID } from './lib/redis-to-cluster.js';
import { passwordsOf, resolveUrls, type UrlOptions } from './lib/redis-to-cluster-args.js';

/* npm run redis:to-cluster: copies a stopped deployment's keys from its single Redis node to a Redis Cluster. */

const USAGE = `Usage: REDIS_FROM_URL=redis://:pw@old:6379 REDIS_TO_URL=redis://:pw@node1:7000 npm run redis:to-cluster -- [--upgraded-team T…] [--force]

Moves a deployment (OAuth mode) from one Redis node to a Redis Cluster. Stop every replica of the bot first,
then run this: it copies every docs-agent key, with its TTL, under the cluster's hash-tagged names. Then set
REDIS_URL to a node of the cluster and REDIS_CLUSTER=true, remove SLACK_UPGRADED_TEAM_ID, and start the bot.
The single node is left as it was (a way back until the cluster has taken new writes).

  REDIS_FROM_URL    the single Redis node the deployment used (its REDIS_URL)
  REDIS_TO_URL      any node of the Redis Cluster (an empty one)
  --from-file, --to-file   or read each URL from a file (its first line)
  --from, --to      or give a URL on the command line, only without a password (npm prints the command)
  --upgraded-team   SLACK_UPGRADED_TEAM_ID, if the deployment was single-workspace before
  --force           copy even while other clients are connected to the single node, or into a cluster with docs-agent keys
`;

function usageError(problem: string): never {
  process.stderr.write(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

let values: UrlOptions & { 'upgraded-team'?: string; force?: boolean; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'from-file': { type: 'string' },
      'to-file': { type: 'string' },
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
const urls = resolveUrls(values, process.env);
if (!urls.ok) usageError(urls.problem);
// Whatever an error quotes (a URL, a client's message), the passwords are never printed.
const secrets = new SecretIndex();
for (const password of passwordsOf(urls.from, urls.to)) secrets.add(password);
const print = (stream: NodeJS.WriteStream, line: string) =>
  stream.write(`${scrubShapes(secrets.scrub(line))}\n`);
const upgraded = values['upgraded-team'];
if (upgraded !== undefined && !TENANT_ID.test(upgraded))
  usageError(`--upgraded-team must be a Slack team id (T… or E…), the value SLACK_UPGRADED_TEAM_ID had`);

try {
  await copyToCluster({
    from: urls.from,
    to: urls.to,
    ...(upgraded !== undefined ? { upgradedTenant: upgraded } : {}),
    force: values.force === true,
    log: (line) => print(process.stdout, line),
  });
  process.exit(0);
} catch (error) {
  // Each message says what to do; refusals come before anything is written.
  print(process.stderr, `Not copied: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
