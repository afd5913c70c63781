import { describeError, errorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import type { RedisClient } from '../redis-client.js';
import {
  allRecorded,
  type MigrationKeys,
  type MigrationStep,
  migrationKeys,
  runMigrations,
} from './runner.js';

/** How often a replica that found the lease held looks again, and how long it waits in all. */
const WAIT_STEP_MS = 500;
export const MIGRATION_WAIT_MS = 5 * 60_000;

export type StartMigration = 'recorded' | 'ran' | 'waited' | 'failed' | 'stopped';

/**
 * Once per process start in Redis mode, before any Worker or scope: one HMGET when every step is recorded
 * (the usual start). Otherwise this replica runs the steps; a replica that finds the lease held waits until
 * the other one has recorded them all (or, should it die, takes the lease itself), at most `maxWaitMs`.
 * A run that fails is logged with what to do and the start goes on: the work not moved stays where it was,
 * untouched, until `npm run migrate` (or the next start) moves it.
 */
export async function migrateAtStart(o: {
  client: RedisClient;
  steps: readonly MigrationStep[];
  logger: Logger;
  signal?: AbortSignal;
  keys?: MigrationKeys;
  maxWaitMs?: number;
  waitStepMs?: number;
  /** Called once when this replica starts waiting for another one's run (tests). */
  onWaiting?: () => void;
}): Promise<StartMigration> {
  const keys = o.keys ?? migrationKeys();
  const log = o.logger.child({ component: 'migrations' });
  const deadline = Date.now() + (o.maxWaitMs ?? MIGRATION_WAIT_MS);
  let waited = false;
  try {
    for (;;) {
      if (await allRecorded(o.client, o.steps, keys)) return waited ? 'waited' : 'recorded';
      if (o.signal?.aborted) return 'stopped';
      try {
        const outcomes = await runMigrations({ client: o.client, steps: o.steps, keys });
        const ran = outcomes.filter((outcome) => outcome.status === 'ran');
        for (const outcome of ran) log.info({ step: outcome.name, ...outcome.counts }, 'migrated');
        // Recorded by another run between the look above and the lease: nothing ran here.
        if (ran.length === 0) return waited ? 'waited' : 'recorded';
        return 'ran';
      } catch (error) {
        if (errorCode(error) !== 'migration-busy' && errorCode(error) !== 'migration-lease-lost') throw error;
      }
      if (Date.now() >= deadline) {
        log.error(
          {},
          'another replica has been migrating the stored data for too long; starting without waiting (run `npm run migrate` to finish it)',
        );
        return 'failed';
      }
      if (!waited) {
        log.info({}, 'another replica is migrating the stored data; waiting for it');
        o.onWaiting?.();
      }
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, o.waitStepMs ?? WAIT_STEP_MS).unref());
    }
  } catch (error) {
    log.error(
      { error: describeError(error) },
      'could not migrate the stored data; starting anyway (work not yet moved stays where it was: run `npm run migrate`)',
    );
    return 'failed';
  }
}
