import type { Config } from '../../../common/config.js';
import type { Logger } from '../../../common/logger.js';
import type { RedisClient } from '../redis-client.js';
import { type MigrationKeys, type MigrationStep, migrationKeys } from './runner.js';
import { type DeploymentLayout, oauthMigrations, singleWorkspaceMigrations } from './steps.js';

export { migrateAtStart } from './at-start.js';

/** What the steps need of the app's settings: the same ones the app reads (REDIS_CLUSTER, QUEUE_SHARDS…). */
export function layoutOf(config: Config): DeploymentLayout {
  const { oauth } = config;
  return oauth
    ? {
        oauth: {
          upgradedTenant: oauth.upgradedTenant,
          queueShards: oauth.queueShards,
          cluster: oauth.redisCluster,
        },
      }
    : {};
}

/** The deployment's ordered steps for this config, and where their record and lease live. */
export function migrationsFor(
  config: Config,
  client: RedisClient,
  logger: Logger,
  namespace = 'docs-agent',
): { steps: MigrationStep[]; keys: MigrationKeys } {
  const { oauth } = layoutOf(config);
  return oauth
    ? { steps: oauthMigrations({ client, logger, oauth }), keys: migrationKeys() }
    : { steps: singleWorkspaceMigrations({ client, logger, namespace }), keys: migrationKeys(namespace) };
}
