import { existsSync } from 'node:fs';
import { createClient } from '@redis/client';
import { type Config, loadConfig } from '../src/common/config.js';
import { describeError, errorCode } from '../src/common/errors.js';
import { createLogger } from '../src/common/logger.js';
import { SecretIndex, scrubShapes } from '../src/common/secret-scrubber.js';
import { migrationsFor } from '../src/state/redis/migrations/deployment.js';
import { runMigrations } from '../src/state/redis/migrations/runner.js';
import { closeRedis, connectRedis, redisAddress } from '../src/state/redis/redis-client.js';

/*
 * npm run migrate: brings the deployment's stored data (REDIS_URL, REDIS_CLUSTER, as the app reads them) to
 * this version's layout, one recorded step at a time. Safe to run again, and while replicas run: a step
 * already recorded is not run again, and only one run at a time holds the lease. Exit 0 when every step is
 * done, 1 when one failed (what to do is printed), 2 when the settings are wrong.
 */

if (existsSync('.env')) process.loadEnvFile('.env');
const secrets = new SecretIndex();
for (const value of Object.values(process.env)) if (value && value.length >= 8) secrets.add(value);
const print = (stream: NodeJS.WriteStream, line: string) =>
  stream.write(`${scrubShapes(secrets.scrub(line))}\n`);

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  print(process.stderr, `The settings are not valid, so nothing was migrated:\n${describeError(error)}`);
  process.exit(2);
}
if (!config.redisUrl) {
  print(process.stdout, 'Nothing to migrate: without REDIS_URL the bot keeps its state in memory.');
  process.exit(0);
}
const logger = createLogger({ level: 'silent', secrets: [] });
// One look without reconnects first: a Redis that does not answer ends the run with a message, not a hang.
const where = redisAddress(config.redisUrl);
const probe = createClient({
  url: config.redisUrl,
  socket: { connectTimeout: 5_000, reconnectStrategy: false },
});
probe.on('error', () => undefined);
try {
  await probe.connect();
  await probe.ping();
  await probe.close();
} catch (error) {
  if (probe.isOpen) probe.destroy();
  print(
    process.stderr,
    `Could not reach Redis at ${where} (REDIS_URL): ${describeError(error)}\nNothing was migrated: start Redis (or fix REDIS_URL) and run this again.`,
  );
  process.exit(1);
}
const client = await connectRedis(config.redisUrl, logger, {
  failFast: true,
  cluster: config.oauth?.redisCluster === true,
});
const { steps, keys } = migrationsFor(config, client, logger);
const described = new Map(steps.map((step) => [step.name, step.describe]));
let code = 0;
try {
  await runMigrations({
    client,
    steps,
    keys,
    onStep: (outcome) => {
      const counts = Object.entries(outcome.counts).map(([name, n]) => `${name}=${n}`);
      const what = outcome.status === 'recorded' ? 'already done' : counts.join(' ') || 'done';
      print(process.stdout, `${outcome.name}: ${what} (${described.get(outcome.name)})`);
    },
  });
  print(process.stdout, 'The stored data is up to date.');
} catch (error) {
  code = 1;
  const cause = error instanceof Error && error.cause !== undefined ? ` (${describeError(error.cause)})` : '';
  const advice =
    errorCode(error) === 'migration-busy'
      ? 'Another replica or run is migrating now; run this again in a minute to see it finished.'
      : 'Nothing recorded for the failed step: fix the cause and run this again (it goes on from that step).';
  print(process.stderr, `Migration stopped: ${describeError(error)}${cause}\n${advice}`);
} finally {
  await closeRedis(client).catch(() => undefined);
}
process.exit(code);
