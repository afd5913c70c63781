import { randomUUID } from 'node:crypto';
import { AppError } from '../../../common/errors.js';
import type { RedisClient } from '../redis-client.js';

/**
 * One named change of the deployment's Redis layout. A step is safe to run twice: a second run finds
 * nothing left to do and resolves zero counts (every write it makes is keyed by what it moves, so a
 * replica that ran it half-way and died leaves only what it had not moved).
 */
export interface MigrationStep {
  name: string;
  /** What the step does, in one line (printed by `npm run migrate`). */
  describe: string;
  /** Runs it; `stillOwner` throws once the run's lease was lost (call it between batches). */
  run(stillOwner: () => Promise<void>): Promise<Record<string, number>>;
}

export interface StepOutcome {
  name: string;
  /** `ran`: ran now; `recorded`: recorded done by an earlier run (not run again, nothing counted). */
  status: 'ran' | 'recorded';
  counts: Record<string, number>;
}

export type MigrationErrorCode = 'migration-lease-lost' | 'migration-busy' | 'migration-step-failed';

export class MigrationError extends AppError<MigrationErrorCode> {}

export interface MigrationKeys {
  /** Hash: step name → when it completed and its counts (JSON). */
  done: string;
  /** The run's lease: the fencing token of its holder. */
  lease: string;
  /** Incremented by every run that takes the lease: its fencing token. */
  fence: string;
}

/** Where the record and the lease live: outside every tenant's key space, one hash tag (a Cluster slot). */
export function migrationKeys(prefix = 'docs-agent'): MigrationKeys {
  const base = `${prefix}:{migrations}`;
  return { done: `${base}:done`, lease: `${base}:lease`, fence: `${base}:fence` };
}

/** How long a lease lasts without renewal: a runner that died frees it after this. */
export const MIGRATION_LEASE_MS = 60_000;

/** Takes the lease under a new fencing token; 0 when another run holds it. */
const TAKE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** A step's completion is recorded only by the lease's holder (fenced: a stale runner records nothing). */
const RECORD = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Whether every step is recorded done: one HMGET (what each process start asks first). */
export async function allRecorded(
  client: RedisClient,
  steps: readonly MigrationStep[],
  keys: MigrationKeys,
): Promise<boolean> {
  if (steps.length === 0) return true;
  const found = await client.hmGet(
    keys.done,
    steps.map((step) => step.name),
  );
  return found.every((value) => value !== null && value !== undefined);
}

/**
 * Runs the steps not yet recorded, in order, under the lease; records each as it completes. Throws
 * `migration-busy` when another run holds the lease, `migration-lease-lost` when this one lost it (the
 * other run finishes the work), `migration-step-failed` when a step threw (steps after it do not run;
 * a later run goes on from that step).
 */
export async function runMigrations(o: {
  client: RedisClient;
  steps: readonly MigrationStep[];
  keys?: MigrationKeys;
  leaseMs?: number;
  onStep?: (outcome: StepOutcome) => void;
}): Promise<StepOutcome[]> {
  const keys = o.keys ?? migrationKeys();
  const leaseMs = o.leaseMs ?? MIGRATION_LEASE_MS;
  const { client } = o;
  const token = Number(
    await client.eval(TAKE, { keys: [keys.lease, keys.fence], arguments: [String(leaseMs)] }),
  );
  if (!token) throw new MigrationError('migration-busy', 'another process is migrating the deployment now');
  const owner = String(token);
  let lost = false;
  const renew = setInterval(
    () => {
      client.eval(RENEW, { keys: [keys.lease], arguments: [owner, String(leaseMs)] }).then(
        (renewed) => {
          if (Number(renewed) === 0) lost = true;
        },
        () => undefined, // Redis unreachable: the next renewal or check says whether the lease is still ours
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  const stillOwner = async () => {
    if (lost || (await client.get(keys.lease)) !== owner)
      throw new MigrationError('migration-lease-lost', 'the migration lease was taken over by another run');
  };
  const outcomes: StepOutcome[] = [];
  try {
    const recorded = await client.hmGet(
      keys.done,
      o.steps.map((step) => step.name),
    );
    for (const [i, step] of o.steps.entries()) {
      const before = recorded[i];
      if (before !== null && before !== undefined) {
        // Nothing done now: a run after a complete one changes nothing and counts nothing.
        const outcome: StepOutcome = { name: step.name, status: 'recorded', counts: {} };
        outcomes.push(outcome);
        o.onStep?.(outcome);
        continue;
      }
      await stillOwner();
      let counts: Record<string, number>;
      try {
        counts = await step.run(stillOwner);
      } catch (error) {
        if (error instanceof MigrationError) throw error;
        throw new MigrationError('migration-step-failed', `step ${step.name} failed`, { cause: error });
      }
      const record = JSON.stringify({ at: Date.now(), counts, run: randomUUID() });
      const wrote = await client.eval(RECORD, {
        keys: [keys.lease, keys.done],
        arguments: [owner, step.name, record],
      });
      if (Number(wrote) !== 1)
        throw new MigrationError('migration-lease-lost', 'the migration lease was taken over by another run');
      const outcome: StepOutcome = { name: step.name, status: 'ran', counts };
      outcomes.push(outcome);
      o.onStep?.(outcome);
    }
    return outcomes;
  } finally {
    clearInterval(renew);
    await client.eval(RELEASE, { keys: [keys.lease], arguments: [owner] }).catch(() => undefined);
  }
}
